"""End-to-end tests of `jbx convert`: every pair of formats, format choice
(sniffing, extensions, --from, -o), the exactness flags (--lossy,
--decimals, --bytes, --nan, --keys, --type-names), streams, errors, and
where output goes (terminal, -i, atomic -o)."""

import os
import pty
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import JBX, SHARED, case, jbx_run, run_all  # noqa: E402

EXT = {"json": "json", "jsonl": "jsonl", "jsonb": "jsonb", "cbor": "cbor",
       "msgpack": "msgpack"}
FORMATS = list(EXT)
BINARY = ("jsonb", "cbor", "msgpack")

DOC = ('{"nested":{"a":[1,{"b":[true,false,null]}],"n":-0.5},'
       '"big":[-8651648355575108941,18446744073709551617],'
       '"dec":[1.000,1E400],"text":"h\u00e9llo \u20ac\U0001F600 \\u2603",'
       '"empty":[{},[],""]}')
TEXT = '"text":"h\u00e9llo \u20ac\U0001F600 \u2603"'
EMPTY = '"empty":[{},[],""]'
NESTED = '"nested":{"a":[1,{"b":[true,false,null]}],"n":-0.5}'
# The spelling each exact decimal format gives 1E400 back in.
SPELLING = {"jsonb": "1E+400", "cbor": "1e400"}


def expected(a, b):
    """DOC after JSON -> a -> b -> JSON, all with --decimals=exact and
    --lossy=string: exact through JSON, JSONB and CBOR; MessagePack has no
    exact type for 2^64+1 and 1E400, so they become strings spelled as they
    reached it, and 1.000 the double 1.0."""
    if "msgpack" in (a, b):
        came_from = a if b == "msgpack" and a != "msgpack" else "json"
        e400 = SPELLING.get(came_from, "1E400")
        return ('{%s,"big":[-8651648355575108941,"18446744073709551617"],'
                '"dec":[1.0,"%s"],%s,%s}\n' % (NESTED, e400, TEXT, EMPTY))
    last = b if b in BINARY else a
    e400 = SPELLING.get(last, "1E400")
    return ('{%s,"big":[-8651648355575108941,18446744073709551617],'
            '"dec":[1.000,%s],%s,%s}\n' % (NESTED, e400, TEXT, EMPTY))


def pair(a, b):
    """JSON -> a on stdout; a (a file named by its extension) -> b with -o;
    b -> compact JSON. Each step exits 0 with an empty stderr."""
    exact = ["--decimals=exact", "--lossy=string"]

    def check(d, out, err):
        first = os.path.join(d, "x." + EXT[a])
        second = os.path.join(d, "y." + EXT[b])
        with open(first, "wb") as f:
            f.write(out)
        code, out2, err2 = jbx_run(["convert", first, "-t", b, "-o", second] +
                                   exact, cwd=d)
        assert (code, out2, err2) == (0, b"", b""), (code, out2, err2)
        code, out3, err3 = jbx_run(["convert", second, "-c"], cwd=d)
        assert (code, err3) == (0, b""), (code, err3)
        want = expected(a, b).encode()
        assert out3 == want, "got %r, expected %r" % (out3, want)

    case("pair_%s_to_%s" % (a, b), ["convert", "-t", a] + exact, stdin=DOC,
         stdout=None, check=check)


for a in FORMATS:
    for b in FORMATS:
        pair(a, b)


def hexbytes(s):
    return bytes.fromhex(s.replace(" ", ""))


# {"a":1,"b":[true,"x"]} in each binary format.
MP_DOC = hexbytes("82 a1 61 01 a1 62 92 c3 a1 78")
CBOR_DOC = hexbytes("a2 61 61 01 61 62 82 f5 61 78")
DOC_JSON = '{"a":1,"b":[true,"x"]}\n'

# ---- choosing formats -------------------------------------------------------
case("sniff_msgpack_from_stdin", ["convert", "-c"], stdin=MP_DOC,
     stdout=DOC_JSON)
case("sniff_cbor_from_stdin", ["convert", "-c"], stdin=CBOR_DOC,
     stdout=DOC_JSON)
# Short MessagePack containers are CBOR containers cut short (91 01, [1], is
# a CBOR array of 17 items): the whole input decides, from a pipe or a file.
case("sniff_short_msgpack_array", ["convert", "-c"], stdin=hexbytes("91 01"),
     stdout="[1]\n")
