// Small text renderings the MessagePack reader and writer need where a value
// must become text: non-string map keys (their JSON text), dates without a
// MessagePack form (ISO 8601), JSON Pointer components. Not a JSON writer:
// formats/json owns JSON output.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/events.h"

namespace jbx::msgpack::detail {

/// Appends standard base64 (RFC 4648 section 4, with padding).
void append_base64(std::string& out, std::span<const std::uint8_t> bytes);

/// Appends `s` as a JSON string literal with quotes, minimal escaping.
void append_json_string(std::string& out, std::string_view s);

/// Appends the shortest text that reads back as `d` ("1.0", "1e+300",
/// "NaN", "Infinity", "-Infinity").
void append_double(std::string& out, double d);

/// Appends ISO 8601 as core/datetime writes it: instants in UTC
/// "2018-01-02T03:04:05.678901234Z" or at their offset ("+02:00"), local
/// kinds without a zone, fraction digits in groups of three.
void append_iso8601(std::string& out, const Timestamp& t);

/// Appends "/" and `token` escaped per RFC 6901 (~ as ~0, / as ~1).
void append_pointer_token(std::string& out, std::string_view token);

/// Offset of the first byte of `s` that is not part of valid UTF-8 (RFC
/// 3629: no overlongs, surrogates or values above U+10FFFF), or s.size().
std::size_t find_invalid_utf8(std::string_view s);

/// True when `s` is valid UTF-8; fast for ASCII and long strings.
bool is_valid_utf8(std::string_view s);

}  // namespace jbx::msgpack::detail
