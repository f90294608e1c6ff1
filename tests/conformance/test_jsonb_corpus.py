"""JSONB end to end through `jbx convert`: every fastjson2 corpus vector
that has a JSON rendering jbx can reproduce converts to JSON equal by value
(exact numbers) to fastjson2's; the shared JSON examples survive JSON ->
JSONB -> JSON exactly with --decimals=exact and as doubles by default; a
JSON Lines file survives as a sequence of JSONB documents. Prints the size
of JSONB against compact JSON for the seed documents.

Run as: python3 test_jsonb_corpus.py JBX SHARED_DIR
"""

import csv
import json
import os
import struct
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from harness import JBX, SHARED, jbx_run  # noqa: E402

failures = []
passed = 0


def check(name, ok, detail=""):
    global passed
    if ok:
        passed += 1
    else:
        failures.append(f"{name}: {detail}")


def exact(text):
    """JSON with numbers as Decimal (exact, 1.0 == 1.00)."""
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)


def loose(text):
    return json.loads(text, parse_int=float)


def convert(args, stdin=b""):
    code, out, err = jbx_run(["convert"] + args, stdin)
    return code, out, err.decode(errors="replace")


corpus = os.path.join(SHARED, "corpus", "jsonb")
with open(os.path.join(corpus, "cases.tsv"), newline="") as f:
    rows = list(csv.DictReader(f, delimiter="\t"))

# Dates are rendered by jbx's JSON writer (ISO 8601), not as fastjson2's
# "yyyy-MM-dd HH:mm:ss"; symbol-table vectors need fastjson2's table;
# cycles are errors (checked below); the rest must match by value. jbx
# prints bytes unsigned (fastjson2 signed) and floats with a double's
# digits (fastjson2 with a float's).
DATE_PREFIXES = ("v_date", "v_local", "v_instant", "v_zoned", "v_offset",
                 "v_bean_order")
for row in rows:
    name = row["name"]
    if name.startswith(DATE_PREFIXES) or row["decode"] == "symtab":
        continue
    if name in ("v_ref_cycle", "v_ref_repeated"):
        continue
    path = os.path.join(corpus, name + ".jsonb")
    code, out, err = convert([path, "-f", "jsonb", "-t", "json", "-c",
                              "--bytes=array", "--nan=null",
                              "--type-names=drop"])
    with open(os.path.join(corpus, name + ".json"), encoding="utf-8") as f:
        want = exact(f.read())
    got = exact(out.decode()) if code == 0 else None
    if name in ("v_bytes", "v_bytes_300", "v_uuid"):
        want = [int(b) % 256 for b in want]
    if name.startswith("v_float"):
        def as_float(x):
            if x is None:
                return None
            return struct.unpack("f", struct.pack("f", float(x)))[0]
        got = [as_float(x) for x in got] if isinstance(got, list) \
            else as_float(got)
        want = [as_float(x) for x in want] if isinstance(want, list) \
            else as_float(want)
    check(name, code == 0 and got == want,
          f"exit {code}: {err.strip()} {out[:200]!r}")

# Sniffed without -f when it starts with an object or array tag.
code, out, err = convert([os.path.join(corpus, "j_doc_order.jsonb"), "-t",
                          "json", "-c"])
check("sniffed", code == 0 and out.startswith(b'{"orderId"'), err)

# References: resolved copies; a cycle is an error naming the offset.
code, out, err = convert([os.path.join(corpus, "v_ref_repeated.jsonb"), "-f",
                          "jsonb", "-t", "json", "-c"])
check("refs", code == 0 and exact(out.decode()) == exact(
    '{"a":{"k":"v"},"b":{"k":"v"},"c":[{"k":"v"},{"k":"v"}]}'), err)
code, out, err = convert([os.path.join(corpus, "v_ref_cycle.jsonb"), "-f",
                          "jsonb", "-t", "json", "-c"])
check("cycle", code == 2 and "v_ref_cycle.jsonb@26: at /next/next: reference "
      "'$' refers to a value that contains it (a cycle)" in err, err)

# Type names become "@type" members unless dropped.
code, out, err = convert([os.path.join(corpus, "v_bean_order_classname.jsonb"),
                          "-f", "jsonb", "-t", "json", "-c"])
check("type names", code == 0 and b'"@type":"com.example.Order"' in out,
      out[:200])

# Truncated input: a clean error with the offset.
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(corpus, "j_doc_user.jsonb"), "rb") as f:
        data = f.read()
    cut = os.path.join(d, "cut.jsonb")
    with open(cut, "wb") as f:
        f.write(data[:40])
    code, out, err = convert([cut, "-f", "jsonb", "-t", "json"])
    check("truncated", code == 2 and "cut.jsonb@" in err
          and "unexpected end of input" in err, err)

# JSON -> JSONB -> JSON over the shared examples.
examples = os.path.join(SHARED, "corpus", "jsonexamples")
sizes = {}
with tempfile.TemporaryDirectory() as d:
    for name in sorted(os.listdir(examples)):
        src = os.path.join(examples, name)
        if not name.endswith(".json") or not os.path.isfile(src):
            continue
        with open(src, encoding="utf-8") as f:
            text = f.read()
        mid = os.path.join(d, name + "b")
        for mode in ("exact", "double"):
            code, _, err = convert([src, "-t", "jsonb", "-o", mid,
                                    "--decimals=" + mode])
            if code != 0:
                check(f"{name} to jsonb ({mode})", False, err)
                continue
            code, out, err = convert([mid, "-t", "json", "-c"])
            if code != 0:
                check(f"{name} back ({mode})", False, err)
                continue
            if mode == "exact":
                same = exact(out.decode()) == exact(text)
            else:
                same = loose(out.decode()) == loose(text)
            check(f"{name} round trip ({mode})", same)
            if mode == "double":
                code, compact, err = convert([src, "-t", "json", "-c"])
                sizes[name] = (os.path.getsize(mid), len(compact))

    # JSON Lines: one JSONB document per line, and back.
    src = os.path.join(examples, "amazon_cellphones.ndjson")
    mid = os.path.join(d, "lines.jsonb")
    code, _, err = convert([src, "-t", "jsonb", "-o", mid,
                            "--decimals=exact"])
    code2, out, err2 = convert([mid, "-f", "jsonb", "-t", "jsonl"])
    with open(src, encoding="utf-8") as f:
        want = [exact(line) for line in f if line.strip()]
    got = [exact(line) for line in out.decode().splitlines() if line.strip()]
    check("json lines", code == 0 and code2 == 0 and got == want,
          err + err2)

for name in ("twitter.json", "citm_catalog.json", "canada.json"):
    if name in sizes:
        jsonb, compact = sizes[name]
        print(f"{name}: jsonb {jsonb} bytes, compact json {compact} bytes "
              f"({100 * jsonb / compact:.1f}%)")

for f in failures:
    print("FAIL", f)
print(f"{passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
