"""End-to-end tests of one large JSON document, which the reader indexes a
chunk at a time (the next one on a second thread, unless the process may
run on one CPU only) and reads front to back: the output is the same as
for any document, errors keep their exact line and column, and peak memory
does not grow with the document. Converted to CBOR, MessagePack or JSONB, a
large array is streamed once the second thread has counted its elements:
the bytes are those written on one CPU, where the output is held whole.
Between binary formats, whose heads give the count, such an array streams
from its start."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import case, run_all  # noqa: E402
from measure import SANITIZED, run  # noqa: E402

MIB = 1 << 20


def record(i):
    """A record with commas inside strings (where a chunk may not end),
    a string longer than most, a big integer and a null."""
    return ('{"id":%d,"name":"récord %d, with a comma","price":%d.25,'
            '"big":%d,"tags":["a,b","c"],"note":"%s","none":null}' %
            (i, i, i, 2**64 + i, "x," * 300))


def document(size, long_string=0):
    """A compact array of records of about `size` bytes; with long_string,
    one member in the middle is a string of that many bytes."""
    parts, n, i = [], 0, 0
    while n < size:
        parts.append(record(i))
        n += len(parts[-1]) + 1
        i += 1
    if long_string:
        parts[len(parts) // 2] = '{"long":"%s"}' % ("é," * (long_string // 3))
    return ("[" + ",".join(parts) + "]").encode()


def write(d, name, data):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def read(path):
    with open(path, "rb") as f:
        return f.read()


def same_output(long_string=0):
    """fmt -c gives back the compact input, from a file and from a pipe,
    on one CPU too, and so does the way through CBOR and back."""
    def check(d, out, err):
        data = document(40 * MIB, long_string)
        path = write(d, "huge.json", data)
        got = os.path.join(d, "got.json")
        for pipe, one_cpu in ((False, False), (True, False), (False, True)):
            code, err, _ = run(["fmt", "-c"], path, pipe=pipe, out_path=got,
                               one_cpu=one_cpu)
            assert code == 0 and err == b"", err
            assert read(got) == data + b"\n", "fmt -c changed the document"
        cbor = os.path.join(d, "huge.cbor")
        code, err, _ = run(["convert", "-t", "cbor", path, "-o", cbor])
        assert code == 0, err
        code, err, _ = run(["convert", "-t", "json", "-c", cbor],
                           out_path=got)
        assert code == 0, err
        assert read(got) == data + b"\n", "the way through CBOR differs"
        # (MessagePack has no integer beyond 64 bits.)
        for to in (["cbor"], ["msgpack", "--lossy=string"], ["jsonb"]):
            outs = []
            for one_cpu in (False, True):
                code, err, _ = run(["convert", "-t"] + to + [path],
                                   out_path=got, one_cpu=one_cpu)
                assert code == 0, err
                outs.append(read(got))
            assert outs[0] == outs[1], "%s streamed differs from held" % to[0]
    return check


case("fmt_and_cbor_of_a_huge_document", ["--version"], stdout=None,
     check=same_output())
case("a_string_longer_than_a_chunk", ["--version"], stdout=None,
     check=same_output(long_string=3 * MIB))


def then_more_documents(d, out, err):
    """A large array followed by other documents (a stream), converted: the
    count of its elements ends at its bracket. The same bytes as on one
    CPU, where nothing is counted, with --empty-as-null too."""
    # Elements on lines of their own: the count's second part starts after
    # a line break past the middle of the text.
    item = ('{"x": [], "tags": [[], {"c": "\\"", "d": {"e": ""}}]}, "\\"", '
            '1, {"y": [{"z": {"c": "\\"", "e": ""}}, "\\"", [{"a": "b"}], '
            'true]}')
    n = 20 * MIB // len(item)
    data = ("[" + ",\n".join([item] * n) + '] {"a":[1,2]}\n[3,[4,5],6] []\n'
            ).encode()
    path = write(d, "stream.json", data)
    got = os.path.join(d, "got")
    for to in (["cbor"], ["msgpack", "--lossy=string"], ["jsonb"]):
        for extra in ([], ["--empty-as-null"]):
            outs = []
            for one_cpu in (False, True):
                code, err, _ = run(["convert", "-t"] + to + extra + [path],
                                   out_path=got, one_cpu=one_cpu)
                assert code == 0 and err == b"", err
                outs.append(read(got))
            assert outs[0] == outs[1], "%s %s differs" % (to[0], extra)


case("a_large_array_then_more_documents", ["--version"], stdout=None,
     check=then_more_documents)


def same_in_pieces(d, out, err):
    """From 64 MiB on, the records of a top-level array are walked in
    pieces on two threads, after a trial: fmt -c gives back the compact
    input, and fmt pretty and with writer features write what they write
    on one CPU, where the walk is whole."""
    data = document(66 * MIB)
    path = write(d, "huge.json", data)
    got = os.path.join(d, "got.json")
    code, err, _ = run(["fmt", "-c"], path, out_path=got)
    assert code == 0 and err == b"", err
    assert read(got) == data + b"\n", "fmt -c changed the document"
    features = ["--key-case=kebab", "--nulls=drop", "--bigint-as-string"]
    for args in (["fmt"], ["fmt"] + features):
        outs = []
        for one_cpu in (False, True):
            code, err, _ = run(args, path, out_path=got, one_cpu=one_cpu)
            assert code == 0 and err == b"", err
            outs.append(read(got))
        assert outs[0] == outs[1], "%s differs on two threads" % args


case("records_in_pieces", ["--version"], stdout=None, check=same_in_pieces)


def error_at(change, want):
    """An error placed in the middle of a huge document (a chunk that is
    not the last) or at its end: the message and column are exact, from
    fmt (exit code 2), validate (1: the input is not valid, also on one
    CPU) and streamed conversions to CBOR and JSONB (2), whose -o files are
    then not left behind."""
    def check(d, out, err):
        data = document(40 * MIB)
        data, at = change(data)
        # Columns count characters, not bytes.
        column = len(data[:at].decode()) + 1
        path = write(d, "bad.json", data)
        expected = "jbx: error: %s:1:%d: %s" % (path, column, want)
        cbor = os.path.join(d, "bad.cbor")
        jsonb = os.path.join(d, "bad.jsonb")
        for command, exit_code, one_cpu in (
                (["fmt"], 2, False), (["validate"], 1, False),
                (["validate"], 1, True),
                (["convert", "-t", "cbor", "-o", cbor], 2, False),
                (["convert", "-t", "jsonb", "-o", jsonb], 2, False)):
            code, err, _ = run(command + [path], one_cpu=one_cpu)
            assert code == exit_code, (command, code)
            first = err.decode().split("\n")[0]
            assert first == expected, "%s\n%s" % (first, expected)
        for path in (cbor, jsonb):
            assert not os.path.exists(path), "a partial -o file was left"
    return check


def bad_utf8(data):
    at = data.index(b'"note":"', len(data) // 2) + 8
    return data[:at] + b"\xff" + data[at + 1:], at


def double_colon(data):
    at = data.index(b'"price":', len(data) // 2) + 7
    return data[:at] + b"::" + data[at + 1:], at + 1


def cut_short(data):
    return data[:-3], len(data) - 3


case("invalid_utf8_in_the_middle", ["--version"], stdout=None,
     check=error_at(bad_utf8, "invalid UTF-8 byte 0xff in string"))
case("grammar_error_in_the_middle", ["--version"], stdout=None,
     check=error_at(double_colon, "expected a value, found ':'"))
case("cut_short_at_the_end", ["--version"], stdout=None,
     check=error_at(cut_short, "unexpected end of input in 'null'"))


def memory_flat(args, bound_mib, output_held=False):
    """Peak RSS for a 64 MiB document exceeds that for a 2 MiB one by less
    than bound_mib (the input whole and its index would add about 110),
    plus, with output_held, the growth of the output (and of its shadow,
    one eighth more, in a sanitizer build)."""
    def check(d, out, err):
        peaks, sizes = [], []
        for size in (2 * MIB, 64 * MIB):
            path = write(d, "doc.json", document(size))
            output = os.path.join(d, "out")
            code, err, rss = run(args + [path], out_path=output)
            assert code == 0, err
            peaks.append(rss / 1024)
            sizes.append(os.path.getsize(output) / MIB)
        grew = peaks[1] - peaks[0]
        held = sizes[1] - sizes[0] if output_held else 0
        bound = bound_mib + held * (9 / 8 if SANITIZED else 1)
        assert grew < bound, "peak RSS grew by %.1f MiB, bound %.1f" % (
            grew, bound)
    return check


case("fmt_in_bounded_memory", ["--version"], stdout=None,
     check=memory_flat(["fmt"], 24))
case("validate_in_bounded_memory", ["--version"], stdout=None,
     check=memory_flat(["validate"], 24))
# CBOR streams an array once its elements are counted, and holds at most
# the output of what was read before, nothing of the input's index.
case("cbor_holds_only_its_output", ["--version"], stdout=None,
     check=memory_flat(["convert", "-t", "cbor"], 24, output_held=True))
case("jsonb_holds_only_its_output", ["--version"], stdout=None,
     check=memory_flat(["convert", "-t", "jsonb"], 24, output_held=True))



def binary_streams(bound_mib):
    """Between binary formats, whose array heads give their counts, a large
    top-level array is written as it is read, and the pages of the mapped
    input are given back behind the reader: the bytes are those converted
    from the JSON, and peak RSS for a 64 MiB document exceeds that for a
    2 MiB one by less than bound_mib, twice that in a sanitizer build (about
    9 and 26 MiB are seen). Held, the output would add as much as the input
    again, and the input all of itself: over 120 MiB. The same holds for
    MessagePack and JSONB read into JSON; CBOR read into JSON on two CPUs
    is read in pieces by both, and keeps its input's pages."""
    def check(d, out, err):
        got = os.path.join(d, "got")
        peaks = {}
        for size in (2 * MIB, 64 * MIB):
            json = write(d, "doc.json", document(size))
            for frm in ("cbor", "jsonb", "msgpack"):
                path = os.path.join(d, "doc." + frm)
                code, err, _ = run(["convert", "-t", frm, "--lossy=string",
                                    json, "-o", path])
                assert code == 0, err
                for to in ("cbor", "jsonb", "msgpack", "json"):
                    if frm == "cbor" and to == "json":
                        continue
                    code, err, rss = run(["convert", "-t", to,
                                          "--lossy=string", path],
                                         out_path=got)
                    assert code == 0, err
                    peaks.setdefault((frm, to), []).append(rss / 1024)
                    if size < 64 * MIB or (frm == "msgpack" and to != frm):
                        continue  # (MessagePack holds big integers as text)
                    want = os.path.join(d, "want")
                    code, err, _ = run(["convert", "-t", to, "--lossy=string",
                                        json], out_path=want)
                    assert code == 0, err
                    assert read(got) == read(want), "%s to %s differs" % (
                        frm, to)
        bound = bound_mib * (2 if SANITIZED else 1)
        for (frm, to), (small, large) in peaks.items():
            assert large - small < bound, \
                "%s to %s: peak RSS grew by %.1f MiB, bound %.1f" % (
                    frm, to, large - small, bound)
    return check


