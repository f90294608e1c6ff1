"""End-to-end tests of `jbx validate`: verdicts, exit codes, diagnostics."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import case, run_all  # noqa: E402

case("valid_is_silent", ["validate"], stdin='{"a": [1, 2.5e3, "x"]}',
     stdout="", stderr="")
case("valid_files", ["validate", "a.json", "b.json"],
     files={"a.json": "[]", "b.json": ' {"b": null} \n'}, stdout="")
case("invalid_exit_1_with_caret", ["validate"],
     stdin='{\n  "a": [1, 2,]\n}\n', code=1, stdout="",
     stderr="jbx: error: <stdin>:2:14: trailing comma before ']'\n"
            "    \"a\": [1, 2,]\n               ^\n")
case("every_file_is_checked", ["validate", "a.json", "bad.json", "c.json"],
     files={"a.json": "1", "bad.json": '{"a":01}', "c.json": "[tru]"},
     code=1, stdout="",
     stderr="jbx: error: bad.json:1:6: leading zeros are not allowed in "
            "numbers\n  {\"a\":01}\n       ^\n"
            "jbx: error: c.json:1:5: invalid literal, expected 'true'\n"
            "  [tru]\n      ^\n")
case("concatenated_documents_are_not_one_json_text", ["validate"],
     stdin="[1]\n[2]\n", code=1,
     stderr="jbx: error: <stdin>:2:1: unexpected content after the document, "
            "found '['\n  [2]\n  ^\n")
case("empty_input", ["validate"], stdin="", code=1,
     stderr="jbx: error: <stdin>: unexpected end of input, expected a "
            "value\n")
case("blank_input", ["validate"], stdin=" ", code=1,
     stderr="jbx: error: <stdin>:1:2: unexpected end of input, expected a "
            "value\n   \n   ^\n")
case("invalid_utf8", ["validate", "x.json"], files={"x.json": b'["\xc3("]'},
     code=1,
     stderr="jbx: error: x.json:1:3: invalid UTF-8 in string: byte 0x28 "
            "cannot follow 0xc3\n"
            '  ["?("]\n    ^\n')
case("lone_surrogate", ["validate"], stdin='["\\ud834"]', code=1,
     stderr="jbx: error: <stdin>:1:3: lone surrogate \\ud834 in string\n"
            "  [\"\\ud834\"]\n    ^\n")
case("big_numbers_are_valid", ["validate"],
     stdin="[1E400, -8651648355575108941, 123456789012345678901234567890]")
case("missing_file_exit_2", ["validate", "nope.json", "ok.json"],
     files={"ok.json": "1"}, code=2,
     stderr="jbx: error: nope.json: cannot open: No such file or directory\n")
case("missing_file_wins_over_invalid", ["validate", "nope.json", "bad.json"],
     files={"bad.json": "["}, code=2, stderr=None)

# ---- JSON Lines --------------------------------------------------------------
LINES = '{"a":1}\n{"a":\n\n[1,]\n"ok"\n{"b" 2}\n'
case("lines_reports_every_bad_line", ["validate", "--lines"], stdin=LINES,
     code=1,
     stderr="jbx: error: <stdin>:2:6: unexpected end of input in object\n"
            "  {\"a\":\n       ^\n"
            "jbx: error: <stdin>:4:4: trailing comma before ']'\n"
            "  [1,]\n     ^\n"
            "jbx: error: <stdin>:6:6: expected ':' after key, found '2'\n"
            "  {\"b\" 2}\n       ^\n")
case("jsonl_extension", ["validate", "x.jsonl"], files={"x.jsonl": LINES},
     code=1, stderr=None,
     check=lambda d, out, err: expect(err.count(b"jbx: error: x.jsonl:") == 3,
                                      err))
case("jsonl_valid_and_empty_lines", ["validate", "-l"],
     stdin='1\n\n {"a": [2]} \r\n"x"')
case("empty_json_lines_is_valid", ["validate", "--lines"], stdin="")

# ---- output control ------------------------------------------------------------
case("quiet", ["validate", "-q"], stdin="[1,", code=1, stdout="", stderr="")
case("quiet_long", ["validate", "--quiet", "nope.json"], code=2, stderr="")
case("quiet_valid", ["validate", "-q"], stdin="[1]", code=0, stderr="")


def expect(cond, what):
    assert cond, what


def json_errors(d, out, err):
    lines = err.decode().splitlines()
    objs = [json.loads(x) for x in lines]
    assert objs == [
        {"file": "<stdin>", "offset": 13, "line": 2, "column": 6,
         "code": "unexpected_end",
         "message": "unexpected end of input in object"},
        {"file": "<stdin>", "offset": 18, "line": 4, "column": 4,
         "code": "syntax", "message": "trailing comma before ']'"},
        {"file": "<stdin>", "offset": 30, "line": 6, "column": 6,
         "code": "syntax", "message": "expected ':' after key, found '2'"},
    ], objs


case("error_format_json", ["validate", "--lines", "--error-format=json"],
     stdin=LINES, code=1, stderr=None, check=json_errors)
case("error_format_json_whole_file",
     ["validate", "--error-format", "json", "a.json"],
     files={"a.json": '{"a":\n  tru}'}, code=1,
     stderr='{"file":"a.json","offset":11,"line":2,"column":6,'
            '"code":"syntax","message":"invalid literal, expected \'true\'"}'
            "\n")
# A file name that is not UTF-8 (byte 0xff): the JSON line stays JSON.
case("error_format_json_file_name_not_utf8",
     ["validate", "--error-format=json", "bad\udcff.json"],
     files={"bad\udcff.json": "[1,]"}, code=1,
     stderr='{"file":"bad\\ufffd.json","offset":3,"line":1,"column":4,'
            '"code":"syntax","message":"trailing comma before \']\'"}\n')
case("error_format_text", ["validate", "--error-format=text"], stdin="]",
     code=1,
     stderr="jbx: error: <stdin>:1:1: expected a value, found ']'\n"
            "  ]\n  ^\n")
case("error_format_bad_value", ["validate", "--error-format=xml"], stdin="1",
     code=2, stderr=None)
case("color_always", ["validate", "--color=always"], stdin="[1,", code=1,
     stderr="jbx: \x1b[1;31merror\x1b[0m: <stdin>:1:4: unexpected end of "
            "input in array\n  [1,\n     \x1b[1;32m^\x1b[0m\n")
case("color_auto_not_a_terminal", ["validate"], stdin="[1,", code=1,
     stderr="jbx: error: <stdin>:1:4: unexpected end of input in array\n"
            "  [1,\n     ^\n")
case("max_depth", ["validate", "--max-depth", "3"], stdin="[[[[]]]]",
     code=1,
     stderr="jbx: error: <stdin>:1:4: nesting deeper than 3 levels\n"
            "  [[[[]]]]\n     ^\n")

# ---- binary formats: well-formedness through the registry's readers -------
case("cbor_valid", ["validate", "x.cbor"],
     files={"x.cbor": bytes([0xa1, 0x61, 0x61, 0x82, 0x01, 0x02])})
case("cbor_truncated", ["validate", "x.cbor"],
     files={"x.cbor": bytes([0xa1, 0x61, 0x61, 0x82, 0x01])}, code=1,
     stderr=None,
     check=lambda d, out, err: expect(err.startswith(b"jbx: error: x.cbor@"),
                                      err))
case("msgpack_valid_by_from", ["validate", "--from", "msgpack"],
     stdin=bytes([0x81, 0xa1, 0x61, 0x92, 0x01, 0x02]))
case("msgpack_truncated", ["validate", "-f", "msgpack"],
     stdin=bytes([0x81, 0xa1, 0x61, 0x92, 0x01]), code=1, stderr=None,
     check=lambda d, out, err: expect(err.startswith(b"jbx: error: <stdin>@"),
                                      err))

run_all()
