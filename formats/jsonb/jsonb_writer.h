// Writes fastjson2's JSONB (../shared/spec/jsonb.md) from events, as
// compactly as fastjson2 does: small integers and short strings in the tag
// byte, its string-encoding heuristic, its number-family choices for JSON
// input (spec 15.1). Not a reader (jsonb_reader.h); no symbol tables for
// keys (fastjson2 never uses them for map keys either).
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/byte_buffer.h"
#include "core/options.h"
#include "core/sink.h"
#include "formats/format.h"
#include "formats/patched_buffer.h"

namespace jbx {

/// One JSONB value per document, back to back. Mapping: int/uint ->
/// smallest int32/int64 form (BigInteger above int64); number_text ->
/// integers in the family fastjson2's JSON parser gives them, BigInteger
/// beyond int64; decimals as double, or as BigDecimal with
/// WriteOptions::exact_decimals (and always when the double would overflow
/// or underflow to an infinity or zero the text does not say), but a
/// negative zero, which BigDecimal lacks, as the double -0.0; double ->
/// fastjson2's double forms, except that -0.0 keeps its sign (fastjson2
/// writes 0.0); strings -> Latin-1 tags when every character is at most
/// U+00FF, else fastjson2's UTF-16LE / UTF-8 choice; bytes -> binary;
/// timestamps -> the matching date tag; type-name annotations -> typed
/// values (0x92) with in-document symbol ids. CBOR-tag annotations have no
/// JSONB form and are dropped. A document is buffered until it ends, since
/// an array's element count precedes its elements, unless it is a large
/// array whose count is known ahead (stream_array()).
class JsonbWriter final : public Writer {
 public:
  JsonbWriter(Sink& out, const WriteOptions& o);

  // The events the JSON reader sends most are inline, as in json_writer.h:
  // declared inline so that uint_value() is the key function, and the
  // vtable with the out-of-line copies it needs is emitted only in
  // jsonb_writer.cpp, never in the AVX2 build of the simdjson walk.
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
  /// Throws Error(unsupported) for a number beyond jbx's big-number limits
  /// (jsonb_number.h) or a decimal exponent outside int32.
  void number_text(std::string_view text) override;
  inline void string_value(std::string_view utf8) override;
  void bytes_value(std::span<const std::uint8_t> bytes) override;
  /// Throws Error(unsupported) for a date-time whose year JSONB cannot
  /// hold (0..32767 for date-times, -32768..32767 for dates).
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  /// Writes the buffered document to the sink.
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
  /// input): a short ASCII one is checked and copied in one block.
  inline Flow padded_key(std::string_view name);
  inline void padded_string(std::string_view utf8);
  /// Expects documents of about `bytes` bytes of output (the input's size
  /// is a good bound): one allocation up front instead of repeated growth.
  void size_hint(std::size_t bytes) { buf_.reserve(bytes); }

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
  const WriteOptions& options() const { return opt_; }
  /// Appends `docs`: whole documents, each ended, that a writer made
  /// with this one's options wrote. Only between documents.
  void append_documents(std::string_view docs) { out_.write(docs); }

 private:
  // An array's header takes one byte in buf_, set when the array ends with
  // fewer than 16 elements (most do); a longer header is recorded as a
  // Patch and spliced in by end_document.
  struct Frame {
    // Offset of the array header's byte, or of an object's first byte.
    std::size_t header;
    std::uint64_t count;  // elements so far
    // patches_.size() when it began: its own patch goes there, before
    // those of the arrays inside it, so that patches_ stays in document
    // order.
    std::size_t patch_at;
    bool array;
  };
  struct Patch {
    std::size_t pos;
    std::int32_t count;
  };
  // Spec 4.2's INT encoding of `v`; returns its length, at most 5.
  static inline std::size_t encode_int32(char* out, std::int32_t v);
  // An array header of `count` elements in its long form (0xa4, then the
  // count); returns its length, at most 6.
  static std::size_t long_header(char* out, std::int32_t count) {
    out[0] = static_cast<char>(0xa4);
    return 1 + encode_int32(out + 1, count);
  }
  inline void value_start();
  [[gnu::always_inline]] void put(std::uint8_t b) {
    buf_.push_back(static_cast<char>(b));
  }
  inline void push(Frame f);
  void grow_stack();
  void long_header(const Frame& f);
  // Writes buf_[from, cut) to the sink with the patches before `cut`, then
  // drops buf_[0, cut) and moves the positions after it.
  void flush_front(std::size_t from, std::size_t cut);
  [[noreturn]] static void too_long(std::uint64_t count);
  void put_be(std::uint64_t v, int bytes);
  inline void put_int32(std::int32_t v);
  inline void put_int64(std::int64_t v);
  inline void put_text(std::string_view utf8, bool padded);
  void put_string(std::string_view utf8);
  void put_double(double v);
  void put_bigint(std::string_view digits, bool negative);
  void put_decimal(std::string_view text);
  void put_local(std::int64_t seconds, std::uint32_t nanos, bool with_date,
                 std::uint8_t tag);

