// Helpers shared by the tests of the binary writers' stream_array(): random
// documents as events, and a handler that has the writer stream as the
// JSON walk does. Test-only: never included by the library.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "core/events.h"
#include "core/options.h"
#include "core/sink.h"

namespace jbx::test {

/// A random value as events: containers of every head length of CBOR and
/// MessagePack (0, 15, 16, 23, 24, 255, 256 items), nested, with scalars of
/// several kinds.
inline void random_value(std::mt19937& rng, Handler& h, int depth) {
  static constexpr std::size_t kSizes[] = {0, 1, 15, 16, 23, 24, 255, 256};
  const auto size = [&] {
    // (Long heads inside an element too, where a flush may fall between
    // a container's end and its element's.)
    return kSizes[rng() % (depth >= 3 ? 3 : depth == 2 ? 6 : 8)];
  };
  switch (rng() % (depth >= 3 ? 4 : 6)) {
    case 0:
      h.int_value(static_cast<std::int64_t>(rng()) - (1 << 30));
      break;
    case 1:
      h.string_value(std::string(rng() % 40, 'x'));
      break;
    case 2:
      h.double_value(static_cast<double>(rng()) / 7);
      break;
    case 3:
      h.null_value();
      break;
    case 4: {
      h.begin_array();
      const std::size_t n = size();
      for (std::size_t i = 0; i < n; ++i) random_value(rng, h, depth + 1);
      h.end_array();
      break;
    }
    default: {
      h.begin_object();
      const std::size_t n = size();
      for (std::size_t i = 0; i < n; ++i) {
        h.key("k" + std::to_string(n - i) + std::string(rng() % 30, 'z'));
        random_value(rng, h, depth + 1);
      }
      h.end_object();
      break;
    }
  }
}

/// Forwards events to writer W and calls its stream_array() after one event
/// in `every`, at random, as the JSON walk does after a chunk: mostly in
/// the middle of an element.
template <class W>
class Streamer final : public ForwardingHandler {
 public:
  Streamer(W& w, std::uint64_t n, std::size_t block, unsigned every)
      : ForwardingHandler(w), w_(w), n_(n), block_(block), every_(every) {}
  Flow begin_object() override { return then(next_.begin_object()); }
  Flow key(std::string_view k) override { return then(next_.key(k)); }
  void end_object() override { then(), next_.end_object(), then(); }
  Flow begin_array() override { return then(next_.begin_array()); }
  void end_array() override { next_.end_array(), then(); }
  void null_value() override { next_.null_value(), then(); }
  void int_value(std::int64_t v) override { next_.int_value(v), then(); }
  void double_value(double v) override { next_.double_value(v), then(); }
  void string_value(std::string_view v) override {
    next_.string_value(v), then();
  }

 private:
  Flow then(Flow f = Flow::visit) {
    if (rng_() % every_ == 0) w_.stream_array(n_, block_);
    return f;
  }
  W& w_;
  std::uint64_t n_;
  std::size_t block_;
  unsigned every_;
  std::mt19937 rng_{every_};
};

/// An array of `n` random elements written by W held, and streamed as
/// Streamer streams it, told `told` elements: the held bytes, and the
/// streamed bytes or the error streaming gives ("CODE: MESSAGE").
template <class W>
std::pair<std::string, std::string> held_and_streamed(
    unsigned seed, std::size_t n, const WriteOptions& o, std::size_t block,
    std::uint64_t told, unsigned every = 1) {
  const auto produce = [&](Handler& h) {
    std::mt19937 rng(seed);
    h.begin_array();
    for (std::size_t i = 0; i < n; ++i) random_value(rng, h, 1);
    h.end_array();
    h.end_document();
  };
  StringSink held;
  W a(held, o);
  produce(a);
  StringSink sink;
  W w(sink, o);
  Streamer<W> s(w, told, block, every);
  try {
    produce(s);
  } catch (const Error& e) {
    return {std::string(held.data()),
            std::string(errc_name(e.code)) + ": " + e.message};
  }
  return {std::string(held.data()), std::string(sink.data())};
}

/// A streamed array has the bytes of a held one: 40 seeds of 1 to 300
/// elements (heads of every length), flushed at every byte or in blocks,
/// streamed after every event or now and then.
template <class W>
void check_streamed_as_held(const WriteOptions& o) {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const std::size_t n = 1 + seed * seed % 300;
    for (const std::size_t block : {std::size_t{1}, std::size_t{700}}) {
      for (const unsigned every : {1u, 7u, 50u}) {
        const auto [held, streamed] =
            held_and_streamed<W>(seed, n, o, block, n, every);
        BOOST_TEST((held == streamed),
                   "seed " << seed << " block " << block << " every " << every);
      }
    }
  }
}

/// Only a top-level array is streamed, once an element has begun. The
/// bytes out, as `hex` shows them: `head`, the head of an array of two;
/// `two`, then its elements, an empty map and the integer 7 (and no more
/// at its end); `map`, then a map {"a": 1} at the top, held as before.
template <class W, class Hex>
void check_only_top_level_arrays(Hex hex, std::string_view head,
                                 std::string_view two, std::string_view map) {
  StringSink sink;
  W w(sink, {});
  w.stream_array(2, 1);  // nothing begun
  w.begin_array();
  w.stream_array(2, 1);  // no element yet: an empty array has no comma
  BOOST_TEST(sink.data().empty());
  w.begin_object();
  w.stream_array(2, 1);  // the head; the element is not complete
  BOOST_TEST(hex(sink.data()) == head);
  w.end_object();
  w.int_value(7);
  w.stream_array(2, 1);
  BOOST_TEST(hex(sink.data()) == two);
  w.end_array();
  w.end_document();
  BOOST_TEST(hex(sink.data()) == two);
  w.begin_object();
  w.key("a");
  w.int_value(1);
  w.stream_array(1, 1);
  w.end_object();
  w.end_document();
  BOOST_TEST(hex(sink.data()) == map);
}

/// An array that ends with more or fewer elements than it was said to
/// have is an error, not wrong output, and so is a document that ends
/// inside it.
template <class W>
void check_count_mismatch() {
  BOOST_TEST(held_and_streamed<W>(3, 30, {}, 1, 31).second ==
             "syntax: the array has 30 elements, not the 31 its text was "
             "counted to have");
  BOOST_TEST(held_and_streamed<W>(3, 30, {}, 1, 29)
                 .second.rfind("syntax: the array has 30 elements", 0) == 0);
  StringSink sink;
  W w(sink, {});
  w.begin_array();
  w.int_value(1);
  w.stream_array(2, 1);
  std::string message;
  try {
    w.end_document();
  } catch (const Error& e) {
    message = std::string(errc_name(e.code)) + ": " + e.message;
  }
  BOOST_TEST(message == "syntax: the streamed array ends early");
}

}  // namespace jbx::test
