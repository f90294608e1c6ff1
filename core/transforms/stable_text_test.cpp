// The transforms of the chain pass on the names and strings the JSON reader
// holds (Handler::stable_key(), stable_string()) where they leave them as
// they are, so that the writer copies them without a scan: the output is
// the same as when they come as copies.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

#include "core/transforms/dates.h"
#include "core/transforms/key_case.h"
#include "core/transforms/null_defaults.h"
#include "core/transforms/nulls.h"
#include "core/transforms/numbers.h"
#include "core/transforms/path_tracker.h"
#include "core/transforms/transform_test_util.h"
#include "core/value.h"

namespace tf = jbx::transforms;
namespace dt = jbx::datetime;
using jbx::Flow;
using jbx::Handler;
using tf::testing::json;
using tf::testing::run;

namespace {

// Counts what reaches the writer by stable_key(), escape_free_key() and
// stable_string().
class CountStable final : public jbx::ForwardingHandler {
 public:
  CountStable(Handler& next, int& count)
      : ForwardingHandler(next), count_(count) {}
  Flow stable_key(std::string_view name) override {
    ++count_;
    return next_.stable_key(name);
  }
  Flow escape_free_key(std::string_view name) override {
    ++count_;
    return next_.escape_free_key(name);
  }
  void stable_string(std::string_view s) override {
    ++count_;
    next_.stable_string(s);
  }

 private:
  int& count_;
};

// A transform in front of CountStable, kept alive with it.
template <class T>
class With final : public jbx::ForwardingHandler {
 public:
  template <class... A>
  With(Handler& next, int& count, A&&... a)
      : ForwardingHandler(static_cast<Handler&>(t_)),
        count_(next, count),
        t_(static_cast<Handler&>(count_), std::forward<A>(a)...) {}
  Flow stable_key(std::string_view name) override {
    return t_.stable_key(name);
  }
  void stable_string(std::string_view s) override { t_.stable_string(s); }

 private:
  CountStable count_;
  T t_;
};

const std::vector<std::string> kInputs = {
    R"({"userName":"ann","note":null,"tags":[],"e":"","at":"2024-03-31T01:30:00+08:00","n":12345678901234567890,"x":{"note":null,"y":[null,"",{"z":"w\u00e9"}]}})",
    R"([{"a\"b":"c\\d","note":"","at":"1969-12-31T23:59:59.5Z"},{"note":null,"at":"not a date"}] 17 "top" null)",
    R"({"long name that needs words":"a string of more than thirty-two bytes, \u00e9 included","k":[1,2.50,-0,1e400]})",
};

// Runs `make` over every input as the reader gives it and with copies;
// returns how many names and strings reached the writer as held.
template <class Make>
int same_both_ways(const Make& make) {
  int stable = 0;
  for (const std::string& in : kInputs) {
    int count = 0;
    const auto made = [&](Handler& next) { return make(next, count); };
    const std::string held = run(in, made);
    const int counted = count;
    const std::string copied = run(in, made, true, true);
    BOOST_TEST(held == copied, in);
    BOOST_TEST(count == counted);  // none more with copies
    stable += counted;
  }
  return stable;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stable_text)

