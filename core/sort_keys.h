// -S/--sort-keys: a transform that writes object members sorted by the
// bytes of their UTF-8 keys, recursively. It records each object that is
// not inside another as a flat tape of its events, sorts each object's
// members when it sends the tape on, at the object's end; the arrays and
// scalars around such objects pass through at once. Memory so grows with
// the largest object, not with a top-level array of records or the input.
// Not a general-purpose canonicaliser (numbers keep their spelling).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/events.h"

namespace jbx {

class SortKeys final : public Handler {
 public:
  /// Sends each sorted document to `next`, then next.end_document().
  explicit SortKeys(Handler& next) : next_(next) {}

  Flow begin_object() override;
  Flow key(std::string_view name) override;
  /// A name that needs no escaping: sent on as escape_free_key(). (Not as
  /// stable_key(): the tape does not outlive the object.)
  Flow stable_key(std::string_view name) override;
  Flow escape_free_key(std::string_view name) override;
  void end_object() override;
  Flow begin_array() override;
  void end_array() override;
  void null_value() override;
  void bool_value(bool b) override;
  void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  void double_value(double v) override;
  void number_text(std::string_view t) override;
  void string_value(std::string_view s) override;
  void bytes_value(std::span<const std::uint8_t> b) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  void end_document() override { next_.end_document(); }

 private:
  // The tape: one byte of operation, then its operands. Text is its size
  // (8 bytes) and its bytes; a container's first operand is the tape's
  // size after its end (set when it ends), so a value is passed over in
  // one step.
  enum Op : std::uint8_t {
    kObject,
    kArray,
    kKey,      // needs escaping checked
    kFreeKey,  // needs no escaping
    kNull,
    kFalse,
    kTrue,
    kInt,
    kUint,
    kDouble,
    kNumber,
    kString,
    kBytes,
    kTimestamp,   // the Timestamp, then its zone as text
    kAnnotation,  // kind (1 byte), tag (8), then its name as text
  };
  // A member of an object being sent: its key and where its value starts.
  struct Member {
    std::string_view key;
    std::size_t value;
    bool escape_free;
  };
  // An open container of the tape being sent.
  struct Frame {
    std::size_t end;    // the tape past the container
    std::size_t next;   // arrays: the next element; objects: in members_
    std::size_t first;  // objects: its members in members_, first
    std::size_t last;   // and past the last
    bool object;
  };

  Flow record_key(std::string_view name, Op op);
  Flow open(Op op);
  void close();
  /// `n` bytes more of the tape, to write.
  char* room(std::size_t n) {
    if (n > cap_ - used_) grow(n);
    char* p = tape_.get() + used_;
    used_ += n;
    return p;
  }
  void grow(std::size_t n);
  void put_op(Op op);
  void put_word(std::uint64_t w);
  void put_text(std::string_view s);  // its size, then its bytes
  void put_text(Op op, std::string_view s);
  std::uint64_t word_at(std::size_t at) const;
  std::string_view text_at(std::size_t& at) const;
  /// Sorts members_ from `first` on by key, stably: the bytes of UTF-8
  /// compare as code points (char_traits<char> compares like memcmp).
  void sort_members(std::size_t first);
  /// Where the value (with its annotations) at `at` ends.
  std::size_t skip_value(std::size_t at) const;
  /// Sends the annotations and the scalar at `at`, or opens the container
  /// there (pushed on frames_); answers where the tape goes on, or npos
  /// when `next_` asked to stop.
  std::size_t send_value(std::size_t at);
  /// Sends the tape, each object's members sorted. False when `next_`
  /// asked to stop.
  bool send();

  Handler& next_;
  std::unique_ptr<char[]> tape_;  // used_ of cap_ bytes
  std::size_t used_ = 0;
  std::size_t cap_ = 0;
  std::vector<std::size_t> open_;  // where the open containers' ends go
  std::vector<Member> members_;
  std::vector<Frame> frames_;
  bool stopped_ = false;  // `next` asked to stop while one was sent
};

}  // namespace jbx
