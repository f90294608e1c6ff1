// The binary readers tell a binary writer the item count of the top-level
// array they read (Handler::top_array_items()), so that a conversion
// between binary formats streams a large array instead of holding the
// output: the bytes are those of the held conversion. The transforms that
// keep the count pass it on; the JSON reader counts a large array for them.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/events.h"
#include "core/sink.h"
#include "core/source.h"
#include "core/transforms/fused.h"
#include "core/transforms/key_case.h"
#include "core/transforms/nulls.h"
#include "core/worker.h"
#include "formats/binary_stream_test_util.h"
#include "formats/format.h"
#include "formats/json/json_reader.h"

namespace jbx {
namespace {

/// The calls of top_array_items() a writer heard, and how much its sink
/// held at each.
struct Seen {
  std::vector<std::uint64_t> counts;
  std::vector<std::size_t> written;
};

/// A writer in front of another that records what it hears of counts.
class Observer final : public Writer {
 public:
  Observer(Writer& w, const StringSink& sink, Seen& seen)
      : w_(w), sink_(sink), seen_(seen) {}
  Flow begin_object() override { return w_.begin_object(); }
  Flow key(std::string_view name) override { return w_.key(name); }
  void end_object() override { w_.end_object(); }
  Flow begin_array() override { return w_.begin_array(); }
  void end_array() override { w_.end_array(); }
  void null_value() override { w_.null_value(); }
  void bool_value(bool b) override { w_.bool_value(b); }
  void int_value(std::int64_t v) override { w_.int_value(v); }
  void uint_value(std::uint64_t v) override { w_.uint_value(v); }
  void double_value(double v) override { w_.double_value(v); }
  void number_text(std::string_view t) override { w_.number_text(t); }
  void string_value(std::string_view s) override { w_.string_value(s); }
  void bytes_value(std::span<const std::uint8_t> b) override {
    w_.bytes_value(b);
  }
  void timestamp_value(const Timestamp& t) override { w_.timestamp_value(t); }
  void annotation(const Annotation& a) override { w_.annotation(a); }
  void end_document() override { w_.end_document(); }
  void top_array_items(std::uint64_t count) override {
    seen_.counts.push_back(count);
    seen_.written.push_back(sink_.data().size());
    w_.top_array_items(count);
  }
  bool takes_array_count() const override { return w_.takes_array_count(); }

