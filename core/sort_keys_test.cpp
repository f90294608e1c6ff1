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

// Reads `json` into `sort`.
void sorted_events(jbx::SortKeys& sort, const std::string& json) {
  auto src = jbx::Source::from_memory("t", json);
  jbx::JsonReader reader(*src, {}, jbx::JsonMode::stream);
  while (reader.read_document(sort)) {
  }
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

// Logs the events that reach it, each kind apart, and answers `skip` or
// `stop` where asked.
class Log final : public jbx::Handler {
 public:
  std::string text;
  std::string skip_key, stop_key;  // keys answered with skip or stop
  bool skip_arrays = false;
  // Containers opened inside this many others are answered with skip
  // (-1: none): the sender must go on after the whole of each.
  int skip_arrays_from = -1;
  int skip_objects_from = -1;

  jbx::Flow begin_object() override {
    text += "{";
    return opened(skip_objects_from);
  }
  jbx::Flow key(std::string_view k) override { return named("k", k); }
  jbx::Flow escape_free_key(std::string_view k) override {
    return named("f", k);
  }
  void end_object() override {
    text += "}";
    --depth_;
  }
  jbx::Flow begin_array() override {
    text += "[";
    return skip_arrays ? jbx::Flow::skip : opened(skip_arrays_from);
  }
  void end_array() override {
    text += "]";
    --depth_;
  }
  void null_value() override { text += "n "; }
  void bool_value(bool b) override { text += b ? "t " : "f "; }
  void int_value(std::int64_t v) override {
    text += "i" + std::to_string(v) + " ";
  }
  void uint_value(std::uint64_t v) override {
    text += "u" + std::to_string(v) + " ";
  }
  void double_value(double v) override {
    text += "d" + std::to_string(v) + " ";
  }
  void number_text(std::string_view t) override {
    text += "x" + std::string(t) + " ";
  }
  void string_value(std::string_view s) override {
    text += "s" + std::string(s) + " ";
  }
  void bytes_value(std::span<const std::uint8_t> b) override {
    text += "b" + std::to_string(b.size()) + " ";
  }
  void timestamp_value(const jbx::Timestamp& t) override {
    text += "T" + std::to_string(static_cast<int>(t.kind)) + "," +
            std::to_string(t.seconds) + "," + std::to_string(t.nanos) + "," +
            std::to_string(t.offset_seconds) + "," + std::string(t.zone) + "," +
            std::to_string(t.precision) + " ";
  }
  void annotation(const jbx::Annotation& a) override {
    text += a.kind == jbx::Annotation::Kind::cbor_tag
                ? "@" + std::to_string(a.tag) + " "
                : "@" + std::string(a.name) + " ";
  }
  void end_document() override { text += "|"; }

 private:
  int depth_ = 0;  // containers open

  jbx::Flow opened(int skip_from) {
    if (skip_from >= 0 && depth_ >= skip_from) return jbx::Flow::skip;
    ++depth_;
    return jbx::Flow::visit;
  }
  jbx::Flow named(const char* kind, std::string_view k) {
    text += kind + std::string(k) + ":";
    if (k == skip_key) return jbx::Flow::skip;
    if (k == stop_key) return jbx::Flow::stop;
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

BOOST_AUTO_TEST_CASE(large_objects_sorted_stably) {
  // More members than sort in place: keys in a scrambled order, each three
  // times, the value telling the copies apart.
  std::string json = "{";
  std::vector<std::pair<std::string, int>> members;
  for (int copy = 0; copy < 3; ++copy) {
    for (int k = 0; k < 50; ++k) {
      const std::string name = "k" + std::to_string(k * 37 % 50);
      members.emplace_back(name, copy);
      if (json.size() > 1) json += ",";
      json += "\"" + name + "\":" + std::to_string(copy);
    }
  }
  json += "}";
  std::stable_sort(
      members.begin(), members.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string want = "{";
  for (const auto& [name, copy] : members) {
    if (want.size() > 1) want += ",";
    want += "\"" + name + "\":" + std::to_string(copy);
  }
  want += "}\n";
  BOOST_TEST(sorted(json) == want);
}

BOOST_AUTO_TEST_CASE(every_kind_of_event_kept) {
  // Each member's value of another kind, with annotations before values,
  // escape-free keys told from others.
  Log log;
  jbx::SortKeys sort(log);
  const std::uint8_t raw[3] = {1, 2, 3};
  jbx::Timestamp t;
  t.kind = jbx::Timestamp::Kind::instant;
  t.seconds = -86400;
  t.nanos = 5;
  t.has_offset = true;
  t.offset_seconds = 3600;
  t.zone = "Europe/Paris";
  t.precision = 3;
  jbx::Annotation tag;
  tag.kind = jbx::Annotation::Kind::cbor_tag;
  tag.tag = 55799;
  jbx::Annotation type;
  type.name = "Point";
  sort.begin_object();
  sort.key("m");
  sort.timestamp_value(t);
  sort.stable_key("l");
  sort.bytes_value(raw);
  sort.escape_free_key("k");
  sort.string_value("text");
  sort.key("j");
  sort.number_text("1.50");
  sort.key("h");
  sort.double_value(0.5);
  sort.key("g");
  sort.uint_value(18446744073709551615u);
  sort.key("f");
  sort.int_value(-7);
  sort.key("e");
  sort.bool_value(true);
  sort.key("d");
  sort.bool_value(false);
  sort.key("c");
  sort.null_value();
  sort.key("b");
  sort.annotation(tag);
  sort.annotation(type);
  sort.begin_object();
  sort.key("z");
  sort.begin_array();
  sort.begin_object();
  sort.key("y");
  sort.int_value(1);
  sort.key("x");
  sort.int_value(2);
  sort.end_object();
  sort.end_array();
  sort.key("w");
  sort.annotation(tag);
  sort.int_value(3);
  sort.end_object();
  sort.key("a");
  sort.begin_array();
  sort.end_array();
  BOOST_TEST(log.text.empty());  // held until the object ends
  sort.end_object();
  sort.end_document();
  BOOST_TEST(log.text ==
             "{ka:[]kb:@55799 @Point {kw:@55799 i3 kz:[{kx:i2 ky:i1 }]}"
             "kc:n kd:f ke:t kf:i-7 kg:u18446744073709551615 kh:d0.500000 "
             "kj:x1.50 fk:stext fl:b3 km:T0,-86400,5,3600,Europe/Paris,3 }|");
}

BOOST_AUTO_TEST_CASE(every_kind_of_element_in_an_array) {
  // An array's elements follow one another on the tape: each kind must end
  // where the next begins.
  Log log;
  jbx::SortKeys sort(log);
  const std::uint8_t raw[2] = {1, 2};
  jbx::Timestamp t;
  t.kind = jbx::Timestamp::Kind::local_date;
  t.seconds = 86400;
  t.zone = "UTC";
  jbx::Annotation tag;
  tag.kind = jbx::Annotation::Kind::cbor_tag;
  tag.tag = 1;
  sort.begin_object();
  sort.key("b");
  sort.begin_array();
  sort.timestamp_value(t);
  sort.bytes_value(raw);
  sort.string_value("s");
  sort.number_text("1e400");
  sort.double_value(-2.5);
  sort.uint_value(9);
  sort.int_value(-9);
  sort.bool_value(true);
  sort.bool_value(false);
  sort.null_value();
  sort.annotation(tag);
  sort.int_value(4);
  sort.begin_object();
  sort.key("y");
  sort.null_value();
  sort.key("x");
  sort.begin_array();
  sort.end_array();
  sort.end_object();
  sort.begin_array();
  sort.int_value(5);
  sort.end_array();
  sort.string_value("last");
  sort.end_array();
  sort.key("a");
  sort.int_value(0);
  sort.end_object();
  sort.end_document();
  BOOST_TEST(log.text ==
             "{ka:i0 kb:[T2,86400,0,0,UTC,9 b2 ss x1e400 d-2.500000 u9 i-9 "
             "t f n @1 i4 {kx:[]ky:n }[i5 ]slast ]}|");
}

BOOST_AUTO_TEST_CASE(deep_nesting_sent_without_recursion) {
  // Far deeper than a recursive sender's stack would take.
  constexpr int kDepth = 200000;
  Counter next;
  jbx::SortKeys sort(next);
  sort.begin_object();
  for (int k = 0; k < kDepth; ++k) {
    sort.key("b");
    sort.begin_object();
  }
  sort.key("a");
  sort.begin_array();
  for (int k = 0; k < kDepth; ++k) sort.begin_array();
  for (int k = 0; k < kDepth; ++k) sort.end_array();
  sort.end_array();
  for (int k = 0; k < kDepth; ++k) sort.end_object();
  BOOST_TEST(next.events == 0);
  sort.end_object();
  // Each nested object: its key, begin and end; each array: begin, end.
  BOOST_TEST(next.events == 2 + 3 * kDepth + 1 + 2 * (kDepth + 1));
}

BOOST_AUTO_TEST_CASE(skip_and_stop_from_the_next_handler) {
  Log log;
  log.skip_key = "b";
  log.skip_arrays = true;
  jbx::SortKeys sort(log);
  sorted_events(sort, R"({"c":[1,{"z":2}],"b":{"y":1},"a":1})");
  BOOST_TEST(log.text == "{fa:x1 fb:fc:[}|");
  // A stop: nothing more is sent, and the next object is refused.
  Log stopping;
  stopping.stop_key = "b";
  jbx::SortKeys sort2(stopping);
  sorted_events(sort2, R"({"c":1,"b":2,"a":3} {"d":4})");
  // (The reader still ends each document.)
  BOOST_TEST(stopping.text.substr(0, stopping.text.find('|')) == "{fa:x3 fb:");
  BOOST_TEST(stopping.text.find("fd:") == std::string::npos);
  BOOST_TEST((sort2.begin_object() == jbx::Flow::stop));
}

BOOST_AUTO_TEST_CASE(skipped_containers_inside_arrays_passed_whole) {
  // An array's elements are sent one after another: after one the next
  // handler skips, the next element is the one after all of it.
  Log arrays;
  arrays.skip_arrays_from = 2;
  jbx::SortKeys sort(arrays);
  sorted_events(sort, R"({"a":[[1,{"q":1}],2,[3],{"y":1,"x":2}],"b":0})");
  BOOST_TEST(arrays.text == "{fa:[[x2 [{fx:x2 fy:x1 }]fb:x0 }|");
  Log objects;
  objects.skip_objects_from = 2;
  jbx::SortKeys sort2(objects);
  sorted_events(sort2, R"({"b":[{"z":[1]},2,{"y":1}],"a":0})");
  BOOST_TEST(objects.text == "{fa:x0 fb:[{x2 {]}|");
}

BOOST_AUTO_TEST_SUITE_END()