case("sniff_empty_msgpack_array", ["convert", "-c", "empty"],
     files={"empty": hexbytes("90")}, stdout="[]\n")
case("sniff_short_msgpack_map", ["convert", "-c"],
     stdin=hexbytes("81 a1 61 01"), stdout='{"a":1}\n')
case("sniff_short_msgpack_sequence", ["convert", "-c", "-t", "jsonl"],
     stdin=hexbytes("91 01 91 02 80"), stdout="[1]\n[2]\n{}\n")
# 80 is CBOR's [] and MessagePack's {} in full: CBOR, sniffed first, wins.
case("sniff_80_both_formats_in_full", ["convert", "-c"], stdin=hexbytes("80"),
     stdout="[]\n")
case("sniff_short_cbor_still_cbor", ["convert", "-c"],
     stdin=hexbytes("82 01 a1 61 61 02"), stdout='[1,{"a":2}]\n')
case("extension_msgpack", ["convert", "-c", "d.msgpack"],
     files={"d.msgpack": MP_DOC}, stdout=DOC_JSON)
case("extension_mpk", ["convert", "-c", "d.mpk"],
     files={"d.mpk": MP_DOC}, stdout=DOC_JSON)
# 81 01 a1 78 reads as CBOR [1] followed by a cut value, and as MessagePack
# {1: "x"}: the extension decides between formats that both accept it.
case("extension_breaks_a_sniffing_tie", ["convert", "-c", "k.msgpack"],
     files={"k.msgpack": hexbytes("81 01 a1 78")}, stdout='{"1":"x"}\n')
# Content decides for text extensions; for a binary extension only a magic
# number (CBOR's self-describe tag) overrules it, since binary heads are
# ambiguous.
case("sniffed_content_beats_a_text_extension_and_a_magic_number_wins",
     ["convert", "-c", "data.json", "cbor.msgpack"],
     files={"data.json": MP_DOC, "cbor.msgpack": hexbytes("d9 d9 f7") + CBOR_DOC},
     stdout=DOC_JSON + DOC_JSON)
# A JSONB document whose root is a scalar (here the string "ab") also reads
# as CBOR; the .jsonb extension decides.
case("binary_extension_beats_ambiguous_content", ["convert", "-c", "s.jsonb"],
     files={"s.jsonb": hexbytes("4b 61 62")}, stdout='"ab"\n')
# fastjson2's GB18030 strings (type 0x7e) go through the C library's iconv,
# whose conversion module is loaded at run time, also into a static jbx.
case("jsonb_gb18030_strings_decode", ["convert", "-c", "g.jsonb"],
     files={"g.jsonb": hexbytes("96 7e 04 c4 e3 ba c3 7e 02 41 42")},
     stdout='["\u4f60\u597d","AB"]\n')
case("jsonb_gb18030_invalid", ["convert", "-c", "g.jsonb"],
     files={"g.jsonb": hexbytes("96 7e 04 c4 e3 ba c3 7e 02 81 30")},
     code=2, stdout="",
     stderr="jbx: error: g.jsonb@9: at /1: string is not valid gb18030\n")
case("from_overrides_sniffing", ["convert", "-c", "-f", "msgpack", "d.cbor"],
     files={"d.cbor": hexbytes("81 01 a1 78")}, stdout='{"1":"x"}\n')
case("from_alias_mpk", ["convert", "-c", "--from=mpk", "-"],
     stdin=hexbytes("93 01 02 03"), stdout="[1,2,3]\n")
case("to_from_output_extension", ["convert", "-o", "out.mpk"],
     stdin='{"a":1,"b":[true,"x"]}', stdout="",
     check=lambda d, out, err: _file_is(d, "out.mpk", MP_DOC))
case("to_beats_output_extension", ["convert", "-t", "cbor", "-o", "out.mpk"],
     stdin='{"a":1,"b":[true,"x"]}', stdout="",
     check=lambda d, out, err: _file_is(d, "out.mpk", CBOR_DOC))
case("unknown_to_did_you_mean", ["convert", "-t", "msgpak"], stdin="1",
     code=2, stdout="",
     stderr="jbx: error: unknown format 'msgpak', did you mean 'msgpack'?\n")
case("unknown_from_did_you_mean", ["convert", "-f", "jsonbb", "-t", "json"],
     stdin="1", code=2, stdout="",
     stderr="jbx: error: unknown format 'jsonbb', did you mean 'jsonb'?\n")


