#include "core/sort_keys.h"

#include <boost/test/unit_test.hpp>

#include "core/sink.h"
#include "core/source.h"
#include "formats/json/json_reader.h"
#include "formats/json/json_writer.h"

namespace {

std::string sorted(const std::string& json) {
  auto src = jbx::Source::from_memory("t", json);
  jbx::JsonReader reader(*src, {}, jbx::JsonMode::stream);
  jbx::StringSink sink;
  jbx::WriteOptions o;
  o.compact = true;
  jbx::JsonWriter w(sink, o);
  jbx::SortKeys sort(w);
  while (reader.read_document(sort)) {
  }
  return std::string(sink.data());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sort_keys)

BOOST_AUTO_TEST_CASE(members_sorted_recursively_by_utf8_bytes) {
  BOOST_TEST(sorted(R"({"b":1,"a":{"z":1,"é":2,"Z":3},"c":[{"y":1,"x":2}]})") ==
             "{\"a\":{\"Z\":3,\"z\":1,\"\xC3\xA9\":2},\"b\":1,"
             "\"c\":[{\"x\":2,\"y\":1}]}\n");
}

BOOST_AUTO_TEST_CASE(duplicates_keep_their_order) {
  BOOST_TEST(sorted(R"({"b":1,"a":1,"b":2,"a":2})") ==
             "{\"a\":1,\"a\":2,\"b\":1,\"b\":2}\n");
}

BOOST_AUTO_TEST_CASE(each_document_separately) {
  BOOST_TEST(sorted("{\"b\":1,\"a\":2} 3 {\"d\":[],\"c\":{}}") ==
             "{\"a\":2,\"b\":1}\n3\n{\"c\":{},\"d\":[]}\n");
}

BOOST_AUTO_TEST_SUITE_END()
