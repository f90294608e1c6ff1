"""End-to-end tests of how argv is parsed: clustered short flags, attached
values, values that look like flags, `--` (the end of the flags), repeated
flags and flags of other commands. jbx registers with CLI11 only the flags
argv names, and parses the common forms without CLI11, so these pin that
the result is the same as with every flag of the command registered."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import case, run_all  # noqa: E402

DOC = '{"b":1,"a":[1]}'
SORTED = '{"a":[1],"b":1}\n'
PRETTY = '{\n  "b": 1,\n  "a": [\n    1\n  ]\n}\n'

case("clustered_short_switches", ["fmt", "-cS"], stdin=DOC, stdout=SORTED)
case("clustered_short_switches_any_order", ["fmt", "-Sc"], stdin=DOC,
     stdout=SORTED)
case("three_clustered_switches", ["fmt", "-caS"], stdin='{"b":"\u00e9","a":1}',
     stdout='{"a":1,"b":"\\u00e9"}\n')
case("short_option_with_attached_value", ["convert", "-tcbor"], stdin=DOC,
     stdout=bytes.fromhex("a2616201616181 01".replace(" ", "")))
case("switch_then_attached_option", ["convert", "-ctjson"], stdin=DOC,
     stdout='{"b":1,"a":[1]}\n')
case("long_option_with_equals", ["fmt", "--indent=4"], stdin='[1]',
     stdout="[\n    1\n]\n")
case("long_option_with_separate_value", ["fmt", "--indent", "0"],
     stdin='[1, 2]', stdout="[1,2]\n")
case("switch_given_twice", ["fmt", "-c", "--compact"], stdin=DOC,
     stdout='{"b":1,"a":[1]}\n')
case("switch_with_a_value", ["fmt", "--compact=1"], stdin=DOC,
     stdout='{"b":1,"a":[1]}\n')
case("option_value_that_looks_like_a_flag", ["fmt", "-o", "-c", "in.json"],
     files={"in.json": DOC}, stdout="",
     check=lambda d, out, err: _expect_file(d, "-c", PRETTY))
case("option_at_the_end_needs_a_value", ["fmt", "in.json", "--indent"],
     files={"in.json": DOC}, stdout="", code=2,
     stderr="jbx: error: option '--indent' needs a value (N)\n")
case("short_option_at_the_end_needs_a_value", ["fmt", "-o"], stdout="",
     code=2, stderr="jbx: error: option '--output' needs a value (FILE)\n")
case("choice_option_takes_the_next_word", ["fmt", "--color", "in.json"],
     files={"in.json": DOC}, stdout="", code=2,
     stderr="jbx: error: invalid value 'in.json' for '--color' (choose from "
            "auto, always, never)\n")
case("unknown_short_flag", ["fmt", "-x"], stdin=DOC, stdout="", code=2,
     stderr="jbx: error: unknown option '-x' for 'jbx fmt'\n")
case("unknown_short_flag_after_a_known_one", ["fmt", "-cx"], stdin=DOC,
     stdout="", code=2,
     stderr="jbx: error: unknown option '-x' for 'jbx fmt'\n")
case("unknown_short_flag_before_a_known_one", ["fmt", "-xc"], stdin=DOC,
     stdout="", code=2,
     stderr="jbx: error: unknown option '-xc' for 'jbx fmt'\n")
case("short_flag_of_another_command", ["validate", "-c"], stdin=DOC,
     stdout="", code=2,
     stderr="jbx: error: unknown option '-c' for 'jbx validate'\n")
case("option_of_another_command", ["fmt", "-t", "cbor"], stdin=DOC,
     stdout="", code=2,
     stderr="jbx: error: unknown option '-t' for 'jbx fmt'\n")
case("long_prefix_is_not_a_flag", ["fmt", "--sort"], stdin=DOC, stdout="",
     code=2,
     stderr="jbx: error: unknown option '--sort' for 'jbx fmt', did you "
            "mean '--sort-keys'?\n")
case("double_dash_ends_the_flags", ["fmt", "-c", "--", "-c", "a.json"],
     files={"-c": DOC, "a.json": "[2]"}, stdout='{"b":1,"a":[1]}\n[2]\n')
case("double_dash_after_a_cluster", ["fmt", "-cS", "--", "-h", "--"],
     files={"-h": DOC, "--": "[2]"}, stdout=SORTED + "[2]\n")
case("double_dash_as_an_option_value", ["fmt", "--indent", "--", "a.json"],
     files={"a.json": DOC}, stdout="", code=2,
     stderr="jbx: error: option '--indent' needs a value (N)\n")
case("help_before_double_dash", ["fmt", "-h", "--", "--help"], stderr="",
     check=lambda d, out, err: _expect_prefix(out, "jbx fmt: Reformat JSON"))
case("negative_number_is_a_file", ["fmt", "-5"], stdout="", code=2,
     stderr="jbx: error: -5: cannot open: No such file or directory\n")
case("help_after_flags", ["fmt", "-c", "--indent", "2", "-h"], stderr="",
     check=lambda d, out, err: _expect_prefix(out, "jbx fmt: Reformat JSON"))
case("help_with_a_value", ["fmt", "--help=1"], stderr="",
     check=lambda d, out, err: _expect_prefix(out, "jbx fmt: Reformat JSON"))
case("query_flags_cluster", ["query", "-re", "$.s"], stdin='{"s":"x y"}',
     stdout="x y\n")
case("query_exit_status_in_a_cluster", ["query", "-er", "$.zz"],
     stdin='{"s":1}', stdout="", code=1)
case("validate_quiet_cluster_with_unknown", ["validate", "-qz"], stdin="1",
     stdout="", code=2,
     stderr="jbx: error: unknown option '-z' for 'jbx validate'\n")
case("no_flags_files_in_order", ["fmt", "-c", "b.json", "a.json"],
     files={"a.json": "[1]", "b.json": "[2]"}, stdout="[2]\n[1]\n")
case("no_flags_at_all", ["fmt", "b.json", "a.json"],
     files={"a.json": "1", "b.json": "2"}, stdout="2\n1\n")
case("lone_dash_is_stdin", ["fmt", "-", "a.json"], stdin="[0]",
     files={"a.json": "1"}, stdout="[\n  0\n]\n1\n")
case("empty_word_is_a_file_name", ["fmt", ""], stdout="", code=2,
     stderr="jbx: error: cannot open: No such file or directory\n")
case("empty_query_word", ["query", "", "a.json"], files={"a.json": "1"},
     stdout="", code=2,
     stderr="jbx: error: invalid query: a query starts with '$'\n  \n  ^\n")


def _expect_file(d, name, content):
    with open(os.path.join(d, name), "rb") as f:
        got = f.read().decode()
    if got != content:
        raise AssertionError(f"{name} holds {got!r}, expected {content!r}")


def _expect_prefix(out, prefix):
    if not out.decode().startswith(prefix):
        raise AssertionError(f"stdout starts {out[:40]!r}, expected {prefix!r}")


run_all()
