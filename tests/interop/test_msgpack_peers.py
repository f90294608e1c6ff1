"""MessagePack interop with python3-msgpack (its C extension) over every file
of ../shared/corpus/jsonexamples, both ways:

- jbx encodes the JSON (a .ndjson file becomes a sequence of values), the
  peer decodes values equal to the original JSON;
- the peer encodes the JSON, jbx decodes it back to equal JSON.

Equality is strict about kinds: an integer must come back as an integer of
the same value, a float as a float equal as a double, booleans are not
numbers, objects keep their members in order. JSON decimals become doubles
(the default --decimals=double), so they compare as Python's float of the
text. A file holding integers beyond 64 bits, which MessagePack cannot hold
exactly, must be refused without --lossy (exit 2) and convert with
--lossy=nearest, those integers compared as doubles; the run prints which
files those are (none in the corpus as vendored).

Run as: python3 test_msgpack_peers.py JBX SHARED_DIR
"""

import json
import os
import sys

import msgpack

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from harness import SHARED, jbx_run  # noqa: E402

CORPUS = os.path.join(SHARED, "corpus", "jsonexamples")

def same(a, b, lossy=False):
    """a == b as JSON values with the kinds kept apart (see the module
    comment). Under `lossy`, an integer of b beyond 64 bits equals the
    nearest double in a."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if (lossy and isinstance(b, int) and isinstance(a, float) and
            not -2**63 <= b < 2**64):
        return a == float(b)
    if isinstance(a, (int, float)) or isinstance(b, (int, float)):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(
            same(x, y, lossy) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a.keys()) == list(b.keys()) and all(
            same(a[k], b[k], lossy) for k in a)
    return type(a) is type(b) and a == b


def has_big_int(v):
    """v holds an integer outside int64/uint64."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return not -2**63 <= v < 2**64
    if isinstance(v, list):
        return any(has_big_int(x) for x in v)
    if isinstance(v, dict):
        return any(has_big_int(x) for x in v.values())
    return False


def lossy_json(v):
    """v with integers beyond 64 bits as the nearest double: what the peer
    can encode of it."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int) and not -2**63 <= v < 2**64:
        return float(v)
    if isinstance(v, list):
        return [lossy_json(x) for x in v]
    if isinstance(v, dict):
        return {k: lossy_json(x) for k, x in v.items()}
    return v


def unpack_all(data):
    """Every value of a sequence of MessagePack values."""
    u = msgpack.Unpacker(raw=False, strict_map_key=False,
                         max_buffer_size=max(len(data), 1024))
    u.feed(data)
    return list(u)


def files():
    out = []
    for root, _, names in os.walk(CORPUS):
        for n in names:
            if n.endswith((".json", ".ndjson")):
                out.append(os.path.join(root, n))
    return sorted(out)


def main():
    if msgpack.Packer.__module__ != "msgpack._cmsgpack":
        print("FAIL: python3-msgpack runs without its C extension")
        sys.exit(1)
    passed = failed = 0
    needs_lossy = []
    paths = files()
    for path in paths:
        rel = os.path.relpath(path, CORPUS)
        lines = path.endswith(".ndjson")
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
        want = ([json.loads(x) for x in text.split("\n") if x.strip()]
                if lines else [json.loads(text)])
        lossy = any(has_big_int(v) for v in want)
        if lossy:
            needs_lossy.append(rel)
        problems = []

        # jbx -> peer.
        code, out, err = jbx_run(["convert", "-t", "msgpack", path])
        if lossy:
            if code != 2 or b"has no exact MessagePack form" not in err:
                problems.append("without --lossy: exit %d, %r" %
                                (code, err.decode()))
            code, out, err = jbx_run(["convert", "-t", "msgpack",
                                      "--lossy=nearest", path])
        if code != 0:
            problems.append("encode exit %d: %s" % (code, err.decode()))
        else:
            got = unpack_all(out)
            if len(got) != len(want):
                problems.append("peer decoded %d values, expected %d" %
                                (len(got), len(want)))
            elif not all(same(g, w, lossy) for g, w in zip(got, want)):
                problems.append("peer decodes jbx's bytes to other values")

        # peer -> jbx.
        packed = b"".join(msgpack.packb(lossy_json(v) if lossy else v,
                                        use_bin_type=True) for v in want)
        code, out, err = jbx_run(["convert", "-f", "msgpack", "-t", "jsonl"],
                                 stdin=packed)
        if code != 0:
            problems.append("decode exit %d: %s" % (code, err.decode()))
        else:
            got = [json.loads(x) for x in out.decode().split("\n") if x]
            if len(got) != len(want):
                problems.append("jbx decoded %d values, expected %d" %
                                (len(got), len(want)))
            elif not all(same(g, w, lossy) for g, w in zip(got, want)):
                problems.append("jbx decodes the peer's bytes to other "
                                "values")
        if problems:
            failed += 1
            print("FAIL %s: %s" % (rel, "; ".join(problems)))
        else:
            passed += 1
    if len(paths) < 30:
        failed += 1
        print("FAIL: only %d corpus files under %s" % (len(paths), CORPUS))
    print("files needing --lossy: %s" % (", ".join(needs_lossy) or "none"))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main()
