"""End-to-end tests of the fastjson2 writer-feature flags (issue 5): null
policies, typed null defaults (path rules and JSON Schema), dates and time
zones (daylight-saving transitions, dates before 1970), key naming, big
integers and decimals, on fmt and convert. Expected outputs are exact."""

import datetime
import json
import os
import sys

import cbor2
import msgpack

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import case, jbx_run, run_all  # noqa: E402

# ---- nulls -------------------------------------------------------------------

NULLS = '{"a":null,"b":[null,1,{"c":null}],"d":{"e":null,"f":2}}'
case("nulls_keep_is_default", ["fmt", "-c", "--nulls=keep"], stdin=NULLS,
     stdout=NULLS + "\n")
case("nulls_drop_members", ["fmt", "-c", "--nulls=drop"], stdin=NULLS,
     stdout='{"b":[null,1,{}],"d":{"f":2}}\n')
case("nulls_drop_all", ["fmt", "-c", "--nulls=drop-all"], stdin=NULLS,
     stdout='{"b":[1,{}],"d":{"f":2}}\n')
case("nulls_drop_pretty_commas", ["fmt", "--nulls=drop"],
     stdin='{"a":1,"b":null,"c":null}',
     stdout='{\n  "a": 1\n}\n')
case("nulls_document_null_stays", ["fmt", "-c", "--nulls=drop-all"],
     stdin='null [null]', stdout="null\n[]\n")
case("nulls_bad_choice", ["fmt", "--nulls=remove"], stdin="{}", code=2,
     stderr=None)
case("nulls_jsonl", ["fmt", "--lines", "--nulls=drop"],
     stdin='{"a":null,"b":1}\n{"a":2,"b":null}\n',
     stdout='{"b":1}\n{"a":2}\n')

# ---- typed null defaults -------------------------------------------------------

case("null_default_rules", ["fmt", "-c", "--null-default", "$..tags=[]",
                            "--null-default", "$.a.n=0"],
     stdin='{"tags":null,"a":{"tags":null,"n":null,"m":null}}',
     stdout='{"tags":[],"a":{"tags":[],"n":0,"m":null}}\n')
case("null_default_first_rule_wins_then_drop",
     ["fmt", "-c", "--null-default", "$.tags=[]", "--null-default",
      "$..*=\"?\"", "--nulls=drop"],
     stdin='{"id":1,"tags":null,"x":null,"y":[null]}',
     stdout='{"id":1,"tags":[],"x":"?","y":["?"]}\n')
# A descendant rule reaches the objects of an array past its scalars,
# wherever they stand; nulls in arrays stay but for a rule selecting them.
case("null_default_in_arrays_past_scalars",
     ["fmt", "-c", "--null-default", '$..remark="D"', "--null-default",
      "$[*].b[*]=0", "--nulls=drop", "--key-case=snake"],
     stdin='[{"tagList":[1,"x",null,{"remark":null,"subTags":[2,'
           '{"remark":null}]},true,[null,{"remark":null}]],"remark":null,'
           '"b":null},{"b":[null,3,null],"c":[3,{"remark":null,"d":null}]}]',
     stdout='[{"tag_list":[1,"x",null,{"remark":"D","sub_tags":[2,'
            '{"remark":"D"}]},true,[null,{"remark":"D"}]],"remark":"D"},'
            '{"b":[0,3,0],"c":[3,{"remark":"D"}]}]\n')
case("null_default_equals_in_name", ["fmt", "-c", "--null-default",
                                     "$['a=b']={\"k\":1}"],
     stdin='{"a=b":null}', stdout='{"a=b":{"k":1}}\n')
case("null_default_needs_path", ["fmt", "--null-default", "tags=[]"],
     stdin="{}", code=2,
     stderr="jbx: error: --null-default 'tags=[]': expected JSONPATH=JSON, "
            "such as '$..tags=[]'\n")
case("null_default_bad_json", ["fmt", "--null-default", "$.tags=["],
     stdin="{}", code=2,
     stderr="jbx: error: --null-default '$.tags=[': the value after '=' is "
            "not JSON: unexpected end of input in array at byte 1\n")
case("null_default_filter_refused", ["fmt", "--null-default", "$[?@.a]=1"],
     stdin="{}", code=2,
     stderr="jbx: error: --null-default: JSONPath '$[?@.a]' cannot be "
            "matched while streaming; use names, wildcards, non-negative "
            "indices and '..' (no filters, slices or negative indices)\n")

SCHEMA = ('{"type":"object","properties":{"tags":{"type":["array","null"]},'
          '"name":{"type":"string"},"n":{"$ref":"#/$defs/n"},'
          '"ok":{"type":"boolean"},"pair":{"prefixItems":[{"type":"integer"},'
          '{"type":"string"}]},"rows":{"items":{"properties":{"v":'
          '{"anyOf":[{"type":"null"},{"type":"integer"}]}}}}},'
          '"$defs":{"n":{"type":"number"}}}')
TYPED = ('{"id":1,"tags":null,"name":null,"n":null,"ok":null,'
         '"pair":[null,null],"rows":[{"v":null}],"extra":null}')
case("schema_all_kinds", ["fmt", "-c", "--schema", "s.json"], stdin=TYPED,
     files={"s.json": SCHEMA},
     stdout='{"id":1,"tags":[],"name":"","n":0,"ok":false,"pair":[0,""],'
            '"rows":[{"v":0}],"extra":null}\n')
case("schema_chosen_kinds", ["fmt", "-c", "--schema", "s.json",
                             "--null-as-empty=list,string"],
     stdin=TYPED, files={"s.json": SCHEMA},
     stdout='{"id":1,"tags":[],"name":"","n":null,"ok":null,'
            '"pair":[null,""],"rows":[{"v":null}],"extra":null}\n')
