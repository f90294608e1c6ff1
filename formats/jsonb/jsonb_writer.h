// Writes fastjson2's JSONB (../shared/spec/jsonb.md) from events, as
// compactly as fastjson2 does: small integers and short strings in the tag
// byte, its string-encoding heuristic, its number-family choices for JSON
// input (spec 15.1). Not a reader (jsonb_reader.h); no symbol tables for
// keys (fastjson2 never uses them for map keys either).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/byte_buffer.h"
#include "core/options.h"
#include "core/sink.h"
#include "formats/format.h"

namespace jbx {

/// One JSONB value per document, back to back. Mapping: int/uint ->
/// smallest int32/int64 form (BigInteger above int64); number_text ->
/// integers in the family fastjson2's JSON parser gives them, BigInteger
/// beyond int64; decimals as double, or as BigDecimal with
/// WriteOptions::exact_decimals (and always when the double would overflow
/// or underflow to an infinity or zero the text does not say); double ->
/// fastjson2's double forms, except that -0.0 keeps its sign (fastjson2
/// writes 0.0); strings -> Latin-1 tags when every character is at most
/// U+00FF, else fastjson2's UTF-16LE / UTF-8 choice; bytes -> binary;
/// timestamps -> the matching date tag; type-name annotations -> typed
/// values (0x92) with in-document symbol ids. CBOR-tag annotations have no
/// JSONB form and are dropped. A document is buffered until it ends, since
/// an array's element count precedes its elements.
class JsonbWriter final : public Writer {
 public:
  JsonbWriter(Sink& out, const WriteOptions& o);

  Flow begin_object() override;
  Flow key(std::string_view name) override;
  void end_object() override;
  Flow begin_array() override;
  void end_array() override;
  void null_value() override;
  void bool_value(bool b) override;
  void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  void double_value(double v) override;
  /// Throws Error(unsupported) for a number beyond jbx's big-number limits
  /// (jsonb_number.h) or a decimal exponent outside int32.
  void number_text(std::string_view text) override;
  void string_value(std::string_view utf8) override;
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
  void decimal_value(std::string_view text, double nearest) {
    if (opt_.exact_decimals) return number_text(text);
    value_start();
    put_double(nearest);
  }
  /// Expects documents of about `bytes` bytes of output (the input's size
  /// is a good bound): one allocation up front instead of repeated growth.
  void size_hint(std::size_t bytes) { buf_.reserve(bytes); }

 private:
  // An array's header takes one byte in buf_, set when the array ends with
  // fewer than 16 elements (most do); a longer header is recorded as a
  // Patch and spliced in by end_document.
  struct Frame {
    std::size_t header;   // offset of the array header's byte
    std::uint64_t count;  // elements so far
    bool array;
  };
  struct Patch {
    std::size_t pos;
    std::int32_t count;
  };
  void value_start();
  void put(std::uint8_t b) { buf_.push_back(static_cast<char>(b)); }
  void end_frame();
  void put_be(std::uint64_t v, int bytes);
  void put_int32(std::int32_t v);
  void put_int64(std::int64_t v);
  void put_string(std::string_view utf8);
  void put_double(double v);
  void put_bigint(std::string_view digits, bool negative);
  void put_decimal(std::string_view text);
  void put_local(std::int64_t seconds, std::uint32_t nanos, bool with_date,
                 std::uint8_t tag);

  Sink& out_;
  WriteOptions opt_;
  ByteBuffer buf_;  // the document being written
  std::vector<Frame> stack_;
  std::vector<Patch> patches_;  // headers longer than one byte
  std::unordered_map<std::string, std::int32_t> type_ids_;
  std::string scratch_;
  bool annotated_ = false;  // a type name was written for the next value
};

}  // namespace jbx