def _file_is(d, name, want):
    with open(os.path.join(d, name), "rb") as f:
        got = f.read()
    assert got == want, "%s holds %s, expected %s" % (name, got.hex(" "),
                                                      want.hex(" "))


# ---- --lossy on MessagePack -------------------------------------------------
LOSSY = '{"a":[1,{"b~/c":18446744073709551617}],"d":1E400}'
case("lossy_error_is_the_default", ["convert", "-t", "msgpack", "l.json"],
     files={"l.json": LOSSY}, code=2, stdout="",
     stderr="jbx: error: l.json:1:17: at /a/1/b~0~1c: number "
            "18446744073709551617 has no exact MessagePack form (use "
            "--lossy=string or --lossy=nearest)\n"
            "  " + LOSSY + "\n"
            "                  ^\n")
case("lossy_error_explicit", ["convert", "-t", "msgpack", "--lossy=error"],
     stdin='[0.5, -9223372036854775809]', code=2, stdout="",
     stderr="jbx: error: <stdin>:1:7: at /1: number -9223372036854775809 has "
            "no exact MessagePack form (use --lossy=string or "
            "--lossy=nearest)\n"
            "  [0.5, -9223372036854775809]\n"
            "        ^\n")
case("lossy_error_from_binary_input",
     ["convert", "-t", "msgpack", "big.cbor"],
     # CBOR [1, 2^64+1] (tag 2 bignum 01 00..00 01)
     files={"big.cbor": hexbytes("82 01 c2 49 01 00 00 00 00 00 00 00 01")},
     code=2, stdout="",
     stderr="jbx: error: big.cbor@2: at /1: number 18446744073709551617 has "
            "no exact MessagePack form (use --lossy=string or "
            "--lossy=nearest)\n")
case("lossy_string", ["convert", "-t", "msgpack", "--lossy=string"],
     stdin=LOSSY,
     stdout=hexbytes("82 a1 61 92 01 81 a4 62 7e 2f 63 b4") +
     b"18446744073709551617" + hexbytes("a1 64 a5") + b"1E400")
case("lossy_nearest", ["convert", "-t", "msgpack", "--lossy=nearest"],
     stdin=LOSSY,
     stdout=hexbytes("82 a1 61 92 01 81 a4 62 7e 2f 63 cb 43 f0 00 00 00 00 00"
                     "00 a1 64 cb 7f f0 00 00 00 00 00 00"))
case("decimals_default_to_nearest_double", ["convert", "-t", "msgpack"],
     stdin="[0.1,1.000]",
     stdout=hexbytes("92 cb 3f b9 99 99 99 99 99 9a cb 3f f0 00 00 00 00 00 00"))
case("decimals_exact_msgpack_refuses_inexact",
     ["convert", "-t", "msgpack", "--decimals=exact"], stdin="[1.000,0.1]",
     code=2, stdout="",
     stderr="jbx: error: <stdin>:1:8: at /1: number 0.1 has no exact "
            "MessagePack form (use --lossy=string or --lossy=nearest)\n"
            "  [1.000,0.1]\n"
            "         ^\n")

# ---- --decimals=exact through JSONB and CBOR --------------------------------
EXACT = "[1.000,0.1,123456789012345678901234567890.5,-2.50E-3]"
for fmt in ("jsonb", "cbor"):
    case("decimals_exact_%s_and_back" % fmt,
         ["convert", "-t", fmt, "--decimals=exact"], stdin=EXACT, stdout=None,
         check=lambda d, out, err: _back(d, out,
                                         "[1.000,0.1,"
                                         "123456789012345678901234567890.5,"
                                         "-0.00250]\n"))

# BigDecimal and decimal fractions have no negative zero: the sign is kept
# as a double, zero without a sign stays exact.
case("decimals_exact_jsonb_negative_zero",
     ["convert", "-t", "jsonb", "--decimals=exact"], stdin="[-0.0,-0e5,0.00]",
     stdout=bytes.fromhex("97 b58000000000000000 b58000000000000000 b90200"))
for fmt in ("jsonb", "cbor"):
    case("decimals_exact_%s_negative_zero_and_back" % fmt,
         ["convert", "-t", fmt, "--decimals=exact"],
         stdin="[-0.0,-0.000,-0E-7,0.0,-1.5]", stdout=None,
         check=lambda d, out, err: _back(d, out, "[-0.0,-0.0,-0.0,0.0,-1.5]\n"))


