// Null policy transforms, fastjson2's default writer behaviour and its
// reverse: dropping object members whose value is null (--nulls=drop), also
// null array elements (--nulls=drop-all), and turning empty strings and
// empty arrays into null (--empty-as-null). Typed defaults for nulls live in
// null_defaults.h. Both stream: at most one pending key or one pending '['.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/events.h"

namespace jbx::transforms {

enum class NullPolicy : std::uint8_t {
  keep,      // write nulls (fastjson2's WriteMapNullValue)
  drop,      // drop object members whose value is null
  drop_all,  // also drop null array elements
};

/// Drops nulls per policy. A null document stays (a document must be
/// written). Never throws by itself.
class DropNulls final : public CountKeepingHandler {
 public:
  DropNulls(Handler& next, NullPolicy policy)
      : CountKeepingHandler(next), all_(policy == NullPolicy::drop_all) {}

  Flow begin_object() override;
  Flow key(std::string_view name) override;
  /// Holds the name without a copy: it stays valid until end_document().
  Flow stable_key(std::string_view name) override;
  void end_object() override;
  Flow begin_array() override;
  void end_array() override;
  void null_value() override;
  void bool_value(bool b) override;
  void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  void double_value(double v) override;
  void number_text(std::string_view text) override;
  void string_value(std::string_view s) override;
  void stable_string(std::string_view s) override;
  void bytes_value(std::span<const std::uint8_t> b) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  void end_document() override;
  // --nulls=drop-all removes null items of the top-level array too.
  void top_array_items(std::uint64_t count) override {
    if (!all_) next_.top_array_items(count);
  }
  bool takes_array_count() const override {
    return !all_ && next_.takes_array_count();
  }

 private:
  /// Sends the held key, if any. False when the consumer skipped or
  /// stopped: then the value must not be sent. Sets `flow`.
  bool release(Flow& flow);
  bool release() {
    Flow f;
    return release(f);
  }

  bool all_;
  bool has_key_ = false;
  bool stopped_ = false;
  // The held key: as it came by stable_key(), else a copy in key_.
  std::string_view held_;
  std::string key_;
  bool key_stable_ = false;
  std::vector<bool> in_array_;  // one per open container
};

/// --empty-as-null: "" and [] become null, at any depth.
class EmptyAsNull final : public CountKeepingHandler {
 public:
  /// `typed`: what a reader that turns empty values into nulls itself may
  /// send a document's events to instead (the JSON reader, which calls
  /// the JSON writer and the fused features directly: json_simd_impl.h);
  /// it does with them what `next` does. By default `next`.
  explicit EmptyAsNull(Handler& next, Handler* typed = nullptr)
      : CountKeepingHandler(next), typed_(typed != nullptr ? *typed : next) {}

  Handler& typed() const { return typed_; }
  /// The reader sends this document's events to typed(): its
  /// end_document() goes there too.
  void typed_document() { typed_document_ = true; }
  void end_document() override;

  Flow begin_object() override;
  Flow key(std::string_view name) override;
  Flow stable_key(std::string_view name) override {
    return next_.stable_key(name);
  }
  void end_object() override;
  Flow begin_array() override;
  void end_array() override;
  void null_value() override;
  void bool_value(bool b) override;
  void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  void double_value(double v) override;
  void number_text(std::string_view text) override;
  void string_value(std::string_view s) override;
  void stable_string(std::string_view s) override;
  void bytes_value(std::span<const std::uint8_t> b) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;

 private:
  /// Opens the held '[' downstream. False when the consumer skipped the
  /// array: the array's remaining events are then swallowed.
  bool release();
  /// string_value(), passing on a string as it came by stable_string()
  /// when `stable`.
  void string_or_null(std::string_view s, bool stable);

  Handler& typed_;
  bool typed_document_ = false;
  bool pending_ = false;  // a '[' seen, nothing inside it yet
  bool swallow_ = false;  // inside an array the consumer skipped
};

}  // namespace jbx::transforms
