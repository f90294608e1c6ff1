#include "core/transforms/fused.h"

#include <fmt/format.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "core/error.h"
#include "core/transforms/fused_test_util.h"
#include "core/transforms/transform_test_util.h"
#include "formats/cbor/cbor_format.h"
#include "formats/json/json_fused.h"
#include "formats/jsonb/jsonb_format.h"
#include "formats/msgpack/msgpack_format.h"

namespace tf = jbx::transforms;
using jbx::Handler;
using tf::testing::chain;
using tf::testing::Features;
using tf::testing::options;
using tf::testing::run;

namespace {

/// FusedFeatures<W> in front of the writer `next`, when it is a W.
template <class W>
std::unique_ptr<Handler> fused_before(Handler& next, const Features& f) {
  if (auto* w = dynamic_cast<W*>(&next)) {
    return std::make_unique<tf::FusedFeatures<W>>(*w, options(f));
  }
  return nullptr;
}

/// FusedFeatures in front of the JSON writer or a binary writer (the
/// reader calls it directly) or, with `generic`, through the Handler
/// interface.
tf::testing::Make fused(const Features& f, bool generic) {
  return [f, generic](Handler& next) -> std::unique_ptr<Handler> {
    if (!generic) {
      for (auto* make :
           {&fused_before<jbx::JsonWriter>, &fused_before<jbx::CborWriter>,
            &fused_before<jbx::msgpack::MsgpackWriter>,
            &fused_before<jbx::JsonbWriter>}) {
        if (auto h = make(next, f)) return h;
      }
    }
    return std::make_unique<tf::FusedFeatures<Handler>>(next, options(f));
  };
}

/// Names and strings as a binary reader gives them (key() and
/// string_value()), valid for the call only: each is copied into a buffer
/// that is overwritten once the call returns, so that a handler that keeps
/// a view of one past the call writes '#'s (or, when the buffer has grown
/// since, reads freed memory, which the sanitizer build reports).
class ValidForTheCall final : public jbx::CountKeepingHandler {
 public:
  explicit ValidForTheCall(std::unique_ptr<Handler> inner)
      : CountKeepingHandler(*inner), inner_(std::move(inner)) {}
  jbx::Flow key(std::string_view name) override {
    buf_.assign(name);
    const jbx::Flow f = next_.key(buf_);
    std::fill(buf_.begin(), buf_.end(), '#');
    return f;
  }
  jbx::Flow stable_key(std::string_view name) override { return key(name); }
  jbx::Flow escape_free_key(std::string_view name) override {
    return key(name);
  }
  void string_value(std::string_view s) override {
    buf_.assign(s);
    next_.string_value(buf_);
    std::fill(buf_.begin(), buf_.end(), '#');
  }
  void stable_string(std::string_view s) override { string_value(s); }

