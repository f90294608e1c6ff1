// Writes events as MessagePack, one top-level value per document (a JSON
// Lines input becomes a sequence of values). Integers and lengths take their
// smallest encoding; doubles are always float64. Not for reading.
//
// Exactness (WriteOptions, documented in jbx(1) under --lossy):
//   number_text integers within int64/uint64 -> MessagePack integers;
//   integers beyond 64 bits -> the --lossy policy; decimals -> float64, or
//   under --decimals=exact only when that double equals the decimal exactly,
//   else the --lossy policy; a decimal too large for a double (1e400) always
//   goes through the --lossy policy (nearest gives an infinity).
//   timestamp_value instants -> timestamp extension -1 (32, 64 or 96-bit
//   form, the smallest exact one; the zone offset is not kept); local dates
//   and times -> ISO 8601 strings. annotation "msgpack.ext:N" + bytes ->
//   extension N; every other annotation (JSONB type names, CBOR tags) is
//   dropped, since MessagePack has no place for it.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/byte_buffer.h"
#include "core/events.h"
#include "core/options.h"
#include "core/sink.h"
#include "formats/format.h"
#include "formats/patched_buffer.h"

namespace jbx::msgpack {

class MsgpackWriter final : public Writer {
 public:
  /// Writes to `out`, which must outlive the writer.
  MsgpackWriter(Sink& out, const WriteOptions& options);

  // The events the JSON reader sends most are inline, as in json_writer.h:
  // declared inline so that uint_value() is the key function, and the
  // vtable with the out-of-line copies it needs is emitted only in
  // msgpack_writer.cpp, never in the AVX2 build of the simdjson walk.
  inline Flow begin_object() override;
  inline Flow key(std::string_view name) override;
  inline void end_object() override;
  inline Flow begin_array() override;
  inline void end_array() override;
  inline void null_value() override;
  inline void bool_value(bool b) override;
  inline void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  void double_value(double v) override;
  /// Throws Error(lossy) with the value's JSON Pointer (no offset: the
  /// reader adds its own) when the number has no exact MessagePack form and
  /// the policy is error.
  void number_text(std::string_view text) override;
  inline void string_value(std::string_view utf8) override;
  void bytes_value(std::span<const std::uint8_t> bytes) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  /// Writes the document's bytes to the sink. Throws Error(io) from it.
  void end_document() override;

  /// A JSON decimal (fraction or exponent) whose correctly rounded double
  /// `nearest` (finite, not zero) the caller has computed already: the
  /// same bytes as number_text(text), without parsing it again.
  inline void decimal_value(std::string_view text, double nearest);
  /// A JSON integer within int64 that the caller has parsed: the same
  /// bytes as number_text() of its text.
  inline void json_integer(std::int64_t v);
  /// key() and string_value() for text that may be read
  /// detail::kWordCopy bytes from its start (the JSON reader's padded
  /// input): a short one is copied in one block.
  inline Flow padded_key(std::string_view name);
  inline void padded_string(std::string_view utf8);
  /// Expects documents of about `bytes` bytes of output (the input's size
  /// is a good bound): one allocation up front instead of repeated growth.
  void size_hint(std::size_t bytes) { body_.reserve(bytes); }

  /// For the JSON reader's walk of a large array document, between events:
  /// the array being written has `n` elements (counted ahead in its text).
  /// From the first call after an element has begun, the array's header is
  /// written with that count, and at each call the elements complete go to
  /// the sink once they make `block` bytes, so that the document is not
  /// held whole. The bytes are those of the held document. An array that
  /// ends with another count is an error (Errc::syntax), as is the
  /// document ending inside it.
  void stream_array(std::uint64_t n, std::size_t block = kStreamBlock);
  static constexpr std::size_t kStreamBlock = std::size_t{1} << 20;
  /// stream_array() of a binary reader's top-level array.
  void top_array_items(std::uint64_t count) override { stream_array(count); }
  bool takes_array_count() const override { return true; }
  void abandon() override { streamed_.abandon(out_); }
  const WriteOptions& options() const { return options_; }
  /// Appends `docs`: whole documents, each ended, that a writer made
  /// with this one's options wrote. Only between documents.
  void append_documents(std::string_view docs) { out_.write(docs); }

