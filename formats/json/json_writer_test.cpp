#include "formats/json/json_writer.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/sink.h"
#include "formats/json/json_reader.h"

namespace {

// Reads `json` (a stream) and writes it back with `o`.
std::string reformat(const std::string& json, jbx::WriteOptions o = {}) {
  auto src = jbx::Source::from_memory("t", json);
  jbx::JsonReader reader(*src, {}, jbx::JsonMode::stream);
  jbx::StringSink sink;
  jbx::JsonWriter w(sink, o);
  while (reader.read_document(w)) {
  }
  return std::string(sink.data());
}

jbx::WriteOptions compact() {
  jbx::WriteOptions o;
  o.compact = true;
  return o;
}

template <class F>
std::string write_with(F f, jbx::WriteOptions o = compact()) {
  jbx::StringSink sink;
  jbx::JsonWriter w(sink, o);
  f(w);
  w.end_document();
  return std::string(sink.data());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json_writer)

BOOST_AUTO_TEST_CASE(pretty_is_two_spaces_like_jq) {
  BOOST_TEST(reformat(R"({"a":[1,2,{}],"b":[],"c":{"d":null}})") ==
             "{\n  \"a\": [\n    1,\n    2,\n    {}\n  ],\n  \"b\": [],\n"
             "  \"c\": {\n    \"d\": null\n  }\n}\n");
}

BOOST_AUTO_TEST_CASE(indent_tab_compact_and_lines) {
  jbx::WriteOptions four;
  four.indent = 4;
  BOOST_TEST(reformat("[1,[2]]", four) ==
             "[\n    1,\n    [\n        2\n    ]\n]\n");
  jbx::WriteOptions tab;
  tab.tab = true;
  BOOST_TEST(reformat("{\"a\":[1]}", tab) == "{\n\t\"a\": [\n\t\t1\n\t]\n}\n");
  BOOST_TEST(reformat(" { \"a\" : [ 1 , 2 ] } ", compact()) ==
             "{\"a\":[1,2]}\n");
  jbx::WriteOptions lines;
  lines.lines = true;
  BOOST_TEST(reformat("{\"a\": [1,\n 2]}\n[3]", lines) ==
             "{\"a\":[1,2]}\n[3]\n");
}

BOOST_AUTO_TEST_CASE(numbers_are_written_verbatim) {
  BOOST_TEST(
      reformat("[-8651648355575108941,1.000,1E400,-0,1e-7]", compact()) ==
      "[-8651648355575108941,1.000,1E400,-0,1e-7]\n");
}

BOOST_AUTO_TEST_CASE(canonical_minimal_escaping) {
  const std::string in =
      "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u001F\\u007f"
      "\\u00e9\xE2\x82\xAC\\ud83d\\ude00 long enough "
      "to take the fast path\"]";
  BOOST_TEST(reformat(in, compact()) ==
             "[\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\xC3\xA9\xE2\x82\xAC"
             "\xF0\x9F\x98\x80 long enough to take the fast path\"]\n");
}

BOOST_AUTO_TEST_CASE(ascii_uses_surrogate_pairs) {
  jbx::WriteOptions o = compact();
  o.ascii = true;
  BOOST_TEST(reformat("[\"a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z\"]", o) ==
             "[\"a\\u00e9\\u20ac\\ud83d\\ude00z\"]\n");
  BOOST_TEST(reformat("{\"\xC3\xA9\":1}", o) == "{\"\\u00e9\":1}\n");
}

BOOST_AUTO_TEST_CASE(colour_follows_jq_1_7_1) {
  jbx::WriteOptions o;
  o.color = true;
  BOOST_TEST(
      reformat("{\"a\":[null,true,1,\"s\"],\"b\":{}}", o) ==
      "\x1b[1;39m{\x1b[0m\n  \x1b[34;1m\"a\"\x1b[0m\x1b[1;39m:\x1b[0m "
      "\x1b[1;39m[\x1b[0m\n    \x1b[1;30mnull\x1b[0m\x1b[1;39m,"
      "\x1b[0m\n    \x1b[0;39mtrue\x1b[0m\x1b[1;39m,\x1b[0m\n    "
      "\x1b[0;39m1\x1b[0m\x1b[1;39m,\x1b[0m\n    \x1b[0;32m\"s\"\x1b[0m"
      "\n  \x1b[1;39m]\x1b[0m\x1b[1;39m,\x1b[0m\n  \x1b[34;1m\"b\"\x1b[0m"
      "\x1b[1;39m:\x1b[0m \x1b[1;39m{}\x1b[0m\n\x1b[1;39m}\x1b[0m\n");
}

BOOST_AUTO_TEST_CASE(doubles_shortest_round_trip) {
  const auto w = [](double d) {
    return write_with([d](jbx::JsonWriter& j) { j.double_value(d); });
  };
  BOOST_TEST(w(2.0) == "2.0\n");
  BOOST_TEST(w(0.1) == "0.1\n");
  BOOST_TEST(w(-0.0) == "-0.0\n");
  BOOST_TEST(w(1e300) == "1e+300\n");
  BOOST_TEST(w(1.5e-7) == "1.5e-07\n");
  BOOST_TEST(w(123456789012.5) == "123456789012.5\n");
}

BOOST_AUTO_TEST_CASE(nan_policy) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  try {
    write_with([&](jbx::JsonWriter& j) { j.double_value(nan); });
    BOOST_FAIL("no error");
  } catch (const jbx::Error& e) {
    BOOST_TEST(e.message == "NaN cannot be written as JSON (use --nan)");
    BOOST_TEST(static_cast<int>(e.code) == static_cast<int>(jbx::Errc::lossy));
  }
  jbx::WriteOptions o = compact();
  o.nan = jbx::NanPolicy::null;
  BOOST_TEST(write_with(
                 [&](jbx::JsonWriter& j) {
                   j.begin_array();
                   j.double_value(nan);
                   j.double_value(-inf);
                   j.end_array();
                 },
                 o) == "[null,null]\n");
  o.nan = jbx::NanPolicy::string;
  BOOST_TEST(write_with(
                 [&](jbx::JsonWriter& j) {
                   j.begin_array();
                   j.double_value(nan);
                   j.double_value(inf);
                   j.double_value(-inf);
                   j.end_array();
                 },
                 o) == "[\"NaN\",\"Infinity\",\"-Infinity\"]\n");
}