def _back(d, data, want):
    code, out, err = jbx_run(["convert", "-c"], stdin=data, cwd=d)
    assert (code, err) == (0, b""), (code, err)
    assert out == want.encode(), "got %r, expected %r" % (out, want)


# ---- --bytes ------------------------------------------------------------------
BYTES = {"base64": '"+/+/AA=="', "base64url": '"-_-_AA"',
         "hex": '"fbffbf00"', "array": "[251,255,191,0]"}
for mode, text in BYTES.items():
    case("bytes_%s_from_msgpack" % mode,
         ["convert", "-c", "-f", "msgpack", "--bytes=" + mode],
         stdin=hexbytes("c4 04 fb ff bf 00"), stdout=text + "\n")
    case("bytes_%s_from_cbor" % mode, ["convert", "-c", "--bytes=" + mode],
         stdin=hexbytes("81 44 fb ff bf 00"), stdout="[%s]\n" % text)
case("bytes_stay_bytes_between_binary_formats",
     ["convert", "-f", "cbor", "-t", "msgpack"],
     stdin=hexbytes("81 44 fb ff bf 00"),
     stdout=hexbytes("91 c4 04 fb ff bf 00"))

# ---- --nan ----------------------------------------------------------------------
NAN = hexbytes("93 cb 7f f8 00 00 00 00 00 00 cb 7f f0 00 00 00 00 00 00"
               " cb ff f0 00 00 00 00 00 00")
case("nan_error_is_the_default", ["convert", "-c", "n.msgpack"],
     files={"n.msgpack": NAN}, code=2, stdout="",
     stderr="jbx: error: n.msgpack@1: at /0: NaN cannot be written as JSON "
            "(use --nan)\n")
case("nan_error_explicit", ["convert", "-c", "--nan=error", "n.msgpack"],
     files={"n.msgpack": NAN}, code=2, stdout="",
     stderr="jbx: error: n.msgpack@1: at /0: NaN cannot be written as JSON "
            "(use --nan)\n")
case("nan_null", ["convert", "-c", "--nan=null", "n.msgpack"],
     files={"n.msgpack": NAN}, stdout="[null,null,null]\n")
case("nan_string", ["convert", "-c", "--nan=string", "n.msgpack"],
     files={"n.msgpack": NAN}, stdout='["NaN","Infinity","-Infinity"]\n')
case("nan_kept_in_binary", ["convert", "-t", "cbor", "n.msgpack"],
     files={"n.msgpack": NAN}, stdout=None,
     check=lambda d, out, err: _back_args(
         d, out, ["--nan=string"], '["NaN","Infinity","-Infinity"]\n'))


def _back_args(d, data, args, want):
    code, out, err = jbx_run(["convert", "-c"] + args, stdin=data, cwd=d)
    assert (code, err) == (0, b""), (code, err)
    assert out == want.encode(), "got %r, expected %r" % (out, want)


# ---- a refusal names the refused value's place in the input ------------------
# Writers and transforms refuse values; the reader adds where the value is:
# FILE:LINE:COL and the line for JSON, FILE@OFFSET for binary input.
PRICE = '{"id": 7,\n "price": 0.1}\n'
USERS = '{"user_id": "a",\n "userId": "b"}\n'
case("refusal_in_json_has_line_and_column",
     ["convert", "-t", "msgpack", "--decimals=exact", "p.json"],
     files={"p.json": PRICE}, code=2, stdout="",
     stderr="jbx: error: p.json:2:11: at /price: number 0.1 has no exact "
            "MessagePack form (use --lossy=string or --lossy=nearest)\n"
            '   "price": 0.1}\n'
            "            ^\n")
case("refusal_of_a_key_in_json_points_at_the_key",
     ["convert", "-t", "cbor", "--key-case", "camel", "u.json"],
     files={"u.json": USERS}, code=2, stdout="",
     stderr='jbx: error: u.json:2:2: --key-case=camel: keys "user_id" and '
            '"userId" both become "userId"\n'
            '   "userId": "b"}\n'
            "   ^\n")
