#include "core/transforms/numbers.h"

#include <boost/test/unit_test.hpp>

#include <random>
#include <utility>

#include "core/error.h"
#include "core/transforms/transform_test_util.h"

namespace tf = jbx::transforms;
using jbx::Handler;
using tf::DecimalStyle;
using tf::testing::run;

namespace {

std::string restyle(std::string_view text, DecimalStyle s) {
  std::string out;
  tf::restyle_decimal(text, s, out);
  return out;
}

std::string styled(std::string_view json, bool bigint, DecimalStyle s) {
  return run(json, [=](Handler& next) {
    return std::make_unique<tf::NumberStyle>(next, bigint, s);
  });
}

// Sends native numbers, as binary readers do.
class NativeSource {
 public:
  static std::string run_native(bool bigint, DecimalStyle s) {
    jbx::StringSink sink;
    jbx::WriteOptions wo;
    wo.compact = true;
    auto writer = jbx::kJsonFormat.make_writer(sink, wo);
    tf::NumberStyle t(*writer, bigint, s);
    t.begin_array();
    t.int_value(9007199254740991);
    t.int_value(-9007199254740992);
    t.uint_value(18446744073709551615u);
    t.double_value(1e-7);
    t.double_value(2.5e20);
    t.end_array();
    t.end_document();
    writer->finish();
    return std::string(sink.data());
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(numbers)

BOOST_AUTO_TEST_CASE(plain_never_has_an_exponent) {
  BOOST_TEST(restyle("1.5e3", DecimalStyle::plain) == "1500");
  BOOST_TEST(restyle("1E-7", DecimalStyle::plain) == "0.0000001");
  BOOST_TEST(restyle("-123.456", DecimalStyle::plain) == "-123.456");
  BOOST_TEST(restyle("12.5e-1", DecimalStyle::plain) == "1.25");
  BOOST_TEST(restyle("0.00", DecimalStyle::plain) == "0.00");
  BOOST_TEST(restyle("0e5", DecimalStyle::plain) == "0");
  BOOST_TEST(restyle("1.0E+2", DecimalStyle::plain) == "100");
  BOOST_TEST(restyle("42", DecimalStyle::plain) == "42");
  BOOST_TEST(
      restyle("123456789012345678901234567890.5e-40", DecimalStyle::plain) ==
      "0.00000000001234567890123456789012345678905");
}

BOOST_AUTO_TEST_CASE(plain_keeps_a_decimal_without_an_exponent) {
  // NumberRules passes such a number on unchanged without restyling it:
  // every JSON spelling without an exponent is its own plain form.
  std::mt19937 rng(7);
  for (int k = 0; k < 20000; ++k) {
    std::string t = rng() % 2 == 0 ? "-" : "";
    const int int_digits = static_cast<int>(rng() % 4);
    if (int_digits == 0) {
      t += '0';
    } else {
      t += static_cast<char>('1' + rng() % 9);
      for (int i = 1; i < int_digits; ++i) {
        t += static_cast<char>('0' + rng() % 10);
      }
    }
    if (rng() % 4 != 0) {
      t += '.';
      for (int i = 0, n = 1 + static_cast<int>(rng() % 6); i < n; ++i) {
        t += static_cast<char>('0' + rng() % (rng() % 2 == 0 ? 2 : 10));
      }
    }
    BOOST_TEST(restyle(t, DecimalStyle::plain) == t);
  }
}

BOOST_AUTO_TEST_CASE(exponent_keeps_every_digit) {
  BOOST_TEST(restyle("1500.0", DecimalStyle::exponent) == "1.5000e3");
  BOOST_TEST(restyle("0.00012", DecimalStyle::exponent) == "1.2e-4");
  BOOST_TEST(restyle("-7.25", DecimalStyle::exponent) == "-7.25e0");
  BOOST_TEST(restyle("5E+3", DecimalStyle::exponent) == "5e3");
  BOOST_TEST(restyle("0.00", DecimalStyle::exponent) == "0e-2");
  BOOST_TEST(restyle("1000", DecimalStyle::exponent) == "1000");
}

BOOST_AUTO_TEST_CASE(digits_on_both_sides_of_the_point) {
  // The digits are read in place, the integer part then the fraction: the
  // leading zeros, the point and the split of the output cross between.
  const std::pair<const char*, const char*> plain[] = {
      {"0.000123e2", "0.0123"}, {"10.05e1", "100.5"}, {"120.0e-5", "0.001200"},
      {"-0.5e1", "-5"},         {"0.1e-0", "0.1"},    {"0.05e3", "50"}};
  for (const auto& [in, want] : plain) {
    BOOST_TEST(restyle(in, DecimalStyle::plain) == want, in);
  }
  const std::pair<const char*, const char*> exponent[] = {
      {"0.000123e2", "1.23e-2"}, {"10.05e1", "1.005e2"},
      {"120.0e-5", "1.200e-3"},  {"-0.5e1", "-5e0"},
      {"7.0000", "7.0000e0"},    {"0.0e7", "0e6"}};
  for (const auto& [in, want] : exponent) {
    BOOST_TEST(restyle(in, DecimalStyle::exponent) == want, in);
  }
}

BOOST_AUTO_TEST_CASE(plain_refuses_giant_expansions) {
  BOOST_CHECK_EXCEPTION(
      restyle("1e400000", DecimalStyle::plain), jbx::Error,
      [](const jbx::Error& e) {
        return e.message ==
               "--decimal=plain: number 1e400000 is too long to write "
               "without an exponent";
      });
}

BOOST_AUTO_TEST_CASE(unsafe_integer_texts) {
  BOOST_TEST(!tf::is_unsafe_integer_text("9007199254740991"));
  BOOST_TEST(tf::is_unsafe_integer_text("9007199254740992"));
  BOOST_TEST(!tf::is_unsafe_integer_text("-9007199254740991"));
  BOOST_TEST(tf::is_unsafe_integer_text("-9007199254740992"));
  BOOST_TEST(tf::is_unsafe_integer_text("123456789012345678901234"));
  BOOST_TEST(!tf::is_unsafe_integer_text("1e300"));
  BOOST_TEST(!tf::is_unsafe_integer_text("99999999999999999.5"));
}

BOOST_AUTO_TEST_CASE(bigint_as_string_in_json) {
  BOOST_TEST(styled("[9007199254740991,9007199254740992,-18446744073709551616,"
                    "1.5e300]",
                    true, DecimalStyle::keep) ==
             "[9007199254740991,\"9007199254740992\","
             "\"-18446744073709551616\",1.5e300]\n");
}

BOOST_AUTO_TEST_CASE(both_features_together) {
  BOOST_TEST(styled("{\"a\":12345678901234567890,\"b\":2.50E2}", true,
                    DecimalStyle::plain) ==
             "{\"a\":\"12345678901234567890\",\"b\":250}\n");
}

BOOST_AUTO_TEST_CASE(native_numbers) {
  BOOST_TEST(NativeSource::run_native(true, DecimalStyle::plain) ==
             "[9007199254740991,\"-9007199254740992\","
             "\"18446744073709551615\",0.0000001,250000000000000000000]\n");
}

BOOST_AUTO_TEST_SUITE_END()
