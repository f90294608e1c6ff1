#include "core/transforms/nulls.h"

#include <boost/test/unit_test.hpp>

#include "core/error.h"
#include "core/transforms/transform_test_util.h"

using jbx::Handler;
using jbx::transforms::DropNulls;
using jbx::transforms::EmptyAsNull;
using jbx::transforms::NullPolicy;
using jbx::transforms::testing::run;

namespace {

std::string drop(std::string_view json, NullPolicy p) {
  return run(json, [p](Handler& next) {
    return std::make_unique<DropNulls>(next, p);
  });
}

std::string empty_as_null(std::string_view json) {
  return run(json,
             [](Handler& next) { return std::make_unique<EmptyAsNull>(next); });
}

// A consumer that skips every object member named "skip", like a query.
class SkipMember final : public jbx::ForwardingHandler {
 public:
  using ForwardingHandler::ForwardingHandler;
  jbx::Flow key(std::string_view name) override {
    if (name == "skip") return jbx::Flow::skip;
    return next_.key(name);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(nulls)

BOOST_AUTO_TEST_CASE(drop_removes_null_members_only) {
  BOOST_TEST(drop(R"({"a":null,"b":1,"c":{"d":null},"e":[null,2]})",
                  NullPolicy::drop) == "{\"b\":1,\"c\":{},\"e\":[null,2]}\n");
}

BOOST_AUTO_TEST_CASE(drop_all_also_removes_array_nulls) {
  BOOST_TEST(drop(R"({"a":null,"e":[null,2,[null]],"o":[{"x":null}]})",
                  NullPolicy::drop_all) == "{\"e\":[2,[]],\"o\":[{}]}\n");
}

BOOST_AUTO_TEST_CASE(null_documents_are_kept) {
  BOOST_TEST(drop("null [null] {\"a\":null}", NullPolicy::drop_all) ==
             "null\n[]\n{}\n");
}

BOOST_AUTO_TEST_CASE(keep_forwards_everything_of_other_types) {
  const std::string in =
      R"({"s":"x","n":1.5,"t":true,"f":false,"big":123456789012345678901})";
  BOOST_TEST(drop(in, NullPolicy::drop) == std::string(in) + "\n");
}

BOOST_AUTO_TEST_CASE(consumer_skips_are_honoured) {
  const std::string out =
      run(R"({"skip":{"a":1},"b":null,"skip":[1,2],"c":2,"skip":3})",
          [](Handler& next) -> std::unique_ptr<Handler> {
            struct Chain final : jbx::ForwardingHandler {
              explicit Chain(Handler& n)
                  : ForwardingHandler(static_cast<Handler&>(drop_)),
                    skip_(n),
                    drop_(skip_, NullPolicy::drop) {}
              SkipMember skip_;
              DropNulls drop_;
            };
            return std::make_unique<Chain>(next);
          });
  BOOST_TEST(out == "{\"c\":2}\n");
}

BOOST_AUTO_TEST_CASE(empty_strings_and_arrays_become_null) {
  BOOST_TEST(
      empty_as_null(R"({"a":"","b":[],"c":[[]],"d":{},"e":" ","f":[1]})") ==
      "{\"a\":null,\"b\":null,\"c\":[null],\"d\":{},\"e\":\" \","
      "\"f\":[1]}\n");
  BOOST_TEST(empty_as_null("[] \"\"") == "null\nnull\n");
}

BOOST_AUTO_TEST_SUITE_END()