# A schema that refers to itself types the nulls of every level; a map
# (additionalProperties) those of its members but not of an array in its
# place; --null-default rules come first; the other features apply after.
TREE = ('{"properties":{"name":{"type":"string"},'
        '"kids":{"type":"array","items":{"$ref":"#"}}}}')
case("schema_recursive", ["fmt", "-c", "--schema", "s.json"],
     stdin='{"name":null,"kids":[{"name":null,"kids":[{"name":null}]}]}',
     files={"s.json": TREE},
     stdout='{"name":"","kids":[{"name":"","kids":[{"name":""}]}]}\n')
MAP = ('{"type":"array","items":{"properties":{"userName":{"type":"string"},'
       '"scores":{"additionalProperties":{"type":"number"}}}}}')
case("schema_map_rules_and_features",
     ["fmt", "-c", "--schema", "s.json", "--null-default", "$[1].userName=\"-\"",
      "--nulls=drop", "--key-case=snake"],
     stdin='[{"userName":null,"scores":{"mathScore":null,"art":1},"x":null},'
           '{"userName":null,"scores":[null,2]}]',
     files={"s.json": MAP},
     stdout='[{"user_name":"","scores":{"math_score":0,"art":1}},'
            '{"user_name":"-","scores":[null,2]}]\n')
case("schema_null_as_empty_needs_schema", ["fmt", "--null-as-empty=list"],
     stdin="{}", code=2,
     stderr="jbx: error: --null-as-empty needs --schema FILE, which "
            "declares where nulls are lists, strings, numbers or booleans\n")
case("schema_unknown_kind", ["fmt", "--schema", "s.json",
                             "--null-as-empty=lists"],
     stdin="{}", files={"s.json": SCHEMA}, code=2,
     stderr="jbx: error: --null-as-empty: unknown kind 'lists' (expected a "
            "comma-separated list of list, string, number, boolean)\n")
case("schema_not_json", ["fmt", "--schema", "s.json"], stdin="{}",
     files={"s.json": '{"properties":'}, code=2,
     stderr="jbx: error: --schema s.json: unexpected end of input in object "
            "at byte 14\n")
case("schema_remote_ref", ["fmt", "--schema", "s.json"], stdin="{}",
     files={"s.json": '{"items":{"$ref":"https://x/s.json"}}'}, code=2,
     stderr="jbx: error: --schema: $ref 'https://x/s.json' does not "
            "resolve; only references within the schema file such as "
            "#/$defs/name are supported\n")

case("empty_as_null", ["fmt", "-c", "--empty-as-null"],
     stdin='{"a":"","b":[],"c":[[],""],"d":{},"e":" "}',
     stdout='{"a":null,"b":null,"c":[null,null],"d":{},"e":" "}\n')
case("empty_as_null_then_drop", ["fmt", "-c", "--empty-as-null",
                                 "--nulls=drop"],
     stdin='{"a":"","b":[],"c":1}', stdout='{"c":1}\n')
# With the other features, as members, elements and documents: empty
# values are nulls before anything else sees them, here and from CBOR.
EMPTIES = ('{"tagList":[],"userName":"","c":[[],"",["x"]],"createdAt":"",'
           '"d":{"eF":[ ]}} [] "" [[]]')
EMPTIES_OUT = ('{"tag_list":["t"],"c":[null,null,["x"]],"d":{}}\n'
               'null\nnull\n[null]\n')
EMPTIES_FLAGS = ["--empty-as-null", "--nulls=drop", "--key-case=snake",
                 "--null-default", '$..tagList=["t"]', "--date-fields",
                 "$.createdAt", "--date-format=yyyy"]
case("empty_as_null_with_features", ["fmt", "-c"] + EMPTIES_FLAGS,
     stdin=EMPTIES, stdout=EMPTIES_OUT)
case("empty_as_null_with_features_from_cbor",
     ["convert", "-f", "cbor", "-t", "jsonl"] + EMPTIES_FLAGS,
     stdin=b"".join(cbor2.dumps(v) for v in [
         {"tagList": [], "userName": "", "c": [[], "", ["x"]],
          "createdAt": "", "d": {"eF": []}}, [], "", [[]]]),
     stdout=EMPTIES_OUT)
# CBOR records into the features in front of the JSON writer: null members
# dropped, names renamed, date texts and a native date formatted, before
# 1970 too; the same as the JSON of the records gives.
ORDERS = [
    {"orderId": 1, "createdAt": "2024-03-10T01:30:00-05:00",
     "remarkText": None, "lineItems": [{"skuId": 7, "unitPrice": None,
                                        "note": "x"}], "paidAt": None},
    {"orderId": 2, "createdAt": "2024-11-03T05:30:00Z", "remarkText": "ok",
     "lineItems": [], "paidAt": cbor2.CBORTag(1, 1730611800)},
    {"orderId": 3, "createdAt": "1969-12-31T23:59:59.5+01:00",
     "remarkText": None, "lineItems": [{"skuId": 8, "unitPrice": 12.5,
                                        "note": None}], "paidAt": None}]
ORDERS_FLAGS = ["fmt", "-c", "--nulls=drop", "--key-case=snake",
                "--date-fields=$[*].createdAt",
                "--date-format=yyyy-MM-dd HH:mm:ss", "--timezone=Asia/Shanghai"]
ORDERS_OUT = ('[{"order_id":1,"created_at":"2024-03-10 14:30:00",'
              '"line_items":[{"sku_id":7,"note":"x"}]},'
              '{"order_id":2,"created_at":"2024-11-03 13:30:00",'
              '"remark_text":"ok","line_items":[],'
              '"paid_at":"2024-11-03 13:30:00"},'
              '{"order_id":3,"created_at":"1970-01-01 06:59:59",'
              '"line_items":[{"sku_id":8,"unit_price":12.5}]}]\n')
