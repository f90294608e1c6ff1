"""End-to-end tests of `jbx fmt`: every flag, atomic output, pipes, errors."""

import os
import pty
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import JBX, case, jbx_run, run_all  # noqa: E402
from measure import SANITIZED  # noqa: E402
from measure import run as measured  # noqa: E402

DOC = '{"a":[1,2],"b":{"c":"é","d":[]},"e":{}}'
PRETTY = ('{\n  "a": [\n    1,\n    2\n  ],\n  "b": {\n    "c": "é",\n'
          '    "d": []\n  },\n  "e": {}\n}\n')
COMPACT = '{"a":[1,2],"b":{"c":"é","d":[]},"e":{}}\n'


def scenario(name, fn):
    """A case that needs set-up the harness does not do (modes, ttys,
    pipelines): fn(dir) runs jbx itself and asserts."""
    case(name, ["fmt", "-c"], stdin="1", stdout="1\n",
         check=lambda d, out, err: fn(d))


# ---- layout ------------------------------------------------------------
case("pretty_by_default", ["fmt"], stdin=DOC, stdout=PRETTY)
case("compact", ["fmt", "-c"], stdin=DOC, stdout=COMPACT)
case("compact_long", ["fmt", "--compact"], stdin=DOC, stdout=COMPACT)
case("indent_4", ["fmt", "--indent", "4"], stdin='{"a":[1]}',
     stdout='{\n    "a": [\n        1\n    ]\n}\n')
case("indent_0_is_compact", ["fmt", "--indent", "0"], stdin=DOC,
     stdout=COMPACT)
case("indent_out_of_range", ["fmt", "--indent", "17"], stdin=DOC, code=2,
     stdout="",
     stderr="jbx: error: invalid value '17' for --indent: expected a number "
            "from 0 to 16\n")
case("indent_not_a_number", ["fmt", "--indent", "x"], stdin=DOC, code=2,
     stdout="",
     stderr="jbx: error: invalid value 'x' for --indent: expected a number "
            "from 0 to 16\n")
case("tab", ["fmt", "--tab"], stdin='{"a":[1]}',
     stdout='{\n\t"a": [\n\t\t1\n\t]\n}\n')
case("sort_keys", ["fmt", "-c", "-S"],
     stdin='{"b":1,"a":{"z":[{"y":1,"x":2}],"é":0,"Z":3}}',
     stdout='{"a":{"Z":3,"z":[{"x":2,"y":1}],"é":0},"b":1}\n')
case("sort_keys_long_pretty", ["fmt", "--sort-keys"], stdin='{"b":1,"a":2}',
     stdout='{\n  "a": 2,\n  "b": 1\n}\n')
case("sort_keys_names_to_escape", ["fmt", "-c", "-S"],
     stdin='{"b\\"q":1,"a\\n":2,"a":3,"\\u0000":4}',
     stdout='{"\\u0000":4,"a":3,"a\\n":2,"b\\"q":1}\n')
# Tags, dates, bytes and 64-bit integers of a CBOR map keep their form.
case("sort_keys_binary_values", ["convert", "-t", "json", "-c", "-S", "in"],
     files={"in": bytes.fromhex(
         "a56162c0781b313936392d31322d33315432333a30303a30302e3530303030305a"
         "6161d82068687474703a2f2f7861634201026261611bffffffffffffffff626162"
         "3bffffffffffffffff")},
     stdout='{"a":"http://x","aa":18446744073709551615,'
            '"ab":-18446744073709551616,"b":"1969-12-31T23:00:00.500Z",'
            '"c":"AQI="}\n')


