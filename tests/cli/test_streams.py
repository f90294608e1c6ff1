"""End-to-end tests of binary document sequences (CBOR, MessagePack,
JSONB) read as streams: from a file and from a pipe the output and the
errors are the same, documents larger than the pipe's first reads are
whole, the byte offsets of errors count from the start of the input, and
peak memory does not grow with the length of the sequence."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import case, run_all  # noqa: E402
from measure import run  # noqa: E402

FORMATS = ["cbor", "msgpack", "jsonb"]


def record(i, width):
    """One JSON Lines record of about `width` bytes."""
    tags = ",".join('"t%d-%d"' % (i, k) for k in range(width // 12))
    return ('{"id":%d,"name":"r\\u00e9cord %d","big":%d,"price":%d.25,'
            '"tags":[%s],"none":null}' % (i, i, 2**63 + i, i, tags))


def sequence(d, fmt, lines, name):
    """Writes `lines` as JSON Lines and as a sequence of `fmt` documents."""
    jsonl = os.path.join(d, name + ".jsonl")
    with open(jsonl, "w") as f:
        f.write("\n".join(lines) + "\n")
    path = os.path.join(d, "%s.%s" % (name, fmt))
    code, err, _ = run(["convert", "-t", fmt, jsonl, "-o", path])
    assert code == 0, err
    return jsonl, path


def same_from_file_and_pipe(fmt, lines, cut=None):
    """Converts a sequence back to JSON Lines from a file and from a pipe:
    both must give the original records, or (cut: the input ends `cut`
    bytes early) the same records and the same error."""
    def check(d, out, err):
        jsonl, path = sequence(d, fmt, lines, "seq")
        if cut is not None:
            with open(path, "rb") as f:
                data = f.read()
            with open(path, "wb") as f:
                f.write(data[:-cut])
        want = os.path.join(d, "want.json")
        assert run(["fmt", "-c", jsonl], out_path=want)[0] == 0
        results = []
        for pipe in (False, True):
            got = os.path.join(d, "got-%d.json" % pipe)
            code, err, _ = run(["convert", "-f", fmt, "-t", "json", "-c"],
                               path, pipe=pipe, out_path=got)
            with open(got, "rb") as f:
                results.append((code, err, f.read()))
        assert results[0] == results[1], "file and pipe differ: %r / %r" % (
            results[0][:2], results[1][:2])
        code, err, text = results[0]
        with open(want, "rb") as f:
            expected = f.read()
        if cut is None:
            assert code == 0 and err == b"", err
            assert text == expected, "records differ"
        else:
            assert code == 2, code
            size = os.path.getsize(path)
            assert err.startswith(b"jbx: error: <stdin>@"), err
            at = int(err.split(b"@")[1].split(b":")[0])
            # The last document is cut short: its error lies inside it,
            # past every whole document before it.
            assert expected.startswith(text) and text.count(b"\n") == \
                len(lines) - 1, "records before the cut"
            assert size // 2 < at <= size, "offset %d, input %d" % (at, size)
    return check


# Documents of about 700 KB: larger than the first read of a pipe, so a
# document is completed across several reads.
BIG = [record(i, 700_000) for i in range(5)]
SMALL = [record(i, 100) for i in range(3000)]
for fmt in FORMATS:
    case("%s_big_documents_file_and_pipe" % fmt, ["--version"], stdout=None,
         check=same_from_file_and_pipe(fmt, BIG))
    case("%s_small_documents_file_and_pipe" % fmt, ["--version"],
         stdout=None, check=same_from_file_and_pipe(fmt, SMALL))
    case("%s_cut_last_document_file_and_pipe" % fmt, ["--version"],
         stdout=None, check=same_from_file_and_pipe(fmt, BIG, cut=5))


def memory_flat(fmt):
    """Peak RSS converting 64 MiB of documents back to JSON Lines, from a
    file and from a pipe, exceeds that for 2 MiB by less than 32 MiB
    (reading the input whole would add 64)."""
    def check(d, out, err):
        line = record(0, 1000)
        peaks = {}
        for name, n in (("short", (2 << 20) // len(line)),
                        ("long", (64 << 20) // len(line))):
            _, path = sequence(d, fmt, [line] * n, name)
            for pipe in (False, True):
                code, err, rss = run(["convert", "-t", "json", "-c"], path,
                                     pipe=pipe)
                assert code == 0, err
                peaks[name, pipe] = rss
        for pipe in (False, True):
            grew = (peaks["long", pipe] - peaks["short", pipe]) / 1024
            assert grew < 32, "%s: peak RSS grew by %.1f MiB" % (
                "pipe" if pipe else "file", grew)
    return check


# A document after a good one whose string claims more bytes than are
# left. --lines asks for one output document per line; only JSON Lines go
# on past a bad line: in a binary sequence the error ends the input, once
# (not the same error again and again, from a file or a pipe).
BAD_SECOND = {
    "cbor": (b"\x01\x7a\xff\xff\xff\xf0abc",
             "@1: text string of 4294967280 bytes exceeds the input "
             "(3 bytes left)"),
    "msgpack": (b"\x01\xdb\xff\xff\xff\xf0abc",
                "@9: unexpected end of input in str32: 4294967280 bytes "
                "declared, 3 left"),
    "jsonb": (b"\x01\x79\x2fab",
              "@1: string length 47 exceeds the 2 bytes left"),
}
for fmt, (data, message) in BAD_SECOND.items():
    for name, args, out, code in (
            ("fmt", ["fmt", "--lines"], "1\n", 2),
            ("convert", ["convert", "-t", "json", "--lines"], "1\n", 2),
            ("query", ["query", "--lines", "$"], "1\n", 2),
            ("validate", ["validate", "--lines"], "", 1)):
        case("%s_%s_lines_error_ends_the_input" % (fmt, name),
             args + ["bad." + fmt], files={"bad." + fmt: data}, stdout=out,
             stderr="jbx: error: bad.%s%s\n" % (fmt, message), code=code)
        case("%s_%s_lines_error_ends_stdin" % (fmt, name),
             args + ["-f", fmt], stdin=data, stdout=out,
             stderr="jbx: error: <stdin>%s\n" % message, code=code)


for fmt in FORMATS:
    case("%s_sequence_in_bounded_memory" % fmt, ["--version"], stdout=None,
         check=memory_flat(fmt))

run_all()
