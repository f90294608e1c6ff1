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

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/byte_buffer.h"
#include "core/events.h"
#include "core/options.h"
#include "core/sink.h"
#include "formats/format.h"

namespace jbx::msgpack {

class MsgpackWriter final : public Writer {
 public:
  /// Writes to `out`, which must outlive the writer.
  MsgpackWriter(Sink& out, const WriteOptions& options);

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
  /// Throws Error(lossy) with the value's JSON Pointer (no offset: the
  /// reader adds its own) when the number has no exact MessagePack form and
  /// the policy is error.
  void number_text(std::string_view text) override;
  void string_value(std::string_view utf8) override;
  void bytes_value(std::span<const std::uint8_t> bytes) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  /// Writes the document's bytes to the sink. Throws Error(io) from it.
  void end_document() override;

  /// A JSON decimal (fraction or exponent) whose correctly rounded double
  /// `nearest` (finite, not zero) the caller has computed already: the
  /// same bytes as number_text(text), without parsing it again.
  void decimal_value(std::string_view text, double nearest) {
    if (options_.exact_decimals) return number_text(text);
    begin_value();
    write_double(nearest);
  }
  /// Expects documents of about `bytes` bytes of output (the input's size
  /// is a good bound): one allocation up front instead of repeated growth.
  void size_hint(std::size_t bytes) { body_.reserve(bytes); }

 private:
  // Containers are written with their element counts up front, which only
  // their end tells. Each takes one byte in body_, filled in when it ends
  // with at most 15 elements (fixarray, fixmap: most do); a longer header
  // is recorded as a Patch and spliced in by end_document().
  struct Container {
    std::size_t pos;  // in body_, the header's byte
    std::uint64_t count = 0;
    bool is_map;
    std::size_t key = 0;  // in body_, the current key's string (maps)
  };
  struct Patch {
    std::size_t pos;
    std::uint64_t count;
    bool is_map;
  };

  char* grow(std::size_t n) { return body_.grow(n); }
  void put(std::uint8_t b) { *grow(1) = static_cast<char>(b); }
  void begin_value();
  void write_uint(std::uint64_t v);
  void write_int(std::int64_t v);
  void write_raw_string(std::uint8_t fix, std::uint8_t b8, std::string_view s);
  void write_double(double d);
  void write_ext(std::int8_t type, std::span<const std::uint8_t> payload);
  // `why` follows the number in the message of a refusal.
  void lossy(std::string_view text,
             std::string_view why = "has no exact MessagePack form");
  Flow begin(bool is_map);
  void end();
  std::string pointer() const;

  Sink& out_;
  WriteOptions options_;
  ByteBuffer body_;
  std::vector<Container> open_;  // the open containers, outermost first
  std::vector<Patch> patches_;   // headers longer than one byte
  int pending_ext_ = 256;        // extension type for the next bytes
};

namespace detail {

/// Decimal `text` (RFC 8259 number syntax) equals the double `d` exactly.
bool decimal_equals_double(std::string_view text, double d);

}  // namespace detail
}  // namespace jbx::msgpack