case("refusal_in_json_lines_names_its_line",
     ["convert", "-t", "cbor", "--date-fields", "$.t", "t.jsonl"],
     files={"t.jsonl": '{"t": "2024-01-02"}\n{"t": "2024-02-30"}\n'},
     code=2, stdout=None,
     stderr="jbx: error: t.jsonl:2:7: date at $['t']: day 30 out of range "
            "for 2024-02 at character 9 of \"2024-02-30\"\n"
            '  {"t": "2024-02-30"}\n'
            "        ^\n")
case("refusal_of_a_top_level_json_scalar",
     ["convert", "-t", "cbor"], stdin=" 1E400\n", code=2, stdout="",
     stderr="jbx: error: <stdin>:1:2: number 1E400 is too large for a "
            "float64 (use --decimals=exact)\n"
            "   1E400\n"
            "   ^\n")
# {"id":7,"price":0.1} with 0.1 as CBOR tag 4 and JSONB BigDecimal, and
# {"user_id":"a","userId":"b"}: the refused value and key both at byte 11.
# The JSONB reader adds the path of what it read, the CBOR reader does not.
BINARY_REFUSALS = {
    "cbor": (hexbytes("a2 62 69 64 07 65 70 72 69 63 65 c4 82 20 01"),
             hexbytes("a2 67 75 73 65 72 5f 69 64 61 61"
                      " 66 75 73 65 72 49 64 61 62"), ""),
    "jsonb": (hexbytes("a6 4b 69 64 07 4e 70 72 69 63 65 b9 01 01 a5"),
              hexbytes("a6 50 75 73 65 72 5f 69 64 4a 61"
                       " 4f 75 73 65 72 49 64 4a 62 a5"), "at /userId: "),
}
for fmt, (price, users, key_at) in BINARY_REFUSALS.items():
    case("refusal_in_%s_has_its_offset" % fmt,
         ["convert", "-t", "msgpack", "--decimals=exact", "p." + fmt],
         files={"p." + fmt: price}, code=2, stdout="",
         stderr="jbx: error: p.%s@11: at /price: number 0.1 has no exact "
                "MessagePack form (use --lossy=string or --lossy=nearest)\n"
                % fmt)
    case("refusal_of_a_key_in_%s_has_its_offset" % fmt,
         ["convert", "-c", "--key-case", "camel", "u." + fmt],
         files={"u." + fmt: users}, code=2, stdout="",
         stderr='jbx: error: u.%s@11: %s--key-case=camel: keys "user_id" '
                'and "userId" both become "userId"\n' % (fmt, key_at))
case("nan_refused_in_jsonb_has_its_offset", ["convert", "-c", "n.jsonb"],
     files={"n.jsonb": hexbytes("95 b5 7f f8 00 00 00 00 00 00")},
     code=2, stdout="",
     stderr="jbx: error: n.jsonb@1: at /0: NaN cannot be written as JSON "
            "(use --nan)\n")

# ---- a decimal beyond float64 ----------------------------------------------------
# Without --decimals=exact a decimal becomes a float64; one too large for it
# is refused with its path and the remedy. JSONB keeps it as a BigDecimal.
HUGE = '{"m": {"v": [0, 1E400]}}'
for fmt, remedy in (("cbor", "--decimals=exact"),
                    ("msgpack", "--lossy=string or --lossy=nearest")):
    case("float64_overflow_to_%s_names_path_and_remedy" % fmt,
         ["convert", "-t", fmt, "h.json"], files={"h.json": HUGE},
         code=2, stdout="",
         stderr="jbx: error: h.json:1:17: at /m/v/1: number 1E400 is too "
                "large for a float64 (use %s)\n" % remedy +
                "  " + HUGE + "\n"
                "                  ^\n")
case("float64_overflow_to_cbor_exact", ["convert", "-t", "cbor",
                                        "--decimals=exact", "h.json"],
     files={"h.json": HUGE}, stdout=None,
     check=lambda d, out, err: _back(d, out, '{"m":{"v":[0,1e400]}}\n'))
case("float64_overflow_to_jsonb_stays_exact",
     ["convert", "-t", "jsonb", "h.json"], files={"h.json": HUGE},
     stdout=None,
     check=lambda d, out, err: _back(d, out, '{"m":{"v":[0,1E+400]}}\n'))

# ---- --keys ---------------------------------------------------------------------
KEYS = hexbytes("83 01 a1 78 c3 a1 79 92 01 02 a1 7a")  # {1:"x",true:"y",[1,2]:"z"}
case("keys_text_is_the_default", ["convert", "-c", "k.msgpack"],
     files={"k.msgpack": KEYS}, stdout='{"1":"x","true":"y","[1,2]":"z"}\n')
