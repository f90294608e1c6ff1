#include "formats/msgpack/msgpack_writer.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "core/sink.h"
#include "formats/binary_stream_test_util.h"
#include "formats/msgpack/msgpack_test_util.h"

namespace jbx::msgpack {
namespace {

using test::hex;
using test::to_hex;

// Runs `emit` against a fresh writer and returns the bytes as hex.
template <class F>
std::string written(F emit, WriteOptions o = {}) {
  StringSink sink;
  MsgpackWriter w(sink, o);
  emit(w);
  w.end_document();
  return to_hex(sink.data());
}

std::string number(std::string_view text, WriteOptions o = {}) {
  return written([&](Handler& h) { h.number_text(text); }, o);
}

// "code pointer: message" of the error writing number `text` inside
// {"a":[text]}.
std::string number_error(std::string_view text, WriteOptions o = {}) {
  try {
    written(
        [&](Handler& h) {
          h.begin_object();
          h.key("a");
          h.begin_array();
          h.number_text(text);
        },
        o);
  } catch (const Error& e) {
    return fmt::format("{} {}: {}{}", errc_name(e.code), e.pointer, e.message,
                       e.offset ? " (has an offset)" : "");
  }
  return "no error";
}

BOOST_AUTO_TEST_SUITE(msgpack_writer)

BOOST_AUTO_TEST_CASE(integers_take_their_smallest_form) {
  auto i = [](std::int64_t v) {
    return written([&](Handler& h) { h.int_value(v); });
  };
  BOOST_TEST(i(0) == "00");
  BOOST_TEST(i(127) == "7f");
  BOOST_TEST(i(128) == "cc 80");
  BOOST_TEST(i(255) == "cc ff");
  BOOST_TEST(i(256) == "cd 01 00");
  BOOST_TEST(i(65535) == "cd ff ff");
  BOOST_TEST(i(65536) == "ce 00 01 00 00");
  BOOST_TEST(i(4294967295) == "ce ff ff ff ff");
  BOOST_TEST(i(4294967296) == "cf 00 00 00 01 00 00 00 00");
  BOOST_TEST(i(-1) == "ff");
  BOOST_TEST(i(-32) == "e0");
  BOOST_TEST(i(-33) == "d0 df");
  BOOST_TEST(i(-128) == "d0 80");
  BOOST_TEST(i(-129) == "d1 ff 7f");
  BOOST_TEST(i(-32768) == "d1 80 00");
  BOOST_TEST(i(-32769) == "d2 ff ff 7f ff");
  BOOST_TEST(i(-2147483648) == "d2 80 00 00 00");
  BOOST_TEST(i(-2147483649) == "d3 ff ff ff ff 7f ff ff ff");
  BOOST_TEST(i(std::numeric_limits<std::int64_t>::min()) ==
             "d3 80 00 00 00 00 00 00 00");
  BOOST_TEST(written([](Handler& h) { h.uint_value(~std::uint64_t{0}); }) ==
             "cf ff ff ff ff ff ff ff ff");
  BOOST_TEST(written([](Handler& h) { h.uint_value(5); }) == "05");
}

BOOST_AUTO_TEST_CASE(doubles_are_float64) {
  BOOST_TEST(written([](Handler& h) { h.double_value(0.5); }) ==
             "cb 3f e0 00 00 00 00 00 00");
  BOOST_TEST(written([](Handler& h) {
               h.double_value(std::numeric_limits<double>::quiet_NaN());
             }) == "cb 7f f8 00 00 00 00 00 00");
}

BOOST_AUTO_TEST_CASE(string_and_binary_lengths_take_their_smallest_form) {
  auto s = [](std::size_t n) {
    return written([&](Handler& h) { h.string_value(std::string(n, 'x')); })
        .substr(0, 14);
  };
  BOOST_TEST(s(0) == "a0");
  BOOST_TEST(s(31).substr(0, 2) == "bf");
  BOOST_TEST(s(32).substr(0, 5) == "d9 20");
  BOOST_TEST(s(255).substr(0, 5) == "d9 ff");
  BOOST_TEST(s(256).substr(0, 8) == "da 01 00");
  BOOST_TEST(s(65536).substr(0, 14) == "db 00 01 00 00");
  auto b = [](std::size_t n) {
    const std::string bytes(n, '\x01');
    return written([&](Handler& h) {
             h.bytes_value({reinterpret_cast<const std::uint8_t*>(bytes.data()),
                            bytes.size()});
           })
        .substr(0, 14);
  };
  BOOST_TEST(b(0) == "c4 00");
  BOOST_TEST(b(1) == "c4 01 01");
  BOOST_TEST(b(256).substr(0, 8) == "c5 01 00");
  BOOST_TEST(b(65536) == "c6 00 01 00 00");
}

BOOST_AUTO_TEST_CASE(container_headers_are_spliced_in_smallest_form) {
  auto arr = [](int n) {
    return written([&](Handler& h) {
      h.begin_array();
      for (int k = 0; k < n; ++k) h.null_value();
      h.end_array();
    });
  };
  BOOST_TEST(arr(0) == "90");
  BOOST_TEST(arr(15).substr(0, 2) == "9f");
  BOOST_TEST(arr(16).substr(0, 8) == "dc 00 10");
  BOOST_TEST(arr(65536).substr(0, 14) == "dd 00 01 00 00");
  BOOST_TEST(written([](Handler& h) {
               h.begin_object();
               h.key("a");
               h.begin_array();
               h.begin_object();
               h.end_object();
               h.int_value(1);
               h.end_array();
               h.key("b");
               h.begin_object();
               for (int k = 0; k < 16; ++k) {
                 h.key(std::string(1, static_cast<char>('a' + k)));
                 h.bool_value(k % 2 == 0);
               }
               h.end_object();
               h.end_object();
             }).substr(0, 35) == "82 a1 61 92 80 01 a1 62 de 00 10 a1");
}

BOOST_AUTO_TEST_CASE(number_text_integers_are_integers) {
  BOOST_TEST(number("0") == "00");
  BOOST_TEST(number("-0") == "00");
  BOOST_TEST(number("-33") == "d0 df");
  BOOST_TEST(number("9223372036854775807") == "cf 7f ff ff ff ff ff ff ff");
  BOOST_TEST(number("-9223372036854775808") == "d3 80 00 00 00 00 00 00 00");
  BOOST_TEST(number("18446744073709551615") == "cf ff ff ff ff ff ff ff ff");
}

BOOST_AUTO_TEST_CASE(decimals_are_doubles_by_default) {
  BOOST_TEST(number("1.5") == "cb 3f f8 00 00 00 00 00 00");
  BOOST_TEST(number("0.1") == "cb 3f b9 99 99 99 99 99 9a");
  BOOST_TEST(number("1e2") == "cb 40 59 00 00 00 00 00 00");
  BOOST_TEST(number("-0.0") == "cb 80 00 00 00 00 00 00 00");
  BOOST_TEST(number("1e-400") == "cb 00 00 00 00 00 00 00 00");
}

BOOST_AUTO_TEST_CASE(inexact_numbers_follow_the_lossy_policy) {
  BOOST_TEST(number_error("18446744073709551616") ==
             "lossy /a/0: number 18446744073709551616 has no exact MessagePack "
             "form (use --lossy=string or --lossy=nearest)");
  BOOST_TEST(number_error("-9223372036854775809") ==
             "lossy /a/0: number -9223372036854775809 has no exact MessagePack "
             "form (use --lossy=string or --lossy=nearest)");
  BOOST_TEST(number_error("1e400") ==
             "lossy /a/0: number 1e400 is too large for a float64 (use "
             "--lossy=string or --lossy=nearest)");
  BOOST_TEST(number_error(std::string(60, '9')) ==
             "lossy /a/0: number 9999999999999999999999999999999999999999... "
             "has no exact MessagePack form (use --lossy=string or "
             "--lossy=nearest)");
  WriteOptions exact;
  exact.exact_decimals = true;
  BOOST_TEST(number_error("0.1", exact) ==
             "lossy /a/0: number 0.1 has no exact MessagePack form (use "
             "--lossy=string or --lossy=nearest)");
  BOOST_TEST(number("1.5", exact) == "cb 3f f8 00 00 00 00 00 00");
  BOOST_TEST(number("1e22", exact) == "cb 44 80 f0 cf 06 4d d5 92");
  BOOST_TEST(number_error("1e23", exact).substr(0, 26) ==
             "lossy /a/0: number 1e23 ha");
  BOOST_TEST(number_error("1e-400", exact).substr(0, 28) ==
             "lossy /a/0: number 1e-400 ha");

  WriteOptions str;
  str.lossy = LossyPolicy::string;
  BOOST_TEST(number("18446744073709551616", str) ==
             "b4 31 38 34 34 36 37 34 34 30 37 33 37 30 39 35 35 31 36 31 36");
  str.exact_decimals = true;
  BOOST_TEST(number("0.1", str) == "a3 30 2e 31");

  WriteOptions near;
  near.lossy = LossyPolicy::nearest;
  BOOST_TEST(number("18446744073709551616", near) ==
             "cb 43 f0 00 00 00 00 00 00");
  BOOST_TEST(number("-1e400", near) == "cb ff f0 00 00 00 00 00 00");
  near.exact_decimals = true;
  BOOST_TEST(number("0.1", near) == "cb 3f b9 99 99 99 99 99 9a");
}

BOOST_AUTO_TEST_CASE(decimal_exactness) {
  BOOST_TEST(detail::decimal_equals_double("0.5", 0.5));
  BOOST_TEST(detail::decimal_equals_double("50e-2", 0.5));
  BOOST_TEST(detail::decimal_equals_double("-2.50000", -2.5));
  BOOST_TEST(detail::decimal_equals_double("0", 0.0));
  BOOST_TEST(detail::decimal_equals_double("-0.0", -0.0));
  BOOST_TEST(detail::decimal_equals_double("9007199254740993e0",
                                           9007199254740992.0) == false);
  BOOST_TEST(
      detail::decimal_equals_double("9007199254740992.0", 9007199254740992.0));
  BOOST_TEST(detail::decimal_equals_double(
      "0.1000000000000000055511151231257827021181583404541015625", 0.1));
  BOOST_TEST(detail::decimal_equals_double("0.1", 0.1) == false);
  BOOST_TEST(detail::decimal_equals_double("1e400", HUGE_VAL) == false);
}

BOOST_AUTO_TEST_CASE(timestamps_take_the_smallest_exact_form) {
  auto ts = [](std::int64_t s, std::uint32_t ns) {
    return written([&](Handler& h) {
      Timestamp t;
      t.seconds = s;
      t.nanos = ns;
      h.timestamp_value(t);
    });
  };
  BOOST_TEST(ts(1514862245, 0) == "d6 ff 5a 4a f6 a5");
  BOOST_TEST(ts(1514862245, 678901234) == "d7 ff a1 dc d7 c8 5a 4a f6 a5");
  BOOST_TEST(ts(4294967296, 0) == "d7 ff 00 00 00 01 00 00 00 00");
  BOOST_TEST(ts(-1, 1) == "c7 0c ff 00 00 00 01 ff ff ff ff ff ff ff ff");
  BOOST_TEST(ts(std::int64_t{1} << 34, 0) ==
             "c7 0c ff 00 00 00 00 00 00 00 04 00 00 00 00");
  // Local dates have no MessagePack form: ISO 8601 text.
  BOOST_TEST(written([](Handler& h) {
               Timestamp t;
               t.kind = Timestamp::Kind::local_date;
               t.seconds = 19723 * 86400;
               h.timestamp_value(t);
             }) == "aa 32 30 32 34 2d 30 31 2d 30 31");
}

BOOST_AUTO_TEST_CASE(extension_annotations_are_kept_others_dropped) {
  const std::uint8_t payload[] = {0xaa, 0xbb};
  auto with = [&](Annotation a) {
    return written([&](Handler& h) {
      h.annotation(a);
      h.bytes_value(payload);
    });
  };
  Annotation ext{Annotation::Kind::type_name, "msgpack.ext:7", 0};
  BOOST_TEST(with(ext) == "d5 07 aa bb");
  ext.name = "msgpack.ext:-128";
  BOOST_TEST(with(ext) == "d5 80 aa bb");
  Annotation java{Annotation::Kind::type_name, "com.example.Point", 0};
  BOOST_TEST(with(java) == "c4 02 aa bb");
  Annotation tag{Annotation::Kind::cbor_tag, "", 40};
  BOOST_TEST(with(tag) == "c4 02 aa bb");
  ext.name = "msgpack.ext:300";
  BOOST_TEST(with(ext) == "c4 02 aa bb");
  // An extension annotation on something else than bytes is dropped.
  BOOST_TEST(written([](Handler& h) {
               h.annotation({Annotation::Kind::type_name, "msgpack.ext:7", 0});
               h.begin_array();
               h.bytes_value({});
               h.end_array();
             }) == "91 c4 00");
}

BOOST_AUTO_TEST_CASE(reading_and_writing_round_trips_minimal_encodings) {
  const char* cases[] = {"c0",
                         "c2",
                         "c3",
                         "00",
                         "7f",
                         "cc 80",
                         "cd 01 00",
                         "ce 00 01 00 00",
                         "cf 00 00 00 01 00 00 00 00",
                         "cf ff ff ff ff ff ff ff ff",
                         "ff",
                         "e0",
                         "d0 df",
                         "d3 80 00 00 00 00 00 00 00",
                         "cb 3f f8 00 00 00 00 00 00",
                         "a0",
                         "a1 61",
                         "c4 00",
                         "c4 01 ff",
                         "90",
                         "80",
                         "82 a1 61 91 01 a1 62 80",
                         "d6 ff 5a 4a f6 a5",
                         "d7 ff a1 dc d7 c8 5a 4a f6 a5",
                         "d4 01 10",
                         ("d8 05 00 01 02 03 04 05 06 "
                          "07 08 09 0a 0b 0c 0d 0e 0f"),
                         "c7 03 05 01 02 03"};
  for (const char* c : cases) {
    const std::string in = hex(c);
    StringSink sink;
    MsgpackWriter w(sink, {});
    MsgpackReader r(in, {});
    while (r.read_document(w)) {
    }
    BOOST_TEST(to_hex(sink.data()) == to_hex(in));
  }
}

BOOST_AUTO_TEST_CASE(writes_one_value_per_document) {
  StringSink sink;
  MsgpackWriter w(sink, {});
  w.begin_array();
  w.int_value(1);
  w.end_array();
  w.end_document();
  w.string_value("x");
  w.end_document();
  BOOST_TEST(to_hex(sink.data()) == "91 01 a1 78");
}

BOOST_AUTO_TEST_CASE(a_streamed_array_has_the_bytes_of_a_held_one) {
  jbx::test::check_streamed_as_held<MsgpackWriter>({});
}

BOOST_AUTO_TEST_CASE(a_streamed_array_of_another_count_is_an_error) {
  jbx::test::check_count_mismatch<MsgpackWriter>();
}

BOOST_AUTO_TEST_CASE(refusals_in_a_streamed_array_name_their_pointer) {
  StringSink sink;
  MsgpackWriter w(sink, {});
  std::string pointer;
  try {
    w.begin_array();
    w.string_value("first");
    w.begin_object();
    w.key("a");
    w.int_value(1);
    w.key("big");
    w.stream_array(2, 1);  // the first element goes out
    w.number_text("1e400");
  } catch (const Error& e) {
    pointer = e.pointer;
  }
  BOOST_TEST(to_hex(sink.data()) == "92 a5 66 69 72 73 74");
  BOOST_TEST(pointer == "/1/big");
}

BOOST_AUTO_TEST_CASE(only_a_top_level_array_with_an_element_is_streamed) {
  jbx::test::check_only_top_level_arrays<MsgpackWriter>(
      [](std::string_view s) { return to_hex(s); }, "92", "92 80 07",
      "92 80 07 81 a1 61 01");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace jbx::msgpack
