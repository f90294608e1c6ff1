// The source line under an error: what a terminal shows, and the caret
// under the byte the error is at.
#include "cli/diagnostic.h"

#include <boost/test/unit_test.hpp>

#include <random>
#include <string>

#include <utf8proc.h>

namespace {

using jbx::cli::excerpt;
using jbx::cli::locate;

// The caret line as render_error() prints it, for comparing by eye.
std::string under(const jbx::cli::Excerpt& x) {
  return std::string(x.caret - 1, ' ') + '^';
}

}  // namespace

BOOST_AUTO_TEST_SUITE(diagnostic)

BOOST_AUTO_TEST_CASE(ascii_caret_is_the_byte_column) {
  const auto x = excerpt(R"({"a": x})", 6, 120);
  BOOST_TEST(x.text == R"({"a": x})");
  BOOST_TEST(x.caret == 7u);
}

BOOST_AUTO_TEST_CASE(wide_characters_take_two_columns) {
  // Three CJK characters (three bytes, two columns each) before the error.
  const std::string line = R"({"name":"梁妍凯","age":x})";
  const auto x = excerpt(line, line.find('x'), 120);
  BOOST_TEST(x.text == line);
  BOOST_TEST(under(x) == std::string(23, ' ') + '^');
  // The column in the message stays in code points.
  BOOST_TEST(locate(line, line.find('x')).column == 21u);
}

BOOST_AUTO_TEST_CASE(combining_marks_take_no_column) {
  const std::string line = "\"e\xcc\x81\" x";  // e + U+0301
  const auto x = excerpt(line, line.find('x'), 120);
  BOOST_TEST(x.text == line);
  BOOST_TEST(x.caret == 5u);
}

BOOST_AUTO_TEST_CASE(bytes_that_are_not_utf8_show_as_question_marks) {
  // A lone lead byte, a stray continuation byte, an overlong '/', and a
  // surrogate: one '?' per byte, each one column.
  const std::string line = "[\xc3(,\x80,\xc0\xaf,\xed\xa0\x80,x]";
  const auto x = excerpt(line, line.find('x'), 120);
  BOOST_TEST(x.text == "[?(,?,??,???,x]");
  BOOST_TEST(x.caret == 14u);
}

BOOST_AUTO_TEST_CASE(control_characters_and_bidi_overrides_are_replaced) {
  // A tab is one space; C0, DEL and C1 controls and U+202E are '?'.
  const std::string line = "\t\x01\x7f\xc2\x85\xe2\x80\xae!";
  const auto x = excerpt(line, line.size() - 1, 120);
  BOOST_TEST(x.text == " \?\?\?\?!");
  BOOST_TEST(x.caret == 6u);
}

BOOST_AUTO_TEST_CASE(caret_past_the_end_of_the_line) {
  const auto x = excerpt("[1, 2", 5, 120);
  BOOST_TEST(x.text == "[1, 2");
  BOOST_TEST(x.caret == 6u);
  const auto wide = excerpt("\"梁", 4, 120);
  BOOST_TEST(wide.caret == 4u);
}

BOOST_AUTO_TEST_CASE(long_lines_are_cut_in_columns_around_the_caret) {
  // 100 wide characters (200 columns), the error at the 80th: cut at the
  // first whole character from half the width before the caret.
  std::string line;
  for (int i = 0; i < 100; ++i) line += "梁";
  const auto x = excerpt(line, 79 * 3, 20);
  BOOST_TEST(x.text.size() == 10u * 3);  // 20 columns
  BOOST_TEST(x.caret == 9u);             // after 4 characters
  const auto y = excerpt(line, 79 * 3, 120);
  BOOST_TEST(y.text.size() == 50u * 3);  // to the end: 100 columns
  BOOST_TEST(y.caret == 59u);
  // Near the start nothing is cut before the caret.
  const auto z = excerpt(line, 3, 20);
  BOOST_TEST(z.text == line.substr(0, 30));
  BOOST_TEST(z.caret == 3u);
}

BOOST_AUTO_TEST_CASE(long_ascii_lines_keep_59_characters_before_the_caret) {
  const std::string line(300, 'a');
  const auto x = excerpt(line, 200, 120);
  BOOST_TEST(x.text == std::string(120, 'a'));
  BOOST_TEST(x.caret == 60u);
}

BOOST_AUTO_TEST_CASE(only_bytes_near_the_caret_are_read) {
  // A line of 100 MB (a minified document): the excerpt is the same as of
  // its last part.
  std::string line(100'000'000, 'a');
  line += "\"梁妍凯\",x]";
  const std::size_t at = line.find('x');
  const auto x = excerpt(line, at, 120);
  BOOST_TEST(x.text == std::string(50, 'a') + "\"梁妍凯\",x]");
  BOOST_TEST(x.caret == 60u);
  // A cut inside a character starts at the next one.
  const std::string wide = std::string(1000, 'a') + [] {
    std::string s;
    for (int i = 0; i < 400; ++i) s += "梁";
    return s;
  }() + "x";
  const auto y = excerpt(wide, wide.size() - 1, 120);
  BOOST_TEST(y.text == wide.substr(wide.size() - 1 - 29 * 3));
  BOOST_TEST(y.caret == 59u);
}

BOOST_AUTO_TEST_CASE(any_bytes_give_utf8_within_the_width) {
  // Random lines of ASCII, CJK, combining marks, controls and stray bytes:
  // the excerpt is valid UTF-8 without controls, at most `max` columns wide,
  // and the caret is within it (or just past its end).
  std::mt19937 rng(7);
  const std::string pieces[] = {"a",   "梁",   "\xcc\x81", "\x01",
                                "\t",  "\xff", "\xe6\xa2", "\xf0\x9f\x98\x80",
                                "\x80"};
  for (int round = 0; round < 2000; ++round) {
    std::string line;
    const int n = static_cast<int>(rng() % 300);
    for (int i = 0; i < n; ++i) line += pieces[rng() % std::size(pieces)];
    const std::size_t at = line.empty() ? 0 : rng() % (line.size() + 1);
    const std::uint64_t max = 10 + rng() % 120;
    const auto x = excerpt(line, at, max);
    std::uint64_t width = 0;
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(x.text.data());
    for (std::size_t i = 0; i < x.text.size();) {
      utf8proc_int32_t cp = -1;
      const auto k = utf8proc_iterate(
          p + i, static_cast<utf8proc_ssize_t>(x.text.size() - i), &cp);
      BOOST_REQUIRE(k > 0);
      BOOST_REQUIRE(cp >= 0x20);
      width += static_cast<std::uint64_t>(utf8proc_charwidth(cp));
      i += static_cast<std::size_t>(k);
    }
    BOOST_TEST(width <= max);
    BOOST_TEST(x.caret >= 1u);
    BOOST_TEST(x.caret <= width + 1);
  }
}

BOOST_AUTO_TEST_CASE(locate_gives_the_byte_in_its_line) {
  const std::string text = "[1,\n \"梁\",\r\n x]";
  const auto lc = locate(text, text.find('x'));
  BOOST_TEST(lc.line == 3u);
  BOOST_TEST(lc.column == 2u);
  BOOST_TEST(lc.line_text == " x]");
  BOOST_TEST(lc.line_offset == 1u);
  const auto second = locate(text, text.find(','));
  BOOST_TEST(second.line_text == "[1,");
  const auto cr = locate(text, text.find('\r'));
  BOOST_TEST(cr.line_text == " \"梁\",");  // without its '\r'
  BOOST_TEST(cr.column == 6u);
}

BOOST_AUTO_TEST_SUITE_END()