# A line whose error shows in the middle of an object leaves nothing held:
# the next lines are sorted on their own.
case("sort_keys_lines_after_errors", ["fmt", "--lines", "-c", "-S"],
     stdin='{"b":1,"a":[1,{"z":1},2x]}\n{"d":1,"c":2}\n{"f":1,"e":tru}\n'
           '{"h":1,"g":2}\n',
     code=2, stdout='{"c":2,"d":1}\n{"g":2,"h":1}\n',
     stderr="jbx: error: <stdin>:1:24: expected ',' or ']' after array "
            "element, found 'x'\n"
            '  {"b":1,"a":[1,{"z":1},2x]}\n'
            "                         ^\n"
            "jbx: error: <stdin>:3:15: invalid literal, expected 'true'\n"
            '  {"f":1,"e":tru}\n'
            "                ^\n")


def nested(depth, last_first):
    """depth objects, each {"b": level, "a": the next}, keys in the order
    given; level 0 is the innermost."""
    if last_first:
        return ('{"a":' * depth + "1" +
                "".join(f',"b":{level}}}' for level in range(depth)))
    return ("".join(f'{{"b":{level},"a":' for level in reversed(range(depth)))
            + "1" + "}" * depth)


# Deep nesting: each level sorted.
case("sort_keys_deep", ["fmt", "-c", "-S", "--max-depth", "100000"],
     stdin=nested(60000, False), stdout=nested(60000, True) + "\n")
case("ascii", ["fmt", "-c", "-a"], stdin='["é€😀","\\u0001"]',
     stdout='["\\u00e9\\u20ac\\ud83d\\ude00","\\u0001"]\n')
case("ascii_long", ["fmt", "-c", "--ascii"], stdin='{"é":1}',
     stdout='{"\\u00e9":1}\n')
case("canonical_escaping", ["fmt", "-c"],
     stdin='["\\u0041\\/\\u00e9\\t\\u001F\\u007f\\"\\\\"]',
     stdout='["A/é\\t\\u001f\x7f\\"\\\\"]\n')
case("numbers_keep_spelling", ["fmt", "-c"],
     stdin="[-8651648355575108941, 1.000, 1E400, -0, 0.1e-999]",
     stdout="[-8651648355575108941,1.000,1E400,-0,0.1e-999]\n")

# ---- colour ---------------------------------------------------------------
case("color_always_bytes", ["fmt", "--color=always"],
     stdin='{"a":[null,true,1,"s"],"b":{}}',
     stdout="\x1b[1;39m{\x1b[0m\n  \x1b[34;1m\"a\"\x1b[0m\x1b[1;39m:\x1b[0m "
            "\x1b[1;39m[\x1b[0m\n    \x1b[1;30mnull\x1b[0m\x1b[1;39m,"
            "\x1b[0m\n    \x1b[0;39mtrue\x1b[0m\x1b[1;39m,\x1b[0m\n    "
            "\x1b[0;39m1\x1b[0m\x1b[1;39m,\x1b[0m\n    \x1b[0;32m\"s\"\x1b[0m"
            "\n  \x1b[1;39m]\x1b[0m\x1b[1;39m,\x1b[0m\n  \x1b[34;1m\"b\"\x1b[0m"
            "\x1b[1;39m:\x1b[0m \x1b[1;39m{}\x1b[0m\n\x1b[1;39m}\x1b[0m\n")
case("color_always_compact", ["fmt", "-c", "--color", "always"],
     stdin='{"a":1}',
     stdout="\x1b[1;39m{\x1b[0m\x1b[34;1m\"a\"\x1b[0m\x1b[1;39m:\x1b[0m"
            "\x1b[0;39m1\x1b[0m\x1b[1;39m}\x1b[0m\n")
case("color_auto_not_a_terminal", ["fmt", "-c"], stdin='{"a":1}',
     stdout='{"a":1}\n')
case("color_always_beats_no_color", ["fmt", "-c", "--color=always"],
     stdin="1", env={"NO_COLOR": "1"}, stdout="\x1b[0;39m1\x1b[0m\n")
case("color_never", ["fmt", "-c", "--color=never"], stdin="1", stdout="1\n")
case("color_bad_value", ["fmt", "--color=sometimes"], stdin="1", code=2,
     stdout="", stderr=None)


