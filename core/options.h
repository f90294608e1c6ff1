// Plain option structs that cli/ fills from flags and passes down. Each
// field documents its effect; defaults are what `jbx` does with no flags.
#pragma once

#include <cstdint>

namespace jbx {

struct ReadOptions {
  /// Containers nested deeper than this are an Errc::depth_limit error,
  /// never a stack overflow. Documented in jbx(1).
  std::uint32_t max_depth = 1024;
  /// Input is JSON Lines: one document per line, each error reported and
  /// the run continues with the next line where the caller wants that.
  bool lines = false;
  /// --keys=error: a map key that is not a text string (CBOR, MessagePack)
  /// is an Errc::type_mismatch error instead of being read as its JSON text.
  bool keys_error = false;
};

/// How binary values without a JSON equivalent become JSON text.
enum class BytesEncoding : std::uint8_t { base64, base64url, hex, array };
/// Where the target cannot hold a number exactly (MessagePack decimals).
enum class LossyPolicy : std::uint8_t { error, string, nearest };
/// NaN and infinities written to JSON.
enum class NanPolicy : std::uint8_t { error, null, string };

struct WriteOptions {
  // --- JSON text ---
  int indent = 2;        // spaces per level when pretty
  bool tab = false;      // indent with one tab per level
  bool compact = false;  // no whitespace at all
  bool ascii = false;    // non-ASCII as \uXXXX (surrogate pairs above BMP)
  bool color = false;    // ANSI colours, jq's default palette
  bool lines = false;    // one compact document per line (JSON Lines)

  // --- conversions between formats ---
  bool exact_decimals = false;  // decimals to JSONB BigDecimal / CBOR tag 4
  LossyPolicy lossy = LossyPolicy::error;
  BytesEncoding bytes = BytesEncoding::base64;
  NanPolicy nan = NanPolicy::error;
  bool drop_type_names = false;  // JSONB type names / CBOR tags in JSON
  bool keys_error = false;       // refuse non-string map keys
  bool canonical = false;        // RFC 8949 4.2 deterministic CBOR
};

}  // namespace jbx
