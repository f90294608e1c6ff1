"""CBOR interoperability with Debian's python3-cbor2 and Jackson's CBOR
module, both ways, over every file of ../shared/corpus/jsonexamples
(.json files as one document, .ndjson with --lines as a CBOR sequence):

- jbx encodes JSON -> CBOR; the peer decodes values equal to the original;
- the peer encodes the JSON; jbx decodes it back to JSON equal to the
  original;
- jbx's CBOR is byte for byte cbor2's, by default and with --canonical
  (cbor2's canonical=True).
Values compare strictly: integers exactly, floats as floats (bit for bit
but for NaN), strings, and object members in order.

The Jackson peer (java/CborPeer.java, streaming API only) is compiled
with javac into a temporary directory against /usr/share/java's
jackson-core.jar and jackson-dataformat-cbor.jar; without javac or the
jars the Jackson half reports SKIP (Debian: openjdk-17-jdk-headless,
libjackson2-dataformat-cbor).

Run as: python3 test_cbor_peers.py JBX SHARED_DIR
"""

import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from decimal import Decimal

import cbor2

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from harness import SHARED, jbx_run  # noqa: E402

CORPUS = os.path.join(SHARED, "corpus", "jsonexamples")
JAVA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java")
JARS = ["/usr/share/java/jackson-core.jar",
        "/usr/share/java/jackson-dataformat-cbor.jar"]
sys.setrecursionlimit(20000)