case("features_from_cbor_records", ORDERS_FLAGS, stdin=cbor2.dumps(ORDERS),
     stdout=ORDERS_OUT)
case("features_from_json_records", ORDERS_FLAGS,
     stdin=json.dumps([dict(o, paidAt="2024-11-03T05:30:00Z")
                       if o["orderId"] == 2 else o for o in ORDERS]),
     stdout=ORDERS_OUT.replace('"paid_at":"2024-11-03 13:30:00"',
                               '"paid_at":"2024-11-03T05:30:00Z"'))

# Record keys that stay escaped: a quote, a backslash, a control character,
# remembered by the records' shape, are written escaped in every record.
ESCAPED = ('[{"a\\"b":1,"c\\\\d":null,"e\\u0001f":2},'
           '{"a\\"b":3,"c\\\\d":4,"e\\u0001f":null},'
           '{"a\\"b":5,"c\\\\d":null,"e\\u0001f":6}]')
ESCAPED_OUT = ('[{"a\\"b":1,"e\\u0001f":2},{"a\\"b":3,"c\\\\d":4},'
               '{"a\\"b":5,"e\\u0001f":6}]\n')
case("features_escaped_record_keys", ["fmt", "-c", "--nulls=drop"],
     stdin=ESCAPED, stdout=ESCAPED_OUT)
case("features_escaped_record_keys_from_msgpack",
     ["fmt", "-c", "--nulls=drop", "-f", "msgpack"],
     stdin=msgpack.packb(json.loads(ESCAPED)), stdout=ESCAPED_OUT)

# Names and strings go from the reader to the writer as it holds them, and
# are still escaped where --ascii asks, or coloured.
case("empty_as_null_ascii", ["fmt", "-c", "--ascii", "--empty-as-null",
                             "--null-default", "$..n=\"ü\""],
     stdin='{"名前":"café","n":null,"e":"","k":"\\u00e9"}',
     stdout='{"\\u540d\\u524d":"caf\\u00e9","n":"\\u00fc","e":null,'
            '"k":"\\u00e9"}\n')
case("empty_as_null_color", ["fmt", "-c", "--color=always",
                             "--empty-as-null"],
     stdin='{"a":"x","b":""}',
     stdout='\x1b[1;39m{\x1b[0m\x1b[34;1m"a"\x1b[0m\x1b[1;39m:\x1b[0m'
            '\x1b[0;32m"x"\x1b[0m\x1b[1;39m,\x1b[0m\x1b[34;1m"b"\x1b[0m'
            '\x1b[1;39m:\x1b[0m\x1b[1;30mnull\x1b[0m\x1b[1;39m}\x1b[0m\n')

# ---- dates: native dates from binary inputs -----------------------------------

# Europe/Berlin switches at 01:00Z on 2024-03-31 and 2024-10-27;
# 1969-07-20T20:17:39.5Z is before 1970.
DATES = cbor2.dumps({
    "a": cbor2.CBORTag(1, 1711846799),
    "b": cbor2.CBORTag(1, 1711846800),
    "c": cbor2.CBORTag(0, "2024-10-27T00:59:59Z"),
    "d": cbor2.CBORTag(0, "2024-10-27T01:00:00.250Z"),
    "e": cbor2.CBORTag(1, -14182940.5),
})
case("date_format_iso_utc_default", ["convert", "-c", "--date-format",
                                     "iso8601", "d.cbor"],
     files={"d.cbor": DATES},
     stdout='{"a":"2024-03-31T00:59:59Z","b":"2024-03-31T01:00:00Z",'
            '"c":"2024-10-27T00:59:59Z","d":"2024-10-27T01:00:00.250Z",'
            '"e":"1969-07-20T20:17:39.500Z"}\n')
case("date_berlin_dst", ["convert", "-c", "--timezone", "Europe/Berlin",
                         "d.cbor"],
     files={"d.cbor": DATES},
     stdout='{"a":"2024-03-31T01:59:59+01:00","b":"2024-03-31T03:00:00+02:00",'
            '"c":"2024-10-27T02:59:59+02:00","d":"2024-10-27T02:00:00.250+01:00",'
            '"e":"1969-07-20T21:17:39.500+01:00"}\n')
case("date_pattern_new_york", ["convert", "-c", "--timezone",
                               "America/New_York", "--date-format",
                               "yyyy-MM-dd'T'HH:mm:ss.SSSXXX z", "d.cbor"],
     files={"d.cbor": DATES},
     stdout='{"a":"2024-03-30T20:59:59.000-04:00 EDT",'
            '"b":"2024-03-30T21:00:00.000-04:00 EDT",'
            '"c":"2024-10-26T20:59:59.000-04:00 EDT",'
            '"d":"2024-10-26T21:00:00.250-04:00 EDT",'
            '"e":"1969-07-20T16:17:39.500-04:00 EDT"}\n')
case("date_millis", ["convert", "-c", "--date-format", "millis", "d.cbor"],
     files={"d.cbor": DATES},
     stdout='{"a":1711846799000,"b":1711846800000,"c":1729990799000,'
            '"d":1729990800250,"e":-14182940500}\n')
case("date_seconds_floor", ["convert", "-c", "--date-format", "seconds",
                            "d.cbor"],
     files={"d.cbor": DATES},
     stdout='{"a":1711846799,"b":1711846800,"c":1729990799,'
            '"d":1729990800,"e":-14182941}\n')
case("date_msgpack_timestamp_offset_zone",
     ["convert", "-c", "--from", "msgpack", "--timezone", "+05:30",
      "--date-format", "yyyy/MM/dd HH:mm Z", "t.mp"],
     files={"t.mp": msgpack.packb(
         [msgpack.Timestamp(-1, 0), msgpack.Timestamp(1711846800, 0)])},
     stdout='["1970/01/01 05:29 +0530","2024/03/31 06:30 +0530"]\n')
