// -S/--sort-keys: a transform that writes object members sorted by the
// bytes of their UTF-8 keys, recursively. It buffers one top-level document
// as a Value tree, so memory grows with the largest document, not with the
// input. Not a general-purpose canonicaliser (numbers keep their spelling).
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

  Flow begin_object() override { return tree_.begin_object(); }
  Flow key(std::string_view name) override { return tree_.key(name); }
  void end_object() override { tree_.end_object(); }
  Flow begin_array() override { return tree_.begin_array(); }
  void end_array() override { tree_.end_array(); }
  void null_value() override { tree_.null_value(); }
  void bool_value(bool b) override { tree_.bool_value(b); }
  void int_value(std::int64_t v) override { tree_.int_value(v); }
  void uint_value(std::uint64_t v) override { tree_.uint_value(v); }
  void double_value(double v) override { tree_.double_value(v); }
  void number_text(std::string_view t) override { tree_.number_text(t); }
  void string_value(std::string_view s) override { tree_.string_value(s); }
  void bytes_value(std::span<const std::uint8_t> b) override {
    tree_.bytes_value(b);
  }
  void timestamp_value(const Timestamp& t) override {
    tree_.timestamp_value(t);
  }
  void annotation(const Annotation& a) override { tree_.annotation(a); }
  /// Sorts and replays the buffered document. Throws what `next` throws.
  void end_document() override;

 private:
  Handler& next_;
  TreeBuilder tree_;
};

}  // namespace jbx
