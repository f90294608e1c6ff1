// The event log shared by the fuzz targets: records a document's events as
// text, canonically, so that "read, write, read again" can be compared, and
// forwards them to a next handler when there is one. Not for production use.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/events.h"

namespace jbx_fuzz {

/// What a format's round trip may change, so the log ignores it.
struct EventLogRules {
  /// Integer spellings log like native integers: a big integer that fits
  /// 64 bits is written back as a plain integer (JSONB, CBOR).
  bool integer_text_as_int = true;
  /// Timestamps log every field; false keeps only kind, instant and offset
  /// (CBOR keeps neither the zone id nor the source precision; MessagePack
  /// writes whole seconds as timestamp32 whatever form they were read from).
  bool full_timestamp = true;
};

class EventLog final : public jbx::Handler {
 public:
  explicit EventLog(jbx::Handler* next, EventLogRules rules = {})
      : next_(next), rules_(rules) {}
  std::string text;

  jbx::Flow begin_object() override {
    text += "{";
    if (next_) next_->begin_object();
    return jbx::Flow::visit;
  }
  jbx::Flow key(std::string_view k) override {
    text += fmt::format("k{}:{};", k.size(), k);
    if (next_) next_->key(k);
    return jbx::Flow::visit;
  }
  void end_object() override {
    text += "}";
    if (next_) next_->end_object();
  }
  jbx::Flow begin_array() override {
    text += "[";
    if (next_) next_->begin_array();
    return jbx::Flow::visit;
  }
  void end_array() override {
    text += "]";
    if (next_) next_->end_array();
  }
  void null_value() override {
    text += "n;";
    if (next_) next_->null_value();
  }
  void bool_value(bool b) override {
    text += b ? "t;" : "f;";
    if (next_) next_->bool_value(b);
  }
  void int_value(std::int64_t v) override {
    text += fmt::format("i{};", v);
    if (next_) next_->int_value(v);
  }
  void uint_value(std::uint64_t v) override {
    text += fmt::format("i{};", v);
    if (next_) next_->uint_value(v);
  }
  void double_value(double v) override {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    text += fmt::format("d{:x};", bits);
    if (next_) next_->double_value(v);
  }
  void number_text(std::string_view t) override {
    const bool integer = rules_.integer_text_as_int &&
                         t.find_first_of(".eE") == std::string_view::npos;
    text += fmt::format("{}{};", integer ? 'i' : 'x', t);
    if (next_) next_->number_text(t);
  }
  void string_value(std::string_view s) override {
    text += fmt::format("s{}:{};", s.size(), s);
    if (next_) next_->string_value(s);
  }
  void bytes_value(std::span<const std::uint8_t> b) override {
    text += fmt::format(
        "b{}:{};", b.size(),
        std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
    if (next_) next_->bytes_value(b);
  }
  void timestamp_value(const jbx::Timestamp& t) override {
    if (rules_.full_timestamp) {
      text += fmt::format("T{},{},{},{},{},{},{};", static_cast<int>(t.kind),
                          t.seconds, t.nanos, t.has_offset, t.offset_seconds,
                          t.precision, t.zone);
    } else {
      text += fmt::format("T{},{},{},{};", static_cast<int>(t.kind), t.seconds,
                          t.nanos, t.has_offset ? t.offset_seconds : 0);
    }
    if (next_) next_->timestamp_value(t);
  }
  void annotation(const jbx::Annotation& a) override {
    if (a.kind == jbx::Annotation::Kind::cbor_tag) {
      text += fmt::format("@{};", a.tag);
    } else {
      text += fmt::format("@{}:{};", a.name.size(), a.name);
    }
    if (next_) next_->annotation(a);
  }
  void end_document() override {
    text += "|";
    if (next_) next_->end_document();
  }

 private:
  jbx::Handler* next_;
  EventLogRules rules_;
};

}  // namespace jbx_fuzz