def on_terminal(args, env):
    """Runs jbx with stdout on a pseudo-terminal; returns what it wrote."""
    master, slave = pty.openpty()
    full = dict(os.environ)
    full.pop("NO_COLOR", None)
    full["TERM"] = "xterm"
    full.update(env)
    p = subprocess.Popen([JBX] + args, stdin=subprocess.PIPE, stdout=slave,
                         stderr=subprocess.PIPE, env=full)
    os.close(slave)
    p.stdin.write(b"[1]")
    p.stdin.close()
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    p.wait()
    os.close(master)
    return data


def color_auto(d):
    assert b"\x1b[1;39m[" in on_terminal(["fmt", "-c"], {})
    assert b"\x1b" not in on_terminal(["fmt", "-c"], {"NO_COLOR": "1"})
    assert b"\x1b" not in on_terminal(["fmt", "-c"], {"TERM": "dumb"})
    # An empty NO_COLOR does not count (no-color.org).
    assert b"\x1b" in on_terminal(["fmt", "-c"], {"NO_COLOR": ""})


scenario("color_auto_on_a_terminal", color_auto)

# ---- inputs ---------------------------------------------------------------
case("concatenated_documents", ["fmt", "-c"], stdin='1 2\n[3] {"a":4}',
     stdout='1\n2\n[3]\n{"a":4}\n')
case("several_files_and_stdin", ["fmt", "-c", "a.json", "-", "b.json"],
     stdin="[2]", files={"a.json": "[1]", "b.json": '{"b":3}'},
     stdout='[1]\n[2]\n{"b":3}\n')
case("lines_flag", ["fmt", "--lines"], stdin='{"a": 1}\n\n[1,\n',
     code=2, stdout='{"a":1}\n',
     stderr="jbx: error: <stdin>:3:4: unexpected end of input in array\n"
            "  [1,\n     ^\n")
case("lines_flag_short", ["fmt", "-l"], stdin='{"a": 1}\n [2, 3] \n',
     stdout='{"a":1}\n[2,3]\n')
case("jsonl_extension_implies_lines", ["fmt", "x.jsonl"],
     files={"x.jsonl": '{"a": 1}\n{"b": [2]}\n'},
     stdout='{"a":1}\n{"b":[2]}\n')
case("ndjson_extension_implies_lines", ["fmt", "x.ndjson"],
     files={"x.ndjson": '{"a": 1}\r\n{"b": [2]}'},
     stdout='{"a":1}\n{"b":[2]}\n')
case("jsonl_bad_line_has_its_line_number", ["fmt", "x.jsonl"],
     files={"x.jsonl": '{"a": 1}\n{"b": [2}\n{"c": 3}\n'}, code=2,
     stdout='{"a":1}\n{"c":3}\n',
     stderr="jbx: error: x.jsonl:2:9: expected ',' or ']' after array "
            "element, found '}'\n  {\"b\": [2}\n          ^\n")
case("from_json_overrides_extension", ["fmt", "-c", "--from", "json",
                                        "x.jsonl"],
     files={"x.jsonl": '{"a":\n1}\n'}, stdout='{"a":1}\n')
case("from_unknown_format", ["fmt", "--from", "jsn"], stdin="1", code=2,
     stdout="", stderr="jbx: error: unknown format 'jsn', did you mean "
                       "'json'?\n")
case("max_depth", ["fmt", "-c", "--max-depth", "2"], stdin="[[1]] [[[1]]]",
     code=2, stdout="[[1]]\n",
     stderr="jbx: error: <stdin>:1:9: nesting deeper than 2 levels\n"
            "  [[1]] [[[1]]]\n          ^\n")
case("max_depth_large_uses_the_iterative_parser",
     ["fmt", "-c", "--max-depth", "100000"],
     stdin="[" * 50000 + "]" * 50000, stdout="[" * 50000 + "]" * 50000 + "\n")
