"""fmt round trip over ../shared/corpus/jsonexamples: for every file, the
output of `jbx fmt` (pretty), `-c`, `--tab`, `-a` and `-S` re-parsed by an
independent parser (Python's json module, numbers compared by spelling,
members in order with duplicates) equals the input; jq accepts the output;
and `fmt` of fmt's output is byte-identical (idempotence)."""

import json
import os
import shutil
import subprocess
import sys

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from harness import JBX, SHARED, case, run_all  # noqa: E402

CORPUS = os.path.join(SHARED, "corpus", "jsonexamples")
JQ = shutil.which("jq")


def exact(text):
    return json.loads(text, parse_float=lambda s: ("number", s),
                      parse_int=lambda s: ("number", s),
                      object_pairs_hook=list)


def sort_members(v):
    if isinstance(v, list) and v and all(
            isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], str)
            for m in v):
        # Stable, by UTF-8 bytes, like jbx -S.
        return sorted(((k, sort_members(x)) for k, x in v),
                      key=lambda m: m[0].encode("utf-8"))
    if isinstance(v, list):
        return [sort_members(x) for x in v]
    return v


def values(text, lines):
    if lines:
        return [exact(line) for line in text.split("\n") if line.strip()]
    return [exact(text)]


def files():
    out = []
    for root, _, names in os.walk(CORPUS):
        for n in sorted(names):
            if n.endswith((".json", ".ndjson", ".jsonl")):
                out.append(os.path.join(root, n))
    return sorted(out)


def roundtrip(path, flags, sort=False):
    lines = path.endswith((".ndjson", ".jsonl"))
    with open(path, "rb") as f:
        original = values(f.read().decode("utf-8"), lines)
    if sort:
        original = [sort_members(v) for v in original]

    def check(d, out, err):
        text = out.decode("utf-8")
        if "-c" in flags or lines:
            assert text.count("\n") == len(original), "one line per document"
        got = values(text, lines or "-c" in flags)
        assert got == original, "re-parsed output differs from the input"
        if JQ:
            p = subprocess.run([JQ, "empty"], input=out, capture_output=True)
            assert p.returncode == 0, p.stderr[:300]
        if not lines and not sort and "-a" not in flags:
            # Formatting fmt's own output changes nothing.
            p = subprocess.run([JBX, "fmt"] + flags, input=out,
                               capture_output=True)
            assert p.stdout == out, "fmt is not idempotent"
    return check


def main():
    found = files()
    case("corpus_present", ["--version"], stdout=None,
         check=lambda d, o, e: _expect(len(found) > 20, found))
    for path in found:
        rel = os.path.relpath(path, CORPUS)
        arg = "{shared}/corpus/jsonexamples/" + rel
        for flags in ([], ["-c"], ["--tab"], ["-a", "-c"]):
            case(f"fmt {' '.join(flags)} {rel}", ["fmt"] + flags + [arg],
                 stdout=None, check=roundtrip(path, flags))
        case(f"fmt -S -c {rel}", ["fmt", "-S", "-c", arg], stdout=None,
             check=roundtrip(path, ["-c"], sort=True))
    run_all()


def _expect(cond, what):
    assert cond, what


main()
