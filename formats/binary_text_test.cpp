#include "formats/binary_text.h"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

std::size_t first_special_bytewise(const std::uint8_t* s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t c = s[i];
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return i;
  }
  return n;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(binary_text)

// The word-at-a-time scan must find what a byte-by-byte one finds, whatever
// the length, wherever the special byte, and however much may be read past
// the string (bytes past it never count).
BOOST_AUTO_TEST_CASE(first_special_agrees_with_a_bytewise_scan) {
  std::mt19937 rng(7);
  const std::uint8_t specials[] = {0x00, 0x1f, '"', '\\', 0x80, 0xff};
  int bad = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::size_t n = rng() % 90;
    const std::size_t pad = rng() % 2 == 0 ? 0 : rng() % 40;
    std::vector<std::uint8_t> buf(n + pad);
    for (auto& c : buf) c = static_cast<std::uint8_t>(0x20 + rng() % 0x5f);
    for (auto& c : buf) {
      if (c == '"' || c == '\\') c = 'a';
    }
    // Specials inside the string (sometimes none), and past its end.
    const int inside = static_cast<int>(rng() % 3);
    for (int k = 0; k < inside && n > 0; ++k) {
      buf[rng() % n] = specials[rng() % 6];
    }
    for (std::size_t k = n; k < buf.size(); ++k) {
      if (rng() % 4 == 0) buf[k] = specials[rng() % 6];
    }
    const std::uint8_t* s = buf.data();
    const std::size_t got = jbx::detail::first_special(s, n, s + buf.size());
    const std::size_t want = first_special_bytewise(s, n);
    if (got != want && ++bad <= 5) {
      BOOST_ERROR("length " << n << ", padding " << pad << ": " << got
                            << " instead of " << want);
    }
  }
  BOOST_TEST(bad == 0);
}

BOOST_AUTO_TEST_CASE(invalid_utf8_is_described_by_its_bytes) {
  const auto describe = [](const std::string& bytes) {
    return jbx::detail::describe_invalid_utf8(
        reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  };
  BOOST_TEST(describe("\xff") == "byte 0xff cannot start a character");
  BOOST_TEST(describe("\x80"
                      "a") == "byte 0x80 cannot start a character");
  BOOST_TEST(describe("\xc1\xbf") == "byte 0xc1 cannot start a character");
  BOOST_TEST(describe("\xc3(") == "byte 0x28 cannot follow 0xc3");
  BOOST_TEST(describe("\xe6\xa2(") == "byte 0x28 cannot follow 0xe6 0xa2");
  BOOST_TEST(describe("\xe0\x9f\xbf") ==
             "byte 0x9f cannot follow 0xe0 (an overlong form)");
  BOOST_TEST(describe("\xf0\x8f\xbf\xbf") ==
             "byte 0x8f cannot follow 0xf0 (an overlong form)");
  BOOST_TEST(describe("\xed\xb0\x80") ==
             "byte 0xb0 cannot follow 0xed (a UTF-16 surrogate)");
  BOOST_TEST(describe("\xf4\x90\x80\x80") ==
             "byte 0x90 cannot follow 0xf4 (above U+10FFFF)");
  BOOST_TEST(describe("\xf0\x9f\x98") ==
             "the string ends inside 0xf0 0x9f 0x98");
  BOOST_TEST(describe("\xe6") == "the string ends inside 0xe6");
}

BOOST_AUTO_TEST_SUITE_END()