case("deep_nesting_default_limit", ["fmt", "-c"], stdin="[" * 100000,
     code=2, stdout=None,
     stderr="jbx: error: <stdin>:1:1025: nesting deeper than 1024 levels\n"
            "  " + "[" * 120 + "\n  " + " " * 59 + "^\n")

# ---- errors -----------------------------------------------------------------
case("error_has_location_line_and_caret", ["fmt"],
     stdin='{\n  "a": [1, 2,]\n}\n', code=2, stdout="",
     stderr="jbx: error: <stdin>:2:14: trailing comma before ']'\n"
            "    \"a\": [1, 2,]\n               ^\n")
case("bad_file_then_next_file", ["fmt", "-c", "bad.json", "good.json"],
     files={"bad.json": '{"a" 1}', "good.json": "[1]"}, code=2,
     stdout="[1]\n",
     stderr="jbx: error: bad.json:1:6: expected ':' after key, found '1'\n"
            "  {\"a\" 1}\n       ^\n")
case("missing_file", ["fmt", "nope.json", "good.json"],
     files={"good.json": "[1]"}, code=2, stdout="[\n  1\n]\n",
     stderr="jbx: error: nope.json: cannot open: No such file or directory\n")
case("empty_input_is_an_error", ["fmt"], stdin="", code=2, stdout="",
     stderr="jbx: error: <stdin>: unexpected end of input, expected a "
            "value\n")
case("blank_input_is_an_error", ["fmt"], stdin="  \n", code=2, stdout="",
     stderr="jbx: error: <stdin>:2:1: unexpected end of input, expected a "
            "value\n  \n  ^\n")
case("empty_json_lines_is_fine", ["fmt", "--lines"], stdin="\n\n",
     stdout="")
case("documents_need_whitespace_between", ["fmt", "-c"], stdin="[1][2]",
     code=2, stdout="",
     stderr="jbx: error: <stdin>:1:4: expected whitespace or end of input "
            "after the document, found '['\n  [1][2]\n     ^\n")
# The source line shows bytes that are not UTF-8 as '?', so that stderr
# stays UTF-8 and the caret stays under the byte.
case("invalid_utf8", ["fmt"], stdin=b'["a\xff"]', code=2, stdout="",
     stderr='jbx: error: <stdin>:1:4: invalid UTF-8 byte 0xff in string\n'
            '  ["a?"]\n     ^\n')
# Wide characters take two columns on a terminal: the caret counts them so
# (the column in the message counts code points). A bidirectional override
# would reorder the line on screen: it shows as '?'.
case("error_caret_under_wide_characters", ["fmt"],
     stdin='{"name":"梁妍凯","age":x}', code=2, stdout="",
     stderr="jbx: error: <stdin>:1:21: expected a value, found 'x'\n"
            '  {"name":"梁妍凯","age":x}\n' + " " * 25 + "^\n")
case("error_line_cut_in_columns", ["fmt"],
     stdin='["' + "梁" * 100 + '",x]', code=2, stdout="",
     stderr="jbx: error: <stdin>:1:105: expected a value, found 'x'\n"
            "  " + "梁" * 28 + '",x]\n' + " " * 60 + "^\n")
case("error_line_bidi_override", ["fmt"],
     stdin='{"a":"\u202e","b":x}', code=2, stdout="",
     stderr="jbx: error: <stdin>:1:14: expected a value, found 'x'\n"
            '  {"a":"?","b":x}\n' + " " * 15 + "^\n")
# A document large enough to be indexed in chunks, then bytes that are not
# UTF-8: the document is written whole, and the error names where the bytes
# are, as after a small document.
BIG = ('{"a":[' + ",".join('{"k":%d,"s":"%s"}' % (i, "x" * 20)
                           for i in range(40000)) + "]}")
case("invalid_utf8_after_a_large_document", ["fmt", "-c", "big.json"],
     files={"big.json": BIG.encode() + b"\n\xff\xff\n"}, code=2,
     stdout=BIG + "\n",
     stderr="jbx: error: big.json:2:1: expected a value, found byte 0xff\n"
            "  ??\n  ^\n")
