#include "core/transforms/key_case.h"

#include <boost/test/unit_test.hpp>

#include "core/error.h"
#include "core/transforms/transform_test_util.h"

namespace tf = jbx::transforms;
using jbx::Handler;
using tf::KeyCase;
using tf::testing::error_of;
using tf::testing::run;

namespace {

std::string key(std::string_view name, KeyCase c) {
  std::string out;
  tf::rename_key(name, c, out);
  return out;
}

tf::testing::Make renamer(KeyCase c, std::string_view name) {
  return [=](Handler& next) {
    return std::make_unique<tf::RenameKeys>(next, c, name);
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(key_case)

BOOST_AUTO_TEST_CASE(words_split_at_separators_and_case_changes) {
  BOOST_TEST(key("userId", KeyCase::snake) == "user_id");
  BOOST_TEST(key("user_id", KeyCase::camel) == "userId");
  BOOST_TEST(key("user-id", KeyCase::pascal) == "UserId");
  BOOST_TEST(key("HTTPServer", KeyCase::snake) == "http_server");
  BOOST_TEST(key("HTTPServer", KeyCase::camel) == "httpServer");
  BOOST_TEST(key("getHTTP2Response", KeyCase::kebab) == "get-http2-response");
  BOOST_TEST(key("address line 1", KeyCase::camel) == "addressLine1");
  BOOST_TEST(key("userId", KeyCase::upper_snake) == "USER_ID");
  BOOST_TEST(key("User_ID", KeyCase::lower) == "user_id");
  BOOST_TEST(key("_id", KeyCase::camel) == "_id");
  BOOST_TEST(key("__private_name", KeyCase::pascal) == "__PrivateName");
  BOOST_TEST(key("größe_x", KeyCase::camel) == "größeX");
  BOOST_TEST(key("", KeyCase::camel) == "");
}

BOOST_AUTO_TEST_CASE(renames_recursively) {
  BOOST_TEST(run(R"({"userId":1,"items":[{"itemName":"a"}],"x_y":{"aB":2}})",
                 renamer(KeyCase::snake, "snake")) ==
             "{\"user_id\":1,\"items\":[{\"item_name\":\"a\"}],"
             "\"x_y\":{\"a_b\":2}}\n");
}

BOOST_AUTO_TEST_CASE(collisions_name_both_keys) {
  BOOST_TEST(error_of(R"({"a":{"user_id":1,"userId":2}})",
                      renamer(KeyCase::camel, "camel")) ==
             "--key-case=camel: keys \"user_id\" and \"userId\" both become "
             "\"userId\"");
  // The same name in sibling objects, or a duplicate in the input, is fine.
  BOOST_TEST(run(R"([{"a_b":1},{"aB":2}] {"a":1,"a":2})",
                 renamer(KeyCase::camel, "camel")) ==
             "[{\"aB\":1},{\"aB\":2}]\n{\"a\":1,\"a\":2}\n");
}

BOOST_AUTO_TEST_CASE(collisions_in_large_objects) {
  std::string in = "{";
  for (int i = 0; i < 40; ++i) in += "\"p" + std::to_string(i) + "\":1,";
  in += "\"P7\":2}";
  BOOST_TEST(error_of(in, renamer(KeyCase::snake, "snake")) ==
             "--key-case=snake: keys \"p7\" and \"P7\" both become \"p7\"");
  // Large objects one after another: the index starts afresh each time.
  std::string many, want;
  for (int n = 0; n < 3; ++n) {
    many += "{";
    want += "{";
    for (int i = 0; i < 20; ++i) {
      const std::string k = std::to_string(i + n);
      many += "\"a_" + k + "\":" + k + ",";
      want += "\"A_" + k + "\":" + k + ",";
    }
    many += "\"z\":0}";
    want += "\"Z\":0}\n";
    many += "\n";
  }
  BOOST_TEST(run(many, renamer(KeyCase::upper_snake, "upper-snake")) == want);
}

BOOST_AUTO_TEST_SUITE_END()
