#include "formats/cbor/cbor_writer.h"

#include <boost/test/unit_test.hpp>
#include <random>
#include <utility>

#include "formats/binary_stream_test_util.h"
#include "formats/cbor/cbor_test_util.h"

using jbx::Handler;
using jbx::cbor::test::hex;
using jbx::cbor::test::read_all;
using jbx::cbor::test::reencode;
using jbx::cbor::test::unhex;
using jbx::cbor::test::write;

namespace {

jbx::WriteOptions canonical() {
  jbx::WriteOptions o;
  o.canonical = true;
  return o;
}

jbx::WriteOptions exact() {
  jbx::WriteOptions o;
  o.exact_decimals = true;
  return o;
}

std::string number(std::string_view text, const jbx::WriteOptions& o = {}) {
  return hex(write(
      [&](Handler& h) {
        h.number_text(text);
        h.end_document();
      },
      o));
}

std::string number_error(std::string_view text,
                         const jbx::WriteOptions& o = {}) {
  try {
    number(text, o);
  } catch (const jbx::Error& e) {
    return std::string(jbx::errc_name(e.code)) + ": " + e.message;
  }
  return "no error";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cbor_writer)

BOOST_AUTO_TEST_CASE(writes_integers_in_the_shortest_form) {
  const std::string out = hex(write([](Handler& h) {
    const std::int64_t values[] = {0,     23,    24,         255,        256,
                                   65535, 65536, 4294967295, 4294967296, -1,
                                   -24,   -25,   INT64_MIN};
    for (const std::int64_t v : values) {
      h.int_value(v);
      h.end_document();
    }
    h.uint_value(UINT64_MAX);
    h.end_document();
  }));
  BOOST_TEST(out ==
             "00"
             "17"
             "1818"
             "18ff"
             "190100"
             "19ffff"
             "1a00010000"
             "1affffffff"
             "1b0000000100000000"
             "20"
             "37"
             "3818"
             "3b7fffffffffffffff"
             "1bffffffffffffffff");
}

BOOST_AUTO_TEST_CASE(writes_integer_text_natively_or_as_bignums) {
  BOOST_TEST(number("0") == "00");
  BOOST_TEST(number("-0") == "00");
  BOOST_TEST(number("1000000") == "1a000f4240");
  BOOST_TEST(number("18446744073709551615") == "1bffffffffffffffff");
  BOOST_TEST(number("-18446744073709551616") == "3bffffffffffffffff");
  BOOST_TEST(number("18446744073709551616") == "c249010000000000000000");
  BOOST_TEST(number("-18446744073709551617") == "c349010000000000000000");
  BOOST_TEST(number("340282366920938463463374607431768211456") ==
             "c25101" + std::string(32, '0'));
}

BOOST_AUTO_TEST_CASE(refuses_integers_beyond_the_bignum_limit) {
  // 10^9864 - 1 needs 32767 bits: the longest accepted spelling.
  const std::string most(9864, '9');
  BOOST_TEST(number(most).substr(0, 8) == "c2591000");
  BOOST_TEST(number("-" + most).substr(0, 8) == "c3591000");
  BOOST_TEST(number_error(std::string(9865, '1')) ==
             "unsupported: number of 9865 digits is too long for a CBOR "
             "bignum (at most 9864)");
  // Leading zeros do not count; an exact decimal's mantissa does.
  BOOST_TEST(number_error("000" + most) == "no error");
  BOOST_TEST(number_error("1." + most, exact()) ==
             "unsupported: number of 9865 digits is too long for a CBOR "
             "bignum (at most 9864)");
}

BOOST_AUTO_TEST_CASE(writes_decimals_as_float64_by_default) {
  BOOST_TEST(number("1.5") == "fb3ff8000000000000");
  BOOST_TEST(number("1.1") == "fb3ff199999999999a");
  BOOST_TEST(number("1e2") == "fb4059000000000000");
  BOOST_TEST(number("-0.0") == "fb8000000000000000");
  BOOST_TEST(number("1e-400") == "fb0000000000000000");
  BOOST_TEST(number_error("1e400") ==
             "lossy: number 1e400 is too large for a float64 (use "
             "--decimals=exact)");
  BOOST_TEST(number_error("-0.5e400") ==
             "lossy: number -0.5e400 is too large for a float64 (use "
             "--decimals=exact)");
  BOOST_TEST(number_error("0.0000e999") == "no error");
}

BOOST_AUTO_TEST_CASE(refusals_name_the_json_pointer_of_the_value) {
  // The 24-byte key takes a two-byte head. In canonical mode the map
  // before it is sorted and gets its head inserted first: the key's place
  // must not move.
  const std::string key = "a/~" + std::string(21, 'k');
  for (const jbx::WriteOptions& o : {jbx::WriteOptions{}, canonical()}) {
    std::string pointer;
    try {
      write(
          [&](Handler& h) {
            h.begin_object();
            h.key("b");
            h.begin_object();
            h.key("y");
            h.int_value(1);
            h.key("x");
            h.int_value(2);
            h.end_object();
            h.key(key);
            h.begin_array();
            h.int_value(0);
            h.number_text("1e400");
          },
          o);
    } catch (const jbx::Error& e) {
      pointer = e.pointer;
    }
    BOOST_TEST(pointer == "/a~1~0" + std::string(21, 'k') + "/1");
  }
}

BOOST_AUTO_TEST_CASE(writes_decimals_as_decimal_fractions_when_exact) {
  BOOST_TEST(number("273.15", exact()) == "c48221196ab3");
  BOOST_TEST(number("1.50", exact()) == "c482211896");
  BOOST_TEST(number("-0.05", exact()) == "c4822124");
  BOOST_TEST(number("1E+3", exact()) == "c4820301");
  BOOST_TEST(number("12345678901234567890123.5", exact()) ==
             "c48220c24a1a249b1f10a06c96aff3");
  BOOST_TEST(number("42", exact()) == "182a");
  // No decimal fraction is a negative zero: the float keeps the sign.
  BOOST_TEST(number("-0.0", exact()) == "fb8000000000000000");
  BOOST_TEST(number("-0.000e-9", exact()) == "fb8000000000000000");
  BOOST_TEST(number("0.00", exact()) == "c4822100");
  BOOST_TEST(number("-0.01", exact()) == "c4822120");
  BOOST_TEST(number_error("1e1000000000000000000", exact()) ==
             "unsupported: exponent of number is too large for a CBOR "
             "decimal fraction");
}

BOOST_AUTO_TEST_CASE(decimal_fractions_read_back_to_the_same_text) {
  for (const char* t : {"273.15", "0.0500", "-1.5", "1e-100", "5e-70",
                        "0.000001", "123456789012345678901234567890.5"}) {
    const std::string bytes = unhex(number(t, exact()));
    BOOST_TEST(read_all(bytes) == "n:" + std::string(t) + " $");
  }
}

BOOST_AUTO_TEST_CASE(writes_shortest_exact_floats_when_canonical) {
  auto dbl = [](double d) {
    return hex(write(
        [&](Handler& h) {
          h.double_value(d);
          h.end_document();
        },
        canonical()));
  };
  BOOST_TEST(dbl(0.0) == "f90000");
  BOOST_TEST(dbl(-0.0) == "f98000");
  BOOST_TEST(dbl(1.5) == "f93e00");
  BOOST_TEST(dbl(65504.0) == "f97bff");
  BOOST_TEST(dbl(5.960464477539063e-8) == "f90001");
  BOOST_TEST(dbl(0.00006103515625) == "f90400");
  BOOST_TEST(dbl(100000.0) == "fa47c35000");
  BOOST_TEST(dbl(3.4028234663852886e+38) == "fa7f7fffff");
  BOOST_TEST(dbl(1.1) == "fb3ff199999999999a");
  BOOST_TEST(dbl(1.0e300) == "fb7e37e43c8800759c");
  BOOST_TEST(dbl(INFINITY) == "f97c00");
  BOOST_TEST(dbl(-INFINITY) == "f9fc00");
  BOOST_TEST(dbl(NAN) == "f97e00");
  BOOST_TEST(number("1.5", canonical()) == "f93e00");
}

BOOST_AUTO_TEST_CASE(writes_definite_lengths_for_any_count) {
  const std::string out = write([](Handler& h) {
    h.begin_array();
    for (int i = 0; i < 70000; ++i) h.int_value(1);
    h.end_array();
    h.end_document();
  });
  BOOST_TEST(hex(out.substr(0, 5)) == "9a00011170");
  BOOST_TEST(out.size() == 5u + 70000u);
  const std::string nested = hex(write([](Handler& h) {
    h.begin_object();
    h.key("a");
    h.begin_array();
    for (int i = 0; i < 24; ++i) h.null_value();
    h.end_array();
    h.key("b");
    h.begin_object();
    h.end_object();
    h.end_object();
    h.end_document();
  }));
  std::string nulls;
  for (int i = 0; i < 24; ++i) nulls += "f6";
  BOOST_TEST(nested == "a261619818" + nulls + "6162a0");
}

BOOST_AUTO_TEST_CASE(sorts_map_keys_by_encoding_when_canonical) {
  auto doc = [](Handler& h) {
    h.begin_object();
    for (const char* k : {"bb", "a", "b", "aaa", "B"}) {
      h.key(k);
      h.begin_object();
      h.key("z");
      h.int_value(1);
      h.key("y");
      h.int_value(2);
      h.end_object();
    }
    h.end_object();
    h.end_document();
  };
  // Shorter keys first (their heads are smaller), then bytewise.
  const std::string inner = "a2617902617a01";
  BOOST_TEST(hex(write(doc, canonical())) ==
             "a5"
             "6142" +
                 inner + "6161" + inner + "6162" + inner + "626262" + inner +
                 "63616161" + inner);
  // Preferred mode keeps the order of the input.
  BOOST_TEST(hex(write(doc)).substr(0, 8) == "a5626262");
}

BOOST_AUTO_TEST_CASE(writes_timestamps_as_date_tags) {
  auto ts = [](const jbx::Timestamp& t) {
    return hex(write([&](Handler& h) {
      h.timestamp_value(t);
      h.end_document();
    }));
  };
  jbx::Timestamp t;
  t.seconds = 1363896240;
  BOOST_TEST(ts(t) == "c11a514b67b0");
  t.nanos = 500000000;
  BOOST_TEST(ts(t) == "c1fb41d452d9ec200000");
  t.nanos = 123456789;  // not exact as a float: RFC 3339 text instead
  BOOST_TEST(read_all(unhex(ts(t))) == "t:0,1363896240,123456789,0 $");
  t.nanos = 0;
  t.has_offset = true;
  t.offset_seconds = 7200;
  BOOST_TEST(ts(t) == "c07819" + hex("2013-03-21T22:04:00+02:00"));
  t.offset_seconds = 0;
  t.precision = 0;
  BOOST_TEST(ts(t) == "c074323031332d30332d32315432303a30343a30305a");
  t.seconds = -1;
  t.has_offset = false;
  BOOST_TEST(ts(t) == "c120");
  jbx::Timestamp d;
  d.kind = jbx::Timestamp::Kind::local_date;
  d.seconds = 1709164800;
  BOOST_TEST(ts(d) == "d903ec6a" + hex("2024-02-29"));
  jbx::Timestamp lt;
  lt.kind = jbx::Timestamp::Kind::local_time;
  lt.seconds = 3723;
  lt.nanos = 5000000;
  BOOST_TEST(ts(lt) == "6c" + hex("01:02:03.005"));
}

BOOST_AUTO_TEST_CASE(writes_annotations_as_tags) {
  const std::string out = hex(write([](Handler& h) {
    h.begin_array();
    jbx::Annotation a;
    a.kind = jbx::Annotation::Kind::cbor_tag;
    a.tag = 32;
    h.annotation(a);
    a.tag = 6;
    h.annotation(a);
    h.string_value("x");
    jbx::Annotation n;
    n.name = "Point";
    h.annotation(n);
    h.begin_object();
    h.end_object();
    h.end_array();
    h.end_document();
  }));
  BOOST_TEST(out ==
             "82d820c66178d81b826550"
             "6f696e74a0");
  BOOST_TEST(read_all(unhex(out)) == "[ @6 s:x @type:Point { } ] $");
}

BOOST_AUTO_TEST_CASE(writes_one_item_per_document) {
  const std::string out = hex(write([](Handler& h) {
    h.begin_array();
    h.end_array();
    h.end_document();
    h.begin_object();
    h.key("k");
    h.bytes_value(std::span<const std::uint8_t>());
    h.end_object();
    h.end_document();
  }));
  BOOST_TEST(out ==
             "80"
             "a1616b40");
}

BOOST_AUTO_TEST_CASE(reencodes_indefinite_lengths_as_definite) {
  BOOST_TEST(hex(reencode(unhex("9f018202039f0405ffff"))) ==
             "8301820203820405");
  BOOST_TEST(hex(reencode(unhex("5f42010243030405ff"))) == "450102030405");
  BOOST_TEST(hex(reencode(unhex("bf61610161629f0203ffff"))) ==
             "a26161016162820203");
}

BOOST_AUTO_TEST_CASE(a_streamed_array_has_the_bytes_of_a_held_one) {
  jbx::test::check_streamed_as_held<jbx::CborWriter>({});
  jbx::test::check_streamed_as_held<jbx::CborWriter>(canonical());
}

BOOST_AUTO_TEST_CASE(refusals_in_a_streamed_array_name_their_pointer) {
  for (const jbx::WriteOptions& o : {jbx::WriteOptions{}, canonical()}) {
    std::string pointer;
    try {
      write(
          [&](Handler& h) {
            auto& w = static_cast<jbx::CborWriter&>(h);
            h.begin_array();
            h.string_value("first");
            h.begin_object();
            h.key("a");
            h.int_value(1);
            h.key("big");
            w.stream_array(2, 1);  // the first element goes out
            h.number_text("1e400");
          },
          o);
    } catch (const jbx::Error& e) {
      pointer = e.pointer;
    }
    BOOST_TEST(pointer == "/1/big");
  }
}

BOOST_AUTO_TEST_CASE(a_streamed_array_of_another_count_is_an_error) {
  jbx::test::check_count_mismatch<jbx::CborWriter>();
}

BOOST_AUTO_TEST_CASE(only_a_top_level_array_with_an_element_is_streamed) {
  jbx::test::check_only_top_level_arrays<jbx::CborWriter>(
      [](std::string_view s) { return hex(s); }, "82", "82a007",
      "82a007a1616101");
}

BOOST_AUTO_TEST_SUITE_END()
