// JSONB writer: byte equality with fastjson2 for the JSON-sourced corpus
// vectors, round trips of every vector, and the encoding choices.
#include <boost/test/unit_test.hpp>
#include <set>

#include "formats/binary_stream_test_util.h"
#include "formats/jsonb/jsonb_test_util.h"

namespace {

using namespace jbx;
using namespace jbx::jsonb_test;

// The JSONB of one JSON text.
std::string from_json(const std::string& json, bool exact = false) {
  WriteOptions o;
  o.exact_decimals = exact;
  return hex(encode(parse_json(json), o));
}

// Events straight into a writer.
template <typename F>
std::string written(F&& f, WriteOptions o = {}) {
  StringSink sink;
  JsonbWriter w(sink, o);
  f(w);
  w.end_document();
  return hex(sink.data());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jsonb_writer)

// Fraction numbers are BigDecimal in fastjson2, as with jbx's exact
// decimals; exponent numbers are doubles, as by jbx's default. The rest
// of the differences are listed below.
BOOST_AUTO_TEST_CASE(json_sourced_vectors_match_fastjson2_byte_for_byte) {
  const std::set<std::string> differ_always = {
      // null members, which fastjson2 drops
      "j_obj_nulls_default",
      "j_doc_order",
      "j_doc_user",
      // JDK 8 string choices
      "j_str_chinese_nocompact",
      "j_str_cyrillic_nocompact",
      "j_obj_unicode_keys_nocompact",
      // 1E400: fastjson2 writes Infinity, jbx the exact decimal
      "j_double_overflow",
      // a fraction (BigDecimal) and an exponent (double) in one document
      "j_arr_mixed",
      // -0.0: fastjson2 writes BigDecimal 0.0, dropping the sign; jbx the
      // double -0.0, as for doubles
      "j_dec_neg_0_0",
  };

  int total = 0;
  int same_default = 0;
  int same_exact = 0;
  int same_either = 0;
  for (const Case& c : cases()) {
    if (c.kind != "json") continue;
    ++total;
    BOOST_TEST_CONTEXT(c.name) {
      const std::string src = slurp(corpus_dir() + c.name + ".src.json");
      const std::string want = hex(slurp(corpus_dir() + c.name + ".jsonb"));
      const bool d = from_json(src, false) == want;
      const bool e = from_json(src, true) == want;
      same_default += d;
      same_exact += e;
      same_either += d || e;
      if (differ_always.count(c.name) != 0) {
        BOOST_TEST(!(d || e));
      } else {
        BOOST_TEST((d || e), from_json(src, true) << "\n" << want);
      }
    }
  }
  BOOST_TEST_MESSAGE("byte-identical: " << same_default << " of " << total
                                        << " by default, " << same_exact
                                        << " with exact decimals, "
                                        << same_either << " either way");
  BOOST_TEST(total == 79);
  BOOST_TEST(same_either == 70);
}

BOOST_AUTO_TEST_CASE(every_vector_round_trips_through_jbx_jsonb) {
  WriteOptions exact;
  exact.exact_decimals = true;
  int n = 0;
  for (const Case& c : cases()) {
    BOOST_TEST_CONTEXT(c.name) {
      JsonbReadOptions jo = options_for(c);
      if (c.name == "v_ref_cycle") jo.refs = JsonbRefs::keep;
      const Value first =
          decode_one(slurp(corpus_dir() + c.name + ".jsonb"), jo);
      const std::string bytes = encode(first, exact);
      const Value again = decode_one(bytes);
      std::string why;
      BOOST_TEST(same_tree(first, again, why), why);
      // And jbx's JSONB of its own output is the same bytes.
      BOOST_TEST(hex(encode(again, exact)) == hex(bytes));
      ++n;
    }
  }
  BOOST_TEST(n == 175);
}

BOOST_AUTO_TEST_CASE(integers_take_the_smallest_form) {
  BOOST_TEST(written([](Handler& h) { h.int_value(47); }) == "2f");
  BOOST_TEST(written([](Handler& h) { h.int_value(-17); }) == "37ef");
  BOOST_TEST(written([](Handler& h) { h.int_value(262144); }) == "4800040000");
  BOOST_TEST(written([](Handler& h) { h.int_value(2147483648); }) ==
             "be0000000080000000");
  BOOST_TEST(written([](Handler& h) { h.int_value(-2147483648); }) ==
             "4880000000");
  BOOST_TEST(written([](Handler& h) { h.uint_value(18446744073709551615u); }) ==
             "bb0900ffffffffffffffff");
  // JSON numbers follow fastjson2's parser (spec 15.1).
  BOOST_TEST(from_json("-2147483648") == "bf80000000");
  BOOST_TEST(from_json("-9223372036854775808") == "babe8000000000000000");
  BOOST_TEST(from_json("18446744073709551616") == "bb09010000000000000000");
  BOOST_TEST(from_json("-123456789012345678901234567890") ==
             "bb0dfe7116f0093c8c1f11b1c0f52e");
}

BOOST_AUTO_TEST_CASE(decimals_are_doubles_unless_exact) {
  BOOST_TEST(from_json("1.5") == "b53ff8000000000000");
  BOOST_TEST(from_json("2.0") == "b4e2");
  BOOST_TEST(from_json("1e3") == "b4d3e8");
  BOOST_TEST(from_json("1.5", true) == "b9010f");
  BOOST_TEST(from_json("123.4500", true) == "b904480012d644");
  BOOST_TEST(from_json("1E+5", true) == "b9fb01");
  BOOST_TEST(from_json("1e0", true) == "b8e1");
  BOOST_TEST(from_json("-0.001", true) == "b903ff");
  BOOST_TEST(from_json("12345678901.123456", true) == "b906be002bdc545d699980");
  // BigDecimal has no negative zero: the double keeps the sign.
  BOOST_TEST(from_json("-0.0", true) == "b58000000000000000");
  BOOST_TEST(from_json("-0E+7", true) == "b58000000000000000");
  BOOST_TEST(from_json("0.00", true) == "b90200");
  BOOST_TEST(from_json("-0.01", true) == "b902ff");
  // Out of double's range: exact even by default, never an infinity.
  BOOST_TEST(from_json("1E400") == "b9367001");
  BOOST_TEST(from_json("[1e400]", false) != from_json("[1e308]", false));
  // The decoded spelling is the source's.
  const Value v =
      decode_one(unhex(from_json("[123.4500, 1E+5, 0.0000001]", true)));
  BOOST_TEST(v.items.at(0).text == "123.4500");
  BOOST_TEST(v.items.at(1).text == "1E+5");
  BOOST_TEST(v.items.at(2).text == "1E-7");
}

BOOST_AUTO_TEST_CASE(doubles_follow_fastjson2_but_keep_negative_zero) {
  BOOST_TEST(written([](Handler& h) { h.double_value(0.0); }) == "b2");
  BOOST_TEST(written([](Handler& h) { h.double_value(1.0); }) == "b3");
  BOOST_TEST(written([](Handler& h) { h.double_value(-100000.0); }) ==
             "b4c27960");
  BOOST_TEST(written([](Handler& h) { h.double_value(1e10); }) ==
             "b54202a05f20000000");
  BOOST_TEST(written([](Handler& h) { h.double_value(-0.0); }) ==
             "b58000000000000000");
}

BOOST_AUTO_TEST_CASE(strings_use_latin1_or_fastjson2s_utf16_choice) {
  BOOST_TEST(written([](Handler& h) { h.string_value(""); }) == "49");
  BOOST_TEST(written([](Handler& h) { h.string_value("café"); }) ==
             "4d636166e9");
  BOOST_TEST(written([](Handler& h) { h.string_value("黑龙江"); }) ==
             "7c06d19e999f5f6c");
  BOOST_TEST(written([](Handler& h) { h.string_value("😀"); }) ==
             "7a04f09f9880");
  BOOST_TEST(written([](Handler& h) {
               h.string_value(std::string(48, 'a'));
             }).substr(0, 4) == "7938");
}

BOOST_AUTO_TEST_CASE(array_counts_are_exact_however_nested) {
  BOOST_TEST(from_json("[]") == "94");
  BOOST_TEST(from_json("[[],[[1]],[2,3]]") == "9794959501960203");
  std::string sixteen = "[";
  for (int i = 0; i < 16; ++i) sixteen += (i ? ",0" : "0");
  sixteen += "]";
  BOOST_TEST(from_json("[" + sixteen + "," + sixteen + "]") ==
             "96a410" + std::string(32, '0') + "a410" + std::string(32, '0'));
  BOOST_TEST(from_json(R"({"a":[{"b":[1]}],"c":{}})") ==
             "a64a6195a64a629501a54a63a6a5a5");
  // Large arrays (more than 256 bytes of elements) inside and beside small
  // ones, at several depths.
  std::string big = "[";
  for (int i = 0; i < 300; ++i) big += (i ? "," : "") + std::to_string(i * 7);
  big += "]";
  const std::string doc = "[[1,[2]]," + big + ",[" + big + ",[3]," + big +
                          "],[[4]],{\"k\":" + big + "}]";
  const Value v = parse_json(doc);
  std::string why;
  BOOST_TEST(same_tree(decode_one(encode(v)), v, why), why);
  const std::string bytes = encode(v);
  BOOST_TEST(hex(bytes).substr(0, 16) == "9996019502a4392c");
}

BOOST_AUTO_TEST_CASE(documents_are_written_back_to_back) {
  StringSink sink;
  JsonbWriter w(sink, WriteOptions{});
  w.begin_array();
  w.int_value(1);
  w.end_array();
  w.end_document();
  w.begin_object();
  w.key("a");
  w.null_value();
  w.end_object();
  w.end_document();
  w.finish();
  BOOST_TEST(hex(sink.data()) == "9501a64a61afa5");
}

BOOST_AUTO_TEST_CASE(dates_become_date_tags) {
  Timestamp t;
  t.seconds = 1700000000;
  t.precision = 3;
  BOOST_TEST(written([&](Handler& h) { h.timestamp_value(t); }) ==
             "ac6553f100");
  t.nanos = 123000000;
  BOOST_TEST(written([&](Handler& h) { h.timestamp_value(t); }) ==
             "ab0000018bcfe5687b");
  // Before 1970 with a fraction: down to the least millisecond, -2^63.
  t.seconds = -1;
  t.nanos = 1000000;
  BOOST_TEST(written([&](Handler& h) { h.timestamp_value(t); }) ==
             "abfffffffffffffc19");
  t.seconds = -9223372036854776;
  t.nanos = 192000000;
  BOOST_TEST(written([&](Handler& h) { h.timestamp_value(t); }) ==
             "ab8000000000000000");
  t.seconds = 4102444800;
  t.nanos = 0;
  BOOST_TEST(written([&](Handler& h) { h.timestamp_value(t); }) ==
             "ad04134e40");
  t.seconds = 1700000000;
  t.nanos = 123456789;
  t.precision = 9;
  BOOST_TEST(written([&](Handler& h) { h.timestamp_value(t); }) ==
             "aebf6553f10048075bcd15");
  t.has_offset = true;
  t.offset_seconds = 8 * 3600;
  t.nanos = 0;
  t.seconds = 1714950489;
  BOOST_TEST(written([&](Handler& h) { h.timestamp_value(t); }) ==
             "aa07e80506070809004f2b30383a3030");
  Timestamp d;
  d.kind = Timestamp::Kind::local_date;
  d.seconds = 1709164800;
  BOOST_TEST(written([&](Handler& h) { h.timestamp_value(d); }) ==
             "a907e8021d");
  d.kind = Timestamp::Kind::local_time;
  d.seconds = 49530;
  d.nanos = 500000000;
  BOOST_TEST(written([&](Handler& h) { h.timestamp_value(d); }) ==
             "a70d2d1e481dcd6500");
  d.kind = Timestamp::Kind::local_date_time;
  d.seconds = -62198755200;  // year -1
  try {
    written([&](Handler& h) { h.timestamp_value(d); });
    BOOST_FAIL("no error");
  } catch (const Error& e) {
    BOOST_TEST(e.message == "year -1 cannot be written as a jsonb date");
  }
}

BOOST_AUTO_TEST_CASE(type_names_become_typed_values_with_symbol_ids) {
  Annotation a;
  a.name = "com.example.Point";
  const std::string out = written([&](Handler& h) {
    h.begin_array();
    h.annotation(a);
    h.begin_object();
    h.end_object();
    h.annotation(a);
    h.begin_object();
    h.end_object();
    h.end_array();
  });
  BOOST_TEST(out == "96925a" + hex("com.example.Point") + "00a6a59200a6a5");
  a.kind = Annotation::Kind::cbor_tag;  // no JSONB form: dropped
  BOOST_TEST(written([&](Handler& h) {
               h.annotation(a);
               h.int_value(1);
             }) == "01");
}

BOOST_AUTO_TEST_CASE(oversized_numbers_are_refused) {
  try {
    from_json(std::string(20000, '9'));
    BOOST_FAIL("no error");
  } catch (const Error& e) {
    BOOST_TEST(e.message ==
               "integer of 20000 digits exceeds jbx's limit of 19728");
  }
  try {
    from_json("1.5e9999999999", true);
    BOOST_FAIL("no error");
  } catch (const Error& e) {
    BOOST_TEST(e.message ==
               "decimal 1.5e9999999999 has an exponent out of "
               "jsonb's range");
  }
}

BOOST_AUTO_TEST_CASE(a_streamed_array_has_the_bytes_of_a_held_one) {
  jbx::test::check_streamed_as_held<JsonbWriter>({});
}

BOOST_AUTO_TEST_CASE(a_streamed_array_of_another_count_is_an_error) {
  jbx::test::check_count_mismatch<JsonbWriter>();
}

BOOST_AUTO_TEST_CASE(only_a_top_level_array_with_an_element_is_streamed) {
  jbx::test::check_only_top_level_arrays<JsonbWriter>(
      [](std::string_view s) { return hex(s); }, "96", "96a6a507",
      "96a6a507a64a6101a5");
  // 16 elements and more: the header's count follows its tag.
  StringSink longer;
  JsonbWriter l(longer, {});
  l.begin_array();
  l.int_value(1);
  l.stream_array(300, 1);
  BOOST_TEST(hex(longer.data()) == "a4392c01");
}

BOOST_AUTO_TEST_SUITE_END()