 private:
  // Containers are written with their element counts up front, which only
  // their end tells. Each takes one byte in body_, filled in when it ends
  // with at most 15 elements (fixarray, fixmap: most do); a longer header
  // is recorded as a Patch and spliced in by end_document().
  struct Container {
    std::size_t pos;  // in body_, the header's byte
    std::uint64_t count;
    std::size_t key;  // in body_, the current key's string (maps)
    // patches_.size() when it began: its own patch goes there, before
    // those of the containers inside it, so that patches_ stays in
    // document order.
    std::size_t patch_at;
    bool is_map;
  };
  struct Patch {
    std::size_t pos;
    std::uint64_t count;
    bool is_map;
  };
  static constexpr std::uint64_t kMaxCount = 0xffffffffu;

  inline void begin_value();
  inline Flow begin(bool is_map);
  inline void end();
  inline Flow counted_key();
  inline void write_int(std::int64_t v);
  inline void write_double(double d);
  inline void write_str(std::string_view s, bool padded);
  void write_uint(std::uint64_t v);
  void write_raw_string(std::uint8_t fix, std::uint8_t b8, std::string_view s);
  void write_ext(std::int8_t type, std::span<const std::uint8_t> payload);
  // `why` follows the number in the message of a refusal.
  void lossy(std::string_view text,
             std::string_view why = "has no exact MessagePack form");
  [[noreturn]] static void too_long(bool is_map);
  void grow_stack();
  void long_header(const Container& c);
  // Writes body_[from, cut) to the sink with the patches before `cut`,
  // then drops body_[0, cut) and moves the positions after it.
  void flush_front(std::size_t from, std::size_t cut);
  std::string pointer() const;