 private:
  std::unique_ptr<Handler> inner_;
  std::string buf_;
};

/// fused(f, true) behind ValidForTheCall.
tf::testing::Make fused_for_the_call(const Features& f) {
  return [f](Handler& next) -> std::unique_ptr<Handler> {
    return std::make_unique<ValidForTheCall>(
        std::make_unique<tf::FusedFeatures<Handler>>(next, options(f)));
  };
}

/// Output, or "error: MESSAGE".
std::string outcome(std::string_view json, const tf::testing::Make& make,
                    bool compact = true,
                    const jbx::FormatSpec& to = jbx::kJsonFormat) {
  try {
    return run(json, make, compact, false, to);
  } catch (const jbx::Error& e) {
    return "error: " + e.message;
  }
}

/// The binary formats the fused features write directly (convert).
const jbx::FormatSpec* const kBinaryFormats[] = {
    &jbx::kCborFormat, &jbx::kMsgpackFormat, &jbx::kJsonbFormat};

/// check_same() of the bytes written in the binary formats: the fused
/// features in front of each binary writer, and through the interface.
void check_same_binary(std::string_view json, const Features& f) {
  for (const jbx::FormatSpec* to : kBinaryFormats) {
    const std::string want = outcome(json, chain(f), true, *to);
    BOOST_TEST(outcome(json, fused(f, false), true, *to) == want,
               to->name << ": " << json);
    BOOST_TEST(outcome(json, fused(f, true), true, *to) == want,
               to->name << ": " << json);
    BOOST_TEST(outcome(json, fused_for_the_call(f), true, *to) == want,
               to->name << ": " << json);
  }
}

void check_same(std::string_view json, const Features& f, bool compact = true) {
  const std::string want = outcome(json, chain(f), compact);
  BOOST_TEST(outcome(json, fused(f, false), compact) == want, json);
  BOOST_TEST(outcome(json, fused(f, true), compact) == want, json);
  BOOST_TEST(outcome(json, fused_for_the_call(f), compact) == want, json);
  // (Binary output has one form.)
  if (compact) check_same_binary(json, f);
}

/// check_same() of each of `docs`, compact and pretty, with each set of
/// date rules of `fields`, nulls kept or dropped, snake case or not.
template <class Docs>
void check_same_with_features(
    const Docs& docs, const std::vector<std::vector<std::string>>& fields) {
  for (const auto& fl : fields) {
    for (const tf::NullPolicy n :
         {tf::NullPolicy::keep, tf::NullPolicy::drop}) {
      for (const bool snake : {false, true}) {
        Features f;
        f.date_fields = fl;
        f.nulls = n;
        if (snake) f.key_case = tf::KeyCase::snake;
        f.keep_errors = true;
        f.date_format = "yyyy-MM-dd HH:mm:ss";
        for (const auto& doc : docs) {
          check_same(doc, f, true);
          check_same(doc, f, false);
        }
      }
    }
  }
}

const char* const kDocs[] = {
    R"({"userId":1,"user_name":null,"createdAt":"2024-01-02T03:04:05Z"})",
    R"([{"createdAt":"2024-01-02T03:04:05+08:00","a":null,"HTTPServer":[null,1,{"x":null}]},
        {"createdAt":null,"paidAt":1700000000000,"Total":{"subTotal":2}}])",
    R"({"a":{"b":null},"c":[null,null],"d":null} {"e":null} null [null])",
    R"({"user_id":1,"userId":2})",
    R"({"userId":2,"user_id":1})",
    R"({"total":1,"Total":2})",
    R"({"Total":1,"total":2})",
    R"({"total":null,"Total":2})",
    R"({"a":1,"a":2,"A":3})",
    R"({"a_b":{"aB":null,"a_b":1},"aB":[{"a_b":1},{"aB":2}]})",
    R"({"esc\u0041pe":"x\ny","k\"q":"v","plain":"\u00e9"})",
    R"([{"createdAt":"not a date"}])",
    R"([{"createdAt":true}])",
    R"([{"createdAt":{"x":1}}])",
    R"([{"createdAt":[1]}])",
    R"([{"createdAt":1.5e3}])",
    R"([{"createdAt":-1500}])",
    R"([[{"createdAt":"2024-01-02"}],{"deep":{"createdAt":"x"}}])",
    R"({"createdAt":"2024-01-02T03:04:05Z","nested":{"createdAt":"y"}})",
    R"({"":null,"_":1,"__a":2,"a__b":3,"a_":4,"-a":5," a":6})",
    // Records that repeat their keys (the key cache): the same keys, then
    // another order, fewer keys, a new key, a colliding key.
    R"([{"userId":1,"createdAt":"2024-01-02","x":{"aB":1,"c":null}},
        {"userId":2,"createdAt":"2024-01-03","x":{"aB":2,"c":3}},
        {"createdAt":"2024-01-04","userId":3,"x":{"c":4,"aB":5}},
        {"userId":4},
        {"userId":5,"createdAt":null,"x":{"aB":6,"c":7,"d":8}},
        {"userId":6,"createdAt":"2024-01-05","x":{"aB":7,"a_b":8}}])",
    // Colliding keys that are dropped as nulls, then written.
    R"([{"a_b":null,"aB":null,"c":1},{"a_b":null,"aB":null,"c":2},
        {"a_b":1,"aB":null,"c":3},{"a_b":1,"aB":2,"c":4}])",
    R"([{"a_b":1,"aB":null},{"a_b":1,"aB":null},{"a_b":1,"aB":2}])",
    R"([{"aB":null,"k":1},{"aB":null,"k":2},{"aB":null,"k":3,"a_b":4}])",
    // Nested records at one depth, arrays of records, records in arrays.
    R"([{"p":{"q":1},"r":{"s":null},"t":[{"u":1},{"u":null,"v":2}]},
        {"p":{"q":2},"r":{"s":3},"t":[{"u":3},{"v":4,"u":5}]},
        {"p":{"q":3},"r":[{"s":4}],"t":[[{"u":6}]],"createdAt":"2024-01-06"}])",
    // A record key that needs escaping, and a record with escaped keys.
    R"([{"a\u0042":1,"aB":null},{"aB":2,"a\u0042":null},{"aB":3,"a\u0042":4}])",
    // Record keys that stay escaped in JSON text (a quote, a backslash, a
    // control character): the shape that remembers them must write them
    // escaped.
    R"([{"a\"b":1,"c\\d":null,"e\u0001f":2},{"a\"b":3,"c\\d":4,"e\u0001f":null},
        {"a\"b":5,"c\\d":null,"e\u0001f":6},{"a\"b":7,"c\\d":8,"e\u0001f":9}])",
    // A shape's name with a backslash, then the same bytes in the text,
    // which are another name there ("aB"): a name read as it is in the text
    // matches only names without one.
    R"([{"a\\u0042":1,"xY":2},{"a\u0042":1,"xY":2},{"a\u0042":1,"xY":2}])",
    R"({"createdAt":"2024-01-02T03:04:05Z"} {"createdAt":"x"} {"userId":1})",
    R"([{"createdAt":"2024-01-02"},{"createdAt":"2024-01-03"},{"createdAt":5}])",
    // Containers opened in direct ones at one depth, of different modes
    // (with drop-all an array is not direct): closing one inside the array
    // must give the array its own mode back, not that of the object opened
    // last at its depth.
    R"([{"y":[{"z":1},null,2],"x":{"k":1}},{"y":[{"z":1},null,2],"x":{"k":1}},
        {"y":[[null],null,{"z":null}],"x":{"k":null}}])",
    // Deferred records (the tracker hears them only when needed): a date
    // not in the usual form, a key past the shape, an escaped key, a date
    // member that is null or a container, each in the middle of records
    // that follow their shape, and nested records deferred in turn.
    R"([{"a":1,"createdAt":"2024-01-02T03:04:05Z","b":{"c":null}},
        {"a":2,"createdAt":"2024-01-03T03:04:05+08:00","b":{"c":1}},
        {"a":3,"createdAt":"2024-01-04","b":{"c":2}},
        {"a":4,"createdAt":"bad","b":{"c":2}},
        {"a":5,"createdAt":"2024-01-05T00:00:00-05:00","b":{"c":3},"e":null},
        {"a":6,"createdAt":"2024-01-06T00:00:00Z","b":{"c":4}},
        {"a":7,"createdA\u0074":"2024-01-07T00:00:00Z","b":{"c":5}},
        {"a\u0041":7,"createdAt":"2024-01-07T00:00:00Z","b":{"c":5}},
        {"a":8,"createdAt":null,"b":{"c":6}},
        {"a":9,"createdAt":{"d":1},"b":{"c":7}},
        {"a":10,"createdAt":"2024-01-10T00:00:00Z","b":{"c":8}}])",
    R"([{"x":{"createdAt":"2024-01-02T03:04:05Z","k":1},"createdAt":"2024-01-02T00:00:00Z"},
        {"x":{"createdAt":"2024-01-03T03:04:05Z","k":2},"createdAt":"2024-01-03T00:00:00Z"},
        {"x":{"createdAt":"later","k":3},"createdAt":"2024-01-04T00:00:00Z"},
        {"x":{"createdAt":"2024-01-05T03:04:05Z","k":4},"createdAt":"2024-01-05"}])",
};

}  // namespace

BOOST_AUTO_TEST_SUITE(fused_features)

