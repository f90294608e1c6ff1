"""End-to-end tests of CBOR in jbx: `convert -t cbor --canonical` (RFC 8949
4.2.1 deterministic encoding), the exactness policy (bignums, decimal
fractions, bytes, tags, non-text keys, non-finite floats), format choice,
and the reader's reliability (truncation at every byte offset of a real
document, lengths claiming terabytes, deep nesting, invalid UTF-8), each
answered with `FILE@OFFSET` and exit 2 (validate: 1)."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import SHARED, case, run_all  # noqa: E402


def h(text):
    """Hex with spaces -> bytes."""
    return bytes.fromhex(text.replace(" ", ""))


# ---- --canonical: RFC 8949 4.2.1 ----

# Keys sort by their encoded bytes: the head holds the length, so shorter
# keys come first, then bytewise ("a" < "c" < "bb"); nested maps too.
case("canonical_sorts_keys_by_encoded_bytes",
     ["convert", "-t", "cbor", "--canonical"],
     stdin='{"bb": 1, "c": {"z": null, "y": true}, "a": 2}',
     stdout=h("a3 6161 02 6163 a2 6179 f5 617a f6 626262 01"))
# A 24-byte key has a two-byte head (78 18): after every shorter key.
case("canonical_long_keys_sort_after_short_ones",
     ["convert", "-t", "cbor", "--canonical"],
     stdin='{"%s": 0, "zz": 1}' % ("a" * 24),
     stdout=h("a2 627a7a 01 7818" + "61" * 24 + " 00"))
# Shortest float that keeps the value: float16, float32, else float64.
case("canonical_writes_shortest_exact_floats",
     ["convert", "-t", "cbor", "--canonical"],
     stdin="[1.5, -0.0, 100000.0, 1.1, 65504.0, 5.960464477539063e-08]",
     stdout=h("86 f93e00 f98000 fa47c35000 fb3ff199999999999a f97bff f90001"))
case("preferred_serialisation_writes_float64",
     ["convert", "-t", "cbor"], stdin="[1.5, -0.0]",
     stdout=h("82 fb3ff8000000000000 fb8000000000000000"))
case("canonical_shortest_integers", ["convert", "-t", "cbor", "--canonical"],
     stdin="[0, 23, 24, 255, 256, 65536, 4294967296, -1, -25]",
     stdout=h("89 00 17 1818 18ff 190100 1a00010000 1b0000000100000000"
              " 20 3818"))
# CBOR in: indefinite lengths become definite, non-shortest heads shrink,
# a bignum that fits 64 bits becomes an integer, every NaN is f97e00.
case("canonical_reencodes_cbor_input",
     ["convert", "-f", "cbor", "-t", "cbor", "--canonical"],
     stdin=h("bf 6162 1b0000000000000001 6161 9f c24101 fb7ff8000000000001 ff"
             " ff"),
     stdout=h("a2 6161 82 01 f97e00 6162 01"))
case("canonical_is_a_fixed_point",
     ["convert", "-f", "cbor", "-t", "cbor", "--canonical"],
     stdin=h("a2 6161 82 01 f97e00 6162 01"),
     stdout=h("a2 6161 82 01 f97e00 6162 01"))
case("canonical_output_file", ["convert", "--canonical", "in.json", "-o",
                               "out.cbor"],
     files={"in.json": '{"b": 1, "a": 2}'}, stdout="",
     check=lambda d, out, err: _file_is(d, "out.cbor", h("a2 6161 02 6162 01")))


def _file_is(d, name, want):
    with open(os.path.join(d, name), "rb") as f:
        got = f.read()
    assert got == want, "%s holds %s" % (name, got.hex())


# ---- exactness policy ----

case("big_integers_are_bignums", ["convert", "-t", "cbor"],
     stdin="[18446744073709551615, 18446744073709551616, "
           "-18446744073709551617]",
     stdout=h("83 1bffffffffffffffff c249010000000000000000"
              " c349010000000000000000"))
case("bignums_read_back_exactly", ["convert", "-f", "cbor", "-c"],
     stdin=h("83 1bffffffffffffffff c249010000000000000000"
             " c349010000000000000000"),
     stdout="[18446744073709551615,18446744073709551616,"
            "-18446744073709551617]\n")
case("decimals_exact_are_decimal_fractions",
     ["convert", "-t", "cbor", "--decimals=exact"], stdin="[1.50, 0.1]",
     stdout=h("82 c482 21 1896 c482 20 01"))
case("decimals_exact_negative_zero_is_a_float",
     ["convert", "-t", "cbor", "--decimals=exact"], stdin="[-0.0,0.0]",
     stdout=h("82 fb8000000000000000 c482 20 00"))
case("decimal_fractions_keep_their_spelling", ["convert", "-f", "cbor", "-c"],
     stdin=h("82 c482 21 1896 c482 20 01"), stdout="[1.50,0.1]\n")
case("decimals_default_to_float64", ["convert", "-t", "cbor"], stdin="0.1",
     stdout=h("fb3fb999999999999a"))
case("bytes_default_to_base64", ["convert", "-f", "cbor", "-c"],
     stdin=h("4401020304"), stdout='"AQIDBA=="\n')
case("bytes_base64url", ["convert", "-f", "cbor", "-c", "--bytes=base64url"],
     stdin=h("44fbff0304"), stdout='"-_8DBA"\n')
case("bytes_hex", ["convert", "-f", "cbor", "-c", "--bytes=hex"],
     stdin=h("5f 4201 02 43030405 ff"), stdout='"0102030405"\n')
case("bytes_array", ["convert", "-f", "cbor", "-c", "--bytes=array"],
     stdin=h("4401020304"), stdout="[1,2,3,4]\n")
case("bytes_survive_cbor_to_cbor", ["convert", "-f", "cbor", "-t", "cbor"],
     stdin=h("4401020304"), stdout=h("4401020304"))
case("unknown_tag_is_an_at_type_member", ["convert", "-f", "cbor", "-c"],
     stdin=h("d818 456449455446"),
     stdout='{"@type":"tag:24","@value":"ZElFVEY="}\n')
case("unknown_tag_dropped", ["convert", "-f", "cbor", "-c",
                             "--type-names=drop"],
     stdin=h("d818 456449455446"), stdout='"ZElFVEY="\n')
case("unknown_tag_kept_across_cbor", ["convert", "-f", "cbor", "-t", "cbor"],
     stdin=h("d9 ffff 82 d818 41 01 c1 1a514b67b0"),
     stdout=h("d9 ffff 82 d818 41 01 c1 1a514b67b0"))
case("epoch_dates_are_iso_8601", ["convert", "-f", "cbor", "-c"],
     stdin=h("82 c11a514b67b0 c1fb41d452d9ec200000"),
     stdout='["2013-03-21T20:04:00Z","2013-03-21T20:04:00.500Z"]\n')
case("non_text_keys_become_json_text", ["convert", "-f", "cbor", "-c"],
     stdin=h("a3 01 02 f5 03 820102 04"),
     stdout='{"1":2,"true":3,"[1,2]":4}\n')
# Maps as keys of maps as keys: each level escapes the inner text again.
# Well-formed CBOR that jbx cannot hold: an error (2), not a verdict (1).
case("nested_non_text_keys_bounded", ["validate", "-f", "cbor"],
     stdin=b"\xa1" * 40 + h("a1 6122 00") + b"\x00" * 40, code=2,
     stderr="jbx: error: <stdin>@32: map key of 20 bytes renders as 1570 "
            "bytes of JSON text, beyond the limit\n")
case("non_text_keys_refused", ["convert", "-f", "cbor", "-c",
                               "--keys=error", "in.cbor"],
     files={"in.cbor": h("a2 6161 01 02 03")}, code=2, stdout=None,
     stderr="jbx: error: in.cbor@4: map key must be a text string, found "
            "unsigned integer\n")
case("nan_needs_a_policy", ["convert", "-f", "cbor", "-c"],
     stdin=h("f97e00"), code=2, stdout="",
     stderr="jbx: error: <stdin>@0: NaN cannot be written as JSON (use --nan)\n")
case("nan_as_string", ["convert", "-f", "cbor", "-c", "--nan=string"],
     stdin=h("83 f97e00 f97c00 fbfff0000000000000"),
     stdout='["NaN","Infinity","-Infinity"]\n')
case("nan_as_null", ["convert", "-f", "cbor", "-c", "--nan=null"],
     stdin=h("81 fa7fc00000"), stdout="[null]\n")
case("undefined_and_simple_values_are_null", ["convert", "-f", "cbor", "-c"],
     stdin=h("83 f7 f0 f8ff"), stdout="[null,null,null]\n")

# ---- format choice and streams ----

case("sniffed_by_self_describe_tag", ["convert", "-c", "data"],
     files={"data": h("d9d9f7 a1 6161 01")}, stdout='{"a":1}\n')
case("sniffed_without_extension", ["convert", "-c", "data"],
     files={"data": h("a1 6161 81 f5")}, stdout='{"a":[true]}\n')
# A text string head is an ASCII character: one string that is the whole
# input is CBOR, and JSON text stays JSON.
case("sniffed_top_level_text_string", ["convert", "-t", "json"],
     stdin=h("63 616263"), stdout='"abc"\n')
case("sniffed_top_level_text_string_of_one_byte_length",
     ["convert", "-c", "data"], files={"data": h("78 05 68656c6c6f")},
     stdout='"hello"\n')
for text in ("true", '"x"', "12", "null", "-1", '{"a":"b"}', "[1]"):
    case("json_scalar_on_stdin_stays_json_%s" % text,
         ["convert", "-c"], stdin=text + "\n", stdout=text + "\n")
case("text_after_a_text_string_is_not_cbor", ["convert", "-c"],
     stdin=h("63 616263 0a"), code=2, stdout="",
     stderr="jbx: error: <stdin>:1:1: expected a value, found 'c'\n"
            "  cabc\n"
            "  ^\n")
case("text_string_starting_like_json_needs_from", ["convert", "-f", "cbor"],
     stdin=b"false !", stdout='"alse !"\n')  # 0x66: 6 bytes of text
case("extension_names_cbor", ["convert", "-c", "x.cbor"],
     files={"x.cbor": h("01")}, stdout="1\n")
case("output_extension_names_cbor", ["convert", "in.json", "-o", "x.cbor"],
     files={"in.json": '{"a": [1, "x"]}'}, stdout="",
     check=lambda d, out, err: _file_is(d, "x.cbor", h("a1 6161 82 01 6178")))
case("json_lines_to_a_cbor_sequence", ["convert", "--lines", "-t", "cbor"],
     stdin='{"a":1}\n[2]\n"x"\n', stdout=h("a1616101 8102 6178"))
case("cbor_sequence_to_json_lines", ["convert", "-f", "cbor", "-t", "jsonl"],
     stdin=h("a1616101 8102 6178"), stdout='{"a":1}\n[2]\n"x"\n')
case("binary_output_refused_on_a_terminal_only", ["convert", "-t", "cbor"],
     stdin="null", stdout=h("f6"))
case("validate_cbor", ["validate", "ok.cbor"],
     files={"ok.cbor": h("a1 6161 82 01 02")}, stdout="")

# ---- reliability: clean errors with the byte offset, never a crash ----

case("length_claiming_a_terabyte", ["convert", "-c", "t.cbor"],
     files={"t.cbor": h("5b0000010000000000 00")}, code=2, stdout="",
     stderr="jbx: error: t.cbor@0: byte string of 1099511627776 bytes "
            "exceeds the input (1 bytes left)\n")
case("array_claiming_a_terabyte", ["convert", "-c", "t.cbor"],
     files={"t.cbor": h("81 9b0000010000000000 00")}, code=2, stdout=None,
     stderr="jbx: error: t.cbor@1: at /0: array of 1099511627776 items "
            "exceeds the input (1 bytes left)\n")
case("map_claiming_a_terabyte", ["validate", "t.cbor"],
     files={"t.cbor": h("bb0000010000000000 6161 01")}, code=1, stdout="",
     stderr="jbx: error: t.cbor@0: map of 1099511627776 pairs exceeds the "
            "input (3 bytes left)\n")
# (stdout=None: JSON written before the error is not this test's subject.)
case("deep_nesting", ["convert", "-c", "-f", "cbor"],
     stdin=b"\x81" * 100000 + b"\x00", code=2, stdout=None,
     stderr="jbx: error: <stdin>@1024: at " + "/0" * 1024 +
            ": nesting deeper than 1024 levels\n")
# Bignum conversions are quadratic: a 100 kB bignum is refused at once
# instead of costing seconds (4096 bytes, 9864 digits are the bounds).
case("bignum_longer_than_4096_bytes", ["convert", "-c", "b.cbor"],
     files={"b.cbor": h("c2 5a000186a0") + b"\x01" * 100000}, code=2,
     stdout="",
     stderr="jbx: error: b.cbor@1: bignum of 100000 bytes is longer than "
            "4096 bytes\n")
case("integer_longer_than_9864_digits", ["convert", "-t", "cbor"],
     stdin="1" * 9865, code=2, stdout="",
     stderr="jbx: error: <stdin>:1:1: number of 9865 digits is too long for "
            "a CBOR bignum (at most 9864)\n"
            "  " + "1" * 120 + "\n"
            "  ^\n")
case("deep_nesting_of_tags", ["convert", "-c", "-f", "cbor"],
     stdin=b"\xc6" * 100000 + b"\x00", code=2, stdout="",
     stderr="jbx: error: <stdin>@1024: nesting deeper than 1024 levels\n")
case("max_depth", ["validate", "-f", "cbor", "--max-depth", "3"],
     stdin=b"\x81" * 4 + b"\x00", code=1, stdout="",
     stderr="jbx: error: <stdin>@3: at /0/0/0: nesting deeper than 3 "
            "levels\n")
case("invalid_utf8", ["convert", "-c", "-f", "cbor", "in.cbor"],
     files={"in.cbor": h("82 6161 63 61c328")}, code=2, stdout=None,
     stderr="jbx: error: in.cbor@5: at /1: invalid UTF-8 in text string: "
            "byte 0x28 cannot follow 0xc3\n")
case("invalid_utf8_in_a_key", ["validate", "-f", "cbor"],
     stdin=h("a1 62 eda080 00"), code=1,
     stderr="jbx: error: <stdin>@2: invalid UTF-8 in text string: byte "
            "0xa0 cannot follow 0xed (a UTF-16 surrogate)\n")
case("stray_break", ["validate", "-f", "cbor"], stdin=h("82 01 ff"), code=1,
     stderr="jbx: error: <stdin>@2: at /1: unexpected break\n")
case("reserved_additional_info", ["validate", "-f", "cbor"], stdin=h("1c"),
     code=1,
     stderr="jbx: error: <stdin>@0: invalid major type 0 with additional "
            "info 28\n")

# Every proper prefix of a real document is an error at or before the cut.
ERROR = re.compile(rb"^jbx: error: cut\.cbor@(\d+): (?:at /[^\n]*?: )?"
                   rb"(unexpected end of input"
                   rb" in [a-z0-9 ]+|[a-z ]+ of \d+ (bytes|items|pairs) "
                   rb"exceeds the input \(\d+ bytes left\))\n$")


def truncated_at(cut):
    def check(d, out, err):
        m = ERROR.match(err)
        assert m, "unexpected message %r" % err
        assert int(m.group(1)) <= cut, "offset %s beyond the cut %d" % (
            m.group(1), cut)
    return check


REAL = os.path.join(SHARED, "conformance", "nlohmann-test-data", "json.org",
                    "1.json.cbor")
with open(REAL, "rb") as f:
    real = f.read()
for cut in range(1, len(real)):
    case("truncated_1_json_cbor_at_%d" % cut, ["validate", "-f", "cbor",
                                               "cut.cbor"],
         files={"cut.cbor": real[:cut]}, code=1, stdout="", stderr=None,
         check=truncated_at(cut))
case("empty_cbor_input", ["validate", "-f", "cbor", "cut.cbor"],
     files={"cut.cbor": b""}, code=1, stdout="",
     stderr="jbx: error: cut.cbor: empty input, expected a document\n")
case("untruncated_1_json_cbor", ["validate", "cut.cbor"],
     files={"cut.cbor": real}, stdout="")

run_all()
