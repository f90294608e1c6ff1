// Writes jbx events as CBOR (RFC 8949), one data item per document, so a
// stream of documents becomes a CBOR sequence (RFC 8742). Containers get
// definite lengths: each document is buffered and the counts are filled in
// when it ends. Not for reading (cbor_reader.h).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/byte_buffer.h"
#include "core/error.h"
#include "core/options.h"
#include "formats/format.h"
#include "formats/patched_buffer.h"

namespace jbx {

/// Encodes events with preferred serialisation (shortest heads), or the
/// core deterministic encoding of RFC 8949 4.2.1 with
/// WriteOptions::canonical (also shortest exact floats and map keys sorted
/// by their encoded bytes). The value mapping is documented in
/// cbor_format.h.
class CborWriter final : public Writer {
 public:
  /// Keeps references to `out` and `o`; both must outlive the writer.
  CborWriter(Sink& out, const WriteOptions& o);

  // The events the JSON reader sends most are inline, as in json_writer.h:
  // declared inline so that uint_value() is the key function, and the
  // vtable with the out-of-line copies it needs is emitted only in
  // cbor_writer.cpp, never in the AVX2 build of the simdjson walk.
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
  /// Throws Error(lossy) for a decimal beyond the float64 range without
  /// WriteOptions::exact_decimals, Error(unsupported) for an exponent
  /// beyond int64 with it, or for an integer or decimal mantissa of more
  /// than cbor::detail::kMaxBignumDigits digits.
  void number_text(std::string_view text) override;
  /// A JSON decimal (fraction or exponent) whose correctly rounded double
  /// `nearest` (finite, not zero) the caller has computed already: the
  /// same bytes as number_text(text), without parsing it again.
  inline void decimal_value(std::string_view text, double nearest);
  /// A JSON integer within int64 that the caller has parsed: the same
  /// bytes as number_text() of its text.
  inline void json_integer(std::int64_t v);
  inline void string_value(std::string_view utf8) override;
  /// key() and string_value() for text that may be read
  /// detail::kWordCopy bytes from its start (the JSON reader's padded
  /// input): a short one is copied in one block.
  inline Flow padded_key(std::string_view name);
  inline void padded_string(std::string_view utf8);
  void bytes_value(std::span<const std::uint8_t> bytes) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  /// Writes the buffered document to the sink (Sink errors propagate).
  void end_document() override;

  /// Expects documents of about `bytes` bytes of output (the input's size
  /// is a good bound): one allocation up front instead of repeated growth.
  void size_hint(std::size_t bytes) { buf_.reserve(bytes); }

  /// For the JSON reader's walk of a large array document, between events:
  /// the array being written has `n` elements (counted ahead in its text).
  /// From the first call after an element has begun, the array's head is
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
  const WriteOptions& options() const { return opts_; }
  /// Appends `docs`: whole documents, each ended, that a writer made
  /// with this one's options wrote. Only between documents.
  void append_documents(std::string_view docs) { out_.write(docs); }

 private:
  // In preferred mode a container's head takes one byte in buf_ at `pos`,
  // written in place when it ends with fewer than 24 items (most do); a
  // longer head is recorded as a Patch and spliced in by end_document. In
  // canonical mode the head is inserted at `pos` when the container ends.
  struct Open {
    std::size_t pos;          // where the head goes in buf_
    std::uint64_t count = 0;  // items, or pairs for a map
    std::uint8_t major;       // 4 array, 5 map
    std::size_t entries = 0;  // first index in entry_starts_ (canonical)
    std::size_t key = 0;      // map: where the current key is in buf_
    // patches_.size() when it began: its own patch goes there, before
    // those of the containers inside it, so that patches_ stays in
    // document order.
    std::size_t patch_at = 0;
  };
  struct Patch {
    std::size_t pos;
    std::uint64_t count;
    std::uint8_t major;
  };

  inline void value_start();
  /// The JSON Pointer of the value being written, from the open containers.
  std::string pointer() const;
  /// Throws Error(code, message) with the pointer of the value.
  [[noreturn]] void refuse(Errc code, std::string message) const;
  inline void head(std::uint8_t major, std::uint64_t arg);
  void text(std::uint8_t major, std::string_view bytes);
  inline void short_text(std::string_view s, bool padded);
  inline Flow counted_key();
  bool number_fast(std::string_view text);
  inline void begin(std::uint8_t major);
  inline void end();
  void end_canonical(const Open& o);
  void long_head(const Open& o);
  // Writes buf_[from, cut) to the sink with the patches before `cut`, then
  // drops buf_[0, cut) and moves the positions after it.
  void flush_front(std::size_t from, std::size_t cut);
  void grow_stack();
  void note_entry();
  void sort_entries(const Open& o);
  inline void float_value(double v);
  void float_canonical(double v);
  void integer_text(bool negative, std::string_view digits);
  void decimal_fraction(bool negative, std::string_view int_digits,
                        std::string_view frac_digits, std::string_view exp);

