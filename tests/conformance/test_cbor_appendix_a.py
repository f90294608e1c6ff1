"""The 82 examples of RFC 8949 Appendix A (../shared/conformance/cbor/
appendix_a.json, from RFC 7049) through `jbx convert`.

- Vectors with `decoded`: jbx's JSON output equals the value, numbers
  exactly (both sides read with decimal.Decimal, so 1.1 must be written as
  a number whose decimal value is the shortest spelling of the double, and
  a float must stay a float, an integer an integer; -0.0 keeps its sign).
- Vectors with only `diagnostic`: each has jbx's expected JSON below
  (EXPECTED), with the flags it needs.
- Vectors marked roundtrip: `jbx convert -f cbor -t cbor` reproduces the
  bytes. By default jbx writes every float as float64, so the float
  vectors that use a shorter form need --canonical (shortest exact float);
  ROUNDTRIP_CANONICAL lists them. Vectors jbx cannot reproduce by design
  are in NO_ROUNDTRIP with the reason, and must still decode as expected.
The last line gives the counts.

Run as: python3 test_cbor_appendix_a.py JBX SHARED_DIR
"""

import binascii
import decimal
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from harness import SHARED, jbx_run  # noqa: E402

PATH = os.path.join(SHARED, "conformance", "cbor", "appendix_a.json")

# hex -> (extra flags, expected stdout of `convert -f cbor -c FLAGS`, or
# (exit code, expected stderr) for a vector jbx rejects).
EXPECTED = {
    # Non-finite floats: JSON has none, so --nan decides.
    "f97c00": (["--nan=string"], '"Infinity"'),
    "f97e00": (["--nan=string"], '"NaN"'),
    "f9fc00": (["--nan=string"], '"-Infinity"'),
    "fa7f800000": (["--nan=string"], '"Infinity"'),
    "fa7fc00000": (["--nan=string"], '"NaN"'),
    "faff800000": (["--nan=string"], '"-Infinity"'),
    "fb7ff0000000000000": (["--nan=null"], "null"),
    "fb7ff8000000000000": (["--nan=null"], "null"),
    "fbfff0000000000000": (["--nan=string"], '"-Infinity"'),
    # undefined and simple values have no JSON or jbx equivalent: null.
    "f7": ([], "null"),
    "f0": ([], "null"),
    "f8ff": ([], "null"),
    # RFC 8949 3.3 made a two-byte simple value below 32 not well-formed
    # (RFC 7049 allowed simple(24) in this form).
    "f818": ([], (2, "jbx: error: <stdin>@0: invalid simple value 24 in "
                     "two-byte form\n")),
    # Dates: tag 0 keeps its text's offset (zero is "Z"), tag 1 is UTC.
    "c074323031332d30332d32315432303a30343a30305a":
        ([], '"2013-03-21T20:04:00Z"'),
    "c11a514b67b0": ([], '"2013-03-21T20:04:00Z"'),
    "c1fb41d452d9ec200000": ([], '"2013-03-21T20:04:00.500Z"'),
    # Tag 23 (expected base16) and 32 (URI) read as their content; byte
    # strings follow --bytes (base64 by default).
    "d74401020304": (["--bytes=hex"], '"01020304"'),
    "d82076687474703a2f2f7777772e6578616d706c652e636f6d":
        ([], '"http://www.example.com"'),
    # A tag without a JSON meaning (24, embedded CBOR) becomes "@type".
    "d818456449455446": ([], '{"@type":"tag:24","@value":"ZElFVEY="}'),
    "40": ([], '""'),
    "4401020304": ([], '"AQIDBA=="'),
    "5f42010243030405ff": (["--bytes=array"], "[1,2,3,4,5]"),
    # Non-text map keys become their JSON text.
    "a201020304": ([], '{"1":2,"3":4}'),
}