  Sink& out_;
  WriteOptions opt_;
  ByteBuffer buf_;  // the document being written
  // [0, depth_) are the open containers, outermost first; sized by
  // grow_stack() only, so that the inline events never reallocate.
  std::vector<Frame> stack_;
  std::size_t depth_ = 0;
  bool in_array_ = false;       // the innermost open container is an array
  std::vector<Patch> patches_;  // headers longer than one byte, in order
  std::unordered_map<std::string, std::int32_t> type_ids_;
  std::string scratch_;
  std::u16string utf16_;    // put_string's decoded text
  bool annotated_ = false;  // a type name was written for the next value
  // stream_array(): the top-level array is streamed with this many
  // elements; its header is written already.
  detail::StreamedArray streamed_;
};

// The inline events are always inlined (see core/byte_buffer.h for why).

[[gnu::always_inline]] inline std::size_t JsonbWriter::encode_int32(
    char* out, std::int32_t v) {
  if (v >= -16 && v <= 47) {
    out[0] = static_cast<char>(v);
    return 1;
  }
  if (v >= -2048 && v <= 2047) {
    out[0] = static_cast<char>(0x38 + (v >> 8));
    out[1] = static_cast<char>(v);
    return 2;
  }
  if (v >= -262144 && v <= 262143) {
    out[0] = static_cast<char>(0x44 + (v >> 16));
    out[1] = static_cast<char>(v >> 8);
    out[2] = static_cast<char>(v);
    return 3;
  }
  out[0] = static_cast<char>(0x48);
  detail::store_be32(out + 1, static_cast<std::uint32_t>(v));
  return 5;
}

[[gnu::always_inline]] inline void JsonbWriter::value_start() {
  if (annotated_) {  // the typed value was counted at its type name
    annotated_ = false;
    return;
  }
  if (in_array_) ++stack_[depth_ - 1].count;
}

[[gnu::always_inline]] inline void JsonbWriter::push(Frame f) {
  if (depth_ == stack_.size()) grow_stack();
  stack_[depth_++] = f;
  in_array_ = f.array;
}

[[gnu::always_inline]] inline void JsonbWriter::put_int32(std::int32_t v) {
  char* p = buf_.room(5);
  buf_.commit(p + encode_int32(p, v));
}

// Spec 4.3's LONG encoding: the value in the tag from -8 to 15, else the
// shortest of 2, 3, 5 or 9 bytes.
[[gnu::always_inline]] inline void JsonbWriter::put_int64(std::int64_t v) {
  char* p = buf_.room(9);
  if (v >= -8 && v <= 15) {
    p[0] = static_cast<char>(0xe0 + v);
    buf_.commit(p + 1);
  } else if (v >= -2048 && v <= 2047) {
    p[0] = static_cast<char>(0xd0 + (v >> 8));
    p[1] = static_cast<char>(v);
    buf_.commit(p + 2);
  } else if (v >= -262144 && v <= 262143) {
    p[0] = static_cast<char>(0xc4 + (v >> 16));
    p[1] = static_cast<char>(v >> 8);
    p[2] = static_cast<char>(v);
    buf_.commit(p + 3);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    p[0] = static_cast<char>(0xbf);
    detail::store_be32(p + 1, static_cast<std::uint32_t>(v));
    buf_.commit(p + 5);
  } else {
    p[0] = static_cast<char>(0xbe);
    detail::store_be64(p + 1, static_cast<std::uint64_t>(v));
    buf_.commit(p + 9);
  }
}

// Short ASCII text (the common case) is stored as it is, its length in the
// tag; anything else takes put_string's general path.
[[gnu::always_inline]] inline void JsonbWriter::put_text(std::string_view s,
                                                         bool padded) {
  const std::size_t n = s.size();
  if (padded && n <= detail::kWordCopy) {
    // The high bit of each byte, for the bytes of the text only.
#if defined(__SSE2__)
    const auto* q = reinterpret_cast<const __m128i*>(s.data());
    const auto high =
        static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_loadu_si128(q))) |
        static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_loadu_si128(q + 1)))
            << 16;
    const std::uint32_t mine =
        n == 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << n) - 1;
    if ((high & mine) == 0) {
      char* p = buf_.room(1 + detail::kWordCopy);
      p[0] = static_cast<char>(0x49 + n);
      buf_.commit(detail::copy_text(p + 1, s, true));
      return;
    }
