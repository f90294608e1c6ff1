// Date and time text of the CBOR date tags: RFC 3339 date-time strings
// (tag 0), RFC 8943 full-date strings (tag 1004) and float epoch seconds
// (tag 1). Only the fixed ISO forms these tags allow; user-facing date
// formats belong to the date transforms in core/.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/events.h"

namespace jbx::cbor::detail {

/// Parses "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" into an
/// instant with has_offset set and precision = fraction digits (at most 9
/// kept). nullopt when `text` is not such a date-time.
std::optional<Timestamp> parse_rfc3339(std::string_view text);

/// Parses "YYYY-MM-DD" into a local_date; nullopt otherwise.
std::optional<Timestamp> parse_full_date(std::string_view text);

/// RFC 3339 text of an instant in its own offset ("Z" for zero), with
/// `precision` fraction digits when the nanoseconds fit them, else the
/// fewest digits that keep them. nullopt when the year is outside 0..9999.
std::optional<std::string> format_rfc3339(const Timestamp& t);

/// ISO 8601 text of a local date ("YYYY-MM-DD"), time ("HH:MM:SS[.f]") or
/// date-time ("YYYY-MM-DDTHH:MM:SS[.f]"); nullopt for a year outside
/// 0..9999.
std::optional<std::string> format_local(const Timestamp& t);

/// The instant `seconds` after the epoch (tag 1 float): nanoseconds
/// rounded to the nearest. nullopt for NaN, infinities and values outside
/// the int64 range.
std::optional<Timestamp> instant_from_double(double seconds);

}  // namespace jbx::cbor::detail
