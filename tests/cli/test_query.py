"""End-to-end tests of `jbx query`: every output mode, exit statuses, query
errors with a caret, --first, --pointer, JSON Lines, several files, exact
numbers, and the same answers on JSON, JSONB, CBOR and MessagePack
encodings of one document."""

import json
import os
import sys

import cbor2
import msgpack

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import case, jbx_run, run_all  # noqa: E402

BOOKS = json.dumps({
    "store": {
        "book": [
            {"title": "Sayings", "price": 8.95, "tags": ["a", "b"]},
            {"title": "Sword", "price": 12.99, "isbn": "0-553"},
            {"title": "Moby", "price": 8.99, "isbn": "0-395"},
        ],
        "bicycle": {"color": "red", "price": 19.95},
    }
})

# ---- output modes -----------------------------------------------------------

case("values_one_per_line", ["query", "$.store.book[*].title"], stdin=BOOKS,
     stdout='"Sayings"\n"Sword"\n"Moby"\n')
case("containers_compact_by_default", ["query", "$.store.book[0].tags"],
     stdin=BOOKS, stdout='["a","b"]\n')
case("indent_makes_pretty", ["query", "--indent", "2", "$.store.book[0].tags"],
     stdin=BOOKS, stdout='[\n  "a",\n  "b"\n]\n')
case("wrap_pretty", ["query", "--wrap", "$..isbn"], stdin=BOOKS,
     stdout='[\n  "0-553",\n  "0-395"\n]\n')
case("wrap_compact", ["query", "--wrap", "-c", "$..isbn"], stdin=BOOKS,
     stdout='["0-553","0-395"]\n')
case("wrap_nothing", ["query", "--wrap", "-c", "$.nope"], stdin=BOOKS,
     stdout='[]\n')
case("raw_strings", ["query", "-r", "$.store.book[:2]['title','price']"],
     stdin=BOOKS, stdout="Sayings\n8.95\nSword\n12.99\n")
case("raw_non_string_is_json", ["query", "-r", "$.store.bicycle"],
     stdin=BOOKS, stdout='{"color":"red","price":19.95}\n')
case("raw_keeps_newlines", ["query", "-r", "$[0]"], stdin='["a\\nb"]',
     stdout="a\nb\n")
case("raw0", ["query", "--raw0", "$..title"], stdin=BOOKS,
     stdout="Sayings\0Sword\0Moby\0")
case("paths", ["query", "--paths", "$..[?@.isbn]"], stdin=BOOKS,
     stdout="$['store']['book'][1]\n$['store']['book'][2]\n")
case("paths_escape_names", ["query", "--paths", "$.*"],
     stdin='{"it\'s":1,"a\\\\b\\n":2}',
     stdout="$['it\\'s']\n$['a\\\\b\\n']\n")
case("pointers", ["query", "--pointers", "$.*"], stdin='{"a/b":1,"m~n":2}',
     stdout="/a~1b\n/m~0n\n")
case("paths_raw0", ["query", "--paths", "--raw0", "$.store.book[0,1]"],
     stdin=BOOKS, stdout="$['store']['book'][0]\0$['store']['book'][1]\0")
case("paths_wrapped", ["query", "--paths", "--wrap", "-c", "$..color"],
     stdin=BOOKS, stdout='["$[\'store\'][\'bicycle\'][\'color\']"]\n')
case("with_path", ["query", "--with-path", "$.store.book[-1].price"],
     stdin=BOOKS,
     stdout='{"path":"$[\'store\'][\'book\'][2][\'price\']","value":8.99}\n')
case("with_path_pointers", ["query", "--with-path", "--pointers", "$..color"],
     stdin=BOOKS, stdout='{"pointer":"/store/bicycle/color","value":"red"}\n')


def cbor_results(expected):
    def check(d, out, err):
        got = []
        dec = cbor2.CBORDecoder(__import__("io").BytesIO(out))
        while dec.fp.tell() < len(out):
            got.append(dec.decode())
        assert got == expected, got
    return check


case("to_cbor", ["query", "-t", "cbor", "$.store.book[*].price"], stdin=BOOKS,
     stdout=None, check=cbor_results([8.95, 12.99, 8.99]))
case("raw_with_to_is_usage_error", ["query", "-r", "-t", "cbor", "$"],
     stdin="1", stdout="",
     stderr="jbx: error: --raw writes text; it cannot be used with -t\n",
     code=2)