case("date_unknown_letter", ["fmt", "--date-format", "yyyy-QQ"], stdin="{}",
     code=2,
     stderr="jbx: error: --date-format: unknown letter 'Q' in date pattern "
            "'yyyy-QQ'\n")
case("date_unclosed_quote", ["fmt", "--date-format", "yyyy'T"], stdin="{}",
     code=2,
     stderr="jbx: error: --date-format: unclosed quote in date pattern "
            "'yyyy'T'\n")
case("timezone_unknown", ["fmt", "--timezone", "Mars/Base"], stdin="{}",
     code=2, stderr="jbx: error: --timezone: unknown time zone 'Mars/Base'\n")
case("timezone_bad_offset", ["fmt", "--timezone", "+25:00"], stdin="{}",
     code=2,
     stderr="jbx: error: --timezone: malformed time zone offset '+25:00' "
            "(expected +HH:MM, for example +08:00)\n")

# ---- dates: JSON values at --date-fields ----------------------------------------

case("date_fields_new_york_gap_overlap_1960",
     ["fmt", "-c", "--date-fields", "$.*", "--timezone", "America/New_York"],
     stdin='{"t":"2024-03-10T02:30:00","u":"2024-11-03T01:30:00",'
           '"v":"1960-07-01T12:00:00","w":"2024-07-01T12:00:00Z"}',
     stdout='{"t":"2024-03-10T03:30:00-04:00","u":"2024-11-03T01:30:00-04:00",'
            '"v":"1960-07-01T12:00:00-04:00",'
            '"w":"2024-07-01T08:00:00-04:00"}\n')
case("date_fields_millis", ["fmt", "-c", "--date-fields", "$.*",
                            "--timezone", "America/New_York",
                            "--date-format", "millis"],
     stdin='{"t":"2024-03-10T02:30:00","u":"2024-11-03T01:30:00"}',
     stdout='{"t":1710055800000,"u":1730611800000}\n')
case("date_fields_offsets_and_fractions",
     ["fmt", "-c", "--date-fields", "$..at"],
     stdin='[{"at":"2024-03-31T03:30:00.5+02:00"},{"at":"1969-12-31"},'
           '{"at":"1900-01-01T00:00:00.000000001-00:30"},{"at":null}]',
     stdout='[{"at":"2024-03-31T01:30:00.500Z"},{"at":"1969-12-31T00:00:00Z"},'
            '{"at":"1900-01-01T00:30:00.000000001Z"},{"at":null}]\n')
case("date_input_format_berlin_gap",
     ["fmt", "-c", "--date-fields", "$.when", "--date-input-format",
      "dd.MM.yyyy HH:mm", "--timezone", "Europe/Berlin"],
     stdin='{"when":"31.03.2024 02:30"}',
     stdout='{"when":"2024-03-31T03:30:00+02:00"}\n')
case("date_epoch_seconds_pattern",
     ["fmt", "-c", "--date-fields", "$[*].t", "--epoch-unit", "s",
      "--timezone", "Europe/Berlin", "--date-format",
      "EEE d MMM yyyy hh:mm a"],
     stdin='[{"t":1711846800},{"t":-86400}]',
     stdout='[{"t":"Sun 31 Mar 2024 03:00 AM"},'
            '{"t":"Wed 31 Dec 1969 01:00 AM"}]\n')
case("date_epoch_millis_default", ["fmt", "-c", "--date-fields", "$.t"],
     stdin='{"t":-1}', stdout='{"t":"1969-12-31T23:59:59.999Z"}\n')
case("date_fields_error_names_path",
     ["fmt", "-c", "--date-fields", "$..t"],
     stdin='{"a":{"t":"2024-02-30"}}', code=2, stdout=None,
     stderr="jbx: error: <stdin>:1:11: date at $['a']['t']: day 30 out of "
            "range for 2024-02 at character 9 of \"2024-02-30\"\n"
            "  {\"a\":{\"t\":\"2024-02-30\"}}\n"
            "            ^\n")
# The scalars before it in an array that no rule selects elements of are
# counted, not looked at: the path still names the element's index.
case("date_fields_error_names_index_after_scalars",
     ["fmt", "-c", "--date-fields", "$..t", "--key-case=snake"],
     stdin='[{"a":[1,"s",true,null,2.5,{"t":"x"}]}]', code=2, stdout=None,
     stderr="jbx: error: <stdin>:1:33: date at $[0]['a'][5]['t']: expected "
            "a 4-digit year, found 'x' at character 1 of \"x\"\n"
            "  [{\"a\":[1,\"s\",true,null,2.5,{\"t\":\"x\"}]}]\n"
            "                                  ^\n")
case("date_fields_error_keep",
     ["fmt", "-c", "--date-fields", "$..t", "--date-errors", "keep"],
     stdin='{"a":{"t":"yesterday"},"t":true}',
     stdout='{"a":{"t":"yesterday"},"t":true}\n')
case("date_fields_wrong_type", ["fmt", "-c", "--date-fields", "$.t"],
     stdin='{"t":[1]}', code=2, stdout=None,
     stderr="jbx: error: <stdin>:1:6: date at $['t']: expected a date string "
            "or an epoch number, found an array\n"
            "  {\"t\":[1]}\n"
            "       ^\n")
case("date_options_need_fields", ["fmt", "--epoch-unit", "s"], stdin="{}",
     code=2,
     stderr="jbx: error: --epoch-unit applies to the values --date-fields "
            "selects; give --date-fields PATH too\n")