# Marked roundtrip, but by design not reproduced by convert -f cbor -t cbor.
NO_ROUNDTRIP = {
    "f7": "undefined reads as null",
    "f0": "simple values read as null",
    "f8ff": "simple values read as null",
    "f818": "not well-formed under RFC 8949",
    "d74401020304": "tag 23 is a JSON encoding hint, read as its content",
    "d82076687474703a2f2f7777772e6578616d706c652e636f6d":
        "tag 32 (URI) reads as its text",
    "a201020304": "integer map keys become text keys",
}

# Floats in a form shorter than float64: reproduced with --canonical only.
ROUNDTRIP_CANONICAL = {
    "f90000", "f98000", "f93c00", "f93e00", "f97bff", "fa47c35000",
    "fa7f7fffff", "f90001", "f90400", "f9c400", "f97c00", "f97e00", "f9fc00",
}


def exact(text):
    return json.loads(text, parse_float=decimal.Decimal,
                      parse_int=int)


def same(a, b):
    """Equal JSON values: integers exact, decimals by decimal value and
    sign (so -0.0 differs from 0.0), no int/float mixing."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, decimal.Decimal) and isinstance(b, decimal.Decimal):
        return a == b and a.is_signed() == b.is_signed()
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def main():
    with open(PATH, "rb") as f:
        raw = f.read()
    vectors = exact(raw)
    decoded_ok = diag_ok = rt_default = rt_canonical = rt_total = 0
    failures = []
    for v in vectors:
        h = v["hex"]
        data = binascii.unhexlify(h)
        if "decoded" in v:
            code, out, err = jbx_run(["convert", "-f", "cbor", "-c"],
                                     stdin=data)
            if code != 0:
                failures.append("%s: exit %d: %s" % (h, code, err.decode()))
            elif not same(exact(out), v["decoded"]):
                failures.append("%s: got %s, expected %r" %
                                (h, out.decode().strip(), v["decoded"]))
            else:
                decoded_ok += 1
        else:
            if h not in EXPECTED:
                failures.append("%s (%s): no expectation" %
                                (h, v["diagnostic"]))
                continue
            flags, want = EXPECTED[h]
            code, out, err = jbx_run(["convert", "-f", "cbor", "-c"] + flags,
                                     stdin=data)
            got = (code, out.decode().strip()) if isinstance(want, str) \
                else (code, err.decode())
            expect = (0, want) if isinstance(want, str) else want
            if got != expect:
                failures.append("%s (%s): got %r, expected %r" %
                                (h, v["diagnostic"], got, expect))
            else:
                diag_ok += 1
        if not v["roundtrip"] or h in NO_ROUNDTRIP:
            continue
        rt_total += 1
        _, out, err = jbx_run(["convert", "-f", "cbor", "-t", "cbor"],
                              stdin=data)
        _, canon, err2 = jbx_run(["convert", "-f", "cbor", "-t", "cbor",
                                  "--canonical"], stdin=data)
        if out == data:
            rt_default += 1
        if canon == data:
            rt_canonical += 1
        if canon != data:
            failures.append("%s: --canonical re-encodes as %s %s" %
                            (h, canon.hex(), err2.decode()))
        if (out == data) == (h in ROUNDTRIP_CANONICAL):
            failures.append("%s: default re-encoding %s (%s)" %
                            (h, out.hex(), "expected --canonical to be "
                             "needed" if out == data else "differs"))
    # The expectations name real vectors only.
    known = {v["hex"] for v in vectors}
    for h in list(EXPECTED) + list(NO_ROUNDTRIP) + list(ROUNDTRIP_CANONICAL):
        if h not in known:
            failures.append("%s: expectation for a vector not in the file" % h)
    for line in failures:
        print("FAIL " + line)
    print("%d vectors: %d decoded values equal, %d diagnostic-only vectors "
          "as expected; round trip: %d of %d byte-exact by default, %d with "
          "--canonical (%d marked roundtrip not reproducible by design)" %
          (len(vectors), decoded_ok, diag_ok, rt_default, rt_total,
           rt_canonical, len(NO_ROUNDTRIP)))
    ok = not failures and len(vectors) == 82
    print("%d passed, %d failed" % (len(vectors) - len(failures),
                                     len(failures)))
    sys.exit(0 if ok else 1)


main()
