#include <boost/test/unit_test.hpp>

#include "core/path/path.h"

namespace path = jbx::path;

BOOST_AUTO_TEST_SUITE(ignore_case)

BOOST_AUTO_TEST_CASE(marks_names_and_filter_queries) {
  path::Query q = path::parse("$.userId[?@.Name == 'x'].*");
  path::ignore_name_case(q);
  const path::Selector& name = q.segments[0].selectors[0];
  BOOST_TEST(name.ignore_case);
  BOOST_TEST(path::name_matches(name, "USERID"));
  BOOST_TEST(path::name_matches(name, "userid"));
  BOOST_TEST(!path::name_matches(name, "user_id"));
  BOOST_TEST(!path::name_matches(name, "userIdx"));
  const path::Selector& filter = q.segments[1].selectors[0];
  const path::Expr& cmp = *filter.filter;
  BOOST_TEST(cmp.operands[0].query.segments[0].selectors[0].ignore_case);
  BOOST_TEST(!q.segments[2].selectors[0].ignore_case);  // a wildcard
}

BOOST_AUTO_TEST_CASE(exact_by_default_and_in_matcher) {
  path::Query q = path::parse("$.a.B");
  BOOST_TEST(!path::name_matches(q.segments[0].selectors[0], "A"));
  path::ignore_name_case(q);
  const path::Matcher m(q);
  const path::Step loc[] = {path::Step::member("A"), path::Step::member("b")};
  BOOST_TEST(m.selects(loc));
  // Only ASCII letters fold.
  path::Query u = path::parse("$['Ä']");
  path::ignore_name_case(u);
  BOOST_TEST(!path::name_matches(u.segments[0].selectors[0], "ä"));
}

BOOST_AUTO_TEST_SUITE_END()