case("date_fields_negative_index_refused",
     ["fmt", "--date-fields", "$[-1]"], stdin="{}", code=2,
     stderr="jbx: error: --date-fields: JSONPath '$[-1]' cannot be matched "
            "while streaming; use names, wildcards, non-negative indices and "
            "'..' (no filters, slices or negative indices)\n")


def cbor_dates(d, out, err):
    with open(os.path.join(d, "out.cbor"), "rb") as f:
        v = cbor2.loads(f.read())
    got = {k: (v[k].isoformat() if hasattr(v[k], "isoformat") else v[k])
           for k in v}
    want = {"t": "2024-03-31T03:30:00+02:00",
            "u": "1969-07-20T20:17:40+00:00", "n": "x"}
    assert got == want, f"{got} != {want}"


case("date_fields_to_cbor_native",
     ["convert", "-t", "cbor", "-o", "out.cbor", "--date-fields", "$.t",
      "--date-fields", "$.u", "--timezone", "Europe/Berlin"],
     stdin='{"t":"2024-03-31T02:30:00","u":-14182940000,"n":"x"}',
     stdout="", check=cbor_dates)


def msgpack_dates(d, out, err):
    with open(os.path.join(d, "out.mp"), "rb") as f:
        v = msgpack.unpackb(f.read(), timestamp=3)
    got = [x.isoformat() for x in v]
    want = ["1969-12-31T23:59:59.500000+00:00",
            "2024-11-03T05:30:00+00:00"]
    assert got == want, f"{got} != {want}"


case("date_fields_to_msgpack_native",
     ["convert", "-t", "msgpack", "-o", "out.mp", "--date-fields", "$[*]",
      "--timezone", "America/New_York"],
     stdin='["1969-12-31T23:59:59.5Z","2024-11-03T01:30:00"]',
     stdout="", check=msgpack_dates)


def jsonb_round_trip(d, out, err):
    code, back, err2 = jbx_run(["convert", "-c", "--timezone",
                                "America/New_York", os.path.join(d, "o.jsonb")])
    want = (b'{"t":"2024-03-30T21:30:00-04:00",'
            b'"u":"1969-07-20T16:17:40.500-04:00"}\n')
    assert code == 0 and back == want, f"{code} {back!r} {err2!r}"


case("date_fields_to_jsonb_and_back",
     ["convert", "-t", "jsonb", "-o", "o.jsonb", "--date-fields", "$.*",
      "--timezone", "Europe/Berlin"],
     stdin='{"t":"2024-03-31T02:30:00","u":"1969-07-20T20:17:40.5Z"}',
     stdout="", check=jsonb_round_trip)

# Records with every fused feature, to each binary format: the reader calls
# the features in front of the binary writer directly and passes them the
# numbers it has parsed; the same values as through the general path.
RECORDS = ('[{"userId":1,"createdAt":"2024-03-31T02:30:00+02:00","note":null,'
           '"price":1.25,"big":9007199254740993,"tags":["a",null]},'
           '{"userId":2,"createdAt":"1969-07-20T20:17:40.5Z","note":"x",'
           '"price":-0.5,"big":1,"tags":[]},'
           '{"userId":3,"createdAt":null,"price":2E3,'
           '"big":-9007199254740993,"tags":null}]')
RECORD_FLAGS = ["--nulls=drop", "--key-case=snake",
                "--date-fields=$[*].createdAt", "--bigint-as-string"]


def records_want(first_date):
    utc = datetime.timezone.utc
    return [{"user_id": 1, "created_at": first_date, "price": 1.25,
             "big": "9007199254740993", "tags": ["a", None]},
            {"user_id": 2,
             "created_at": datetime.datetime(1969, 7, 20, 20, 17, 40, 500000,
                                             tzinfo=utc),
             "note": "x", "price": -0.5, "big": 1, "tags": []},
            {"user_id": 3, "price": 2000.0, "big": "-9007199254740993"}]


def records_check(name, load, first_date):
    def check(d, out, err):
        with open(os.path.join(d, name), "rb") as f:
            got = load(f.read())
        want = records_want(first_date)
        assert got == want, f"{got} != {want}"
        # Dates are compared as instants; the offset kept is checked too.
        assert [r.get("created_at") and r["created_at"].utcoffset()
                for r in got] == [r.get("created_at") and
                                  r["created_at"].utcoffset() for r in want]
    return check


BERLIN_SUMMER = datetime.timezone(datetime.timedelta(hours=2))
case("features_records_to_cbor",
     ["convert", "-t", "cbor", "-o", "out.cbor"] + RECORD_FLAGS + ["r.json"],
     files={"r.json": RECORDS}, stdout="",
     check=records_check("out.cbor", cbor2.loads,
                         datetime.datetime(2024, 3, 31, 2, 30,
                                           tzinfo=BERLIN_SUMMER)))
case("features_records_to_msgpack",
     ["convert", "-t", "msgpack", "-o", "out.mp"] + RECORD_FLAGS + ["r.json"],
     files={"r.json": RECORDS}, stdout="",
     check=records_check("out.mp",
                         lambda b: msgpack.unpackb(b, timestamp=3),
                         datetime.datetime(2024, 3, 31, 0, 30,
                                           tzinfo=datetime.timezone.utc)))


def jsonb_records(d, out, err):
    code, back, err2 = jbx_run(["convert", "-c", os.path.join(d, "o.jsonb")])
    want = (b'[{"user_id":1,"created_at":"2024-03-31T02:30:00+02:00",'
            b'"price":1.25,"big":"9007199254740993","tags":["a",null]},'
            b'{"user_id":2,"created_at":"1969-07-20T20:17:40.500Z",'
            b'"note":"x","price":-0.5,"big":1,"tags":[]},'
            b'{"user_id":3,"price":2000.0,"big":"-9007199254740993"}]\n')
    assert code == 0 and back == want, f"{code} {back!r} {err2!r}"


