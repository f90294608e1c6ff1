// Reads MessagePack into events, one top-level value per document. Files are
// mapped; pipes are read in blocks so a long sequence of values runs in
// memory bounded by its largest value. Not for writing (msgpack_writer.h).
//
// Mapping of MessagePack types to events:
//   nil, bool, int/uint of every width -> null, bool, int_value (uint_value
//   above INT64_MAX); float32/float64 -> double_value; str -> string_value
//   (checked UTF-8); bin -> bytes_value; timestamp extension (type -1, 4, 8
//   or 12 bytes) -> timestamp_value (instant, UTC); any other extension N ->
//   annotation(type_name "msgpack.ext:N") + bytes_value(payload).
//   Map keys that are not strings become their compact JSON text (1 -> "1",
//   [1,2] -> "[1,2]", 1.5 -> "1.5", bin -> base64) unless
//   ReadOptions::keys_error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/events.h"
#include "core/options.h"
#include "core/source.h"
#include "formats/format.h"

namespace jbx::msgpack {

/// The annotation name prefix of application extension types.
inline constexpr std::string_view kExtPrefix = "msgpack.ext:";

class MsgpackReader final : public Reader {
 public:
  /// Reads from `in` (mapped when it is a file, streamed when a pipe).
  /// `in` must outlive the reader.
  MsgpackReader(Source& in, const ReadOptions& options);
  /// Reads `bytes`, which must outlive the reader (tests, fuzzing).
  MsgpackReader(std::string_view bytes, const ReadOptions& options);

  /// Sends the next value's events, then end_document(). Returns false at
  /// the end of the input. Throws Error with binary = true and the byte
  /// offset: unexpected_end (input ends inside a value; offset = input
  /// size), syntax (byte 0xc1, malformed timestamp), invalid_utf8 (offset of
  /// the bad byte), depth_limit, type_mismatch (non-string key with
  /// keys_error), unsupported (a map or array key whose JSON text would
  /// pass 1 MiB). Errors thrown by `out` without an offset get the offset of
  /// the value being delivered and its JSON Pointer.
  bool read_document(Handler& out) override;

 private:
  // One open container. Frames are reused between documents, so their key
  // strings keep their capacity.
  struct Frame {
    enum class State : std::uint8_t { key, value, in_value };
    std::uint64_t remaining = 0;  // elements, or pairs, not yet started
    std::uint64_t index = 0;      // elements or pairs started
    bool is_map = false;
    State state = State::key;   // map: where the current pair is
    std::uint64_t key_at = 0;   // map: absolute offset of a string key
    std::uint32_t key_len = 0;  // map: its length
    bool key_is_text = false;   // map: non-string key, rendered in key_text
    std::string key_text;
  };

  // Input window: data_[0] is absolute offset base_.
  bool ensure(std::size_t n) {
    return static_cast<std::size_t>(end_ - cur_) >= n || refill(n);
  }
  bool refill(std::size_t n);
  std::uint64_t offset() const {
    return base_ + static_cast<std::uint64_t>(cur_ - data_);
  }
  std::uint64_t input_end() const {
    return base_ + static_cast<std::uint64_t>(end_ - data_);
  }
  // Inline: they run for every value; the error paths are not.
  void need(std::size_t n, const char* what) {
    if (!ensure(n)) truncated(what);
  }
  void need_payload(std::uint64_t n, const char* what) {
    if (static_cast<std::uint64_t>(end_ - cur_) < n) need_payload_slow(n, what);
  }
  void need_payload_slow(std::uint64_t n, const char* what);
  [[noreturn]] void truncated(const char* what) const;

  // The event loops are templates over the handler, so that the JSON
  // writer (a final class) is called without virtual dispatch.
  template <class H>
  void read_events(H& out);
  // Inlined into read_events: its call, once per value, cost as much as
  // decoding most values.
  template <class H>
  [[gnu::always_inline]] inline bool read_value(H& out);
  // Inlined too: it runs once per map key.
  template <class H>
  [[gnu::always_inline]] inline Flow read_key(H& out, Frame& f);
  template <class H>
  bool push(H& out, bool is_map, std::uint64_t n, std::uint64_t at);
  template <class H>
  void deliver_ext(H& out, std::int8_t type, std::uint64_t len,
                   const char* what, std::uint64_t at);
  // Inlined into the event loops: they run for every string and key.
  template <class H>
  [[gnu::always_inline]] inline void deliver_string(H& out, std::uint64_t len,
                                                    const char* what);
  // Checks the string's UTF-8; `plain` tells whether JSON must escape it.
  [[gnu::always_inline]] inline std::string_view take_string(std::uint64_t len,
                                                             const char* what,
                                                             bool& plain);
  void skip_values(std::uint64_t count);
  void render_key(std::string& out, std::size_t depth, bool top);
  void check_key_text(const std::string& text) const;
  std::string pointer() const;

  Source* stream_ = nullptr;  // null when the whole input is in memory
  Source* mapped_ = nullptr;  // a file read through Source::window()
  std::string buf_;           // streaming buffer
  const std::uint8_t* data_ = nullptr;
  const std::uint8_t* cur_ = nullptr;
  const std::uint8_t* end_ = nullptr;
  std::uint64_t base_ = 0;
  std::uint64_t doc_start_ = 0;    // bytes before it may be discarded
  std::uint64_t value_start_ = 0;  // offset of the value being read
  std::uint64_t key_start_ = 0;    // offset of the non-string key rendered
  bool eof_ = false;
  std::uint32_t max_depth_;
  bool keys_error_ = false;
  std::vector<Frame> stack_;
  std::size_t depth_ = 0;  // live frames in stack_ (frames are reused)
  // The handler the events go to, when a writer that streams arrays is
  // at the end of its chain (Handler::takes_array_count()): told the
  // count of a top-level array between its items (top_array_items()).
  Handler* counted_ = nullptr;
  // A mapped input's pages behind the values read go back once cur_ is
  // past next_give_ (Source::give_back()); for a pipe, whose bytes move,
  // never.
  static constexpr std::size_t kGiveStep = std::size_t{4} << 20;
  std::uintptr_t next_give_ = UINTPTR_MAX;
  std::uintptr_t step_on(const std::uint8_t* p) const;
  [[gnu::noinline]] void give_back();
};

}  // namespace jbx::msgpack
