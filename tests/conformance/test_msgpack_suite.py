"""MessagePack conformance over ../shared/conformance/msgpack (kawanet's
msgpack-test-suite): every accepted encoding of every value decodes to that
value; re-encoding what jbx decoded gives one of the listed encodings, the
smallest one (float64 for floats: jbx never writes float32); and encoding
the value from JSON gives the same bytes.

Run as: python3 test_msgpack_suite.py JBX SHARED_DIR
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from harness import SHARED, jbx_run  # noqa: E402

SUITE = os.path.join(SHARED, "conformance", "msgpack", "dist",
                     "msgpack-test-suite.json")


def unhex(s):
    return bytes.fromhex(s.replace("-", ""))


def civil(days):
    """(year, month, day) of days since 1970-01-01 (proleptic Gregorian)."""
    z = days + 719468
    era = z // 146097  # Python's // already floors
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + 1 if m <= 2 else y), m, d


def iso(seconds, nanos):
    """ISO 8601 as jbx writes an instant: UTC, fraction in groups of 3."""
    days, sod = divmod(seconds, 86400)
    y, m, d = civil(days)
    text = "%04d-%02d-%02dT%02d:%02d:%02d" % (y, m, d, sod // 3600,
                                             sod // 60 % 60, sod % 60)
    if nanos:
        frac = "%09d" % nanos
        while frac.endswith("000"):
            frac = frac[:-3]
        text += "." + frac
    return text + "Z"


def expected_json(case):
    """The JSON value jbx must print for a case (--bytes=hex)."""
    if "nil" in case:
        return None
    for key in ("bool", "string", "array", "map"):
        if key in case:
            return case[key]
    if "bignum" in case:
        return int(case["bignum"])
    if "number" in case:
        return case["number"]
    if "binary" in case:
        return case["binary"].replace("-", "")
    if "timestamp" in case:
        return iso(*case["timestamp"])
    if "ext" in case:
        t, payload = case["ext"]
        return {"@type": "msgpack.ext:%d" % t,
                "@value": payload.replace("-", "")}
    raise ValueError("unknown case %r" % case)


def same(a, b):
    """Equal as JSON values, integer widths and int-versus-float ignored,
    but booleans are not numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def main():
    with open(SUITE) as f:
        suite = json.load(f)
    passed = failed = encodings_seen = 0

    def fail(name, msg):
        nonlocal failed
        failed += 1
        print("FAIL %s: %s" % (name, msg))

    for group, cases in suite.items():
        for n, case in enumerate(cases):
            name = "%s#%d" % (group, n)
            encodings = [unhex(e) for e in case["msgpack"]]
            encodings_seen += len(encodings)
            want = expected_json(case)

            # Decode: all encodings as one sequence, one JSON line each.
            code, out, err = jbx_run(["convert", "-f", "msgpack", "-t",
                                      "jsonl", "--bytes=hex"],
                                     stdin=b"".join(encodings))
            lines = out.decode().splitlines()
            if code != 0 or len(lines) != len(encodings):
                fail(name, "decode exit %d, %d lines for %d encodings: %s" %
                     (code, len(lines), len(encodings), err.decode()))
                continue
            bad = [(case["msgpack"][k], line) for k, line in enumerate(lines)
                   if not same(json.loads(line), want)]
            if bad:
                fail(name, "decoded %r, expected %r" % (bad, want))
                continue

            # Re-encode what was decoded: each must give the smallest form.
            code, out, err = jbx_run(["convert", "-f", "msgpack", "-t",
                                      "msgpack"], stdin=b"".join(encodings))
            is_float = isinstance(want, float)
            floats = [e for e in encodings if e[0] == 0xcb]
            if is_float:
                best = floats
            else:
                ints = [e for e in encodings if e[0] not in (0xca, 0xcb)]
                shortest = min(len(e) for e in ints)
                best = [e for e in ints if len(e) == shortest]
            if code != 0:
                fail(name, "re-encode exit %d: %s" % (code, err.decode()))
                continue
            # A float-encoded integer stays a float, written as float64;
            # everything else takes the smallest listed form.
            rest = out
            ok = True
            for e in encodings:
                options = floats if e[0] in (0xca, 0xcb) else best
                for o in options:
                    if rest.startswith(o):
                        rest = rest[len(o):]
                        break
                else:
                    ok = False
                    break
            if not ok or rest:
                fail(name, "re-encoded %s, expected the smallest form %s "
                     "(float64 %s for floats)" %
                     (out.hex("-"), [b.hex("-") for b in best],
                      [f.hex("-") for f in floats]))
                continue

            # Encode from JSON, where JSON can say the value.
            if not any(k in case for k in ("binary", "timestamp", "ext")):
                text = json.dumps(want)
                code, out, err = jbx_run(["convert", "-t", "msgpack"],
                                         stdin=text.encode())
                if code != 0 or out not in best:
                    fail(name, "from JSON %s: exit %d, %s, expected %s %s" %
                         (text, code, out.hex("-"),
                          [b.hex("-") for b in best], err.decode()))
                    continue
            passed += 1

    if encodings_seen < 233:
        fail("suite", "only %d encodings found in %s" % (encodings_seen, SUITE))
    print("%d encodings of %d values" % (encodings_seen, passed + failed))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main()
