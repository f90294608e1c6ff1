// The documentation helpers: wrapping, \flag{} references, roff escaping,
// and how examples are shown.
#include <boost/test/unit_test.hpp>

#include <string>

#include "cli/doc/man.h"
#include "cli/doc/text.h"
#include "core/error.h"

namespace doc = jbx::cli::doc;

BOOST_AUTO_TEST_SUITE(doc_text)

BOOST_AUTO_TEST_CASE(wrap_breaks_at_spaces_within_width) {
  BOOST_TEST(doc::wrap("aaa bbb ccc ddd", 10, 2) == "  aaa bbb\n  ccc ddd\n");
  // A word longer than the width stays whole on its own line.
  BOOST_TEST(doc::wrap("x abcdefghijkl y", 8, 0) == "x\nabcdefghijkl\ny\n");
  BOOST_TEST(doc::wrap("", 10, 2) == "");
}

BOOST_AUTO_TEST_CASE(display_width_counts_code_points) {
  BOOST_TEST(doc::display_width("abc") == 3u);
  BOOST_TEST(doc::display_width("caf\xc3\xa9") == 4u);
}

BOOST_AUTO_TEST_CASE(paragraphs_split_at_blank_lines) {
  const auto p = doc::paragraphs("one\ntwo\n\n three \n\n\n");
  BOOST_TEST(p.size() == 2u);
  BOOST_TEST(p[0] == "one\ntwo");
  BOOST_TEST(p[1] == "three");
}

BOOST_AUTO_TEST_CASE(flag_references_resolve_or_throw) {
  BOOST_TEST(doc::plain_prose("see \\flag{indent}.") == "see --indent.");
  try {
    doc::plain_prose("see \\flag{no-such-flag}");
    BOOST_FAIL("expected an error");
  } catch (const jbx::Error& e) {
    BOOST_TEST(e.message ==
               "documentation refers to unknown flag '\\flag{no-such-flag}'");
  }
  BOOST_CHECK_THROW(doc::plain_prose("\\flag{indent"), jbx::Error);
}

BOOST_AUTO_TEST_CASE(roff_escape_guards_roff_syntax) {
  BOOST_TEST(doc::roff_escape("--to") == "\\-\\-to");
  BOOST_TEST(doc::roff_escape("a\\b") == "a\\eb");
  BOOST_TEST(doc::roff_escape(".dot") == "\\&.dot");
  BOOST_TEST(doc::roff_escape("'quote") == "\\&'quote");
  BOOST_TEST(doc::roff_escape("a.b") == "a.b");
  BOOST_TEST(doc::roff_escape("x\n.y") == "x\n\\&.y");
  BOOST_TEST(doc::roff_escape("caf\xc3\xa9") == "caf\\[u00E9]");
}

BOOST_AUTO_TEST_CASE(examples_show_their_input) {
  using jbx::cli::Example;
  BOOST_TEST(doc::example_shell_line(Example{"", "jbx fmt", "", ""}) ==
             "jbx fmt");
  BOOST_TEST(
      doc::example_shell_line(Example{"", "jbx fmt", "{\"a\":1}\n", ""}) ==
      "echo '{\"a\":1}' | jbx fmt");
  // Quotes are shell-quoted; backslashes and several lines use printf.
  BOOST_TEST(doc::example_shell_line(Example{"", "jbx fmt", "\"it's\"", ""}) ==
             "echo '\"it'\\''s\"' | jbx fmt");
  BOOST_TEST(doc::example_shell_line(Example{"", "jbx fmt", "\"\\n\"", ""}) ==
             "printf '%s\\n' '\"\\n\"' | jbx fmt");
  BOOST_TEST(doc::example_shell_line(Example{"", "jbx fmt -l", "1\n2\n", ""}) ==
             "printf '%s\\n' '1' '2' | jbx fmt -l");
}

BOOST_AUTO_TEST_CASE(long_examples_break_after_a_pipe) {
  using jbx::cli::Example;
  const Example e{"", "jbx query '$.a'", "{\"a\":\"0123456789\"}", ""};
  const auto one = doc::example_shell_lines(e, 80);
  BOOST_TEST(one.size() == 1u);
  const auto two = doc::example_shell_lines(e, 30);
  BOOST_TEST(two.size() == 2u);
  BOOST_TEST(two[0] == "$ echo '{\"a\":\"0123456789\"}' |");
  BOOST_TEST(two[1] == "  jbx query '$.a'");
}

BOOST_AUTO_TEST_SUITE_END()