# ---- exit status, --first ---------------------------------------------------

case("exit_status_nothing", ["query", "-e", "$.nope"], stdin=BOOKS, stdout="",
     code=1)
case("exit_status_match", ["query", "-e", "$.store.bicycle.color"],
     stdin=BOOKS, stdout='"red"\n', code=0)
case("no_match_is_success_without_e", ["query", "$.nope"], stdin=BOOKS,
     stdout="", code=0)
case("first_stops", ["query", "--first", "$..price"], stdin=BOOKS,
     stdout="8.95\n")
# The second document is broken: --first never reads it.
case("first_stops_reading", ["query", "--first", "$.a"],
     stdin='{"a":1}\n{"a": nope', stdout="1\n")
case("first_skips_later_files", ["query", "--first", "$", "a.json",
                                 "missing.json"],
     files={"a.json": "[1]"}, stdout="[1]\n")

# ---- --pointer ----------------------------------------------------------------

case("pointer", ["query", "--pointer", "/store/book/1/title"], stdin=BOOKS,
     stdout='"Sword"\n')
case("pointer_escapes", ["query", "--pointer", "/a~1b/m~0n"],
     stdin='{"a/b":{"m~n":true}}', stdout="true\n")
case("pointer_numeric_member", ["query", "--pointer", "/0"],
     stdin='{"0":"zero"}', stdout='"zero"\n')
case("pointer_root", ["query", "--pointer", ""], stdin="[1]",
     stdout="[1]\n")
case("pointer_all_positionals_are_files", ["query", "--pointer", "/a",
                                           "x.json"],
     files={"x.json": '{"a":5}'}, stdout="5\n")
case("pointer_invalid",
     ["query", "--pointer", "/a~2"], stdin="{}", stdout="",
     stderr="jbx: error: invalid JSON Pointer: '~' must be followed by '0' "
            "or '1' in a JSON Pointer\n  /a~2\n    ^\n", code=2)

# ---- query errors -------------------------------------------------------------

case("syntax_error_caret", ["query", "$.store[?@.price < ]"], stdin=BOOKS,
     stdout="",
     stderr="jbx: error: invalid query: expected a query, a literal or a "
            "function call, found ']'\n  $.store[?@.price < ]\n"
            "                     ^\n", code=2)
case("syntax_error_caret_after_wide_characters", ["query", "$.名字["],
     stdin="{}", stdout="",
     stderr="jbx: error: invalid query: expected a selector, found end of "
            "query\n  $.名字[\n" + " " * 9 + "^\n", code=2)
case("type_error_caret", ["query", "$[?length(@.*) > 1]"], stdin="[]",
     stdout="",
     stderr="jbx: error: invalid query: argument 1 of 'length' must be a "
            "single value: use a singular query (names and indices only)\n"
            "  $[?length(@.*) > 1]\n            ^\n", code=2)
case("not_iregexp", ["query", "$[?match(@, 'a(?=b)')]"], stdin="[]",
     stdout="",
     stderr="jbx: error: invalid query: not an I-Regexp (RFC 9485) pattern: "
            "'(?' groups are not part of I-Regexp\n"
            "  $[?match(@, 'a(?=b)')]\n                 ^\n", code=2)
case("string_escape", ["query", "$['a\\d']"], stdin="{}", stdout="",
     stderr="jbx: error: invalid query: invalid escape '\\d'\n"
            "  $['a\\d']\n      ^\n", code=2)
# A bad query never reads input: the missing file is not reported.
case("bad_query_reads_nothing", ["query", "$[", "missing.json"], stdout="",
     stderr="jbx: error: invalid query: expected a selector, found end of "
            "query\n  $[\n    ^\n", code=2)
case("missing_expr", ["query"], stdout="",
     stderr="jbx: error: jbx query: missing EXPR (a JSONPath query such as "
            "'$.a[0]', or --pointer PTR)\n", code=2)

# ---- inputs -----------------------------------------------------------------

case("json_lines_per_line", ["query", "$.id", "in.jsonl"],
     files={"in.jsonl": '{"id":1}\n{"x":2}\n{"id":3}\n'}, stdout="1\n3\n")
case("lines_flag_on_stdin", ["query", "-l", "$[0]"], stdin="[1]\n[2,3]\n",
     stdout="1\n2\n")
case("several_files", ["query", "$.v", "a.json", "b.json"],
     files={"a.json": '{"v":"a"}', "b.json": '{"v":"b"}'},
     stdout='"a"\n"b"\n')
