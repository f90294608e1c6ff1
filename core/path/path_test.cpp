#include "core/path/path.h"

#include <boost/test/unit_test.hpp>

#include "core/error.h"

namespace jbx::path {
namespace {

std::size_t error_offset(std::string_view q) {
  try {
    (void)parse(q);
  } catch (const Error& e) {
    BOOST_TEST((e.code == Errc::invalid_query));
    return e.offset.value_or(999);
  }
  BOOST_FAIL("query was accepted: " << q);
  return 0;
}

std::vector<Step> steps(std::initializer_list<Step> s) { return s; }

}  // namespace

BOOST_AUTO_TEST_SUITE(path_parse)

BOOST_AUTO_TEST_CASE(parses_segments_and_selectors) {
  const Query q = parse("$.a[0, -1, 'b', *, 1:5:2]..c");
  BOOST_TEST(q.segments.size() == 3u);
  BOOST_TEST(q.segments[0].selectors[0].name == "a");
  const auto& sels = q.segments[1].selectors;
  BOOST_TEST(sels.size() == 5u);
  BOOST_TEST(sels[1].index == -1);
  BOOST_TEST(sels[2].name == "b");
  BOOST_TEST((sels[3].kind == Selector::Kind::wildcard));
  BOOST_TEST(*sels[4].slice.start == 1);
  BOOST_TEST(*sels[4].slice.end == 5);
  BOOST_TEST(sels[4].slice.step == 2);
  BOOST_TEST(q.segments[2].descendant);
}

BOOST_AUTO_TEST_CASE(errors_point_at_the_offending_character) {
  BOOST_TEST(error_offset("a") == 0u);
  BOOST_TEST(error_offset("$.a ") == 3u);
  BOOST_TEST(error_offset("$[01]") == 2u);
  BOOST_TEST(error_offset("$[?@.a == 1 &&]") == 14u);
  BOOST_TEST(error_offset("$[?length(@.*) == 1]") == 10u);
  BOOST_TEST(error_offset("$[?match(@.a, 'a')==true]") == 3u);
  BOOST_TEST(error_offset("$[?count(1) == 1]") == 9u);
  BOOST_TEST(error_offset("$[?true]") == 3u);
  BOOST_TEST(error_offset("$[9007199254740992]") == 2u);
}

BOOST_AUTO_TEST_CASE(literal_patterns_must_be_iregexp) {
  BOOST_TEST(error_offset("$[?match(@, 'a(?=b)')]") == 15u);
  BOOST_TEST(error_offset("$[?search(@, '\\\\d')]") == 13u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(path_iregexp)

BOOST_AUTO_TEST_CASE(translates_to_re2) {
  BOOST_TEST(iregexp_to_re2("a.b") == "a[^\\n\\r]b");
  BOOST_TEST(iregexp_to_re2("[.^a-z-]") == "[\\.\\^a-z\\-]");
  BOOST_TEST(iregexp_to_re2("(a|b){2,3}\\p{Lu}") == "(?:a|b){2,3}\\p{Lu}");
}

BOOST_AUTO_TEST_CASE(rejects_what_is_not_iregexp) {
  for (const char* bad : {"\\d", "a*?", "(?:a)", "[]", "a{,2}", "\\1", "a)",
                          "[a-b-c]", "\\p{IsBasicLatin}"}) {
    BOOST_CHECK_THROW(iregexp_to_re2(bad), Error);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(path_location)

BOOST_AUTO_TEST_CASE(normalized_paths_and_pointers) {
  const auto loc =
      steps({Step::member("a'b"), Step::element(3), Step::member("x/~\n")});
  BOOST_TEST(normalized_path(loc) == "$['a\\'b'][3]['x/~\\n']");
  BOOST_TEST(json_pointer(loc) == "/a'b/3/x~1~0\n");
}

BOOST_AUTO_TEST_CASE(pointer_tokens) {
  const Query q = parse_pointer("/a~1b/0/~0/01");
  BOOST_TEST(q.segments.size() == 4u);
  BOOST_TEST(q.segments[0].selectors[0].name == "a/b");
  BOOST_TEST(q.segments[1].selectors[0].index == 0);
  BOOST_TEST(q.segments[2].selectors[0].name == "~");
  BOOST_TEST(q.segments[3].selectors[0].index == -1);
  BOOST_CHECK_THROW(parse_pointer("a"), Error);
  BOOST_CHECK_THROW(parse_pointer("/a~2"), Error);
}

BOOST_AUTO_TEST_CASE(matcher_decides_from_the_location) {
  const Query q = parse("$.orders[*].date");
  BOOST_TEST(is_simple(q));
  Matcher m(q);
  BOOST_TEST(m.selects(
      steps({Step::member("orders"), Step::element(4), Step::member("date")})));
  BOOST_TEST(!m.selects(
      steps({Step::member("order"), Step::element(4), Step::member("date")})));
  m.push(Step::member("other"));
  BOOST_TEST(!m.alive());
  m.pop();
  m.push(Step::member("orders"));
  BOOST_TEST(m.alive());
  BOOST_TEST(!m.selected());
  m.push(Step::element(0));
  m.push(Step::member("date"));
  BOOST_TEST(m.selected());
}

BOOST_AUTO_TEST_CASE(matcher_descendants) {
  Matcher m(parse("$..tags"));
  BOOST_TEST(m.selects(steps({Step::member("tags")})));
  BOOST_TEST(m.selects(
      steps({Step::member("a"), Step::element(2), Step::member("tags")})));
  BOOST_TEST(!m.selects(steps({Step::member("a")})));
  BOOST_TEST(!is_simple(parse("$[?@.a]")));
  BOOST_TEST(!is_simple(parse("$[-1]")));
  BOOST_CHECK_THROW(Matcher(parse("$[-1]")), Error);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace jbx::path