# A first byte that no JSON text starts with, in content that no binary
# format claims (a JSONB string is not sniffed): the error hints at --from.
case("binary_looking_input_hints_at_from", ["fmt"],
     stdin=bytes.fromhex("aa07e80102030405004a5a"), code=2,
     stderr="jbx: error: <stdin>:1:1: expected a value, found byte 0xaa "
            "(binary input? --from names its format)\n"
            "  ?????????JZ\n  ^\n")
case("binary_looking_input_read_with_from", ["fmt", "--from", "jsonb"],
     stdin=bytes.fromhex("aa07e80102030405004a5a"),
     stdout='"2024-01-02T03:04:05Z"\n')
case("unclosed_string_after_a_large_document", ["fmt", "-c", "big.json"],
     files={"big.json": BIG + '\n"abc\n'}, code=2, stdout=BIG + "\n",
     stderr='jbx: error: big.json:2:5: unescaped control character 0x0a in '
            'string\n  "abc\n      ^\n')

# ---- output files -------------------------------------------------------------
case("output_file", ["fmt", "-c", "-o", "out.json", "in.json"],
     files={"in.json": DOC}, stdout="",
     check=lambda d, out, err: check_file(d, "out.json", COMPACT))
case("output_extension_jsonl_writes_lines", ["fmt", "-o", "out.jsonl"],
     stdin='{"a":\n1} [2]', stdout="",
     check=lambda d, out, err: check_file(d, "out.jsonl", '{"a":1}\n[2]\n'))
case("output_and_in_place_conflict", ["fmt", "-o", "x.json", "-i", "a.json"],
     files={"a.json": "1"}, code=2, stdout="",
     stderr="jbx: error: --output and --in-place cannot be used together\n")
case("in_place_needs_files", ["fmt", "-i"], stdin="1", code=2, stdout="",
     stderr="jbx: error: --in-place needs file arguments, not stdin\n")
case("in_place_refuses_a_device", ["fmt", "-i", "a.json", "/dev/null"],
     files={"a.json": "[ 1 ]"}, code=2, stdout="",
     stderr="jbx: error: /dev/null: not a regular file: --in-place rewrites "
            "files\n",
     check=lambda d, out, err: check_file(d, "a.json", "[\n  1\n]\n"))


def check_file(d, name, expected):
    with open(os.path.join(d, name), encoding="utf-8") as f:
        got = f.read()
    assert got == expected, f"{name}: {got!r} != {expected!r}"


def leftovers(d):
    return sorted(n for n in os.listdir(d) if ".jbx-" in n)


def output_atomic_on_failure(d):
    with open(os.path.join(d, "out.json"), "w") as f:
        f.write("precious\n")
    with open(os.path.join(d, "good.json"), "w") as f:
        f.write("[1]")
    with open(os.path.join(d, "bad.json"), "w") as f:
        f.write("[1,")
    code, out, err = jbx_run(["fmt", "-o", "out.json", "good.json",
                              "bad.json"], cwd=d)
    assert code == 2, code
    assert out == b"", out
    assert err.startswith(b"jbx: error: bad.json:1:4: unexpected end of "
                          b"input in array"), err
    check_file(d, "out.json", "precious\n")
    assert leftovers(d) == [], leftovers(d)


scenario("output_untouched_when_an_input_fails", output_atomic_on_failure)


