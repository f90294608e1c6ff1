// The event interface between readers, transforms and writers (DESIGN.md,
// "One pipeline"). A reader pushes one document at a time into a Handler;
// writers and transforms are Handlers. Views passed to a handler are valid
// only for the duration of the call.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace jbx {

/// Returned by begin_object, begin_array and key: lets a consumer such as a
/// query skip what it does not need. Writers always return visit.
enum class Flow : std::uint8_t {
  visit,  // deliver the value's events
  skip,   // begin_*: skip the container, no further events for it (no end_*);
          // key: skip the member's value entirely
  stop,   // stop reading this document now (query --first)
};

/// A date or time carried natively by a binary format (JSONB, CBOR tags 0/1,
/// MessagePack timestamps, BSON datetime) or recognised by a transform.
struct Timestamp {
  enum class Kind : std::uint8_t {
    instant,          // a point in time: seconds since 1970-01-01T00:00Z
    local_date_time,  // wall clock without zone: seconds as if UTC
    local_date,       // seconds = days since 1970-01-01 * 86400, nanos = 0
    local_time,       // seconds since midnight
  };
  Kind kind = Kind::instant;
  std::int64_t seconds = 0;
  std::uint32_t nanos = 0;          // 0..999'999'999
  bool has_offset = false;          // instant: offset_seconds is meaningful
  std::int32_t offset_seconds = 0;  // the zone offset the value was written in
  std::string_view zone;       // IANA zone id if the source had one, else ""
  std::uint8_t precision = 9;  // digits of fraction the source can carry
};

/// Metadata that applies to the next value: a JSONB type name (typed
/// object), or a CBOR tag without a JSON meaning.
struct Annotation {
  enum class Kind : std::uint8_t { type_name, cbor_tag };
  Kind kind = Kind::type_name;
  std::string_view name;  // type_name
  std::uint64_t tag = 0;  // cbor_tag
};

/// The consumer side of the pipeline. Numbers arrive in one of four forms:
/// native integers and doubles from binary formats, and number_text for an
/// exact spelling (every JSON number, and big integers and decimals from
/// binary formats), which is always valid RFC 8259 number syntax.
class Handler {
 public:
  virtual ~Handler() = default;

  virtual Flow begin_object() = 0;
  virtual Flow key(std::string_view name) = 0;  // UTF-8
  /// key() for a name as a reader holds it: it needs no escaping, stays
  /// valid until end_document(), and 16 bytes from its start and 32 past
  /// its end are readable (the JSON reader's keys without a backslash, in
  /// its padded input). A handler that keeps names may keep these without
  /// a copy. key() by default. (Out of line: the reader's kernels, which
  /// call it, are compiled for other instruction sets.)
  virtual Flow stable_key(std::string_view name);
  /// key() for a name with nothing to escape in JSON (no '"', '\\' or
  /// control character), valid for the call only: a stable_key() that a
  /// transform renamed. key() by default. (Out of line, as stable_key().)
  virtual Flow escape_free_key(std::string_view name);
  virtual void end_object() = 0;
  virtual Flow begin_array() = 0;
  virtual void end_array() = 0;

  virtual void null_value() = 0;
  virtual void bool_value(bool b) = 0;
  virtual void int_value(std::int64_t v) = 0;
  virtual void uint_value(std::uint64_t v) = 0;
  virtual void double_value(double v) = 0;
  virtual void number_text(std::string_view text) = 0;
  virtual void string_value(std::string_view utf8) = 0;
  /// string_value() for a string as a reader holds it, with the guarantees
  /// of stable_key(): a writer may copy it without a scan for escapes.
  /// string_value() by default, so a handler that changes strings, and
  /// does not override this, still sees every one. (Out of line, as
  /// stable_key().)
  virtual void stable_string(std::string_view utf8);
  virtual void bytes_value(std::span<const std::uint8_t> bytes) = 0;
  virtual void timestamp_value(const Timestamp& t) = 0;
  virtual void annotation(const Annotation& a) = 0;

  /// Called by the driver after each top-level value.
  virtual void end_document() = 0;