BOOST_AUTO_TEST_CASE(integers_and_bytes) {
  const std::uint8_t data[] = {0xfb, 0xff, 0x00, 0x41, 0x42};
  const auto bytes = [&](jbx::BytesEncoding enc) {
    jbx::WriteOptions o = compact();
    o.bytes = enc;
    return write_with(
        [&](jbx::JsonWriter& j) {
          j.begin_array();
          j.int_value(INT64_MIN);
          j.uint_value(UINT64_MAX);
          j.bytes_value(data);
          j.bytes_value(std::span(data, 1));
          j.end_array();
        },
        o);
  };
  BOOST_TEST(bytes(jbx::BytesEncoding::base64) ==
             "[-9223372036854775808,18446744073709551615,\"+/8AQUI=\","
             "\"+w==\"]\n");
  BOOST_TEST(bytes(jbx::BytesEncoding::base64url) ==
             "[-9223372036854775808,18446744073709551615,\"-_8AQUI\",\"-w\"]"
             "\n");
  BOOST_TEST(bytes(jbx::BytesEncoding::hex) ==
             "[-9223372036854775808,18446744073709551615,\"fbff004142\","
             "\"fb\"]\n");
  BOOST_TEST(bytes(jbx::BytesEncoding::array) ==
             "[-9223372036854775808,18446744073709551615,[251,255,0,65,66],"
             "[251]]\n");
}

