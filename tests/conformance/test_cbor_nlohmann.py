"""CBOR data of ../shared/conformance/nlohmann-test-data through jbx:

- every D.json.cbor decodes to the value of D.json (objects unordered,
  integers exact, floats by value), and jbx's own CBOR for D.json decodes
  back to the same value;
- binary_data/cbor_binary.cbor is rejected where it nests indefinite-length
  chunks (RFC 8949 forbids it); its well-formed part decodes to the
  matching bytes of cbor_binary.out;
- the malformed inputs (the one-byte y_number_too_big_neg_int.json.cbor,
  the Jackson fuzz files of conformance/cbor/jackson-fuzz) are rejected
  with `jbx: error: FILE@OFFSET: ...` and exit 2;
- the AFL inputs cbor_regression/testNN either fail the same clean way or
  decode, and then jbx's re-encoding decodes to the same JSON.
A crash (a signal, or a sanitizer report with an ASan build) always fails.

Run as: python3 test_cbor_nlohmann.py JBX SHARED_DIR
"""

import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from harness import SHARED, jbx_run  # noqa: E402

ROOT = os.path.join(SHARED, "conformance", "nlohmann-test-data")
JACKSON = os.path.join(SHARED, "conformance", "cbor", "jackson-fuzz")
TRUNCATED = "y_number_too_big_neg_int.json.cbor"  # the single byte 0x81
# Numbers beyond float64 cannot be written as one; tag 4 holds any of them
# but 0.4e006699...9006, whose exponent is beyond the 64-bit integers RFC
# 8949 3.4.4 allows for it.
REFUSED = {
    ("y_number_huge_exp.json.cbor", "double"): "is too large for a float64",
    ("y_number_real_neg_overflow.json.cbor", "double"):
        "number -123123e100000 is too large for a float64",
    ("y_number_real_pos_overflow.json.cbor", "double"):
        "number 123123e100000 is too large for a float64",
    ("y_number_huge_exp.json.cbor", "exact"):
        "exponent of number is too large for a CBOR decimal fraction",
}
sys.setrecursionlimit(20000)  # some documents nest 500 levels