  Sink& out_;
  WriteOptions opts_;  // a copy: callers may pass a temporary
  ByteBuffer buf_;
  // [0, depth_) are the open containers, outermost first; sized by
  // grow_stack() only, so that the inline events never reallocate.
  std::vector<Open> stack_;
  std::size_t depth_ = 0;
  bool in_array_ = false;       // the innermost open container is an array
  std::vector<Patch> patches_;  // heads longer than one byte (preferred)
  std::vector<std::size_t> entry_starts_;
  bool counted_ = false;  // an annotation already counted the next value
  // stream_array(): the top-level array is streamed with this many
  // elements; its head is written already.
  detail::StreamedArray streamed_;
};

// The inline events are always inlined (see core/byte_buffer.h for why).

// Every value (or the first annotation before it) counts once in the
// enclosing array; map pairs are counted by key().
[[gnu::always_inline]] inline void CborWriter::value_start() {
  if (counted_) {
    counted_ = false;
    return;
  }
  if (in_array_) ++stack_[depth_ - 1].count;
}

// A head with the shortest argument (preferred serialisation).
[[gnu::always_inline]] inline void CborWriter::head(std::uint8_t major,
                                                    std::uint64_t arg) {
  char* p = buf_.room(9);
  const auto ib = static_cast<unsigned>(major << 5);
  if (arg < 24) {
    p[0] = static_cast<char>(ib | arg);
    buf_.commit(p + 1);
  } else if (arg <= 0xff) {
    p[0] = static_cast<char>(ib | 24);
    p[1] = static_cast<char>(arg);
    buf_.commit(p + 2);
  } else if (arg <= 0xffff) {
    p[0] = static_cast<char>(ib | 25);
    detail::store_be16(p + 1, static_cast<std::uint16_t>(arg));
    buf_.commit(p + 3);
  } else if (arg <= 0xffffffffu) {
    p[0] = static_cast<char>(ib | 26);
    detail::store_be32(p + 1, static_cast<std::uint32_t>(arg));
    buf_.commit(p + 5);
  } else {
    p[0] = static_cast<char>(ib | 27);
    detail::store_be64(p + 1, arg);
    buf_.commit(p + 9);
  }
}

// A text string, its head and bytes in one step when shorter than 24.
[[gnu::always_inline]] inline void CborWriter::short_text(std::string_view s,
                                                          bool padded) {
  const std::size_t n = s.size();
  if (n >= 24) {
    text(3, s);
    return;
  }
  char* p = buf_.room(1 + detail::kWordCopy);
  p[0] = static_cast<char>(0x60 | n);
  buf_.commit(detail::copy_text(p + 1, s, padded));
}

[[gnu::always_inline]] inline void CborWriter::begin(std::uint8_t major) {
  value_start();
  if (depth_ == stack_.size()) grow_stack();
  stack_[depth_++] = {buf_.size(),          0, major,
                      entry_starts_.size(), 0, patches_.size()};
  in_array_ = major == 4;
  if (!opts_.canonical) buf_.push_back(0);  // the head's byte, set by end()
}

[[gnu::always_inline]] inline void CborWriter::end() {
  const Open& o = stack_[--depth_];
  in_array_ = depth_ != 0 && stack_[depth_ - 1].major == 4;
  if (depth_ == 0 && streamed_.on) [[unlikely]] {
    streamed_.end(o.count);
  } else if (opts_.canonical) {
    end_canonical(o);
  } else if (o.count < 24) {
    buf_[o.pos] = static_cast<char>((o.major << 5) | o.count);
  } else {
    long_head(o);
  }
}

[[gnu::always_inline]] inline Flow CborWriter::begin_object() {
  begin(5);
  return Flow::visit;
}
[[gnu::always_inline]] inline Flow CborWriter::begin_array() {
  begin(4);
  return Flow::visit;
}
[[gnu::always_inline]] inline void CborWriter::end_object() { end(); }
[[gnu::always_inline]] inline void CborWriter::end_array() { end(); }

// Counts the pair whose key comes next.
[[gnu::always_inline]] inline Flow CborWriter::counted_key() {
  Open& o = stack_[depth_ - 1];
  ++o.count;
  o.key = buf_.size();
  if (opts_.canonical) note_entry();
  return Flow::visit;
}

[[gnu::always_inline]] inline Flow CborWriter::key(std::string_view name) {
  const Flow f = counted_key();
  short_text(name, false);
  return f;
}

[[gnu::always_inline]] inline Flow CborWriter::padded_key(
    std::string_view name) {
  const Flow f = counted_key();
  short_text(name, true);
  return f;
}

[[gnu::always_inline]] inline void CborWriter::string_value(
    std::string_view utf8) {
  value_start();
  short_text(utf8, false);
}

[[gnu::always_inline]] inline void CborWriter::padded_string(
    std::string_view utf8) {
  value_start();
  short_text(utf8, true);
}

[[gnu::always_inline]] inline void CborWriter::null_value() {
  value_start();
  buf_.push_back(static_cast<char>(0xf6));
}

[[gnu::always_inline]] inline void CborWriter::bool_value(bool b) {
  value_start();
  buf_.push_back(static_cast<char>(b ? 0xf5 : 0xf4));
}

[[gnu::always_inline]] inline void CborWriter::int_value(std::int64_t v) {
  value_start();
  if (v >= 0) {
    head(0, static_cast<std::uint64_t>(v));
  } else {
    // -1 - v without overflow for INT64_MIN.
    head(1, static_cast<std::uint64_t>(-(v + 1)));
  }
}

[[gnu::always_inline]] inline void CborWriter::json_integer(std::int64_t v) {
  int_value(v);
}

[[gnu::always_inline]] inline void CborWriter::float_value(double v) {
  if (opts_.canonical) {
    float_canonical(v);
    return;
  }
  char* p = buf_.grow(9);
  p[0] = static_cast<char>(0xfb);
  detail::store_be64(p + 1, std::bit_cast<std::uint64_t>(v));
}

[[gnu::always_inline]] inline void CborWriter::decimal_value(
    std::string_view text, double nearest) {
  if (opts_.exact_decimals) return number_text(text);
  value_start();
  float_value(nearest);
}

}  // namespace jbx