BOOST_AUTO_TEST_CASE(timestamps_as_iso_8601) {
  const auto ts = [](jbx::Timestamp t) {
    return write_with([&](jbx::JsonWriter& j) { j.timestamp_value(t); });
  };
  jbx::Timestamp t;
  t.seconds = 1700000000;
  BOOST_TEST(ts(t) == "\"2023-11-14T22:13:20Z\"\n");
  t.nanos = 120000000;
  BOOST_TEST(ts(t) == "\"2023-11-14T22:13:20.120Z\"\n");
  t.nanos = 123456000;
  BOOST_TEST(ts(t) == "\"2023-11-14T22:13:20.123456Z\"\n");
  t.nanos = 1;
  t.has_offset = true;
  t.offset_seconds = -(5 * 3600 + 30 * 60);
  BOOST_TEST(ts(t) == "\"2023-11-14T16:43:20.000000001-05:30\"\n");
  jbx::Timestamp before;
  before.seconds = -1;
  BOOST_TEST(ts(before) == "\"1969-12-31T23:59:59Z\"\n");
  jbx::Timestamp date;
  date.kind = jbx::Timestamp::Kind::local_date;
  date.seconds = 19675LL * 86400;
  BOOST_TEST(ts(date) == "\"2023-11-14\"\n");
  jbx::Timestamp time;
  time.kind = jbx::Timestamp::Kind::local_time;
  time.seconds = 3661;
  time.nanos = 500000000;
  BOOST_TEST(ts(time) == "\"01:01:01.500\"\n");
  jbx::Timestamp local;
  local.kind = jbx::Timestamp::Kind::local_date_time;
  local.seconds = 0;
  BOOST_TEST(ts(local) == "\"1970-01-01T00:00:00\"\n");
}

BOOST_AUTO_TEST_CASE(annotations_become_type_members_or_wrappers) {
  const auto run = [](jbx::WriteOptions o) {
    return write_with(
        [](jbx::JsonWriter& j) {
          j.begin_array();
          jbx::Annotation name;
          name.name = "com.x.Bean";
          j.annotation(name);
          j.begin_object();
          j.key("a");
          j.int_value(1);
          j.end_object();
          j.annotation(name);
          j.begin_array();
          j.end_array();
          jbx::Annotation tag;
          tag.kind = jbx::Annotation::Kind::cbor_tag;
          tag.tag = 42;
          j.annotation(tag);
          j.string_value("x");
          j.end_array();
        },
        o);
  };
  BOOST_TEST(run(compact()) ==
             "[{\"@type\":\"com.x.Bean\",\"a\":1},{\"@type\":\"com.x.Bean\","
             "\"@value\":[]},{\"@type\":\"tag:42\",\"@value\":\"x\"}]\n");
  jbx::WriteOptions drop = compact();
  drop.drop_type_names = true;
  BOOST_TEST(run(drop) == "[{\"a\":1},[],\"x\"]\n");
  BOOST_TEST(run({}) ==
             "[\n  {\n    \"@type\": \"com.x.Bean\",\n    \"a\": 1\n  },\n  "
             "{\n    \"@type\": \"com.x.Bean\",\n    \"@value\": []\n  },\n  "
             "{\n    \"@type\": \"tag:42\",\n    \"@value\": \"x\"\n  }\n]\n");
}

BOOST_AUTO_TEST_CASE(huge_strings_are_written_in_chunks) {
  const std::string s(100000, 'a');
  const std::string with_escapes(50000, '\n');
  jbx::WriteOptions o = compact();
  const std::string out = write_with(
      [&](jbx::JsonWriter& j) {
        j.begin_array();
        j.string_value(s);
        j.string_value(with_escapes);
        j.end_array();
      },
      o);
  BOOST_TEST(out.size() == 1 + 100002 + 1 + 100002 + 1 + 1);
}

BOOST_AUTO_TEST_SUITE_END()
