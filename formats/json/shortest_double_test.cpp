#include "formats/json/shortest_double.h"

#include <boost/test/unit_test.hpp>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

namespace {

// put_shortest() must give exactly std::to_chars's text, which it replaces.
std::string reference(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string shortest(double v, bool mark = false) {
  char buf[jbx::detail::kShortestRoom];
  return std::string(buf, jbx::detail::put_shortest(buf, v, mark));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(shortest_double)

BOOST_AUTO_TEST_CASE(agrees_with_to_chars_on_random_doubles) {
  std::mt19937_64 rng(20240601);
  int bad = 0;
  const auto check = [&bad](double v) {
    if (!std::isfinite(v)) return;
    const std::string want = reference(v);
    const std::string got = shortest(v);
    if (got != want && ++bad <= 10) {
      BOOST_ERROR("put_shortest(" << std::hexfloat << v << ") = " << got
                                  << ", std::to_chars: " << want);
    }
  };
  for (int i = 0; i < 300000; ++i) {
    const std::uint64_t u = rng();
    check(std::bit_cast<double>(u));  // every exponent
    // Short decimals, as in data: both notations and the ties between.
    const auto m = static_cast<double>(rng() % 2000000000);
    const double d = m / std::pow(10.0, static_cast<int>(rng() % 25));
    check(d);
    check(-d);
    check(d * 1e10);
    check(static_cast<double>(static_cast<std::int64_t>(u >> (rng() % 64))));
    check(std::ldexp(1.0, static_cast<int>(rng() % 2100) - 1075));
    check(static_cast<double>(
        std::bit_cast<float>(static_cast<std::uint32_t>(u))));
  }
  for (int k = -330; k <= 310; ++k) {
    for (const double m : {1.0, 1.5, 9.999, 123456.0, 1234567890123456.0}) {
      check(m * std::pow(10.0, k));
    }
  }
  BOOST_TEST(bad == 0);
}

BOOST_AUTO_TEST_CASE(notation_edges) {
  BOOST_TEST(shortest(10000.0) == "10000");
  BOOST_TEST(shortest(100000.0) == "1e+05");
  BOOST_TEST(shortest(1200000.0) == "1200000");
  BOOST_TEST(shortest(0.001) == "0.001");
  BOOST_TEST(shortest(0.0001) == "1e-04");  // "0.0001" is longer
  BOOST_TEST(shortest(0.00012) == "0.00012");
  BOOST_TEST(shortest(0.000012) == "1.2e-05");
  BOOST_TEST(shortest(5e-324) == "5e-324");
  BOOST_TEST(shortest(1.7976931348623157e308) == "1.7976931348623157e+308");
  BOOST_TEST(shortest(-0.0) == "-0");
  BOOST_TEST(shortest(0.0, true) == "0.0");
  BOOST_TEST(shortest(-2.0, true) == "-2.0");
  BOOST_TEST(shortest(1e5, true) == "1e+05");
  BOOST_TEST(shortest(12.5, true) == "12.5");
  // Past 2^53 the fixed form is the exact integer.
  BOOST_TEST(shortest(123456789012345680000.0) ==
             reference(123456789012345680000.0));
}

BOOST_AUTO_TEST_SUITE_END()
