// Writes jbx events as CBOR (RFC 8949), one data item per document, so a
// stream of documents becomes a CBOR sequence (RFC 8742). Containers get
// definite lengths: each document is buffered and the counts are filled in
// when it ends. Not for reading (cbor_reader.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/byte_buffer.h"
#include "core/error.h"
#include "core/options.h"
#include "formats/format.h"

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
  /// Throws Error(lossy) for a decimal beyond the float64 range without
  /// WriteOptions::exact_decimals, Error(unsupported) for an exponent
  /// beyond int64 with it, or for an integer or decimal mantissa of more
  /// than cbor::detail::kMaxBignumDigits digits.
  void number_text(std::string_view text) override;
  /// A JSON decimal (fraction or exponent) whose correctly rounded double
  /// `nearest` (finite, not zero) the caller has computed already: the
  /// same bytes as number_text(text), without parsing it again.
  void decimal_value(std::string_view text, double nearest) {
    if (opts_.exact_decimals) return number_text(text);
    value_start();
    float_value(nearest);
  }
  void string_value(std::string_view utf8) override;
  void bytes_value(std::span<const std::uint8_t> bytes) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  /// Writes the buffered document to the sink (Sink errors propagate).
  void end_document() override;

  /// Expects documents of about `bytes` bytes of output (the input's size
  /// is a good bound): one allocation up front instead of repeated growth.
  void size_hint(std::size_t bytes) { buf_.reserve(bytes); }

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
  };
  struct Patch {
    std::size_t pos;
    std::uint64_t count;
    std::uint8_t major;
  };

  void value_start();
  /// The JSON Pointer of the value being written, from the open containers.
  std::string pointer() const;
  /// Throws Error(code, message) with the pointer of the value.
  [[noreturn]] void refuse(Errc code, std::string message) const;
  void head(std::uint8_t major, std::uint64_t arg);
  void text(std::uint8_t major, std::string_view bytes);
  bool number_fast(std::string_view text);
  void begin(std::uint8_t major);
  void end();
  void sort_entries(const Open& o);
  void float_value(double v);
  void integer_text(bool negative, std::string_view digits);
  void decimal_fraction(bool negative, std::string_view int_digits,
                        std::string_view frac_digits, std::string_view exp);

  Sink& out_;
  WriteOptions opts_;  // a copy: callers may pass a temporary
  ByteBuffer buf_;
  std::vector<Open> stack_;
  std::vector<Patch> patches_;  // heads longer than one byte (preferred)
  std::vector<std::size_t> entry_starts_;
  bool counted_ = false;  // an annotation already counted the next value
};

}  // namespace jbx