def output_to_a_device_is_written_not_replaced(d):
    before = os.stat("/dev/null")
    code, out, err = jbx_run(["fmt", "-o", "/dev/null"], stdin=DOC, cwd=d)
    assert (code, out, err) == (0, b"", b""), (code, out, err)
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode), oct(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


scenario("output_to_dev_null_leaves_the_device",
         output_to_a_device_is_written_not_replaced)


def output_to_a_fifo_is_written_in_place(d):
    fifo = os.path.join(d, "pipe")
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
    code, out, err = jbx_run(["fmt", "-c", "-o", "pipe"], stdin=DOC, cwd=d)
    got = reader.communicate(timeout=60)[0]
    assert (code, out, err) == (0, b"", b""), (code, out, err)
    assert got == COMPACT.encode(), got
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert leftovers(d) == [], leftovers(d)


scenario("output_to_a_fifo_is_written_in_place",
         output_to_a_fifo_is_written_in_place)


def output_to_dev_stdout_writes_through_the_descriptor(d):
    # stdout a regular file opened for appending: written to where the
    # descriptor is, never replaced by a new file.
    log = os.path.join(d, "log.txt")
    with open(log, "w") as f:
        f.write("before\n")
    inode = os.stat(log).st_ino
    for name in ("/dev/stdout", "/proc/self/fd/1", "/dev/fd/1"):
        with open(log, "ab") as out:
            r = subprocess.run([JBX, "fmt", "-c", "-o", name], input=b"[1, 2]",
                               stdout=out, stderr=subprocess.PIPE, cwd=d)
        assert (r.returncode, r.stderr) == (0, b""), (name, r)
    check_file(d, "log.txt", "before\n" + "[1,2]\n" * 3)
    assert os.stat(log).st_ino == inode
    assert leftovers(d) == [], leftovers(d)
    with open(log, "ab") as out:
        r = subprocess.run([JBX, "fmt", "-o", "/dev/fd/9"], input=b"1",
                           stdout=out, stderr=subprocess.PIPE, cwd=d)
    assert (r.returncode, r.stderr) == (
        2, b"jbx: error: /dev/fd/9: cannot open: Bad file descriptor\n"), r


scenario("output_to_dev_stdout_writes_through_the_descriptor",
         output_to_dev_stdout_writes_through_the_descriptor)


def output_through_a_symlink_replaces_its_file(d):
    os.mkdir(os.path.join(d, "real"))
    with open(os.path.join(d, "real", "out.json"), "w") as f:
        f.write("old\n")
    os.chmod(os.path.join(d, "real", "out.json"), 0o640)
    os.symlink(os.path.join("real", "out.json"), os.path.join(d, "link.json"))
    code, out, err = jbx_run(["fmt", "-c", "-o", "link.json"], stdin=DOC,
                             cwd=d)
    assert (code, out, err) == (0, b"", b""), (code, out, err)
    assert os.path.islink(os.path.join(d, "link.json"))
    check_file(d, "real/out.json", COMPACT)
    mode = stat.S_IMODE(os.stat(os.path.join(d, "real", "out.json")).st_mode)
    assert mode == 0o640, oct(mode)
    assert leftovers(d) == [] and leftovers(os.path.join(d, "real")) == []


scenario("output_through_a_symlink_replaces_its_file",
         output_through_a_symlink_replaces_its_file)


def in_place_many_files_keep_mode(d):
    for name, text, mode in (("a.json", '{"a":[1]}', 0o640),
                             ("b.json", "[ 2 ,3 ]", 0o600),
                             ("c.json", "{", 0o644),
                             ("d.json", '"x"', 0o755)):
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, mode)
    code, out, err = jbx_run(["fmt", "-c", "-i", "a.json", "b.json", "c.json",
                              "d.json"], cwd=d)
    assert code == 2, code
    assert out == b"", out
    assert err == (b"jbx: error: c.json:1:2: unexpected end of input in "
                   b"object\n  {\n   ^\n"), err
    check_file(d, "a.json", '{"a":[1]}\n')
    check_file(d, "b.json", "[2,3]\n")
    check_file(d, "c.json", "{")  # untouched
    check_file(d, "d.json", '"x"\n')
    modes = {n: stat.S_IMODE(os.stat(os.path.join(d, n)).st_mode)
             for n in ("a.json", "b.json", "c.json", "d.json")}
    assert modes == {"a.json": 0o640, "b.json": 0o600, "c.json": 0o644,
                     "d.json": 0o755}, modes
    assert leftovers(d) == [], leftovers(d)