BOOST_AUTO_TEST_CASE(same_output_and_errors_as_the_separate_transforms) {
  const std::vector<std::vector<std::string>> fields = {
      {},
      {"$[*].createdAt", "$[*].paidAt"},
      {"$.createdAt"},
      {"$..createdAt"},
      {"$[*].createdAt", "$[*].x.createdAt"}};
  const tf::NullPolicy nulls[] = {tf::NullPolicy::keep, tf::NullPolicy::drop,
                                  tf::NullPolicy::drop_all};
  const std::optional<tf::KeyCase> cases[] = {
      std::nullopt,       tf::KeyCase::snake,  tf::KeyCase::camel,
      tf::KeyCase::kebab, tf::KeyCase::pascal, tf::KeyCase::upper_snake,
      tf::KeyCase::lower};
  for (const auto& fl : fields) {
    for (const tf::NullPolicy n : nulls) {
      for (const auto& c : cases) {
        for (const bool keep : {false, true}) {
          Features f;
          f.date_fields = fl;
          f.nulls = n;
          f.key_case = c;
          f.keep_errors = keep;
          f.date_format = fl.empty() ? "" : "yyyy-MM-dd HH:mm:ss";
          for (const char* doc : kDocs) check_same(doc, f);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(numbers_styled_as_the_separate_transforms) {
  // --bigint-as-string and --decimal, with the other features: numbers at
  // the root, in arrays, in records that follow their shapes (sent
  // direct), dropped members around them, and numbers a date rule selects
  // (read as epoch times first; kept and then styled with keep_errors).
  const char* const docs[] = {
      "[1,-1,9007199254740991,9007199254740992,-9007199254740991,"
      "-9007199254740992,123456789012345678901234567890,-0,0.5,1.5e3,1E+2,"
      "-1e-7,0.00012,12.0,1e400,-1.2345678901234567890e-30]",
      "9007199254740993 1.5e-3 {\"a\":[12345678901234567]}",
      R"({"id":9007199254740993,"price":1.50,"exp":2.5E-3,"n":null})",
      R"([{"id":1,"bigId":90071992547409930,"d":1e2,"x":null,
          "createdAt":"2024-01-02T03:04:05Z"},
         {"id":2,"bigId":1,"d":0.1,"x":{"n":1e-3},"createdAt":1700000000000},
         {"id":3,"bigId":-90071992547409930,"d":-0.0,"x":null,
          "createdAt":900719925474099300000},
         {"id":4,"bigId":5,"d":5E0,"x":{"n":null},"createdAt":1.5e12}])",
      R"({"tooLongForPlain":1e20000})",
  };
  const std::vector<std::vector<std::string>> fields = {
      {}, {"$[*].createdAt"}, {"$..createdAt"}};
  for (const bool bigint : {false, true}) {
    for (const tf::DecimalStyle d :
         {tf::DecimalStyle::keep, tf::DecimalStyle::plain,
          tf::DecimalStyle::exponent}) {
      for (const auto& fl : fields) {
        for (const bool drop : {false, true}) {
          for (const bool keep_errors : {false, true}) {
            Features f;
            f.bigint_as_string = bigint;
            f.decimals = d;
            f.date_fields = fl;
            f.keep_errors = keep_errors;
            f.date_format = fl.empty() ? "" : "yyyy-MM-dd HH:mm:ss";
            if (drop) {
              f.nulls = tf::NullPolicy::drop;
              f.key_case = tf::KeyCase::snake;
            }
            for (const char* doc : docs) {
              check_same(doc, f, true);
              check_same(doc, f, false);
            }
          }
        }
      }
    }
  }
  // The styled output itself, once.
  Features f;
  f.bigint_as_string = true;
  f.decimals = tf::DecimalStyle::plain;
  f.nulls = tf::NullPolicy::drop;
  BOOST_TEST(outcome(R"([{"a":9007199254740993,"b":1.5e3,"c":null},)"
                     R"({"a":1,"b":1e-3,"c":2}])",
                     fused(f, false)) ==
             R"([{"a":"9007199254740993","b":1500},{"a":1,"b":0.001,"c":2}])"
             "\n");
}

BOOST_AUTO_TEST_CASE(dates_written_with_their_keys) {
  // A date string of a deferred record in the usual form is written with
  // its key, in place (FusedFeatures::raw_key()); anything else about it
  // goes the general way. Each is compared with the separate transforms,
  // compact and pretty, where the key's kept text is made at one depth and
  // found again at another.
  const char* const docs[] = {
      // The date first, in the middle and last; at other offsets, across
      // a day, a month and a year, and in a leap year.
      R"([{"createdAt":"2024-01-02T03:04:05Z","userId":1},
          {"createdAt":"2024-01-03T23:59:59-05:00","userId":2},
          {"createdAt":"2024-03-01T01:00:00+05:30","userId":3},
          {"createdAt":"2023-12-31T20:00:00.123-04:00","userId":4},
          {"createdAt":"2024-02-28T22:30:00,5-02:00","userId":5},
          {"createdAt":"2024-01-05t00:00:00.123456789z","userId":6}])",
      R"([{"a":1,"createdAt":"2024-01-02T03:04:05.678+08:00","b":null},
          {"a":2,"createdAt":"2024-01-02 03:04:05Z","b":2},
          {"a":3,"createdAt":"2024-01-02T03:04:05\u005a","b":3},
          {"a":4,"createdAt":"2024-02-30T00:00:00Z","b":4},
          {"a":5,"createdAt":"2024-01-02T24:00:00Z","b":5},
          {"a":6,"createdAt":"2024-01-02T03:04:05+19:00","b":6},
          {"a":7,"createdAt":"2024-01-02T03:04:05","b":7},
          {"a":8,"createdAt":"","b":8},
          {"a":9,"createdAt":"2024-01-02T03:04:05Z","b":9}])",
      R"([{"paidAt":null,"createdAt":"2024-01-02T03:04:05Z"},
          {"paidAt":"2024-01-02T03:04:05Z","createdAt":null},
          {"paidAt":17,"createdAt":"2024-01-02T03:04:05Z"},
          {"paidAt":"2024-01-02T03:04:05Z","createdAt":[]},
          {"paidAt":"2024-01-02T03:04:05Z","createdAt":"2024-01-02T03:04:05Z"}])",
      // Records at several depths, so that kept keys are remade.
      R"([{"createdAt":"2024-01-02T03:04:05Z","x":{"createdAt":"2024-01-02T03:04:05Z"}},
          {"createdAt":"2024-01-03T03:04:05Z","x":{"createdAt":"2024-01-03T03:04:05Z"}},
          [{"createdAt":"2024-01-04T03:04:05Z"},{"createdAt":"2024-01-05T03:04:05Z"}],
          {"createdAt":"2024-01-06T03:04:05Z","x":{"createdAt":"2024-01-07T03:04:05Z"}}])",
      // A missing colon after a date's key, and a value cut short.
      R"([{"createdAt":"2024-01-02T03:04:05Z"},{"createdAt" "2024-01-02T03:04:05Z"}])",
      R"([{"createdAt":"2024-01-02T03:04:05Z"},
          {"createdAt" "2024-01-02T03:04:05Z" "2024-01-02T03:04:05Z"}])",
      R"([{"createdAt":"2024-01-02T03:04:05Z"},{"createdAt":"2024-01-02T03:04:05Z)",
      R"({"createdAt":"2024-01-02T03:04:05Z"}
         {"createdAt":"2024-01-03T03:04:05Z"} {"createdAt":"2024-01-04"})",
  };
  const std::vector<std::vector<std::string>> fields = {
      {"$[*].createdAt"},
      {"$[0].createdAt", "$[2].createdAt"},
      {"$[*].createdAt", "$[*].paidAt", "$[*].x.createdAt"},
      {"$..createdAt"}};
  // Only the first format is written in place: ISO 8601 and a pattern
  // with a fraction take the general way.
  const char* const formats[] = {"yyyy-MM-dd HH:mm:ss", "iso8601",
                                 "yyyy-MM-dd'T'HH:mm:ss.SSS"};
  for (const auto& fl : fields) {
    for (const tf::NullPolicy n :
         {tf::NullPolicy::keep, tf::NullPolicy::drop}) {
      for (const bool snake : {false, true}) {
        for (const bool keep : {false, true}) {
          for (const char* format : formats) {
            Features f;
            f.date_fields = fl;
            f.nulls = n;
            if (snake) f.key_case = tf::KeyCase::snake;
            f.keep_errors = keep;
            f.date_format = format;
            for (const char* doc : docs) {
              check_same(doc, f, true);
              check_same(doc, f, false);
            }
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(records_that_leave_out_members_follow_their_shape) {
  // A key read that is a later key of the shape (FusedFeatures::
  // raw_later_key()): the members between are absent, and the record goes
  // on following the shape. Compared with the separate transforms where
  // members are left out singly, in runs, first and last, with dates,
  // nulls, renames, nested records, a name with an escape, a duplicate,
  // and a later new key that would collide with an absent one.
  const char* const docs[] = {
      R"([{"fooBar":1,"x":2},{"x":3,"foo_bar":4},{"fooBar":5,"x":6},
          {"x":7},{"fooBar":8}])",
      R"([{"a":1,"b":2,"c":3,"d":4},{"a":1,"c":3},{"b":2,"d":null},
          {"d":4},{"a":1,"b":2,"c":3,"d":4,"e":5},{"e":1,"a":2},
          {"a":null,"e":null},{"c":3,"b":2},{"a":1,"b":2,"c":3,"d":4}])",
      R"([{"createdAt":"2024-01-02T03:04:05Z","paidAt":"2024-01-02T03:04:05+05:30","n":1},
          {"paidAt":"2024-01-02T03:04:05Z","n":2},{"n":3},
          {"createdAt":"2024-01-02T03:04:05Z","n":4},
          {"createdAt":"x","paidAt":null,"n":5},
          {"paidAt":"2024-01-02 03:04:05Z"},{"paidAt":7,"n":6},
          {"createdAt":"2024-01-31T23:00:00-05:00","paidAt":"2024-01-02T03:04:05Z","n":8}])",
      R"([{"u":{"a":1,"b":2},"v":1},{"u":{"b":3},"v":2},{"v":3},
          {"u":{"a":null,"b":1}},{"u":{"b":{"c":1}},"v":{"w":[1,{"a":2}]}}])",
      R"([{"a\u0062":1,"c":2},{"c":3},{"ab":1,"c":2},{"c":1,"a\u0062":2}])",
      // A name whose escape reads as another key's name with a backslash.
      R"([{"a":0,"\\n":1,"z":2},{"\n":3,"z":4},{"a":5,"\\n":6}])",
      R"([{"a":1,"b":2},{"b":1,"b":2},{"a":1,"b":2}])",
      R"({"userId":1,"userName":"a","createdAt":"2024-01-02T03:04:05Z"}
         {"userName":"b"} {"createdAt":"2024-01-02T03:04:05Z","user_id":2}
         {"userId":3,"createdAt":"2024-01-02T03:04:05Z"})",
  };
  check_same_with_features(
      docs, {{}, {"$[*].createdAt", "$[*].paidAt"}, {"$.createdAt"}});
}