case("bad_input_goes_on", ["query", "$.v", "a.json", "bad.json", "b.json"],
     files={"a.json": '{"v":1}', "bad.json": '{"v":', "b.json": '{"v":2}'},
     stdout="1\n2\n", stderr=None, code=2)


def names_line_2(d, out, err):
    assert err.startswith(b"jbx: error: <stdin>:2:"), err


case("json_lines_bad_line_goes_on", ["query", "-l", "$.a"],
     stdin='{"a":1}\n{"a":\n{"a":3}\n', stdout="1\n3\n", stderr=None,
     code=2, check=names_line_2)
case("concatenated_documents", ["query", "$.a"], stdin='{"a":1} {"a":2}',
     stdout="1\n2\n")

# ---- exactness ----------------------------------------------------------------

case("big_numbers_intact", ["query", "$[*]"],
     stdin="[12345678901234567890123, 1.000000000000000000001, -0.0, 1E400]",
     stdout="12345678901234567890123\n1.000000000000000000001\n-0.0\n1E400\n")
case("big_integer_comparison", ["query", "$[?@ > 18446744073709551615]"],
     stdin="[18446744073709551615, 18446744073709551616, 1e20, 2]",
     stdout="18446744073709551616\n1e20\n")
case("decimal_comparison_is_exact",
     ["query", "$[?@ == 0.30000000000000001]"],
     stdin="[0.3, 0.30000000000000001, 3e-1, 0.300000000000000010]",
     stdout="0.30000000000000001\n0.300000000000000010\n")
case("strings_exact", ["query", "$.s"], stdin='{"s":"\\u00e9\\ud83d\\ude00"}',
     stdout='"\u00e9\U0001F600"\n')
case("match_is_linear_and_unicode", ["query", "$[?match(@, '\\\\p{Lu}.')]"],
     stdin='["\u0416x", "ab", "A\\n"]', stdout='"\u0416x"\n')
case("descendants_rfc_order", ["query", "-c", "$..a"],
     stdin='{"x":{"a":1},"a":2}', stdout="2\n1\n")
case("filter_on_root_reference", ["query", "$.v[?@ == $.want]"],
     stdin='{"want":2,"v":[1,2,3]}', stdout="2\n")

# ---- the same answers on every binary encoding ---------------------------------

DOC = {"id": 7, "name": "x\u00e9", "items": [
    {"sku": "a", "qty": 2, "price": 1.5, "tags": ["new"]},
    {"sku": "b", "qty": 0, "price": 20.25, "tags": []},
    {"sku": "c", "qty": 5, "price": 3.0, "ok": True, "none": None},
], "meta": {"n": -3, "deep": {"k": [1, [2, [3]]]}}}

QUERIES = ["$", "$.id", "$.items[*].sku", "$.items[?@.qty > 1].sku",
           "$..price", "$..k[1][1][0]", "$.items[-1]", "$.items[::-1].sku",
           "$.items[?length(@.tags) == 0]", "$.meta.*", "$..[?@ == 3]",
           "$.items[?search(@.sku, '[ab]')].qty", "$..none",
           "$.items[?@.price < 2.0 || @.ok == true].sku"]


def encodings(d):
    files = {"doc.json": json.dumps(DOC).encode(),
             "doc.cbor": cbor2.dumps(DOC),
             "doc.msgpack": msgpack.packb(DOC)}
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    code, out, err = jbx_run(["convert", "-t", "jsonb", "-o",
                              os.path.join(d, "doc.jsonb"),
                              os.path.join(d, "doc.json")])
    assert code == 0, err
    return ["doc.json", "doc.cbor", "doc.msgpack", "doc.jsonb"]


def same_answers(d, out, err):
    names = encodings(d)
    for q in QUERIES:
        answers = {}
        for name in names:
            code, o, e = jbx_run(["query", "--with-path", q,
                                  os.path.join(d, name)])
            assert code == 0, f"{q} on {name}: {e.decode()}"
            answers[name] = [json.loads(line) for line in o.splitlines()]
        first = answers["doc.json"]
        assert first, f"{q} selected nothing"
        for name, got in answers.items():
            assert got == first, f"{q}: {name} gave {got}, json gave {first}"


case("same_answers_on_every_encoding", ["query", "$"], stdin="1",
     stdout="1\n", check=same_answers)

run_all()