case("keys_error", ["convert", "-c", "--keys=error", "k.msgpack"],
     files={"k.msgpack": KEYS}, code=2, stdout="",
     stderr="jbx: error: k.msgpack@1: map key 1 is not a string\n")
case("keys_error_to_binary", ["convert", "-t", "cbor", "--keys=error",
                              "k.msgpack"],
     files={"k.msgpack": KEYS}, code=2, stdout="",
     stderr="jbx: error: k.msgpack@1: map key 1 is not a string\n")

# ---- --type-names -----------------------------------------------------------------
TYPED = os.path.join("{shared}", "corpus", "jsonb", "v_set_classname.jsonb")
case("type_names_keep", ["convert", "-c", TYPED],
     stdout='{"@type":"LinkedHashSet","@value":["x",1,2]}\n')
case("type_names_drop", ["convert", "-c", "--type-names=drop", TYPED],
     stdout='["x",1,2]\n')
case("type_names_kept_through_cbor", ["convert", "-t", "cbor", TYPED],
     stdout=None, check=lambda d, out, err: _back(
         d, out, '{"@type":"LinkedHashSet","@value":["x",1,2]}\n'))

# ---- streams --------------------------------------------------------------------
LINES = '{"a":1}\n[2,"x"]\n\n"s"\n{"b":{"c":[]}}\n'
case("jsonl_to_msgpack_sequence", ["convert", "-t", "msgpack", "in.jsonl"],
     files={"in.jsonl": LINES},
     stdout=hexbytes("81 a1 61 01 92 02 a1 78 a1 73 81 a1 62 81 a1 63 90"))
case("msgpack_sequence_to_jsonl",
     ["convert", "-f", "msgpack", "-t", "jsonl"],
     stdin=hexbytes("81 a1 61 01 92 02 a1 78 a1 73 81 a1 62 81 a1 63 90"),
     stdout='{"a":1}\n[2,"x"]\n"s"\n{"b":{"c":[]}}\n')
case("jsonl_msgpack_jsonl_through_files",
     ["convert", "in.jsonl", "-o", "seq.msgpack"],
     files={"in.jsonl": LINES}, stdout="",
     check=lambda d, out, err: _run_is(
         d, ["convert", "seq.msgpack", "-o", "out.jsonl"], "out.jsonl",
         '{"a":1}\n[2,"x"]\n"s"\n{"b":{"c":[]}}\n'))


def _run_is(d, args, name, want):
    code, out, err = jbx_run(args, cwd=d)
    assert (code, out, err) == (0, b"", b""), (code, out, err)
    _file_is(d, name, want.encode())


# ---- errors -----------------------------------------------------------------------
case("truncated_msgpack", ["convert", "-c", "t.msgpack"],
     files={"t.msgpack": MP_DOC[:-3]}, code=2, stdout="",
     stderr="jbx: error: t.msgpack@7: at /b/0: unexpected end of input in "
            "array\n")
case("truncated_msgpack_string", ["convert", "-c", "t.msgpack"],
     files={"t.msgpack": MP_DOC[:-1]}, code=2, stdout="",
     stderr="jbx: error: t.msgpack@9: at /b/1: unexpected end of input in "
            "fixstr: 1 bytes declared, 0 left\n")
case("truncated_cbor", ["convert", "-c", "t.cbor"],
     files={"t.cbor": CBOR_DOC[:-3]}, code=2, stdout=None, stderr=None,
     check=lambda d, out, err: _binary_error(err, "t.cbor@"))
case("truncated_jsonb", ["convert", "-t", "msgpack", "t.jsonb"],
     files={"t.jsonb": b"\xa6\x49\x61\x49"}, code=2, stdout="", stderr=None,
     check=lambda d, out, err: _binary_error(err, "t.jsonb@"))
case("huge_length_msgpack", ["convert", "-c", "h.msgpack"],
     files={"h.msgpack": hexbytes("91 c6 ff ff ff ff 00")}, code=2,
     stdout="",
     stderr="jbx: error: h.msgpack@7: at /0: unexpected end of input in "
            "bin32: 4294967295 bytes declared, 1 left\n")