BOOST_AUTO_TEST_CASE(records_that_leave_out_long_runs_of_members) {
  // raw_later_key() looks kAbsentRun (16) members ahead: runs of absent
  // members on either side of that, first, in the middle and last, before
  // a date, a null and a name that a rename would make collide with an
  // absent member, come out as the separate transforms make them.
  const auto record = [](int from, int to, const std::string& tail) {
    std::string r = "{";
    for (int i = 0; i < 24; ++i) {
      if (i >= from && i < to) continue;
      r += fmt::format("\"keyNo{}\":{},", i, i % 5 == 0 ? "null" : "1");
    }
    return r + tail + "}";
  };
  const std::string date = R"("createdAt":"2024-01-31T23:00:00-05:00")";
  std::vector<std::string> docs;
  for (const int run : {14, 15, 16, 17, 18, 23}) {
    for (const int from : {0, 1, 24 - run}) {
      std::string doc = "[" + record(0, 0, date) + ",";
      doc += record(from, from + run, date) + ",";
      doc += record(from, from + run, R"("key_no3":5,)" + date) + ",";
      doc += record(0, 0, date) + "]";
      docs.push_back(std::move(doc));
    }
  }
  check_same_with_features(docs, {{}, {"$[*].createdAt"}});
}

BOOST_AUTO_TEST_CASE(collisions_found_in_large_objects) {
  // Beyond the members searched one by one, names are indexed.
  for (const bool camel_first : {false, true}) {
    std::string doc = "{";
    for (int i = 0; i < 200; ++i) doc += fmt::format("\"k{}\":{},", i, i);
    doc += camel_first ? R"("aB":1,"a_b":2})" : R"("a_b":1,"aB":2})";
    Features f;
    f.key_case = tf::KeyCase::snake;
    check_same(doc, f);
    BOOST_TEST(outcome(doc, fused(f, false)).starts_with("error: "));
  }
}

