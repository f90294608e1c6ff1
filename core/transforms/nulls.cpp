#include "core/transforms/nulls.h"

namespace jbx::transforms {

// ---- DropNulls
// ----------------------------------------------------------------

bool DropNulls::release(Flow& flow) {
  flow = stopped_ ? Flow::stop : Flow::visit;
  if (!has_key_) return !stopped_;
  has_key_ = false;
  flow = key_to_next(held_, key_stable_);
  if (flow == Flow::stop) stopped_ = true;
  return flow == Flow::visit;
}

Flow DropNulls::begin_object() {
  Flow f;
  if (!release(f)) return f;
  f = next_.begin_object();
  if (f == Flow::visit) in_array_.push_back(false);
  if (f == Flow::stop) stopped_ = true;
  return f;
}

Flow DropNulls::key(std::string_view name) {
  if (stopped_) return Flow::stop;
  key_.assign(name);
  held_ = key_;
  key_stable_ = false;
  has_key_ = true;
  return Flow::visit;
}

Flow DropNulls::stable_key(std::string_view name) {
  if (stopped_) return Flow::stop;
  held_ = name;
  key_stable_ = true;
  has_key_ = true;
  return Flow::visit;
}

void DropNulls::end_object() {
  in_array_.pop_back();
  next_.end_object();
}

Flow DropNulls::begin_array() {
  Flow f;
  if (!release(f)) return f;
  f = next_.begin_array();
  if (f == Flow::visit) in_array_.push_back(true);
  if (f == Flow::stop) stopped_ = true;
  return f;
}

void DropNulls::end_array() {
  in_array_.pop_back();
  next_.end_array();
}

void DropNulls::null_value() {
  if (has_key_) {
    has_key_ = false;  // the member disappears with its key
    return;
  }
  if (all_ && !in_array_.empty() && in_array_.back()) return;
  if (!stopped_) next_.null_value();
}

void DropNulls::bool_value(bool b) {
  if (release()) next_.bool_value(b);
}
void DropNulls::int_value(std::int64_t v) {
  if (release()) next_.int_value(v);
}
void DropNulls::uint_value(std::uint64_t v) {
  if (release()) next_.uint_value(v);
}
void DropNulls::double_value(double v) {
  if (release()) next_.double_value(v);
}
void DropNulls::number_text(std::string_view t) {
  if (release()) next_.number_text(t);
}
void DropNulls::string_value(std::string_view s) {
  if (release()) next_.string_value(s);
}
void DropNulls::stable_string(std::string_view s) {
  if (release()) next_.stable_string(s);
}
void DropNulls::bytes_value(std::span<const std::uint8_t> b) {
  if (release()) next_.bytes_value(b);
}
void DropNulls::timestamp_value(const Timestamp& t) {
  if (release()) next_.timestamp_value(t);
}
void DropNulls::annotation(const Annotation& a) {
  // An annotated null is a typed value, so its member is kept.
  if (release()) next_.annotation(a);
}

void DropNulls::end_document() {
  has_key_ = false;
  stopped_ = false;
  in_array_.clear();
  next_.end_document();
}

// ---- EmptyAsNull
// ----------------------------------------------------------------

bool EmptyAsNull::release() {
  if (!pending_) return true;
  pending_ = false;
  if (next_.begin_array() == Flow::visit) return true;
  swallow_ = true;
  return false;
}

Flow EmptyAsNull::begin_object() {
  if (swallow_ || !release()) return Flow::skip;
  return next_.begin_object();
}

Flow EmptyAsNull::key(std::string_view name) { return next_.key(name); }

void EmptyAsNull::end_object() { next_.end_object(); }

Flow EmptyAsNull::begin_array() {
  if (swallow_ || !release()) return Flow::skip;
  pending_ = true;
  return Flow::visit;
}

void EmptyAsNull::end_array() {
  if (swallow_) {
    swallow_ = false;
    return;
  }
  if (pending_) {
    pending_ = false;
    next_.null_value();
    return;
  }
  next_.end_array();
}

void EmptyAsNull::null_value() {
  if (!swallow_ && release()) next_.null_value();
}
void EmptyAsNull::bool_value(bool b) {
  if (!swallow_ && release()) next_.bool_value(b);
}
void EmptyAsNull::int_value(std::int64_t v) {
  if (!swallow_ && release()) next_.int_value(v);
}
void EmptyAsNull::uint_value(std::uint64_t v) {
  if (!swallow_ && release()) next_.uint_value(v);
}
void EmptyAsNull::double_value(double v) {
  if (!swallow_ && release()) next_.double_value(v);
}
void EmptyAsNull::number_text(std::string_view t) {
  if (!swallow_ && release()) next_.number_text(t);
}
void EmptyAsNull::string_value(std::string_view s) { string_or_null(s, false); }
void EmptyAsNull::stable_string(std::string_view s) { string_or_null(s, true); }

void EmptyAsNull::string_or_null(std::string_view s, bool stable) {
  if (swallow_ || !release()) return;
  if (s.empty()) {
    next_.null_value();
  } else {
    string_to_next(s, stable);
  }
}

void EmptyAsNull::end_document() {
  if (typed_document_) {
    typed_document_ = false;
    typed_.end_document();
    return;
  }
  next_.end_document();
}

void EmptyAsNull::bytes_value(std::span<const std::uint8_t> b) {
  if (!swallow_ && release()) next_.bytes_value(b);
}
void EmptyAsNull::timestamp_value(const Timestamp& t) {
  if (!swallow_ && release()) next_.timestamp_value(t);
}
void EmptyAsNull::annotation(const Annotation& a) {
  if (!swallow_ && release()) next_.annotation(a);
}

}  // namespace jbx::transforms