# A bad line of JSON Lines is reported and skipped; the lines after it are
# still converted (as query and validate do), and the exit status is 2.
case("jsonl_bad_line_is_skipped", ["convert", "-t", "msgpack", "x.jsonl"],
     files={"x.jsonl": '{"a":1}\n{"a":\n[2]\n'}, code=2,
     stdout=hexbytes("81 a1 61 01 91 02"),
     stderr="jbx: error: x.jsonl:2:6: unexpected end of input in object\n"
            "  {\"a\":\n       ^\n")
case("error_in_second_input_still_converts_the_first",
     ["convert", "-c", "a.msgpack", "t.msgpack"],
     files={"a.msgpack": MP_DOC, "t.msgpack": b"\x92\x01"}, code=2,
     stdout=DOC_JSON,
     stderr="jbx: error: t.msgpack@2: at /1: unexpected end of input in "
            "array\n")


def _binary_error(err, where):
    text = err.decode()
    assert text.startswith("jbx: error: " + where), text
    assert text.count("\n") == 1 and text.endswith("\n"), text


# ---- where output goes ---------------------------------------------------------------
def _on_terminal(args):
    master, slave = pty.openpty()
    p = subprocess.Popen([JBX] + args, stdin=subprocess.PIPE, stdout=slave,
                         stderr=subprocess.PIPE)
    os.close(slave)
    _, err = p.communicate(b'{"a":1}')
    data = b""
    try:
        while True:
            chunk = os.read(master, 4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    os.close(master)
    return p.returncode, data, err


def _refuses_terminal(d, out, err):
    code, data, err = _on_terminal(["convert", "-t", "msgpack"])
    assert code == 2 and data == b"", (code, data)
    assert err == (b"jbx: error: refusing to write msgpack to a terminal: use "
                   b"-o FILE or redirect standard output\n"), err
    code, data, err = _on_terminal(["convert", "-t", "json", "-c",
                                    "--color=never"])
    assert code == 0 and data.replace(b"\r\n", b"\n") == b'{"a":1}\n', \
        (code, data, err)


case("binary_output_to_a_terminal_is_refused", ["convert", "-t", "msgpack"],
     stdin="1", stdout=b"\x01", check=_refuses_terminal)

case("in_place_keeps_a_binary_files_format",
     ["convert", "-i", "n.msgpack", "n.cbor"],
     files={"n.msgpack": hexbytes("92 cd 00 01 d9 01 78"),
            "n.cbor": hexbytes("82 19 00 01 78 01 78")}, stdout="",
     check=lambda d, out, err: (_file_is(d, "n.msgpack",
                                         hexbytes("92 01 a1 78")),
                                _file_is(d, "n.cbor",
                                         hexbytes("82 01 61 78"))))
case("in_place_with_to", ["convert", "-i", "-t", "msgpack", "n.json"],
     files={"n.json": '[1,"x"]'}, stdout="",
     check=lambda d, out, err: _file_is(d, "n.json", hexbytes("92 01 a1 78")))
case("in_place_failure_leaves_the_file",
     ["convert", "-i", "t.msgpack"], files={"t.msgpack": b"\x92\x01"},
     code=2, stdout="",
     stderr="jbx: error: t.msgpack@2: at /1: unexpected end of input in "
            "array\n",
     check=lambda d, out, err: _file_is(d, "t.msgpack", b"\x92\x01"))
case("output_is_atomic", ["convert", "l.json", "-o", "out.msgpack"],
     files={"l.json": LOSSY, "out.msgpack": b"old"}, code=2, stdout="",
     stderr="jbx: error: l.json:1:17: at /a/1/b~0~1c: number "
            "18446744073709551617 has no exact MessagePack form (use "
            "--lossy=string or --lossy=nearest)\n"
            "  " + LOSSY + "\n"
            "                  ^\n",
     check=lambda d, out, err: (_file_is(d, "out.msgpack", b"old"),
                                _no_temp_files(d)))


def _no_temp_files(d):
    names = sorted(os.listdir(d))
    assert names == ["l.json", "out.msgpack"], names


case("json_output_options_apply", ["convert", "-f", "msgpack", "-S", "-a",
                                   "--indent", "1"],
     stdin=hexbytes("82 a1 62 a2 c3 a9 a1 61 90"),
     stdout='{\n "a": [],\n "b": "\\u00e9"\n}\n')

if not SHARED:
    sys.exit("usage: test_convert.py JBX SHARED_DIR")
run_all()