BOOST_AUTO_TEST_CASE(objects_too_large_to_record) {
  // An object with more keys than a shape records (a map keyed by ids):
  // the keys after those go on as an object's without a shape, its values
  // have no places, and the next object at its place is not cached for a
  // while. Renames, collisions, nulls and dates stay as the separate
  // transforms make them, in records and at the root.
  const auto big = [](int n, const std::string& extra) {
    std::string doc = "{";
    for (int i = 0; i < n; ++i) {
      if (i % 3 == 0) doc += fmt::format("\"id{}\":null,", i);
      if (i % 3 == 1)
        doc += fmt::format("\"id{}\":{{\"aB\":{},\"c\":null}},", i, i);
      if (i % 3 == 2) doc += fmt::format("\"keyNo{}\":[{},null],", i, i);
    }
    return doc + extra + "}";
  };
  const std::string date = R"("createdAt":"2024-01-02T03:04:05+08:00")";
  const std::string docs[] = {
      big(1500, R"("fooBar":1)"),
      big(1500, R"("fooBar":1,"foo_bar":2)"),
      big(1100, R"("foo_bar":null,"fooBar":2)"),
      "[" + big(1200, date) + "," + big(1200, date) + "," + big(3, date) + "," +
          big(3, date) + "]",
      "[" + big(3, date) + "," + big(1030, date) + "," + big(3, date) + "]",
  };
  check_same_with_features(docs, {{}, {"$[*].createdAt", "$.createdAt"}});
  Features f;
  f.key_case = tf::KeyCase::snake;
  BOOST_TEST(outcome(docs[1], fused(f, false)).starts_with("error: "));
}

BOOST_AUTO_TEST_CASE(same_as_the_separate_transforms_on_random_records) {
  // Arrays of records over a few keys: mostly the same keys in the same
  // order, sometimes another order, a missing or new key, a key that
  // collides with another, nested records, nulls that drop members.
  const std::vector<std::string> names = {
      "userId", "user_id", "name", "createdAt", "aB", "a_b", "x"};
  std::mt19937 rng(5);
  for (int n = 0; n < 300; ++n) {
    std::vector<std::string> base;
    for (std::size_t i = 0; i < 3 + rng() % 3; ++i) {
      base.push_back(names[rng() % names.size()]);
    }
    std::string doc = "[";
    const std::size_t records = 2 + rng() % 6;
    for (std::size_t r = 0; r < records; ++r) {
      std::vector<std::string> keys = base;
      switch (rng() % 6) {
        case 0:
          std::swap(keys[0], keys[rng() % keys.size()]);
          break;
        case 1:
          keys.pop_back();
          break;
        case 2:
          keys.push_back(names[rng() % names.size()]);
          break;
        default:
          break;
      }
      doc += r > 0 ? ",{" : "{";
      for (std::size_t k = 0; k < keys.size(); ++k) {
        std::string value;
        switch (rng() % 5) {
          case 0:
            value = "null";
            break;
          case 1:
            value = R"({"aB":null,"a_b":1})";
            break;
          case 2:
            value = R"("2024-01-02T03:04:05Z")";
            break;
          default:
            value = std::to_string(rng() % 100);
            break;
        }
        doc += fmt::format("{}\"{}\":{}", k > 0 ? "," : "", keys[k], value);
      }
      doc += "}";
    }
    doc += "]";
    for (const tf::KeyCase s : {tf::KeyCase::snake, tf::KeyCase::camel}) {
      Features f;
      f.key_case = s;
      check_same(doc, f);
      f.nulls = tf::NullPolicy::drop;
      check_same(doc, f);
      f.date_fields = {"$[*].createdAt", "$[*].x.createdAt"};
      f.date_format = "yyyy-MM-dd HH:mm:ss";
      check_same(doc, f);
      // Null rules beside the date rules, on the same members and others.
      f.null_defaults = {{"$[*].createdAt", R"("none")"},
                         {"$[*].name", R"({"aB":null,"a_b":[null]})"},
                         {"$..aB", "12345678901234567890"}};
      f.bigint_as_string = true;
      check_same(doc, f);
      f.date_fields.clear();
      f.nulls = tf::NullPolicy::drop_all;
      check_same(doc, f);
    }
  }
}

BOOST_AUTO_TEST_CASE(same_as_the_separate_transforms_on_random_trees) {
  // Records nesting objects and arrays where date rules select at some
  // depths only: the containers below what any rule can reach are quiet
  // (the tracker hears nothing inside), and the values after them, the
  // dates and their errors' paths, must be where they are. Keys mostly
  // repeat, so most objects follow shapes and need no renamer level.
  const std::vector<std::string> names = {"createdAt", "x",   "y",
                                          "aB",        "a_b", "k"};
  std::mt19937 rng(13);
  std::function<std::string(int)> value = [&](int depth) -> std::string {
    const unsigned r = rng() % (depth < 4 ? 10 : 6);
    switch (r) {
      case 0:
        return "null";
      case 1:
        return R"("2024-01-02T03:04:05Z")";
      case 2:
        return rng() % 8 == 0 ? R"("not a date")" : "1700000000000";
      case 3:
      case 4:
      case 5:
        return std::to_string(rng() % 100);
      case 6:
      case 7: {
        std::string a = "[";
        for (std::size_t i = 0, n = rng() % 4; i < n; ++i) {
          a += (i > 0 ? "," : "") + value(depth + 1);
        }
        return a + "]";
      }
      default: {
        std::string o = "{";
        const std::size_t n = 1 + rng() % 4;
        const std::size_t first = rng() % 3;  // mostly the same keys
        for (std::size_t i = 0; i < n; ++i) {
          const std::string& k = names[(first + i) % names.size()];
          o +=
              fmt::format("{}\"{}\":{}", i > 0 ? "," : "", k, value(depth + 1));
        }
        return o + "}";
      }
    }
  };
  const std::vector<std::vector<std::string>> rules = {
      {"$[*].createdAt"},
      {"$[1].createdAt", "$[*].x[*].createdAt"},
      {"$[*].x.y.createdAt", "$[*].y[0]"},
      {"$..createdAt"}};
  // --null-default rules: at the date paths and beside them, with defaults
  // that the later steps change (nulls, names, big numbers), many rules
  // (their states in two words), and more than the tracker replays.
  std::vector<std::vector<std::pair<std::string, std::string>>> null_rules = {
      {{"$[*].createdAt", "0"}},
      {{"$..x", R"({"aB":null,"k":[null,1]})"}, {"$..y[*]", R"("")"}},
      {{"$[0]", "[]"}, {"$..createdAt", "null"}, {"$..k", "false"}},
      {{"$..aB", "1"},
       {"$..a_b", "2"},
       {"$..k", "3"},
       {"$..x", "4"},
       {"$..y", "5"}}};
  for (const std::size_t unused : {30, 130}) {
    std::vector<std::pair<std::string, std::string>> many;
    for (std::size_t i = 0; i < unused; ++i) {
      many.emplace_back(fmt::format("$[*].n{}", i), "7");
    }
    many.emplace_back("$[*].x", R"({"aB":null})");
    many.emplace_back("$..k", "[]");
    many.emplace_back("$..aB", R"("")");
    many.emplace_back("$[*].*", "0");
    null_rules.push_back(std::move(many));
  }
  for (int n = 0; n < 400; ++n) {
    std::string doc = "[";
    for (std::size_t r = 0, records = 1 + rng() % 6; r < records; ++r) {
      doc += (r > 0 ? "," : "") + value(2 + static_cast<int>(rng() % 2));
    }
    doc += "]";
    for (const auto& fields : rules) {
      for (const bool keep : {false, true}) {
        Features f;
        f.date_fields = fields;
        f.keep_errors = keep;
        f.date_format = "yyyy-MM-dd HH:mm:ss";
        check_same(doc, f);
        f.key_case = tf::KeyCase::snake;
        f.nulls = tf::NullPolicy::drop;
        check_same(doc, f);
      }
    }
    for (const auto& nulls : null_rules) {
      Features f;
      f.null_defaults = nulls;
      check_same(doc, f);
      f.date_fields = rules[static_cast<std::size_t>(n) % rules.size()];
      f.date_format = "yyyy-MM-dd HH:mm:ss";
      f.key_case = tf::KeyCase::snake;
      f.nulls = n % 2 == 0 ? tf::NullPolicy::drop : tf::NullPolicy::drop_all;
      check_same(doc, f);
    }
  }
}