#endif
  }
  put_string(s);
}

[[gnu::always_inline]] inline Flow JsonbWriter::begin_object() {
  value_start();
  push({buf_.size(), 0, 0, false});
  put(0xa6);
  return Flow::visit;
}

[[gnu::always_inline]] inline Flow JsonbWriter::key(std::string_view name) {
  put_string(name);
  return Flow::visit;
}

[[gnu::always_inline]] inline Flow JsonbWriter::padded_key(
    std::string_view name) {
  put_text(name, true);
  return Flow::visit;
}

[[gnu::always_inline]] inline void JsonbWriter::end_object() {
  --depth_;
  in_array_ = depth_ != 0 && stack_[depth_ - 1].array;
  put(0xa5);
}

[[gnu::always_inline]] inline Flow JsonbWriter::begin_array() {
  value_start();
  push({buf_.size(), 0, patches_.size(), true});
  put(0);  // the header's byte, set by end_array
  return Flow::visit;
}

[[gnu::always_inline]] inline void JsonbWriter::end_array() {
  const Frame& f = stack_[--depth_];
  in_array_ = depth_ != 0 && stack_[depth_ - 1].array;
  if (depth_ == 0 && streamed_.on) [[unlikely]] {
    streamed_.end(f.count);
  } else if (f.count < 16) {
    buf_[f.header] = static_cast<char>(0x94 + f.count);
  } else {
    long_header(f);
  }
}

[[gnu::always_inline]] inline void JsonbWriter::null_value() {
  value_start();
  put(0xaf);
}

[[gnu::always_inline]] inline void JsonbWriter::bool_value(bool b) {
  value_start();
  put(b ? 0xb1 : 0xb0);
}

[[gnu::always_inline]] inline void JsonbWriter::int_value(std::int64_t v) {
  value_start();
  if (v >= INT32_MIN && v <= INT32_MAX) {
    put_int32(static_cast<std::int32_t>(v));
  } else {
    put_int64(v);
  }
}

// fastjson2's JSON parser: int32 except -2^31 (a Long), int64 except -2^63
// (a BigInteger); spec 15.1.
[[gnu::always_inline]] inline void JsonbWriter::json_integer(std::int64_t v) {
  value_start();
  if (v > INT32_MIN && v <= INT32_MAX) {
    put_int32(static_cast<std::int32_t>(v));
  } else if (v == INT64_MIN) {
    put(0xba);
    put_int64(v);
  } else {
    put_int64(v);
  }
}

[[gnu::always_inline]] inline void JsonbWriter::string_value(
    std::string_view utf8) {
  value_start();
  put_string(utf8);
}

[[gnu::always_inline]] inline void JsonbWriter::padded_string(
    std::string_view utf8) {
  value_start();
  put_text(utf8, true);
}

[[gnu::always_inline]] inline void JsonbWriter::decimal_value(
    std::string_view text, double nearest) {
  if (opt_.exact_decimals) return number_text(text);
  value_start();
  put_double(nearest);
}

}  // namespace jbx
