"""JSONTestSuite (../shared/conformance/json-test-suite, see its SOURCE.md)
through both `jbx validate` and `jbx fmt`:

- every y_ file is accepted by both, and fmt's output (pretty and -c),
  re-parsed by Python's json module with exact numbers, equals the input;
- every n_ file is rejected by both with a clean diagnostic (exit 1 for
  validate, 2 for fmt), except the documented stream case below;
- every i_ file gets the verdict recorded in I_VERDICTS (documented in
  docs/json-test-suite.md), from both commands;
- test_transform/ files: fmt -c output pinned.
"""

import json
import os
import sys

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from harness import SHARED, case, run_all  # noqa: E402

SUITE = os.path.join(SHARED, "conformance", "json-test-suite")
PARSING = os.path.join(SUITE, "test_parsing")
TRANSFORM = os.path.join(SUITE, "test_transform")

ACCEPT, REJECT = "accept", "reject"

# Implementation-defined cases: what jbx does, and why (docs/json-test-suite.md).
I_VERDICTS = {
    # Numbers of any size are valid JSON and kept exactly as spelled.
    "i_number_double_huge_neg_exp.json": ACCEPT,
    "i_number_huge_exp.json": ACCEPT,
    "i_number_neg_int_huge_exp.json": ACCEPT,
    "i_number_pos_double_huge_exp.json": ACCEPT,
    "i_number_real_neg_overflow.json": ACCEPT,
    "i_number_real_pos_overflow.json": ACCEPT,
    "i_number_real_underflow.json": ACCEPT,
    "i_number_too_big_neg_int.json": ACCEPT,
    "i_number_too_big_pos_int.json": ACCEPT,
    "i_number_very_big_negative_int.json": ACCEPT,
    # Escaped lone surrogates cannot be represented in UTF-8: rejected.
    "i_object_key_lone_2nd_surrogate.json": REJECT,
    "i_string_1st_surrogate_but_2nd_missing.json": REJECT,
    "i_string_1st_valid_surrogate_2nd_invalid.json": REJECT,
    "i_string_incomplete_surrogate_and_escape_valid.json": REJECT,
    "i_string_incomplete_surrogate_pair.json": REJECT,
    "i_string_incomplete_surrogates_escape_valid.json": REJECT,
    "i_string_invalid_lonely_surrogate.json": REJECT,
    "i_string_invalid_surrogate.json": REJECT,
    "i_string_inverted_surrogates_U+1D11E.json": REJECT,
    "i_string_lone_second_surrogate.json": REJECT,
    # Invalid UTF-8 (strict: no overlong forms, no encoded surrogates,
    # nothing above U+10FFFF), Latin-1 and UTF-16 input: rejected.
    "i_string_UTF-16LE_with_BOM.json": REJECT,
    "i_string_UTF-8_invalid_sequence.json": REJECT,
    "i_string_UTF8_surrogate_U+D800.json": REJECT,
    "i_string_invalid_utf-8.json": REJECT,
    "i_string_iso_latin_1.json": REJECT,
    "i_string_lone_utf8_continuation_byte.json": REJECT,
    "i_string_not_in_unicode_range.json": REJECT,
    "i_string_overlong_sequence_2_bytes.json": REJECT,
    "i_string_overlong_sequence_6_bytes.json": REJECT,
    "i_string_overlong_sequence_6_bytes_null.json": REJECT,
    "i_string_truncated-utf-8.json": REJECT,
    "i_string_utf16BE_no_BOM.json": REJECT,
    "i_string_utf16LE_no_BOM.json": REJECT,
    # 500 levels are within the default --max-depth of 1024.
    "i_structure_500_nested_arrays.json": ACCEPT,
    # RFC 8259 8.1: a parser MAY ignore a BOM; jbx refuses it so that
    # fmt never silently drops bytes.
    "i_structure_UTF-8_BOM_empty_object.json": REJECT,
}

# n_ files that are a valid stream of whitespace-separated documents: fmt
# reads streams like jq (validate does not), so it writes them.
N_FMT_STREAMS = {
    "n_structure_object_with_trailing_garbage.json": '{"a":true}\n"x"\n',
}

