#include <boost/test/unit_test.hpp>

#include "core/path/path.h"

namespace path = jbx::path;

BOOST_AUTO_TEST_SUITE(ignore_case)

BOOST_AUTO_TEST_CASE(marks_names_and_filter_queries) {
  path::Query q = path::parse("$.userId[?@.Name == 'x'].*");
  path::match_names(q, path::NameMatch::ignore_case);
  const path::Selector& name = q.segments[0].selectors[0];
  BOOST_TEST((name.match == path::NameMatch::ignore_case));
  BOOST_TEST(path::name_matches(name, "USERID"));
  BOOST_TEST(path::name_matches(name, "userid"));
  BOOST_TEST(!path::name_matches(name, "user_id"));
  BOOST_TEST(!path::name_matches(name, "userIdx"));
  const path::Selector& filter = q.segments[1].selectors[0];
  const path::Expr& cmp = *filter.filter;
  BOOST_TEST((cmp.operands[0].query.segments[0].selectors[0].match ==
              path::NameMatch::ignore_case));
  BOOST_TEST((q.segments[2].selectors[0].match ==
              path::NameMatch::exact));  // a wildcard
}

BOOST_AUTO_TEST_CASE(exact_by_default_and_in_matcher) {
  path::Query q = path::parse("$.a.B");
  BOOST_TEST(!path::name_matches(q.segments[0].selectors[0], "A"));
  path::match_names(q, path::NameMatch::ignore_case);
  const path::Matcher m(q);
  const path::Step loc[] = {path::Step::member("A"), path::Step::member("b")};
  BOOST_TEST(m.selects(loc));
  // Only ASCII letters fold.
  path::Query u = path::parse("$['Ä']");
  path::match_names(u, path::NameMatch::ignore_case);
  BOOST_TEST(!path::name_matches(u.segments[0].selectors[0], "ä"));
}

BOOST_AUTO_TEST_CASE(smart_match_skips_separators_as_fastjson2) {
  // fastjson2's Fnv.hashCode64LCase: ASCII letters folded, '-', '_' and
  // ' ' left out, on both sides.
  const auto smart = [](std::string_view key, std::string_view name) {
    return path::names_match(key, name, path::NameMatch::smart);
  };
  for (const std::string_view key :
       {"userId", "user_id", "USER_ID", "user-id", "UserId", "user id",
        "_userId", "userId_", "u_s_e_r_i_d", "user__id"}) {
    BOOST_TEST(smart(key, "userId"), key);
    BOOST_TEST(smart("userId", key), key);
  }
  for (const std::string_view key :
       {"userIdx", "useId", "user.id", "user_i", "", "_", "userÍd"}) {
    BOOST_TEST(!smart(key, "userId"), key);
  }
  BOOST_TEST(smart("", "_-"));
  BOOST_TEST(smart("名_字", "名字"));  // other bytes compare exactly
  BOOST_TEST(!smart("Ä", "ä"));
  // ignore_case alone keeps the separators.
  BOOST_TEST(
      !path::names_match("user_id", "userId", path::NameMatch::ignore_case));
  BOOST_TEST(
      path::names_match("USERID", "userId", path::NameMatch::ignore_case));
  BOOST_TEST(!path::names_match("userid", "userId", path::NameMatch::exact));
}

BOOST_AUTO_TEST_CASE(smart_match_marks_filters_and_matcher) {
  path::Query q = path::parse("$.order_items[*].unit_price");
  path::match_names(q, path::NameMatch::smart);
  const path::Matcher m(q);
  const path::Step loc[] = {path::Step::member("orderItems"),
                            path::Step::element(0),
                            path::Step::member("UnitPrice")};
  BOOST_TEST(m.selects(loc));
  path::Query f = path::parse("$[?@.sku_id == 1]");
  path::match_names(f, path::NameMatch::smart);
  const path::Expr& cmp = *f.segments[0].selectors[0].filter;
  BOOST_TEST((cmp.operands[0].query.segments[0].selectors[0].match ==
              path::NameMatch::smart));
}

BOOST_AUTO_TEST_SUITE_END()
