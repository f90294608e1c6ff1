// -S/--sort-keys: a transform that writes object members sorted by the
// bytes of their UTF-8 keys, recursively. It buffers each object that is not
// inside another as a Value tree, sorts it and sends it on when it ends; the
// arrays and scalars around such objects pass through at once. Memory so
// grows with the largest object, not with a top-level array of records or
// the input. Not a general-purpose canonicaliser (numbers keep their
// spelling).
#pragma once

#include "core/events.h"
#include "core/value.h"

namespace jbx {

/// Sorts object members of every value in place, recursively. Stable:
/// duplicate keys keep their relative order.
void sort_members(Value& v);

class SortKeys final : public Handler {
 public:
  /// Sends each sorted document to `next`, then next.end_document().
  explicit SortKeys(Handler& next) : next_(next) {}

  Flow begin_object() override;
  Flow key(std::string_view name) override { return tree_.key(name); }
  void end_object() override;
  Flow begin_array() override;
  void end_array() override;
  void null_value() override { to().null_value(); }
  void bool_value(bool b) override { to().bool_value(b); }
  void int_value(std::int64_t v) override { to().int_value(v); }
  void uint_value(std::uint64_t v) override { to().uint_value(v); }
  void double_value(double v) override { to().double_value(v); }
  void number_text(std::string_view t) override { to().number_text(t); }
  void string_value(std::string_view s) override { to().string_value(s); }
  void bytes_value(std::span<const std::uint8_t> b) override {
    to().bytes_value(b);
  }
  void timestamp_value(const Timestamp& t) override { to().timestamp_value(t); }
  void annotation(const Annotation& a) override { to().annotation(a); }
  void end_document() override { next_.end_document(); }

 private:
  // Where a value goes: into the object being held, or on.
  Handler& to() {
    if (held_ > 0) return tree_;
    return next_;
  }

  Handler& next_;
  TreeBuilder tree_;
  std::size_t held_ = 0;  // open containers of the object being held
  bool stopped_ = false;  // `next` asked to stop while one was replayed
};

}  // namespace jbx