# test_transform/: what fmt -c writes ("!" + message start for errors).
TRANSFORM_OUTPUT = {
    "number_-9223372036854775808.json": "[-9223372036854775808]\n",
    "number_-9223372036854775809.json": "[-9223372036854775809]\n",
    "number_1.0.json": "[1.0]\n",
    "number_1.000000000000000005.json": "[1.000000000000000005]\n",
    "number_1000000000000000.json": "[1000000000000000]\n",
    "number_10000000000000000999.json": "[10000000000000000999]\n",
    "number_1e-999.json": "[1E-999]\n",
    "number_1e6.json": "[1E6]\n",
    "number_9223372036854775807.json": "[9223372036854775807]\n",
    "number_9223372036854775808.json": "[9223372036854775808]\n",
    "object_key_nfc_nfd.json": '{"\u00e9":"NFC","e\u0301":"NFD"}\n',
    "object_key_nfd_nfc.json": '{"e\u0301":"NFD","\u00e9":"NFC"}\n',
    "object_same_key_different_values.json": '{"a":1,"a":2}\n',
    "object_same_key_same_value.json": '{"a":1,"a":1}\n',
    "object_same_key_unclear_values.json": '{"a":0,"a":-0}\n',
    "string_1_escaped_invalid_codepoint.json": "!lone surrogate \\ud800",
    "string_1_invalid_codepoint.json": "!byte 0xa0 cannot follow 0xed (a UTF-16 surrogate)",
    "string_2_escaped_invalid_codepoints.json": "!lone surrogate \\ud800",
    "string_2_invalid_codepoints.json": "!byte 0xa0 cannot follow 0xed (a UTF-16 surrogate)",
    "string_3_escaped_invalid_codepoints.json": "!lone surrogate \\ud800",
    "string_3_invalid_codepoints.json": "!byte 0xa0 cannot follow 0xed (a UTF-16 surrogate)",
    "string_with_escaped_NULL.json": '["A\\u0000B"]\n',
}


def exact(text):
    """Python's reading of a JSON text with numbers kept as spelled (jbx
    writes them verbatim) and members kept in order, duplicates too."""
    return json.loads(text, parse_float=lambda s: ("number", s),
                      parse_int=lambda s: ("number", s),
                      object_pairs_hook=list)


def same_value(path):
    with open(path, "rb") as f:
        original = exact(f.read().decode("utf-8"))

    def check(d, out, err):
        assert exact(out.decode("utf-8")) == original, "value changed"
    return check


def clean_error(prefix):
    def check(d, out, err):
        lines = err.decode("utf-8", "replace").splitlines()
        assert lines and lines[0].startswith(prefix), err[:300]
        assert len(lines) in (1, 3), err[:300]  # message, or + line + caret
    return check


def main():
    names = sorted(os.listdir(PARSING))
    i_files = {n for n in names if n.startswith("i_")}
    missing = i_files - set(I_VERDICTS)
    unknown = set(I_VERDICTS) - i_files
    case("i_verdicts_cover_every_i_file", ["--version"], stdout=None,
         check=lambda d, o, e: _expect(
             not missing and not unknown,
             f"no verdict for {sorted(missing)}, stale {sorted(unknown)}"))
    for name in names:
        path = "{shared}/conformance/json-test-suite/test_parsing/" + name
        real = os.path.join(PARSING, name)
        prefix = f"jbx: error: {path.replace('{shared}', SHARED)}"
        verdict = (ACCEPT if name.startswith("y_") else
                   REJECT if name.startswith("n_") else I_VERDICTS.get(name))
        if verdict is None:
            continue
        if verdict == ACCEPT:
            case(f"validate {name}", ["validate", path])
            case(f"fmt {name}", ["fmt", path], stdout=None,
                 check=same_value(real))
            case(f"fmt -c {name}", ["fmt", "-c", path], stdout=None,
                 check=same_value(real))
        else:
            case(f"validate {name}", ["validate", path], code=1, stderr=None,
                 check=clean_error(prefix))
            if name in N_FMT_STREAMS:
                case(f"fmt -c {name}", ["fmt", "-c", path],
                     stdout=N_FMT_STREAMS[name])
            else:
                case(f"fmt {name}", ["fmt", path], code=2, stdout=None,
                     stderr=None, check=clean_error(prefix))
    for name in sorted(os.listdir(TRANSFORM)):
        path = "{shared}/conformance/json-test-suite/test_transform/" + name
        want = TRANSFORM_OUTPUT.get(name)
        if want is None:
            case(f"transform {name} has a pinned output", ["--version"],
                 stdout="no entry in TRANSFORM_OUTPUT")
        elif want.startswith("!"):
            msg = want[1:]
            case(f"transform {name}", ["fmt", "-c", path], code=2,
                 stdout=None, stderr=None,
                 check=lambda d, o, e, msg=msg: _expect(msg.encode() in e, e))
        else:
            case(f"transform {name}", ["fmt", "-c", path], stdout=want)
    run_all()


def _expect(cond, what):
    assert cond, what


main()