case("features_records_to_jsonb",
     ["convert", "-t", "jsonb", "-o", "o.jsonb"] + RECORD_FLAGS + ["r.json"],
     files={"r.json": RECORDS}, stdout="", check=jsonb_records)

# Null rules with the other features, in one handler: a default goes through
# the later steps (its nulls dropped, its names renamed, its numbers styled),
# a null at a date path takes its rule's default, a date there stays a date.
NULL_RECORDS = ('[{"userId":1,"tags":null,"note":null,'
                '"createdAt":"2024-03-31T02:30:00+02:00","meta":{"tags":null}},'
                '{"userId":2,"tags":["a",null],"note":"x","createdAt":null,'
                '"meta":null},'
                '{"userId":3,"tags":null,"note":null,'
                '"createdAt":"1969-07-20T20:17:40.5Z","meta":{"tags":[]}}]')
NULL_RULES = ["--null-default=$..tags=[]",
              '--null-default=$[*].note={"setBy":null,'
              '"byUser":12345678901234567890}',
              '--null-default=$[*].createdAt="unknown"',
              "--nulls=drop", "--key-case=snake",
              "--date-fields=$[*].createdAt"]
case("null_defaults_with_the_features",
     ["fmt", "-c"] + NULL_RULES + ["--date-format=yyyy-MM-dd HH:mm:ss",
                                   "--bigint-as-string", "r.json"],
     files={"r.json": NULL_RECORDS},
     stdout='[{"user_id":1,"tags":[],"note":{"by_user":"12345678901234567890"},'
            '"created_at":"2024-03-31 00:30:00","meta":{"tags":[]}},'
            '{"user_id":2,"tags":["a",null],"note":"x",'
            '"created_at":"unknown"},'
            '{"user_id":3,"tags":[],"note":{"by_user":"12345678901234567890"},'
            '"created_at":"1969-07-20 20:17:40","meta":{"tags":[]}}]\n')


def cbor_null_records(d, out, err):
    with open(os.path.join(d, "out.cbor"), "rb") as f:
        got = cbor2.loads(f.read())
    note = {"by_user": 12345678901234567890}
    want = [{"user_id": 1, "tags": [], "note": note,
             "created_at": datetime.datetime(2024, 3, 31, 2, 30,
                                             tzinfo=BERLIN_SUMMER),
             "meta": {"tags": []}},
            {"user_id": 2, "tags": ["a", None], "note": "x",
             "created_at": "unknown"},
            {"user_id": 3, "tags": [], "note": note,
             "created_at": datetime.datetime(1969, 7, 20, 20, 17, 40, 500000,
                                             tzinfo=datetime.timezone.utc),
             "meta": {"tags": []}}]
    assert got == want, f"{got} != {want}"


case("null_defaults_with_the_features_to_cbor",
     ["convert", "-t", "cbor", "-o", "out.cbor"] + NULL_RULES + ["r.json"],
     files={"r.json": NULL_RECORDS}, stdout="", check=cbor_null_records)

# ---- key case -------------------------------------------------------------------

KEYS = '{"userId":1,"first_name":"a","HTTPServer":{"max-conn":2},"list":[{"itemID":3}]}'
case("key_case_snake", ["fmt", "-c", "--key-case", "snake"], stdin=KEYS,
     stdout='{"user_id":1,"first_name":"a","http_server":{"max_conn":2},'
            '"list":[{"item_id":3}]}\n')
case("key_case_camel", ["fmt", "-c", "--key-case", "camel"], stdin=KEYS,
     stdout='{"userId":1,"firstName":"a","httpServer":{"maxConn":2},'
            '"list":[{"itemId":3}]}\n')
case("key_case_kebab", ["fmt", "-c", "--key-case", "kebab"], stdin=KEYS,
     stdout='{"user-id":1,"first-name":"a","http-server":{"max-conn":2},'
            '"list":[{"item-id":3}]}\n')
case("key_case_pascal", ["fmt", "-c", "--key-case", "pascal"], stdin=KEYS,
     stdout='{"UserId":1,"FirstName":"a","HttpServer":{"MaxConn":2},'
            '"List":[{"ItemId":3}]}\n')
case("key_case_upper_snake", ["fmt", "-c", "--key-case", "upper-snake"],
     stdin=KEYS,
     stdout='{"USER_ID":1,"FIRST_NAME":"a","HTTP_SERVER":{"MAX_CONN":2},'
            '"LIST":[{"ITEM_ID":3}]}\n')
case("key_case_lower", ["fmt", "-c", "--key-case", "lower"], stdin=KEYS,
     stdout='{"userid":1,"first_name":"a","httpserver":{"max-conn":2},'
            '"list":[{"itemid":3}]}\n')
case("key_case_collision", ["fmt", "-c", "--key-case", "camel"],
     stdin='{"a":{"user_id":1,"userId":2}}', code=2, stdout=None,
     stderr='jbx: error: <stdin>:1:19: --key-case=camel: keys "user_id" and '
            '"userId" both become "userId"\n'
            '  {"a":{"user_id":1,"userId":2}}\n'
            '                    ^\n')
# A collision in a record after a few whose keys differ: reported at the
# key, or at the value while nulls are dropped (the key is held until its
# value shows the member stays).
MAPS = '[{"k1":1},{"k2":1},{"k3":1},{"k4":1},{"a_b":1,"aB":2}]'
case("key_case_collision_in_a_map", ["fmt", "-c", "--key-case", "snake"],
     stdin=MAPS, code=2, stdout=None,
     stderr='jbx: error: <stdin>:1:47: --key-case=snake: keys "a_b" and '
            '"aB" both become "a_b"\n'
            '  ' + MAPS + '\n' + ' ' * 48 + '^\n')
