// Exact number text for JSONB's BigInteger and BigDecimal: two's-complement
// big-endian bytes to decimal digits and back, and Java's
// BigDecimal.toString spelling. Arbitrary precision, but only as much as a
// JSONB value needs (no arithmetic beyond base conversion).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace jbx::jsonb {

/// Longest BigInteger payload (bytes) and decimal digit string jbx converts.
/// Base conversion is quadratic, so a bound keeps hostile input cheap;
/// 8192 bytes are 19 729 digits, far beyond what any peer accepts.
inline constexpr std::size_t kMaxBigBytes = 8192;
inline constexpr std::size_t kMaxBigDigits = 19728;

/// Appends the decimal spelling ("-123") of the two's-complement big-endian
/// integer `be` (Java BigInteger.toByteArray) to `out`. `be` is non-empty
/// and at most kMaxBigBytes long (the caller checks).
void append_twos_complement_decimal(std::span<const std::uint8_t> be,
                                    std::string& out);

/// Replaces `out` with the minimal two's-complement big-endian bytes of the
/// integer whose magnitude is the decimal `digits` (no sign, no leading
/// '+', at most kMaxBigDigits) and whose sign is `negative`: exactly what
/// Java's BigInteger.toByteArray returns.
void decimal_to_twos_complement(std::string_view digits, bool negative,
                                std::string& out);

/// Appends Java's BigDecimal.toString of unscaled × 10^-scale, where
/// `unscaled` is a decimal integer spelling ("-12345", "0"): plain notation
/// when scale >= 0 and the adjusted exponent >= -6 ("123.4500", "0.001"),
/// else scientific with an explicit exponent sign ("1E+5", "1.2E-7").
/// Both are valid RFC 8259 numbers.
void append_decimal_text(std::string_view unscaled, std::int64_t scale,
                         std::string& out);

}  // namespace jbx::jsonb