case("binary_to_binary_streams_its_array", ["--version"], stdout=None,
     check=binary_streams(24))


def transforms_stream(bound_mib):
    """The writer features that never add or remove an item of the
    top-level array pass its count on: JSON, and binary formats, converted
    to a binary format with them still stream a large array (peak RSS as in
    binary_streams). The bytes are those of the features applied in JSON
    first, then converted. (Held, the output adds about 60 MiB, and a
    mapped input its own size.) --nulls=drop-all, which may drop items, holds
    the output, and its bytes are right too."""
    features = ["--key-case=upper-snake", "--nulls=drop", "--lossy=string"]

    def check(d, out, err):
        got, want = os.path.join(d, "got"), os.path.join(d, "want")
        peaks = {}
        for size in (2 * MIB, 64 * MIB):
            json = write(d, "doc.json", document(size))
            cbor = os.path.join(d, "doc.cbor")
            code, err, _ = run(["convert", "-t", "cbor", "--lossy=string",
                                json, "-o", cbor])
            assert code == 0, err
            for frm, path in (("json", json), ("cbor", cbor)):
                for to in ("cbor", "jsonb", "msgpack"):
                    code, err, rss = run(["convert", "-t", to] + features +
                                         [path], out_path=got)
                    assert code == 0, err
                    peaks.setdefault((frm, to), []).append(rss / 1024)
                    if size < 64 * MIB or frm != "json":
                        continue
                    code, err, _ = run(["fmt", "-c"] + features[:2] + [json],
                                       out_path=os.path.join(d, "f.json"))
                    assert code == 0, err
                    code, err, _ = run(["convert", "-t", to, "--lossy=string",
                                        os.path.join(d, "f.json")],
                                       out_path=want)
                    assert code == 0, err
                    assert read(got) == read(want), "%s to %s differs" % (
                        frm, to)
        for (frm, to), (small, large) in peaks.items():
            # JSON's elements are counted on the second thread while the
            # walk goes on, holding what it writes until the count comes:
            # on a loaded machine, a good part of the output.
            bound = bound_mib * (2 if SANITIZED else 1) * (
                2 if frm == "json" else 1)
            assert large - small < bound, \
                "%s to %s with features: peak RSS grew by %.1f MiB, " \
                "bound %.1f" % (frm, to, large - small, bound)
        # Null items of the array are dropped: held, and right.
        data = b"[null," + read(json)[1:]
        path = write(d, "nulls.json", data)
        code, err, _ = run(["convert", "-t", "cbor", "--nulls=drop-all",
                            "--lossy=string", path], out_path=got)
        assert code == 0, err
        code, err, _ = run(["convert", "-t", "cbor", "--nulls=drop-all",
                            "--lossy=string", json], out_path=want)
        assert code == 0, err
        assert read(got) == read(want), "drop-all differs"
    return check


case("features_to_binary_stream_its_array", ["--version"], stdout=None,
     check=transforms_stream(24))

run_all()