case("key_case_collision_in_a_map_dropping_nulls",
     ["fmt", "-c", "--key-case", "snake", "--nulls=drop"],
     stdin=MAPS, code=2, stdout=None,
     stderr='jbx: error: <stdin>:1:52: --key-case=snake: keys "a_b" and '
            '"aB" both become "a_b"\n'
            '  ' + MAPS + '\n' + ' ' * 53 + '^\n')
# An object past the keys a shape records (a map keyed by ids), whose kept
# key collides with a renamed one read before it: reported at the key, or
# at the value while nulls are dropped, as in a small object.
BIG = '{"aB":1,' + ','.join('"k%d":0' % i for i in range(1030)) + ',"a_b":2}'


def at(text, col):
    """The error's context, as jbx shows it for column `col` of `text`: the
    line from 59 characters before it, and a caret under it."""
    return '  ' + text[col - 60:] + '\n' + ' ' * 61 + '^\n'


BIG_KEY = BIG.index('"a_b"') + 1
BIG_VALUE = BIG.index(':2}') + 2
case("key_case_collision_past_the_recorded_keys",
     ["fmt", "-c", "--key-case", "snake"], stdin=BIG, code=2, stdout=None,
     stderr='jbx: error: <stdin>:1:%d: --key-case=snake: keys "aB" and '
            '"a_b" both become "a_b"\n' % BIG_KEY + at(BIG, BIG_KEY))
case("key_case_collision_past_the_recorded_keys_dropping_nulls",
     ["fmt", "-c", "--key-case", "snake", "--nulls=drop"], stdin=BIG, code=2,
     stdout=None,
     stderr='jbx: error: <stdin>:1:%d: --key-case=snake: keys "aB" and '
            '"a_b" both become "a_b"\n' % BIG_VALUE + at(BIG, BIG_VALUE))
# Records whose keys repeat, at several depths: the writer keeps each
# renamed key's text (separator, indent, name, colon) for the depth it
# was made at, and remakes it at another.
DEPTHS = ('[{"userId":1,"tags":{"aB":null,"cD":2}},[{"userId":2,"tags":'
          '{"aB":1,"cD":null}},[{"userId":3,"tags":{"aB":1,"cD":2}}]],'
          '{"userId":4,"tags":{"aB":1,"cD":2}}]')
case("key_case_records_at_several_depths",
     ["fmt", "--indent=1", "--key-case", "snake", "--nulls=drop"],
     stdin=DEPTHS,
     stdout='[\n {\n  "user_id": 1,\n  "tags": {\n   "c_d": 2\n  }\n },\n'
            ' [\n  {\n   "user_id": 2,\n   "tags": {\n    "a_b": 1\n   }\n'
            '  },\n  [\n   {\n    "user_id": 3,\n    "tags": {\n'
            '     "a_b": 1,\n     "c_d": 2\n    }\n   }\n  ]\n ],\n'
            ' {\n  "user_id": 4,\n  "tags": {\n   "a_b": 1,\n'
            '   "c_d": 2\n  }\n }\n]\n')
# Records whose dates are written in place with their keys, at two depths, in
# other offsets (across a day and a year), and one that is not a date.
RECORD_DATES = ('[{"paidAt":"2024-01-02T03:04:05.6Z","id":1},'
                '{"paidAt":"2024-01-01T01:00:00+05:30","id":2},'
                '[{"paidAt":"2023-12-31T22:00:00-05:00","id":3}],'
                '{"paidAt":"soon","id":4},'
                '{"paidAt":"2024-01-02T03:04:05Z","id":5}]')
case("dates_of_records_pretty",
     ["fmt", "--indent=1", "--key-case", "snake", "--date-fields", "$..paidAt",
      "--date-format", "yyyy-MM-dd HH:mm:ss", "--date-errors", "keep"],
     stdin=RECORD_DATES,
     stdout='[\n {\n  "paid_at": "2024-01-02 03:04:05",\n  "id": 1\n },\n'
            ' {\n  "paid_at": "2023-12-31 19:30:00",\n  "id": 2\n },\n'
            ' [\n  {\n   "paid_at": "2024-01-01 03:00:00",\n   "id": 3\n'
            '  }\n ],\n {\n  "paid_at": "soon",\n  "id": 4\n },\n'
            ' {\n  "paid_at": "2024-01-02 03:04:05",\n  "id": 5\n }\n]\n')
# The same in ISO 8601 (the default), at an offset: fractions in groups of
# three, and none when zero.
case("dates_of_records_iso",
     ["fmt", "-c", "--date-fields", "$[*].t", "--timezone", "+05:30"],
     stdin='[{"t":"2024-01-02T03:04:05.6Z","id":1},'
           '{"t":"2024-01-02T23:00:00.000-05:00","id":2},'
           '{"t":"2024-01-31T20:00:00.123456+00:00","id":3}]',
     stdout='[{"t":"2024-01-02T08:34:05.600+05:30","id":1},'
            '{"t":"2024-01-03T09:30:00+05:30","id":2},'
            '{"t":"2024-02-01T01:30:00.123456+05:30","id":3}]\n')
case("key_case_with_sort", ["fmt", "-c", "-S", "--key-case", "snake"],
     stdin='{"bB":1,"aA":2}', stdout='{"a_a":2,"b_b":1}\n')

# ---- numbers ----------------------------------------------------------------------

case("bigint_as_string", ["fmt", "-c", "--bigint-as-string"],
     stdin='[9007199254740991,9007199254740992,-9007199254740992,'
           '123456789012345678901234567890,1.5,1e400]',
     stdout='[9007199254740991,"9007199254740992","-9007199254740992",'
            '"123456789012345678901234567890",1.5,1e400]\n')
