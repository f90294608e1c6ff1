// Helpers shared by the tests of the binary writers' stream_array(): random
// documents as events, and a handler that has the writer stream as the
// JSON walk does. Test-only: never included by the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "core/events.h"

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

}  // namespace jbx::test
