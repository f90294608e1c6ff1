"""Content sniffing against real encoders: documents made by python3-msgpack
and python3-cbor2 go to `jbx convert` on stdin, with no --from and no file
extension, and must come back as the values encoded.

CBOR and MessagePack containers share their first bytes (MessagePack's [1]
is 91 01, a CBOR array of 17 items cut short), so these documents are the
cases sniffing must settle: seeded random values, small ones (the whole
input decides) and ones larger than the 4 KiB read ahead (the longer head
decides), and the corpus files as MessagePack.

One input is both formats in full: the byte 80 is CBOR's [] and
MessagePack's {}. CBOR, the first sniffer, wins; --from msgpack reads {}.

Run as: python3 test_sniff_peers.py JBX SHARED_DIR
"""

import json
import os
import random
import sys

import cbor2
import msgpack

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from harness import SHARED, jbx_run  # noqa: E402

CORPUS = os.path.join(SHARED, "corpus", "jsonexamples")
ENCODERS = (("msgpack", msgpack.packb), ("cbor", cbor2.dumps))


def random_value(rnd, depth, width):
    """A value of up to `width` items per container, fewer deeper down."""
    width = max(2, width // depth**2)
    r = rnd.random()
    if depth > 3 or r < 0.4:
        return rnd.choice([
            rnd.randint(-200, 200), rnd.randint(-2**40, 2**40),
            "x" * rnd.randint(0, 40), True, False, None, rnd.random()])
    if r < 0.7:
        return [random_value(rnd, depth + 1, width)
                for _ in range(rnd.randint(0, width))]
    return {("k%d" % i) * rnd.randint(1, 3):
            random_value(rnd, depth + 1, width)
            for i in range(rnd.randint(0, width))}


def documents():
    """(name, value): containers of up to 18 items at the top, whose heads
    are the ambiguous one-byte ones, of every size class."""
    rnd = random.Random(20261204)
    for n in range(240):
        width = (4, 20, 60, 300)[n % 4]
        if rnd.random() < 0.5:
            v = [random_value(rnd, 1, width)
                 for _ in range(rnd.randint(0, 18))]
        else:
            v = {"k%d" % i: random_value(rnd, 1, width)
                 for i in range(rnd.randint(0, 18))}
        yield "random-%d" % n, v
    for root, _, names in os.walk(CORPUS):
        for name in sorted(names):
            if name.endswith(".json"):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    yield name, json.load(f)


def check(problems, what, data, want, args=()):
    code, out, err = jbx_run(["convert", "-c", "-t", "json", *args],
                             stdin=data)
    if code != 0:
        problems.append("%s (%d bytes, %s...): exit %d: %s" %
                        (what, len(data), data[:4].hex(" "), code,
                         err.decode().strip()))
        return False
    got = json.loads(out)
    if got != want:
        problems.append("%s (%d bytes, %s...): read as other values" %
                        (what, len(data), data[:4].hex(" ")))
        return False
    return True


def main():
    problems = []
    passed = 0
    sizes = {"small": 0, "large": 0}
    for name, value in documents():
        want = json.loads(json.dumps(value))
        for fmt_name, encode in ENCODERS:
            # (Huge integers of the corpus are left to the peer tests.)
            try:
                data = encode(value)
            except (OverflowError, ValueError):
                continue
            if data == b"\x80":
                continue  # both formats in full: pinned below
            sizes["small" if len(data) < 4096 else "large"] += 1
            if check(problems, "%s as %s" % (name, fmt_name), data, want):
                passed += 1
    # Both decoders' answers for 80.
    for what, args, want in (("80", (), []),
                             ("80 with --from msgpack", ("-f", "msgpack"), {})):
        if check(problems, what, b"\x80", want, args):
            passed += 1
    if sizes["small"] < 200 or sizes["large"] < 50:
        problems.append("too few documents of a size: %r" % sizes)
    for p in problems:
        print("FAIL " + p)
    print("documents: %d under 4 KiB, %d larger" %
          (sizes["small"], sizes["large"]))
    print("%d passed, %d failed" % (passed, len(problems)))
    sys.exit(1 if problems else 0)


main()