case("bigint_as_string_from_cbor", ["convert", "-c", "--bigint-as-string",
                                    "n.cbor"],
     files={"n.cbor": cbor2.dumps([2**63 - 1, -2**63, 2**64 + 1, 7])},
     stdout='["9223372036854775807","-9223372036854775808",'
            '"18446744073709551617",7]\n')
case("numbers_from_cbor_with_other_features",
     ["convert", "-c", "--bigint-as-string", "--decimal=plain", "--nulls=drop",
      "--key-case=snake", "n.cbor"],
     files={"n.cbor": cbor2.dumps([{"aB": 2**60, "c": None, "d": 1.5e-7,
                                    "eF": -2**63, "g": 2**64 - 1, "h": 7}])},
     stdout='[{"a_b":"1152921504606846976","d":0.00000015,'
            '"e_f":"-9223372036854775808","g":"18446744073709551615","h":7}]\n')
case("decimal_plain", ["fmt", "-c", "--decimal=plain"],
     stdin='[1.5e3,1E-7,-2.50e-1,0.00,12,1.0E+2]',
     stdout='[1500,0.0000001,-0.250,0.00,12,100]\n')
case("decimal_exponent", ["fmt", "-c", "--decimal=exponent"],
     stdin='[1500.0,0.00012,-7.25,5E+3,12]',
     stdout='[1.5000e3,1.2e-4,-7.25e0,5e3,12]\n')
case("decimal_plain_too_long", ["fmt", "-c", "--decimal=plain"],
     stdin='[1e400000]', code=2, stdout=None,
     stderr="jbx: error: <stdin>:1:2: --decimal=plain: number 1e400000 is "
            "too long to write without an exponent\n"
            "  [1e400000]\n"
            "   ^\n")

# ---- everything at once, JSON Lines ------------------------------------------------

case("all_features_jsonl",
     ["fmt", "--lines", "--nulls=drop", "--key-case", "camel",
      "--bigint-as-string", "--decimal", "plain", "--date-fields",
      "$.created_at", "--date-format", "yyyy-MM-dd HH:mm", "--timezone",
      "Asia/Shanghai", "--null-default", "$.tag_list=[]"],
     stdin='{"user_id":12345678901234567890,"created_at":"2024-03-31T01:30:00Z",'
           '"score":2.5E1,"tag_list":null,"note":null}\n'
           '{"user_id":1,"created_at":0,"score":1e-3,"tag_list":["a"]}\n',
     stdout='{"userId":"12345678901234567890","createdAt":"2024-03-31 09:30",'
            '"score":25,"tagList":[]}\n'
            '{"userId":1,"createdAt":"1970-01-01 08:00","score":0.001,'
            '"tagList":["a"]}\n')

# ---- query: selected values pass through the transforms -----------------------

QUERY_IN = ('{"items":[{"user_id":1,"note":null,"at":"2024-03-31T01:30:00Z"},'
            '{"user_id":2,"note":"x","at":0}]}')
case("query_values_transformed",
     ["query", "$.items[*]", "--key-case", "camel", "--nulls", "drop",
      "--date-fields", "$.at", "--timezone", "Europe/Berlin"],
     stdin=QUERY_IN,
     stdout='{"userId":1,"at":"2024-03-31T03:30:00+02:00"}\n'
            '{"userId":2,"note":"x","at":"1970-01-01T01:00:00+01:00"}\n')
case("query_paths_relative_to_result",
     ["query", "-r", "$.items[*].at", "--date-fields", "$",
      "--date-format", "yyyy"],
     stdin=QUERY_IN, stdout="2024\n1970\n")
case("query_with_path_wrapper_untouched",
     ["query", "--with-path", "$.items[1]", "--key-case", "upper-snake"],
     stdin=QUERY_IN,
     stdout='{"path":"$[\'items\'][1]","value":{"USER_ID":2,"NOTE":"x",'
            '"AT":0}}\n')
IC = '{"userId":1,"USERID":2,"a":[{"Name":"x"},{"name":"y"},{"NAME":"z","v":3}]}'
case("query_ignore_case_names", ["query", "--ignore-case", "$.userid"],
     stdin=IC, stdout="1\n2\n")
case("query_ignore_case_descendants_and_filters",
     ["query", "--ignore-case", "$.A[?@.NAME=='z'].V"], stdin=IC,
     stdout="3\n")
case("query_ignore_case_pointer", ["query", "--ignore-case", "--pointer",
                                   "/A/2/name"], stdin=IC, stdout='"z"\n')
case("query_case_sensitive_by_default", ["query", "$.userid"], stdin=IC,
     stdout="")
# fastjson2's smart match: case, '-', '_' and ' ' ignored; --ignore-case
# alone keeps the separators.
SM = ('{"user_id":1,"userId":2,"USER-ID":3,"user name":4,"userid_x":5,'
      '"order_items":[{"unit_price":6,"skuId":"a"},{"UnitPrice":7,'
      '"sku_id":"b"}]}')
case("query_smart_match_names", ["query", "--smart-match", "$.userId"],
     stdin=SM, stdout="1\n2\n3\n")
case("query_ignore_case_keeps_separators",
     ["query", "--ignore-case", "$.user_id"], stdin=SM, stdout="1\n")
case("query_smart_match_filters_and_descendants",
     ["query", "--smart-match", "$.orderItems[?@.SKU_ID == 'b']['unit-price']"],
     stdin=SM, stdout="7\n")
case("query_smart_match_descendant", ["query", "-c", "--smart-match",
                                      "$..unitPrice"],
     stdin=SM, stdout="6\n7\n")
case("query_smart_match_pointer",
     ["query", "--smart-match", "--pointer", "/ORDERITEMS/1/unit_price"],
     stdin=SM, stdout="7\n")
case("query_smart_match_user_name", ["query", "--smart-match", "$.userName"],
     stdin=SM, stdout="4\n")

run_all()
