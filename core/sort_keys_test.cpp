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

// Counts the events that reach it.
class Counter final : public jbx::Handler {
 public:
  int events = 0;
  jbx::Flow begin_object() override { return add(); }
  jbx::Flow key(std::string_view) override { return add(); }
  void end_object() override { add(); }
  jbx::Flow begin_array() override { return add(); }
  void end_array() override { add(); }
  void null_value() override { add(); }
  void bool_value(bool) override { add(); }
  void int_value(std::int64_t) override { add(); }
  void uint_value(std::uint64_t) override { add(); }
  void double_value(double) override { add(); }
  void number_text(std::string_view) override { add(); }
  void string_value(std::string_view) override { add(); }
  void bytes_value(std::span<const std::uint8_t>) override { add(); }
  void timestamp_value(const jbx::Timestamp&) override { add(); }
  void annotation(const jbx::Annotation&) override { add(); }
  void end_document() override { add(); }

 private:
  jbx::Flow add() {
    ++events;
    return jbx::Flow::visit;
  }
};

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

BOOST_AUTO_TEST_CASE(arrays_around_objects_pass_through) {
  BOOST_TEST(
      sorted(R"([1,{"b":[{"d":1,"c":2}],"a":null},[[{"f":1,"e":2}]]])") ==
      "[1,{\"a\":null,\"b\":[{\"c\":2,\"d\":1}]},"
      "[[{\"e\":2,\"f\":1}]]]\n");
}

BOOST_AUTO_TEST_CASE(each_record_is_sent_on_when_it_ends) {
  // A top-level array of records is not held whole: each object goes on
  // as it closes, before the next one starts.
  Counter next;
  jbx::SortKeys sort(next);
  sort.begin_array();
  BOOST_TEST(next.events == 1);
  sort.begin_object();
  sort.key("b");
  sort.int_value(1);
  sort.key("a");
  BOOST_TEST(next.events == 1);
  sort.int_value(2);
  sort.end_object();
  BOOST_TEST(next.events == 7);  // { k:a 2 k:b 1 }
  sort.string_value("x");
  BOOST_TEST(next.events == 8);
  sort.end_array();
  sort.end_document();
  BOOST_TEST(next.events == 10);
}

BOOST_AUTO_TEST_SUITE_END()