def same(a, b):
    """Equal as JSON values: integers exact; floats by value, where the
    encoder may have written an integral float as an integer."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) or isinstance(b, float):
            return float(a) == float(b) or (math.isnan(float(a)) and
                                            math.isnan(float(b)))
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def parse(data):
    # jbx writes non-finite doubles as "NaN"/"Infinity" strings with
    # --nan=string; Python's own reader takes 1E400 as inf, as the
    # producing encoder did.
    def fix(v):
        if isinstance(v, str) and v in ("NaN", "Infinity", "-Infinity"):
            return float(v.replace("Infinity", "inf"))
        if isinstance(v, list):
            return [fix(x) for x in v]
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items()}
        return v
    return fix(json.loads(data.decode("utf-8")))


CLEAN_ERROR = re.compile(r"^jbx: error: (.+)@(\d+): [^\n]+\n$")


def clean_rejection(path, code, err):
    """None when jbx rejected `path` properly, else the problem."""
    m = CLEAN_ERROR.match(err.decode(errors="replace"))
    if code != 2 or not m or m.group(1) != path:
        return "expected exit 2 and FILE@OFFSET, got exit %d: %r" % (code, err)
    if int(m.group(2)) > os.path.getsize(path):
        return "offset %s beyond the input" % m.group(2)
    return None


def main():
    files = []
    for d, _, names in os.walk(ROOT):
        for n in names:
            if n.endswith(".json.cbor") and n != TRUNCATED:
                files.append(os.path.join(d, n))
    files.sort()
    passed = failed = 0

    def verdict(name, problems):
        nonlocal passed, failed
        if problems:
            failed += 1
            print("FAIL %s: %s" % (name, "; ".join(problems)))
        else:
            passed += 1

    for path in files:
        rel = os.path.relpath(path, ROOT)
        with open(path[:-len(".cbor")], "rb") as f:
            want = parse(f.read())
        problems = []
        code, out, err = jbx_run(["convert", "-f", "cbor", "-c",
                                  "--nan=string", path])
        if code != 0:
            problems.append("exit %d: %s" % (code, err.decode().strip()))
        elif not same(parse(out), want):
            problems.append("decoded %.200r, expected %.200r" %
                            (parse(out), want))
        # jbx's own encoding, decimals as float64 and as tag 4 (REFUSED
        # lists the numbers neither can hold).
        for mode in ("double", "exact"):
            code, cb, err = jbx_run(["convert", "-t", "cbor", "--decimals=" +
                                     mode, path[:-5]])
            if code != 0:
                refusal = REFUSED.get((os.path.basename(path), mode))
                if not refusal or refusal.encode() not in err:
                    problems.append("encode exit %d: %s" %
                                    (code, err.decode().strip()))
                continue
            code, out, err = jbx_run(["convert", "-f", "cbor", "-c",
                                      "--nan=string"], stdin=cb)
            if code != 0 or not same(parse(out), want):
                problems.append("own encoding (%s) decodes to %.200r %s" %
                                (mode, out, err.decode()))
        verdict(rel, problems)
    decodes = passed

    # An indefinite-length byte string of raw bytes. At offset 512 it nests
    # a second indefinite-length string as a chunk, which RFC 8949 3.2.3
    # forbids (chunks are definite-length strings; cbor2 refuses it too):
    # jbx rejects the file there, and reads the chunks before it, closed
    # with a break, as the matching prefix of cbor_binary.out.
    binary = os.path.join(ROOT, "binary_data", "cbor_binary.cbor")
    with open(os.path.join(ROOT, "binary_data", "cbor_binary.out"), "rb") as f:
        raw = f.read()
    code, out, err = jbx_run(["convert", "-c", "--bytes=hex", binary])
    verdict("binary_data/cbor_binary.cbor",
            [] if (code, err.decode()) == (2, "jbx: error: %s@512: invalid "
                                           "chunk in indefinite-length byte "
                                           "string\n" % binary)
            else ["exit %d, %.120r %r" % (code, out, err)])
    with open(binary, "rb") as f:
        prefix = f.read()[:512] + b"\xff"
    code, out, err = jbx_run(["convert", "-f", "cbor", "-c", "--bytes=hex"],
                             stdin=prefix)
    verdict("binary_data/cbor_binary.cbor (first 512 bytes)",
            [] if code == 0 and out == b'"' + raw[:468].hex().encode() +
            b'"\n' else ["exit %d, %.120r %r" % (code, out, err)])

    # Must be rejected.
    rejected = [os.path.join(ROOT, "nst_json_testsuite", "test_parsing",
                             TRUNCATED)]
    rejected += sorted(os.path.join(JACKSON, n) for n in os.listdir(JACKSON)
                       if n.endswith(".cbor"))
    for path in rejected:
        code, _, err = jbx_run(["convert", "-f", "cbor", path])
        problem = clean_rejection(path, code, err)
        verdict(os.path.basename(path), [problem] if problem else [])
        code, _, err = jbx_run(["validate", "-f", "cbor", path])
        if code == 0:
            verdict(os.path.basename(path) + " (validate)",
                    ["validate accepted it"])

    # Fuzz inputs: no fixed verdict, but never anything but a clean answer.
    regdir = os.path.join(ROOT, "cbor_regression")
    accepted = refused = 0
    for n in sorted(os.listdir(regdir)):
        path = os.path.join(regdir, n)
        code, out, err = jbx_run(["convert", "-f", "cbor", "-c",
                                  "--nan=string", path])
        if code != 0:
            problem = clean_rejection(path, code, err)
            refused += 1
            verdict("cbor_regression/" + n, [problem] if problem else [])
            continue
        accepted += 1
        code2, cb, err2 = jbx_run(["convert", "-f", "cbor", "-t", "cbor",
                                   path])
        code3, out3, err3 = jbx_run(["convert", "-f", "cbor", "-c",
                                     "--nan=string"], stdin=cb)
        verdict("cbor_regression/" + n,
                [] if code2 == 0 and code3 == 0 and out3 == out
                else ["re-encoding differs: %r %r %r" % (out3[:200], err2,
                                                         err3)])
    print("%d of %d nlohmann .cbor encodings decode to their JSON; "
          "cbor_regression: %d decoded and re-encoded, %d rejected cleanly; "
          "%d must-reject inputs" % (decodes, len(files), accepted, refused,
                                     len(rejected)))
    if len(files) < 130:
        failed += 1
        print("FAIL: only %d .cbor files found under %s" % (len(files), ROOT))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main()
