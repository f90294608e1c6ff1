"""Every MessagePack file of ../shared/conformance/nlohmann-test-data
(D.json.msgpack beside D.json) decodes to the value of its JSON sibling,
compared as JSON values (objects unordered, numbers by value). Then jbx
encodes the JSON itself and decodes its own bytes back to the same value.

Run as: python3 test_msgpack_nlohmann.py JBX SHARED_DIR
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from harness import SHARED, jbx_run  # noqa: E402

ROOT = os.path.join(SHARED, "conformance", "nlohmann-test-data")
sys.setrecursionlimit(20000)  # some documents nest 500 levels


def same(a, b):
    """Equal as JSON values; integers and floats compare exactly by value;
    NaN is not expected in this data. `a` is jbx's output under --nan=string, where
    an infinity (1E400 read as a double by the producing library) is the
    string "Infinity" or "-Infinity"."""
    if isinstance(b, float) and math.isinf(b) and isinstance(a, str):
        return a == ("Infinity" if b > 0 else "-Infinity")
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b  # Python compares int with float exactly
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def load_json(path):
    with open(path, "rb") as f:
        data = f.read()
    # Python reads big numbers exactly (ints) and 1E400 as inf, as the
    # producing library (msgpack-python) did.
    return json.loads(data.decode("utf-8"))


def main():
    files = []
    for d, _, names in os.walk(ROOT):
        for n in names:
            if n.endswith(".json.msgpack"):
                files.append(os.path.join(d, n))
    files.sort()
    passed = failed = 0
    for path in files:
        rel = os.path.relpath(path, ROOT)
        want = load_json(path[:-len(".msgpack")])
        code, out, err = jbx_run(["convert", "-f", "msgpack", "-c",
                                  "--nan=string", path])
        problems = []
        if code != 0:
            problems.append("exit %d: %s" % (code, err.decode().strip()))
        else:
            got = json.loads(out.decode())
            if not same(got, want):
                problems.append("decoded %.200r, expected %.200r" %
                                (got, want))
        # jbx's own encoding of the JSON decodes back to the same value.
        code, mp, err = jbx_run(["convert", "-t", "msgpack", "--lossy=nearest",
                                 path[:-len(".msgpack")]])
        if code != 0:
            problems.append("encode exit %d: %s" % (code, err.decode().strip()))
        else:
            code, out, err = jbx_run(["convert", "-f", "msgpack", "-c",
                                      "--nan=string"], stdin=mp)
            if code != 0 or not same(json.loads(out.decode()), want):
                problems.append("own encoding decodes to %.200r %s" %
                                (out, err.decode()))
        if problems:
            failed += 1
            print("FAIL %s: %s" % (rel, "; ".join(problems)))
        else:
            passed += 1
    if len(files) < 130:
        failed += 1
        print("FAIL: only %d .msgpack files found under %s" % (len(files),
                                                               ROOT))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main()