 private:
  Writer& w_;
  const StringSink& sink_;
  Seen& seen_;
};

/// `n` random items in an array, written in format `name`.
std::string document(std::string_view name, unsigned seed, std::size_t n) {
  StringSink sink;
  const auto w = find_format(name)->make_writer(sink, WriteOptions());
  std::mt19937 rng(seed);
  w->begin_array();
  for (std::size_t i = 0; i < n; ++i) test::random_value(rng, *w, 1);
  w->end_array();
  w->end_document();
  return std::string(sink.data());
}

/// `doc` read as format `from` and written as format `to`: through a
/// handler that is not a writer (held), or told the array's count.
std::string converted(std::string_view from, std::string_view to,
                      const std::string& doc, Seen* seen = nullptr) {
  auto src = Source::from_memory("test", doc);
  const auto r = find_format(from)->make_reader(*src, ReadOptions());
  StringSink sink;
  const auto w = find_format(to)->make_writer(sink, WriteOptions());
  if (seen == nullptr) {
    ForwardingHandler held(*w);
    while (r->read_document(held)) {
    }
  } else {
    Observer o(*w, sink, *seen);
    while (r->read_document(o)) {
    }
  }
  return std::string(sink.data());
}

BOOST_AUTO_TEST_SUITE(binary_stream)

BOOST_AUTO_TEST_CASE(binary_readers_let_binary_writers_stream_an_array) {
  const char* const names[] = {"cbor", "msgpack", "jsonb"};
  for (const char* from : names) {
    for (const char* to : names) {
      for (const std::size_t n : {std::size_t{1}, std::size_t{15},
                                  std::size_t{16}, std::size_t{300}}) {
        BOOST_TEST_CONTEXT(from << " to " << to << ", " << n << " items") {
          const std::string doc = document(from, static_cast<unsigned>(n), n);
          const std::string held = converted(from, to, doc);
          Seen seen;
          const std::string streamed = converted(from, to, doc, &seen);
          BOOST_TEST((streamed == held));
          // Told the count between the items (MessagePack's reader) or
          // after each (the others), and streaming from the first.
          BOOST_TEST(seen.counts.size() + 1 >= n);
          BOOST_TEST(seen.counts.size() <= n);
          for (const std::uint64_t c : seen.counts) BOOST_TEST(c == n);
          if (n > 1 && !seen.written.empty()) {
            BOOST_TEST(seen.written.back() > 0);
          }
          // Between formats alike, the bytes come back as they were.
          if (std::string_view(from) == to) BOOST_TEST((streamed == doc));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(an_array_in_a_transform_is_not_counted) {
  // Events through a handler other than the writer may change the count:
  // then the writer is not told it, and holds the document.
  const std::string doc = document("cbor", 3, 40);
  Seen seen;
  auto src = Source::from_memory("test", doc);
  const auto r = find_format("cbor")->make_reader(*src, ReadOptions());
  StringSink sink;
  const auto w = find_format("msgpack")->make_writer(sink, WriteOptions());
  Observer o(*w, sink, seen);
  ForwardingHandler in_front(o);
  while (r->read_document(in_front)) {
  }
  BOOST_TEST(seen.counts.empty());
  BOOST_TEST((std::string(sink.data()) == converted("cbor", "msgpack", doc)));
}

// `n` records as a JSON array: camelCase keys to rename, a member that is
// null in every third, and a null item after every seventh.
std::string records(std::size_t n) {
  std::string j = "[";
  std::size_t items = 0;
  for (std::size_t i = 0; items < n; ++i) {
    if (items > 0) j += ',';
    ++items;
    if (i % 8 == 7) {
      j += "null";
      continue;
    }
    j += "{\"userId\":" + std::to_string(i) + ",\"lastName\":\"n" +
         std::to_string(i * 7) + "\",\"homeNote\":";
    j += i % 3 == 0 ? "null" : "\"some text\"";
    j += ",\"tagList\":[1,2,{\"innerKey\":null}]}";
  }
  return j + "]";
}

/// `json` written in format `name`, held whole.
std::string encoded(std::string_view name, const std::string& json) {
  auto src = Source::from_memory("test", json);
  JsonReader r(*src, ReadOptions(), JsonMode::single);
  StringSink sink;
  const auto w = find_format(name)->make_writer(sink, WriteOptions());
  ForwardingHandler held(*w);
  while (r.read_document(held)) {
  }
  return std::string(sink.data());
}

/// A transform in front of `next`, as the pipeline builds them.
using MakeTransform = std::function<std::unique_ptr<Handler>(Handler& next)>;

struct NamedTransform {
  const char* name;
  MakeTransform make;
  bool keeps_count;
};

std::vector<NamedTransform> transforms() {
  using namespace transforms;
  const auto fused = [](NullPolicy nulls) {
    return [nulls](Handler& next) -> std::unique_ptr<Handler> {
      FusedOptions o;
      o.nulls = nulls;
      o.key_case = KeyCase::snake;
      o.key_case_name = "snake";
      return std::make_unique<FusedFeatures<Handler>>(next, std::move(o));
    };
  };
  return {
      {"rename",
       [](Handler& next) -> std::unique_ptr<Handler> {
         return std::make_unique<RenameKeys>(next, KeyCase::kebab, "kebab");
       },
       true},
      {"drop nulls",
       [](Handler& next) -> std::unique_ptr<Handler> {
         return std::make_unique<DropNulls>(next, NullPolicy::drop);
       },
       true},
      {"fused", fused(NullPolicy::drop), true},
      // Null items of the top-level array go too: the count changes.
      {"drop all nulls",
       [](Handler& next) -> std::unique_ptr<Handler> {
         return std::make_unique<DropNulls>(next, NullPolicy::drop_all);
       },
       false},
      {"fused, drop all", fused(NullPolicy::drop_all), false},
  };
}

/// `doc` read as format `from` (JSON read as a huge document is, its
/// chunks indexed ahead) through transform `t` into format `to`: held
/// (the writer behind a handler that does not pass the count on), or
/// through an Observer.
std::string transformed(std::string_view from, std::string_view to,
                        const std::string& doc, const NamedTransform& t,
                        Seen* seen) {
  auto src = Source::from_memory("test", doc);
  std::unique_ptr<Reader> r;
  if (from == "json") {
    auto j =
        std::make_unique<JsonReader>(*src, ReadOptions(), JsonMode::single);
    j->set_simd_chunking(SimdChunking{256, 0, 4, 0});
    r = std::move(j);
  } else {
    r = find_format(from)->make_reader(*src, ReadOptions());
  }
  StringSink sink;
  const auto w = find_format(to)->make_writer(sink, WriteOptions());
  std::unique_ptr<Handler> last;
  if (seen == nullptr) {
    last = std::make_unique<ForwardingHandler>(*w);
  } else {
    last = std::make_unique<Observer>(*w, sink, *seen);
  }
  const auto head = t.make(*last);
  while (r->read_document(*head)) {
  }
  return std::string(sink.data());
}

BOOST_AUTO_TEST_CASE(a_count_passes_through_transforms_that_keep_it) {
  const std::size_t n = 300;
  const std::string json = records(n);
  for (const char* from : {"json", "cbor", "msgpack", "jsonb"}) {
    const std::string doc =
        std::string_view(from) == "json" ? json : encoded(from, json);
    for (const char* to : {"cbor", "msgpack", "jsonb"}) {
      for (const NamedTransform& t : transforms()) {
        BOOST_TEST_CONTEXT(from << " to " << to << " through " << t.name) {
          const std::string held = transformed(from, to, doc, t, nullptr);
          Seen seen;
          const std::string streamed = transformed(from, to, doc, t, &seen);
          BOOST_TEST((streamed == held));
          BOOST_TEST(held.size() > n);
          for (const std::uint64_t c : seen.counts) BOOST_TEST(c == n);
          if (!t.keeps_count) {
            BOOST_TEST(seen.counts.empty());
          } else if (std::string_view(from) != "json" || Worker::useful()) {
            // (The JSON reader counts a large array only when it has a
            // second thread to count half of it: before the walk, and it
            // tells the count from the second chunk on.)
            BOOST_TEST(!seen.counts.empty());
            BOOST_TEST((!seen.written.empty() && seen.written.back() > 0));
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace jbx