BOOST_AUTO_TEST_CASE(each_transform_gives_what_copies_give) {
  const auto rules = std::make_shared<std::vector<tf::NullDefault>>();
  rules->push_back(
      {tf::parse_rule_path("null-default", "$..note"), json(R"("none")")});
  const auto schema = std::make_shared<const tf::SchemaTypes>(json(
      R"({"properties":{"tags":{"type":"array"},"e":{"type":"string"}}})"));
  const auto zone = dt::TimeZone::named("Asia/Shanghai", "/usr/share/zoneinfo");
  const auto dates = [&] {
    tf::DateFieldOptions o;
    o.fields.push_back(tf::parse_rule_path("date-fields", "$..at"));
    o.keep_errors = true;
    return o;
  };
  // How many names and strings each passes on as held: every one without
  // an escape (23 in all: a document that is one string is read by the
  // scalar parser, which sends copies), less those it drops, changes or
  // renames.
  BOOST_TEST(same_both_ways([&](Handler& n, int& c) {
               return std::make_unique<With<tf::NullDefaults>>(n, c, rules,
                                                               nullptr, 0);
             }) == 23);
  BOOST_TEST(same_both_ways([&](Handler& n, int& c) {
               return std::make_unique<With<tf::NullDefaults>>(n, c, nullptr,
                                                               schema, 0xFu);
             }) == 23);
  BOOST_TEST(same_both_ways([](Handler& n, int& c) {
               return std::make_unique<With<tf::DropNulls>>(
                   n, c, tf::NullPolicy::drop);
             }) == 20);
  BOOST_TEST(same_both_ways([](Handler& n, int& c) {
               return std::make_unique<With<tf::DropNulls>>(
                   n, c, tf::NullPolicy::drop_all);
             }) == 20);
  BOOST_TEST(same_both_ways([](Handler& n, int& c) {
               return std::make_unique<With<tf::EmptyAsNull>>(n, c);
             }) == 20);
  BOOST_TEST(same_both_ways([](Handler& n, int& c) {
               return std::make_unique<With<tf::NumberStyle>>(
                   n, c, true, tf::DecimalStyle::exponent);
             }) == 23);
  BOOST_TEST(same_both_ways([&](Handler& n, int& c) {
               return std::make_unique<With<tf::FormatDates>>(
                   n, c, tf::DateFormat::parse("millis", zone));
             }) == 23);
  BOOST_TEST(same_both_ways([&](Handler& n, int& c) {
               return std::make_unique<With<tf::ParseDateFields>>(n, c,
                                                                  dates());
             }) == 21);
  // Renamed names without escapes go as such (escape_free_key()).
  BOOST_TEST(same_both_ways([](Handler& n, int& c) {
               return std::make_unique<With<tf::RenameKeys>>(
                   n, c, tf::KeyCase::snake, "snake");
             }) == 23);
}

BOOST_AUTO_TEST_CASE(a_chain_gives_what_copies_give) {
  // As the command line builds it for --empty-as-null, --date-fields,
  // --null-default, --nulls=drop-all and --bigint-as-string.
  struct Chain final : jbx::ForwardingHandler {
    Chain(Handler& n, int& c, std::shared_ptr<std::vector<tf::NullDefault>> r,
          tf::DateFieldOptions o)
        : ForwardingHandler(static_cast<Handler&>(empty_)),
          count_(n, c),
          numbers_(static_cast<Handler&>(count_), true, tf::DecimalStyle::keep),
          drop_(static_cast<Handler&>(numbers_), tf::NullPolicy::drop_all),
          defaults_(static_cast<Handler&>(drop_), std::move(r), nullptr, 0),
          dates_(static_cast<Handler&>(defaults_), std::move(o)),
          empty_(static_cast<Handler&>(dates_)) {}
    Flow stable_key(std::string_view name) override {
      return empty_.stable_key(name);
    }
    void stable_string(std::string_view s) override { empty_.stable_string(s); }
    CountStable count_;
    tf::NumberStyle numbers_;
    tf::DropNulls drop_;
    tf::NullDefaults defaults_;
    tf::ParseDateFields dates_;
    tf::EmptyAsNull empty_;
  };
  const auto rules = std::make_shared<std::vector<tf::NullDefault>>();
  rules->push_back(
      {tf::parse_rule_path("null-default", "$..x.note"), json(R"(["kept"])")});
  BOOST_TEST(same_both_ways([&](Handler& n, int& c) {
               tf::DateFieldOptions o;
               o.fields.push_back(tf::parse_rule_path("date-fields", "$..at"));
               o.keep_errors = true;
               return std::make_unique<Chain>(n, c, rules, std::move(o));
             }) == 13);
}

BOOST_AUTO_TEST_SUITE_END()