  Sink& out_;
  WriteOptions options_;
  ByteBuffer body_;
  // [0, depth_) are the open containers, outermost first; sized by
  // grow_stack() only, so that the inline events never reallocate.
  std::vector<Container> open_;
  std::size_t depth_ = 0;
  bool in_array_ = false;       // the innermost open container is an array
  std::vector<Patch> patches_;  // headers longer than one byte, in order
  int pending_ext_ = 256;       // extension type for the next bytes
  // stream_array(): the top-level array is streamed with this many
  // elements; its header is written already.
  detail::StreamedArray streamed_;
};

// The inline events are always inlined (see core/byte_buffer.h for why).

[[gnu::always_inline]] inline void MsgpackWriter::begin_value() {
  pending_ext_ = 256;
  if (!in_array_) return;  // a map counts at its key, the top level never
  Container& c = open_[depth_ - 1];
  if (c.count == kMaxCount) too_long(false);
  ++c.count;
}

[[gnu::always_inline]] inline Flow MsgpackWriter::begin(bool is_map) {
  begin_value();
  if (depth_ == open_.size()) grow_stack();
  open_[depth_++] = Container{body_.size(), 0, 0, patches_.size(), is_map};
  in_array_ = !is_map;
  body_.push_back(0);  // the header's byte, set by end()
  return Flow::visit;
}

[[gnu::always_inline]] inline void MsgpackWriter::end() {
  const Container& c = open_[--depth_];
  if (depth_ == 0 && streamed_.on) [[unlikely]] {
    streamed_.end(c.count);
  } else if (c.count <= 15) {
    body_[c.pos] = static_cast<char>((c.is_map ? 0x80 : 0x90) | c.count);
  } else {
    long_header(c);
  }
  in_array_ = depth_ != 0 && !open_[depth_ - 1].is_map;
}

[[gnu::always_inline]] inline Flow MsgpackWriter::begin_object() {
  return begin(true);
}
[[gnu::always_inline]] inline Flow MsgpackWriter::begin_array() {
  return begin(false);
}
[[gnu::always_inline]] inline void MsgpackWriter::end_object() { end(); }
[[gnu::always_inline]] inline void MsgpackWriter::end_array() { end(); }

// Counts the member whose key comes next.
[[gnu::always_inline]] inline Flow MsgpackWriter::counted_key() {
  Container& c = open_[depth_ - 1];
  if (c.count == kMaxCount) too_long(true);
  ++c.count;
  c.key = body_.size();  // error messages read it back for their JSON Pointer
  return Flow::visit;
}

[[gnu::always_inline]] inline void MsgpackWriter::write_str(std::string_view s,
                                                            bool padded) {
  const std::size_t n = s.size();
  if (n > 31) {
    write_raw_string(0xa0, 0xd9, s);
    return;
  }
  char* p = body_.room(1 + jbx::detail::kWordCopy);
  *p = static_cast<char>(0xa0 | n);  // fixstr
  body_.commit(jbx::detail::copy_text(p + 1, s, padded));
}

[[gnu::always_inline]] inline Flow MsgpackWriter::key(std::string_view name) {
  const Flow f = counted_key();
  write_str(name, false);
  return f;
}

[[gnu::always_inline]] inline Flow MsgpackWriter::padded_key(
    std::string_view name) {
  const Flow f = counted_key();
  write_str(name, true);
  return f;
}

[[gnu::always_inline]] inline void MsgpackWriter::string_value(
    std::string_view utf8) {
  begin_value();
  write_str(utf8, false);
}

[[gnu::always_inline]] inline void MsgpackWriter::padded_string(
    std::string_view utf8) {
  begin_value();
  write_str(utf8, true);
}

[[gnu::always_inline]] inline void MsgpackWriter::null_value() {
  begin_value();
  body_.push_back(static_cast<char>(0xc0));
}

[[gnu::always_inline]] inline void MsgpackWriter::bool_value(bool b) {
  begin_value();
  body_.push_back(static_cast<char>(b ? 0xc3 : 0xc2));
}

// The smallest form: positive or negative fixint, else int or uint of 8 to
// 64 bits (a non-negative value takes the uint forms).
[[gnu::always_inline]] inline void MsgpackWriter::write_int(std::int64_t v) {
  char* p = body_.room(9);
  if (v >= -32 && v <= 0x7f) {
    *p = static_cast<char>(v);  // negative fixint 0xe0..0xff
    body_.commit(p + 1);
    return;
  }
  const bool neg = v < 0;
  const auto u = static_cast<std::uint64_t>(v);
  // The smallest width that holds v: for a negative value its bits beyond
  // the width must all be ones, for a positive one zeros.
  const std::uint64_t m = neg ? ~u : u;
  std::size_t n;
  if (neg ? m < 0x80 : m <= 0xff) {
    p[1] = static_cast<char>(u);
    n = 1;
  } else if (neg ? m < 0x8000 : m <= 0xffff) {
    jbx::detail::store_be16(p + 1, static_cast<std::uint16_t>(u));
    n = 2;
  } else if (neg ? m < 0x80000000u : m <= 0xffffffffu) {
    jbx::detail::store_be32(p + 1, static_cast<std::uint32_t>(u));
    n = 4;
  } else {
    jbx::detail::store_be64(p + 1, u);
    n = 8;
  }
  // uint8..uint64 are 0xcc..0xcf, int8..int64 0xd0..0xd3.
  const int log2 = std::countr_zero(n);
  p[0] = static_cast<char>((neg ? 0xd0 : 0xcc) + log2);
  body_.commit(p + 1 + n);
}

[[gnu::always_inline]] inline void MsgpackWriter::int_value(std::int64_t v) {
  begin_value();
  write_int(v);
}

[[gnu::always_inline]] inline void MsgpackWriter::json_integer(std::int64_t v) {
  begin_value();
  write_int(v);
}

[[gnu::always_inline]] inline void MsgpackWriter::write_double(double d) {
  char* p = body_.grow(9);
  p[0] = static_cast<char>(0xcb);
  jbx::detail::store_be64(p + 1, std::bit_cast<std::uint64_t>(d));
}

[[gnu::always_inline]] inline void MsgpackWriter::decimal_value(
    std::string_view text, double nearest) {
  if (options_.exact_decimals) return number_text(text);
  begin_value();
  write_double(nearest);
}

namespace detail {

/// Decimal `text` (RFC 8259 number syntax) equals the double `d` exactly.
bool decimal_equals_double(std::string_view text, double d);

}  // namespace detail

}  // namespace jbx::msgpack
