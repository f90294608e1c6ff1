// Reads fastjson2's JSONB (../shared/spec/jsonb.md) into events: every tag
// of the spec, strings transcoded to UTF-8, big numbers as exact text,
// dates as Timestamps, type names as annotations, references resolved or
// reported. Not a JSONB writer (jsonb_writer.h) and not a Java object
// mapper: type names are data, never a reason to run anything.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/options.h"
#include "core/source.h"
#include "formats/format.h"

namespace jbx {

/// What the reader does with a reference tag (0x93, fastjson2's
/// ReferenceDetection).
enum class JsonbRefs : std::uint8_t {
  /// Replay the events of the earlier value the path names, as if it had
  /// been written out again. A reference to a value that is not complete
  /// yet (its own container: a cycle) or not read yet is an error.
  resolve,
  /// Emit {"$ref": "PATH"} as fastjson2's JSON rendering does.
  keep,
};

/// JSONB-specific reading options; the defaults are what `jbx` does.
struct JsonbReadOptions {
  /// fastjson2's out-of-band SymbolTable (names as given; the reader sorts
  /// them in Java String order and numbers them from 1). Empty: a negative
  /// symbol id is an error.
  std::vector<std::string> symbol_table;
  JsonbRefs refs = JsonbRefs::resolve;
  /// Content sniffing only: object keys must be strings or symbols (what
  /// fastjson2 writes without WriteClassName), and Latin-1 strings must
  /// not hold control characters other than tab, CR and LF (CBOR and
  /// MessagePack heads read as Latin-1 text are full of them).
  bool sniffing = false;
};

/// Reads the JSONB documents of one input, back to back (jbx writes JSON
/// Lines input as such a sequence). Event mapping: integers of every width
/// -> int_value; BigInteger and BigDecimal -> number_text (BigDecimal as
/// Java's BigDecimal.toString spells it, so "123.4500" keeps its scale and
/// 1E+5 keeps its exponent); float and double -> double_value; strings of
/// every encoding and symbols -> UTF-8; char -> a one-character string;
/// binary and UUID -> bytes_value; date tags -> timestamp_value (Date
/// millisecond tags as instants with precision 3, Instant as precision 9,
/// zone-offset date-times as instants with their offset, region-zone
/// date-times as local date-times carrying the zone id, since jbx does not
/// consult a tz database here); typed values -> annotation(type_name) before
/// the value; non-string object keys -> their decimal or JSON text (an
/// Errc::type_mismatch error with ReadOptions::keys_error).
class JsonbReader final : public Reader {
 public:
  /// Reads `in` through Source::window(): a file is mapped and given back
  /// behind each document, a pipe is held one document at a time. Throws
  /// Error(io) from the Source.
  JsonbReader(Source& in, const ReadOptions& o, JsonbReadOptions jo = {});
  /// Reads bytes in memory that outlive the reader (tests, sniffing).
  JsonbReader(std::string_view data, const ReadOptions& o,
              JsonbReadOptions jo = {});
  ~JsonbReader() override;

  /// Throws Error with binary = true, the absolute byte offset and the JSON
  /// Pointer of the value being read:
  /// unexpected_end (truncated value, or a length beyond the input),
  /// syntax (unassigned tag, malformed field), invalid_utf8 (bad UTF-8,
  /// unpaired UTF-16 surrogate, bad GB18030), depth_limit, unsupported
  /// (unknown external symbol, cyclic or forward reference, oversized big
  /// number).
  bool read_document(Handler& out) override;

  /// Byte offset of the next document.
  std::size_t offset() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  Source* in_ = nullptr;    // null for bytes in memory
  std::uint64_t base_ = 0;  // offset of the window's first byte
};

/// The JSONB content sniffer of the registry (see jsonb_format.cpp).
bool sniff_jsonb(std::string_view head);

}  // namespace jbx