scenario("in_place_many_files_keep_mode", in_place_many_files_keep_mode)


def in_place_pretty_jsonl(d):
    p = os.path.join(d, "x.jsonl")
    with open(p, "w") as f:
        f.write('{"a": 1}\n{"b": [1, 2]}\n')
    code, out, err = jbx_run(["fmt", "--in-place", "x.jsonl"], cwd=d)
    assert (code, out, err) == (0, b"", b""), (code, out, err)
    check_file(d, "x.jsonl", '{"a":1}\n{"b":[1,2]}\n')


scenario("in_place_keeps_json_lines", in_place_pretty_jsonl)


def dev_full(d):
    with open("/dev/full", "wb") as full:
        p = subprocess.run([JBX, "fmt"], input=b"[1]" * 1, stdout=full,
                           stderr=subprocess.PIPE)
    assert p.returncode == 2, p.returncode
    assert p.stderr == (b"jbx: error: <stdout>: cannot write: No space left "
                        b"on device\n"), p.stderr


scenario("write_error_dev_full", dev_full)


def closed_pipe(d):
    big = os.path.join(d, "big.json")
    with open(big, "w") as f:
        f.write("[" + ",".join('{"k":%d}' % i for i in range(300000)) + "]")
    p = subprocess.run(["bash", "-c",
                        f"'{JBX}' fmt big.json | head -1; "
                        "echo status=${PIPESTATUS[0]}"],
                       cwd=d, capture_output=True)
    assert p.stdout == b"[\nstatus=0\n", p.stdout
    assert p.stderr == b"", p.stderr


scenario("closed_pipe_ends_quietly", closed_pipe)


# ---- documents streamed from a pipe --------------------------------------
# A pipe of concatenated documents is read as it arrives (in 1 MiB chunks),
# not to its end first: memory is bounded by the largest document, errors
# still name their line and column, and a document may span many chunks.
RECORD = b'{"a":1,"b":[true,null,"x"]}\n'


