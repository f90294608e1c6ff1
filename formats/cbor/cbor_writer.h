// Writes jbx events as CBOR (RFC 8949), one data item per document, so a
// stream of documents becomes a CBOR sequence (RFC 8742). Containers get
// definite lengths: each document is buffered and the counts are filled in
// when it ends. Not for reading (cbor_reader.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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
  void string_value(std::string_view utf8) override;
  void bytes_value(std::span<const std::uint8_t> bytes) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  /// Writes the buffered document to the sink (Sink errors propagate).
  void end_document() override;

 private:
  struct Open {
    std::size_t pos;          // where the head goes in buf_
    std::uint64_t count = 0;  // items, or pairs for a map
    std::uint8_t major;       // 4 array, 5 map
    std::size_t patch = 0;    // index in patches_ (preferred mode)
    std::size_t entries = 0;  // first index in entry_starts_ (canonical)
  };
  struct Patch {
    std::size_t pos;
    std::uint64_t count;
    std::uint8_t major;
  };

  void value_start();
  void head(std::uint8_t major, std::uint64_t arg);
  void begin(std::uint8_t major);
  void end();
  void sort_entries(const Open& o);
  void float_value(double v);
  void integer_text(bool negative, std::string_view digits);
  void decimal_fraction(bool negative, std::string_view int_digits,
                        std::string_view frac_digits, std::string_view exp);

  Sink& out_;
  WriteOptions opts_;  // a copy: callers may pass a temporary
  std::string buf_;
  std::vector<Open> stack_;
  std::vector<Patch> patches_;
  std::vector<std::size_t> entry_starts_;
  bool counted_ = false;  // an annotation already counted the next value
};

}  // namespace jbx