BOOST_AUTO_TEST_CASE(schema_as_rules_as_the_schema) {
  // --schema taken as rules by the fused features, against NullDefaults
  // looking the schema up: listed members, other members (maps), tuples
  // and the items after them, branches and references, values of another
  // kind than the schema describes (an array where it lists members, an
  // object where it lists items), with --null-default rules first and
  // the other features after.
  const char* const schemas[] = {
      R"({"type":"array","items":{"type":"object","properties":{
          "a":{"type":"string"},"b":{"type":["null","integer"]},
          "m":{"type":"object","additionalProperties":{"type":"boolean"}},
          "t":{"type":"array","items":{"type":"array"}}}}})",
      R"({"type":"array","prefixItems":[{"type":"string"},
          {"properties":{"a":{"type":"number"}}}],
          "items":{"additionalProperties":{"type":"array"},
                   "properties":{"b":{}}}})",
      R"({"$defs":{"r":{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},
                        "additionalProperties":{"properties":{
                          "b":{"type":"string"}}}},
                   "s":{"type":"boolean"}},
          "items":{"allOf":[{"$ref":"#/$defs/r"},
                            {"properties":{"b":{"type":"integer"},
                                           "a":{"type":"string"}}}],
                   "anyOf":[{"items":[{"type":"string"}],
                             "additionalItems":{"type":"number"}}]}})",
      R"({"type":"object","properties":{"a":{"items":{"type":"boolean"}}},
          "additionalProperties":{"additionalProperties":{"type":"string"}}})",
      R"({"type":"string"})",
      R"({"properties":{"a":{}}})",  // types nothing
  };
  std::mt19937 rng(11);
  std::function<std::string(int)> value = [&](int depth) -> std::string {
    static const char* const kNames[] = {"a", "b", "m", "t", "xY"};
    switch (depth > 3 ? rng() % 3 : rng() % 6) {
      case 0:
      case 1:
        return "null";
      case 2:
        return rng() % 2 == 0 ? "1" : R"("s")";
      case 3:
      case 4: {
        std::string o = "{";
        for (std::size_t i = 0, n = rng() % 5; i < n; ++i) {
          o += fmt::format("{}\"{}\":{}", i > 0 ? "," : "", kNames[rng() % 5],
                           value(depth + 1));
        }
        return o + "}";
      }
      default: {
        std::string a = "[";
        for (std::size_t i = 0, n = rng() % 5; i < n; ++i) {
          a += (i > 0 ? "," : "") + value(depth + 1);
        }
        return a + "]";
      }
    }
  };
  for (int n = 0; n < 40; ++n) {
    std::string doc = "[";
    for (std::size_t r = 0, records = 1 + rng() % 5; r < records; ++r) {
      doc += (r > 0 ? "," : "") + value(1);
    }
    doc += "] " + value(0) + " " + value(0);
    for (const char* schema : schemas) {
      for (const unsigned kinds :
           {unsigned{tf::kEmptyAll}, tf::kEmptyString | tf::kEmptyList}) {
        Features f;
        f.schema = schema;
        f.empty_kinds = kinds;
        check_same(doc, f);
        f.null_defaults = {{"$[*].b", "7"}};
        f.key_case = tf::KeyCase::snake;
        f.nulls = n % 2 == 0 ? tf::NullPolicy::drop : tf::NullPolicy::drop_all;
        check_same(doc, f);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(null_defaults_as_the_separate_transforms) {
  // NullDefaults before the other steps: the default goes through them
  // (its nulls dropped, its names renamed, its numbers styled), a null at
  // a date path may take a default while a date there is read as one, a
  // null default leaves the member to --nulls, the first rule that
  // selects wins, and a rule may select top-level items by index.
  const std::vector<std::vector<std::pair<std::string, std::string>>> rules = {
      {{"$..createdAt", R"("2024-01-01T00:00:00Z")"}},
      {{"$..a", R"({"userName":null,"x":[null,12345678901234567890]})"},
       {"$..a", "1"}},
      {{"$[*].a", "null"}, {"$..c[*]", "0"}, {"$..d", "[]"}},
      {{"$[1]", R"({"aB":1})"}, {"$", "{}"}},
      {{"$..*", "1.50"}},
  };
  for (const auto& r : rules) {
    for (const tf::NullPolicy n : {tf::NullPolicy::keep, tf::NullPolicy::drop,
                                   tf::NullPolicy::drop_all}) {
      for (const bool features : {false, true}) {
        Features f;
        f.null_defaults = r;
        f.nulls = n;
        if (features) {
          f.date_fields = {"$[*].createdAt", "$.createdAt"};
          f.keep_errors = true;
          f.date_format = "yyyy-MM-dd HH:mm:ss";
          f.key_case = tf::KeyCase::snake;
          f.bigint_as_string = true;
          f.decimals = tf::DecimalStyle::exponent;
        }
        for (const char* doc : kDocs) {
          check_same(doc, f, true);
          check_same(doc, f, false);
        }
      }
    }
  }
  // A default taken, as the chain takes it (not a copy of its output).
  Features f;
  f.null_defaults = {{"$..tags", R"(["a",null])"}};
  f.nulls = tf::NullPolicy::drop_all;
  f.key_case = tf::KeyCase::snake;
  BOOST_TEST(outcome(R"([{"tags":null,"xY":null},{"tags":[null]}])",
                     fused(f, false)) ==
             "[{\"tags\":[\"a\"]},{\"tags\":[]}]\n");
}

BOOST_AUTO_TEST_CASE(shape_keys_that_differ_in_one_byte) {
  // A key of a shape is compared with the name read in words: names of
  // every length up to and past two words, where records alternate
  // between two names that differ in one byte only, kept or renamed.
  for (std::size_t len = 1; len <= 20; ++len) {
    for (std::size_t at = 0; at < len; ++at) {
      for (const char other : {'q', 'Q'}) {
        const std::string a(len, 'k');
        std::string b = a;
        b[at] = other;
        const std::string doc = fmt::format(
            R"([{{"{0}":1,"z":2}},{{"{0}":3,"z":4}},{{"{1}":5,"z":6}},)"
            R"({{"{0}":null,"z":7}},{{"{1}":8,"z":9}},{{"{1}":10,"z":11}}])",
            a, b);
        Features f;
        f.key_case = tf::KeyCase::snake;
        check_same(doc, f);
        f.nulls = tf::NullPolicy::drop;
        f.date_fields = {"$[*]." + b};
        f.keep_errors = true;
        check_same(doc, f);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(same_as_the_separate_transforms_on_random_names) {
  // Names over the characters that matter to renaming, few enough that
  // objects repeat names and collide.
  const std::vector<std::string> chars = {"a", "Z", "_", "-", " ", "\xc3\xa9"};
  std::mt19937 rng(11);
  const tf::KeyCase styles[] = {tf::KeyCase::camel,       tf::KeyCase::snake,
                                tf::KeyCase::kebab,       tf::KeyCase::pascal,
                                tf::KeyCase::upper_snake, tf::KeyCase::lower};
  for (int n = 0; n < 1000; ++n) {
    std::string doc;
    for (int d = 0; d < 3; ++d) {
      doc += "{";
      const std::size_t members = 1 + rng() % 5;
      for (std::size_t m = 0; m < members; ++m) {
        std::string name;
        // Mostly short names, which collide; some longer than a word of
        // eight bytes, which kept() checks in parts.
        const std::size_t len = rng() % 4 == 0 ? rng() % 20 : rng() % 4;
        for (std::size_t i = 0; i < len; ++i) {
          name += chars[rng() % chars.size()];
        }
        const unsigned v = rng() % 8;
        doc += fmt::format("{}\"{}\":{}", m > 0 ? "," : "", name,
                           v < 3   ? "null"
                           : v < 6 ? "1"
                           : v < 7 ? R"({"a":null,"Z":1,"a_Z":null})"
                                   : R"([{"a":null},null])");
      }
      doc += "}";
    }
    for (const tf::KeyCase s : styles) {
      Features f;
      f.key_case = s;
      check_same(doc, f);
      f.nulls = tf::NullPolicy::drop;
      check_same(doc, f);
    }
    // Rules that select in objects without a shape (their names change
    // from one to the next): scalars go direct unless a date rule selects
    // them, nulls take the defaults of the null rules.
    Features r;
    r.null_defaults = {{"$..a", R"({"a_Z":null,"b":[null,"x"]})"},
                       {"$['Z']", "7"},
                       {"$..*", "null"}};
    r.date_fields = {"$..Z"};
    r.keep_errors = true;
    r.date_format = "yyyy-MM-dd HH:mm:ss";
    r.key_case = styles[static_cast<std::size_t>(n) % 6];
    check_same(doc, r);
    r.nulls = n % 2 == 0 ? tf::NullPolicy::drop : tf::NullPolicy::drop_all;
    check_same(doc, r);
    r.date_fields.clear();
    check_same(doc, r);
  }
}

BOOST_AUTO_TEST_CASE(renamer_keeps_the_names_keeps_name_keeps) {
  // KeyRenamer::keeps() takes most names a word at a time; bytes next to
  // the ones that matter ('0' - 1, 'A' - 1, '_' + 1, ...) and names of
  // every length up to and past two words check its edges.
  const std::string chars = std::string("az09AZ_- /@[`{~.\x7f\xc3\xa9") + '\0';
  std::mt19937 rng(5);
  const tf::KeyCase styles[] = {tf::KeyCase::camel,       tf::KeyCase::snake,
                                tf::KeyCase::kebab,       tf::KeyCase::pascal,
                                tf::KeyCase::upper_snake, tf::KeyCase::lower};
  for (const tf::KeyCase s : styles) {
    const tf::detail::KeyRenamer r(s, "case");
    for (int n = 0; n < 20000; ++n) {
      std::string name;
      const std::size_t len = rng() % 20;
      // Mostly lowercase letters, as names are, with a rare other byte.
      for (std::size_t i = 0; i < len; ++i) {
        name += rng() % 4 == 0 ? chars[rng() % chars.size()] : 'q';
      }
      BOOST_TEST(r.keeps(name) == tf::keeps_name(name, s), name);
    }
  }
}

namespace {
// --key-case=snake, with --nulls=keep and with --nulls=drop.
std::vector<Features> snake_case_keeping_and_dropping_nulls() {
  std::vector<Features> all(2);
  all[0].key_case = all[1].key_case = tf::KeyCase::snake;
  all[1].nulls = tf::NullPolicy::drop;
  return all;
}
}  // namespace

BOOST_AUTO_TEST_CASE(a_late_renamed_key_collides_with_an_early_kept_one) {
  // Kept names are listed without their filter bits until a renamed one
  // comes; these objects have no shape to follow (each differs).
  std::string doc = "[";
  for (int i = 0; i < 20; ++i) {
    doc += i > 0 ? "," : "";
    doc += fmt::format(R"({{"a{0}":1,"user_id":2,"b{0}":3,"c{0}":null)", i);
    doc += i == 19 ? std::string(R"(,"userId":4})")
                   : fmt::format(R"(,"x{}Y":4}})", i);
  }
  doc += "]";
  for (const Features& f : snake_case_keeping_and_dropping_nulls()) {
    check_same(doc, f);
    BOOST_TEST(outcome(doc, fused(f, false)).starts_with("error: "));
  }
}

BOOST_AUTO_TEST_CASE(objects_without_a_shape_drop_and_collide) {
  // Records whose keys differ each time are soon read without a shape:
  // a kept name is recorded as it is read and taken back when its value
  // is a dropped null, before or after a renamed member.
  const char* const members[] = {
      R"("a_b":null,"aB":2)", R"("a_b":1,"aB":2)",   R"("aB":2,"a_b":null)",
      R"("aB":2,"a_b":3)",    R"("a_b":null,"c":2)", R"("aB":null,"a_b":1)"};
  for (const char* m : members) {
    for (const int last : {0, 7, 19}) {
      std::string doc = "[";
      for (int i = 0; i < 20; ++i) {
        doc += fmt::format(R"({}{{"x{}":1,"y":null,{}}})", i > 0 ? "," : "", i,
                           i == last ? m : R"("z":3)");
      }
      doc += "]";
      for (const Features& f : snake_case_keeping_and_dropping_nulls()) {
        check_same(doc, f);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(keeps_name_only_for_names_renamed_to_themselves) {
  // Random names over the characters that matter to renaming.
  const std::string chars = "aZ0_- .\xc3\xa9";
  std::mt19937 rng(7);
  const tf::KeyCase styles[] = {tf::KeyCase::camel,       tf::KeyCase::snake,
                                tf::KeyCase::kebab,       tf::KeyCase::pascal,
                                tf::KeyCase::upper_snake, tf::KeyCase::lower};
  int kept = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string name;
    const std::size_t len = rng() % 7;
    for (std::size_t i = 0; i < len; ++i) name += chars[rng() % chars.size()];
    for (const tf::KeyCase s : styles) {
      if (!tf::keeps_name(name, s)) continue;
      ++kept;
      std::string out;
      tf::rename_key(name, s, out);
      BOOST_TEST(out == name);
    }
  }
  BOOST_TEST(kept > 1000);
  BOOST_TEST(tf::keeps_name("user_id", tf::KeyCase::snake));
  BOOST_TEST(tf::keeps_name("user-id", tf::KeyCase::kebab));
  BOOST_TEST(tf::keeps_name("userid", tf::KeyCase::camel));
  BOOST_TEST(!tf::keeps_name("userId", tf::KeyCase::snake));
  BOOST_TEST(!tf::keeps_name("a__b", tf::KeyCase::snake));
  BOOST_TEST(!tf::keeps_name("_-a", tf::KeyCase::kebab));
}

/// Between a transform and the writer: skips the value of each member whose
/// name (as written) begins with "skip", as a query does with what it does
/// not select.
BOOST_AUTO_TEST_CASE(a_dropped_null_member_is_still_read) {
  // In front of the JSON writer, a member whose value starts with 'n' is
  // dropped with its key at once, and the walk passes over its value: the
  // value must still be the literal null. Records whose keys differ
  // (without a shape after a few) and records that repeat them (a shape).
  const char* const docs[] = {
      R"({"a":nul})",
      R"({"a":nulll,"b":1})",
      R"([{"k1":1},{"k2":1},{"k3":1},{"k4":1},{"k5":1,"x":nux}])",
      R"([{"k":1,"x":null},{"k":1,"x":null},{"k":1,"x":nill}])",
      R"([{"k":{"a":1}},{"k":{"a":null}},{"k":{"a":n}}])",
  };
  for (const char* doc : docs) {
    for (const auto nulls : {tf::NullPolicy::drop, tf::NullPolicy::drop_all}) {
      for (const auto& c :
           {std::optional<tf::KeyCase>{}, std::optional{tf::KeyCase::snake}}) {
        Features f;
        f.nulls = nulls;
        f.key_case = c;
        check_same(doc, f);
        BOOST_TEST(outcome(doc, fused(f, false)).starts_with("error: "), doc);
      }
    }
  }
}

class Skipper final : public jbx::ForwardingHandler {
 public:
  using ForwardingHandler::ForwardingHandler;
  jbx::Flow key(std::string_view name) override {
    if (name.starts_with("skip")) return jbx::Flow::skip;
    return ForwardingHandler::key(name);
  }
};

/// `make` in front of a Skipper in front of the writer.
tf::testing::Make skipping(tf::testing::Make make) {
  return [make](Handler& next) -> std::unique_ptr<Handler> {
    struct Both final : jbx::ForwardingHandler {
      Both(std::unique_ptr<Skipper> s, std::unique_ptr<Handler> t)
          : ForwardingHandler(*t),
            skipper(std::move(s)),
            transform(std::move(t)) {}
      std::unique_ptr<Skipper> skipper;
      std::unique_ptr<Handler> transform;
    };
    auto s = std::make_unique<Skipper>(next);
    std::unique_ptr<Handler> t = make(*s);
    return std::make_unique<Both>(std::move(s), std::move(t));
  };
}

BOOST_AUTO_TEST_CASE(a_consumer_that_skips_values_sees_what_the_chain_sends) {
  // A key held until its value comes (while nulls are dropped) is still
  // answered by the consumer: the answer decides whether the value (a
  // scalar, a null, or a container) is sent. (Keys are held with nulls
  // kept only in front of the JSON writer, which never skips.)
  const char* const docs[] = {
      R"([{"a":1,"skip":2,"skipObj":{"b":1},"skip_arr":[1,null],"c":null},
          {"a":3,"skip":null,"skipObj":{"b":2},"skip_arr":[],"c":4},
          {"a":5,"skip":"x","skipObj":null,"skip_arr":[{"d":1}],"c":5}])",
      R"({"m1":1,"skipA":2,"m2":{"skipB":[1],"n":null}})",
  };
  for (const tf::NullPolicy n :
       {tf::NullPolicy::keep, tf::NullPolicy::drop, tf::NullPolicy::drop_all}) {
    for (const auto& c : {std::optional<tf::KeyCase>{},
                          std::optional<tf::KeyCase>{tf::KeyCase::snake}}) {
      Features f;
      f.nulls = n;
      f.key_case = c;
      for (const char* doc : docs) {
        const std::string want = outcome(doc, skipping(chain(f)));
        BOOST_TEST(outcome(doc, skipping(fused(f, true))) == want, doc);
        BOOST_TEST(want.find("skip") == std::string::npos, want);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