def stream_bounded(d):
    n = 700000  # about 20 MB
    p = subprocess.run(["/usr/bin/time", "-f", "%M", JBX, "fmt", "-c"],
                       input=RECORD * n, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout == RECORD * n
    peak_kib = int(p.stderr.split()[-1])
    assert peak_kib < (96 if SANITIZED else 32) * 1024, peak_kib


def stream_error_far_in(d):
    text = RECORD * 100000 + b'{"b":\n  [1,2,}\n' + RECORD
    code, out, err = jbx_run(["fmt", "-c"], text)
    assert code == 2, code
    assert out == RECORD * 100000, len(out)
    assert err == (b"jbx: error: <stdin>:100002:8: trailing comma before "
                   b"'}'\n    [1,2,}\n         ^\n"), err


def stream_long_document(d):
    # One document over several chunks, strings with brackets and escaped
    # quotes included, then a number and a string after it.
    big = b"[" + b",".join(b'{"k":"]}\\"[%d"}' % i for i in range(200000))
    big += b"]"
    assert len(big) > 3 * 2**20
    code, out, err = jbx_run(["fmt", "-c"], big + b' 12 "a b"')
    assert code == 0, err
    assert out == big + b'\n12\n"a b"\n'


def stream_first_stops_reading(d):
    # An endless producer: query --first answers and ends.
    p = subprocess.run(["bash", "-c",
                        "yes '{\"a\":1}' | \"$0\" query --first '$.a'", JBX],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout == b"1\n", p.stdout


# ---- JSON Lines on two threads -------------------------------------------
# The lines at hand are cut in two and the second half is read on a second
# thread: the output (JSON, CBOR, MessagePack, JSONB), the errors with their
# lines, and the exit status are those of a run on one CPU, from a file and
# from a pipe, with and without the writer features; memory stays bounded.
def lines_two_threads(d):
    lines = []
    for i in range(40000):
        if i % 9973 == 5000:
            lines.append('{"id":%d,"createdAt":"not a date"}' % i)
        elif i % 12011 == 7000:
            lines.append('{"id":%d,"name":}' % i)
        else:
            lines.append('{"id":%d,"userName":"u%d","createdAt":'
                         '"2024-03-10T0%d:30:00-05:00","paidAt":null,'
                         '"tags":["gr\u00fcn",null,%d.50]}' % (i, i, i % 10, i))
    path = os.path.join(d, "log.jsonl")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    features = ["--nulls=drop", "--key-case=snake", "--date-fields=$.createdAt",
                "--date-format=yyyy-MM-dd HH:mm:ss", "--timezone=Asia/Shanghai"]
    for args in (["fmt"], ["fmt"] + features, ["convert", "-t", "json"],
                 ["convert", "-t", "cbor"], ["convert", "-t", "msgpack"] +
                 features, ["convert", "-t", "jsonb"] + features):
        results = {}
        for pipe in (False, True):
            for one_cpu in (False, True):
                got = os.path.join(d, "got.json")
                src = ["-f", "jsonl"] if pipe else [path]
                code, err, _ = measured(args + src, path if pipe else None,
                                           pipe=pipe, out_path=got,
                                           one_cpu=one_cpu)
                with open(got, "rb") as f:
                    results[pipe, one_cpu] = (code, err, f.read())
        # (From a pipe, without a .jsonl name, the output is not JSON
        # Lines: pretty unless -c.)
        for pipe in (False, True):
            want = results[pipe, True]
            got = results[pipe, False]
            assert want[0] == 2, want[:2]
            if "-t" not in args or "json" in args:
                assert want[2].count(b"\n") > 39990, len(want[2])
            else:
                assert len(want[2]) > 2_000_000, len(want[2])
            assert got[0] == want[0], (args, pipe, got[0])
            assert got[1] == want[1], (args, pipe, got[1][:300], want[1][:300])
            assert got[2] == want[2], (args, pipe, "output differs")
        assert results[True, False][1] == results[False, False][1].replace(
            path.encode(), b"<stdin>")
        # Bad syntax on 3 lines; with the features, a bad date on 4 more.
        errors = results[False, True][1].decode()
        assert errors.count("jbx: error:") == (7 if features[0] in args
                                               else 3), errors
        assert "log.jsonl:7001:19: expected a value" in errors, errors


def lines_file_bounded(d):
    # 120 MB of JSON Lines from a file, read on two threads: peak RSS far
    # below the file's size.
    path = os.path.join(d, "big.jsonl")
    with open(path, "wb") as f:
        f.write(RECORD * 4400000)
    code, err, rss = measured(["fmt", "-c", path])
    assert code == 0, err
    assert rss < (96 if SANITIZED else 48) * 1024, rss


scenario("json_lines_two_threads_as_one", lines_two_threads)
scenario("json_lines_file_in_bounded_memory", lines_file_bounded)
scenario("stream_from_a_pipe_in_bounded_memory", stream_bounded)
scenario("stream_error_far_into_a_pipe", stream_error_far_in)
scenario("stream_document_across_chunks", stream_long_document)
scenario("stream_first_stops_reading_an_endless_pipe",
         stream_first_stops_reading)

# A document from a pipe that ends with the input and without a newline:
# the read that brings its last byte does not yet know that the input
# ends, so the end found is kept across the next read. Larger than the
# first reads, for arrays and for strings.
_NESTED = "[" + ",".join('[[{"a":[[],{}]}]]' for _ in range(8000)) + "]"
case("piped_document_ending_the_input", ["fmt", "-c"], stdin=_NESTED,
     stdout=_NESTED + "\n")
_LONG = '"' + "x," * 60000 + '"'
case("piped_string_ending_the_input", ["fmt", "-c"], stdin=_LONG,
     stdout=_LONG + "\n")
case("piped_documents_ending_the_input", ["fmt", "-c"],
     stdin=_NESTED + " " + _LONG, stdout=_NESTED + "\n" + _LONG + "\n")

run_all()