  /// From a reader that knows how many items the top-level array it is
  /// reading has (a binary format's array head, or a count of a JSON
  /// array's elements), between those items or at any point in them: a
  /// binary writer may write the array as its items end rather than hold
  /// the document (the binary writers' stream_array()). A transform passes
  /// it on only when it never adds or removes a top-level array's items.
  /// Nothing by default.
  virtual void top_array_items(std::uint64_t count) {
    static_cast<void>(count);
  }
  /// Whether top_array_items() reaches a writer that uses it: the JSON
  /// reader counts a large array's elements, a pass of its own, only then.
  virtual bool takes_array_count() const { return false; }
};

/// Forwards every event to another handler; transforms derive from it and
/// override only what they change. stable_key(), escape_free_key() and
/// stable_string() are not forwarded: they reach the transform's own key()
/// and string_value(), unless it overrides them to pass on a name or string
/// it leaves as it is.
class ForwardingHandler : public Handler {
 public:
  explicit ForwardingHandler(Handler& next) : next_(next) {}
  // Copying would be chosen silently over the constructor above when `next`
  // is itself a ForwardingHandler, leaving a handler that forwards to a
  // temporary's target; forbid it.
  ForwardingHandler(const ForwardingHandler&) = delete;
  ForwardingHandler& operator=(const ForwardingHandler&) = delete;

  Flow begin_object() override { return next_.begin_object(); }
  Flow key(std::string_view name) override { return next_.key(name); }
  void end_object() override { next_.end_object(); }
  Flow begin_array() override { return next_.begin_array(); }
  void end_array() override { next_.end_array(); }
  void null_value() override { next_.null_value(); }
  void bool_value(bool b) override { next_.bool_value(b); }
  void int_value(std::int64_t v) override { next_.int_value(v); }
  void uint_value(std::uint64_t v) override { next_.uint_value(v); }
  void double_value(double v) override { next_.double_value(v); }
  void number_text(std::string_view t) override { next_.number_text(t); }
  void string_value(std::string_view s) override { next_.string_value(s); }
  void bytes_value(std::span<const std::uint8_t> b) override {
    next_.bytes_value(b);
  }
  void timestamp_value(const Timestamp& t) override {
    next_.timestamp_value(t);
  }
  void annotation(const Annotation& a) override { next_.annotation(a); }
  void end_document() override { next_.end_document(); }

 protected:
  /// Passes on a name or string as it came: by stable_key() or
  /// stable_string() when `stable`, else by key() or string_value().
  Flow key_to_next(std::string_view name, bool stable) {
    return stable ? next_.stable_key(name) : next_.key(name);
  }
  void string_to_next(std::string_view s, bool stable) {
    if (stable) {
      next_.stable_string(s);
    } else {
      next_.string_value(s);
    }
  }

  Handler& next_;
};

/// A ForwardingHandler for the transforms that never add or remove an
/// item of a top-level array: a writer behind one still hears the array's
/// count, and may stream it (Handler::top_array_items()).
class CountKeepingHandler : public ForwardingHandler {
 public:
  using ForwardingHandler::ForwardingHandler;
  void top_array_items(std::uint64_t count) override {
    next_.top_array_items(count);
  }
  bool takes_array_count() const override { return next_.takes_array_count(); }
};

/// Accepts and discards every event (validation without output).
class NullHandler final : public Handler {
 public:
  Flow begin_object() override { return Flow::visit; }
  Flow key(std::string_view) override { return Flow::visit; }
  void end_object() override {}
  Flow begin_array() override { return Flow::visit; }
  void end_array() override {}
  void null_value() override {}
  void bool_value(bool) override {}
  void int_value(std::int64_t) override {}
  void uint_value(std::uint64_t) override {}
  void double_value(double) override {}
  void number_text(std::string_view) override {}
  void string_value(std::string_view) override {}
  void bytes_value(std::span<const std::uint8_t>) override {}
  void timestamp_value(const Timestamp&) override {}
  void annotation(const Annotation&) override {}
  void end_document() override {}
};

}  // namespace jbx