def diff(a, b, path="$"):
    """None when a and b are the same JSON value, else where they differ."""
    if type(a) is not type(b):
        return "%s: %s %.80r vs %s %.80r" % (path, type(a).__name__, a,
                                             type(b).__name__, b)
    if isinstance(a, float):
        same = (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b))
        return None if same else "%s: %r vs %r" % (path, a, b)
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d vs %d items" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if isinstance(a, dict):
        if list(a.keys()) != list(b.keys()):
            return "%s: keys %.120r vs %.120r" % (path, list(a), list(b))
        for k in a:
            d = diff(a[k], b[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    return None if a == b else "%s: %.80r vs %.80r" % (path, a, b)


def jackson_version():
    """(major, minor) of the jackson-dataformat-cbor jar, from its
    manifest's Implementation-Version."""
    with zipfile.ZipFile(JARS[1]) as z:
        manifest = z.read("META-INF/MANIFEST.MF").decode()
    for line in manifest.splitlines():
        if line.startswith("Implementation-Version:"):
            parts = line.split(":")[1].strip().split(".")
            return int(parts[0]), int(parts[1])
    return 99, 0


def as_jackson_27_reads(v):
    """What jackson-dataformat-cbor before 2.8 reads back for v: it takes
    a 4-byte unsigned integer of 2^31 or more as a negative Java int
    (jackson-dataformats-binary issue #30, fixed in 2.8)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int) and 2**31 <= v < 2**32:
        return v - 2**32
    if isinstance(v, list):
        return [as_jackson_27_reads(x) for x in v]
    if isinstance(v, dict):
        return {k: as_jackson_27_reads(x) for k, x in v.items()}
    return v


def json_docs(data, lines):
    text = data.decode("utf-8")
    if lines:
        # Only "\n" ends a line: strings may hold U+2028 and the like.
        return [json.loads(line) for line in text.split("\n") if line.strip()]
    return [json.loads(text)]


def cbor_docs(data):
    out = []
    f = io.BytesIO(data)
    dec = cbor2.CBORDecoder(f)
    while f.tell() < len(data):
        out.append(dec.decode())
    return out


def first_difference(a, b):
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y),
                min(len(a), len(b)))


def corpus():
    files = []
    for d, _, names in os.walk(CORPUS):
        for n in names:
            if n.endswith(".json") or n.endswith(".ndjson"):
                files.append(os.path.join(d, n))
    return sorted(files)


def jackson(tmp):
    """The java command line for CborPeer, or the reason it cannot run."""
    javac, java = shutil.which("javac"), shutil.which("java")
    if not javac or not java:
        return None, "javac not found (Debian: openjdk-17-jdk-headless)"
    missing = [j for j in JARS if not os.path.exists(j)]
    if missing:
        return None, "missing %s (Debian: libjackson2-dataformat-cbor)" % (
            ", ".join(missing))
    cp = ":".join(JARS)
    classes = os.path.join(tmp, "classes")
    os.mkdir(classes)
    p = subprocess.run([javac, "-d", classes, "-cp", cp,
                        os.path.join(JAVA_DIR, "CborPeer.java")],
                       capture_output=True)
    if p.returncode != 0:
        raise SystemExit("javac failed:\n" + p.stderr.decode())
    return [java, "-cp", classes + ":" + cp, "CborPeer"], None


def main():
    files = corpus()
    passed = failed = 0
    counts = {}

    def verdict(peer, name, problem):
        nonlocal passed, failed
        ok, total = counts.get(peer, (0, 0))
        if problem:
            failed += 1
            print("FAIL %s %s: %s" % (peer, name, problem))
        else:
            passed += 1
        counts[peer] = (ok + (0 if problem else 1), total + 1)

    with tempfile.TemporaryDirectory() as tmp:
        java, skip = jackson(tmp)
        old_jackson = not skip and jackson_version() < (2, 8)
        peer_bug = []
        jobs = []  # Jackson jobs: (mode, in, out, name, original docs)
        for i, path in enumerate(files):
            name = os.path.relpath(path, CORPUS)
            lines = path.endswith(".ndjson")
            flag = ["--lines"] if lines else []
            with open(path, "rb") as f:
                want = json_docs(f.read(), lines)

            # jbx -> cbor2.
            code, cb, err = jbx_run(["convert", "-t", "cbor"] + flag + [path])
            if code != 0:
                verdict("cbor2", name + " (jbx encodes)", err.decode())
                continue
            try:
                got = cbor_docs(cb)
                problem = diff(want, got)
            except Exception as e:  # noqa: BLE001 (any decoder complaint)
                problem = "cbor2: %s" % e
            verdict("cbor2", name + " (jbx encodes)", problem)

            # Same bytes as cbor2: both write preferred serialisation
            # (shortest heads, float64, keys in order), and --canonical
            # matches cbor2's canonical=True (for text keys, RFC 7049's
            # length-first order is RFC 8949's bytewise order).
            peer = b"".join(cbor2.dumps(d) for d in want)
            verdict("cbor2", name + " (same bytes)", None if cb == peer else
                    "jbx's CBOR differs from cbor2's at byte %d" %
                    first_difference(cb, peer))
            code, canon, err = jbx_run(["convert", "-t", "cbor",
                                        "--canonical"] + flag + [path])
            peer_canon = b"".join(cbor2.dumps(d, canonical=True) for d in want)
            verdict("cbor2", name + " (same canonical bytes)",
                    None if code == 0 and canon == peer_canon else
                    "jbx --canonical differs from cbor2 canonical=True at "
                    "byte %d %s" % (first_difference(canon, peer_canon),
                                    err.decode()))

            # cbor2 -> jbx.
            code, out, err = jbx_run(["convert", "-f", "cbor", "-c"] + flag,
                                     stdin=peer)
            problem = err.decode() if code != 0 else diff(
                want, json_docs(out, True))
            verdict("cbor2", name + " (cbor2 encodes)", problem)

            jbx_cbor = os.path.join(tmp, "%d.jbx.cbor" % i)
            with open(jbx_cbor, "wb") as f:
                f.write(cb)
            jobs.append(("decode", jbx_cbor, jbx_cbor + ".json",
                         name + " (jbx encodes)", want, flag))
            jobs.append(("encode", path, os.path.join(tmp, "%d.jackson.cbor"
                                                      % i),
                         name + " (Jackson encodes)", want, flag))

        if skip:
            print("SKIP Jackson: " + skip)
        else:
            cmd = list(java)
            for mode, src, dst, _, _, _ in jobs:
                cmd += [mode, src, dst]
            p = subprocess.run(cmd, capture_output=True, timeout=300)
            if p.returncode != 0:
                verdict("Jackson", "CborPeer", p.stderr.decode()[-2000:])
            else:
                for mode, src, dst, name, want, flag in jobs:
                    if mode == "decode":
                        with open(dst, "rb") as f:
                            got = json_docs(f.read(), True)
                        problem = diff(want, got)
                        if problem and old_jackson and not diff(
                                as_jackson_27_reads(want), got):
                            # jbx's bytes are right (cbor2 agrees above);
                            # the peer misreads them.
                            problem = None
                            name += " (equal but for Jackson issue #30)"
                            peer_bug.append(name)
                    else:
                        code, out, err = jbx_run(
                            ["convert", "-f", "cbor", "-c"] + flag + [dst])
                        problem = err.decode() if code != 0 else diff(
                            want, json_docs(out, True))
                    verdict("Jackson", name, problem)

        for name in peer_bug:
            print("note: Jackson %s" % name)

    # --decimals=exact: cbor2 reads decimal fractions as the Decimals the
    # JSON spells, scale included; a negative zero, which they lack, as
    # the float -0.0.
    text = "[1.50,0.1,-0.0,0.00,-2.5E-3,123456789012345678901234567890.5]"
    code, cb, err = jbx_run(["convert", "-t", "cbor", "--decimals=exact"],
                            stdin=text.encode())
    want = [Decimal("1.50"), Decimal("0.1"), -0.0, Decimal("0.00"),
            Decimal("-2.5E-3"), Decimal("123456789012345678901234567890.5")]
    if code != 0:
        problem = err.decode()
    else:
        got = cbor2.loads(cb)
        problem = None if [(type(x), str(x)) for x in got] == [
            (type(x), str(x)) for x in want] else "%r vs %r" % (got, want)
    verdict("cbor2", "exact decimals", problem)
    print("; ".join("%s: %d of %d conversions equal" % (k, ok, n)
                    for k, (ok, n) in counts.items()) +
          " (%d corpus files)" % len(files))
    if len(files) < 20:
        failed += 1
        print("FAIL: only %d corpus files under %s" % (len(files), CORPUS))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main()
