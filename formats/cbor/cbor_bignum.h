// Exact conversions between CBOR's binary integers (tag 2/3 bignums, tag 4
// decimal fractions, tag 5 bigfloats) and decimal number text. Small and
// quadratic on purpose: values are rarely longer than a few hundred digits.
// Not a general arbitrary-precision library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace jbx::cbor::detail {

/// The longest bignum jbx converts: 4096 significant bytes (32768 bits)
/// read, 9864 decimal digits written (every such number fits 4096 bytes).
/// The conversions are quadratic, so an unbounded length would let a
/// 1 MB input cost minutes; this bound keeps each under milliseconds.
inline constexpr std::size_t kMaxBignumBytes = 4096;
inline constexpr std::size_t kMaxBignumDigits = 9864;

/// Decimal digits of the unsigned big-endian integer `bytes` ("0" when
/// empty or all zero). Never throws except std::bad_alloc.
std::string bytes_to_decimal(std::span<const std::uint8_t> bytes);

/// Big-endian bytes, without leading zero bytes, of the unsigned decimal
/// `digits` (only '0'..'9', at least one); empty for zero.
std::string decimal_to_bytes(std::string_view digits);

/// Adds one to / subtracts one from an unsigned decimal spelling (the
/// bignum tag 3 stores -1 - n). decrement requires a value of at least 1.
std::string decimal_increment(std::string_view digits);
std::string decimal_decrement(std::string_view digits);

/// digits * 2^exp2 * 5^exp5 for non-negative exponents, as decimal digits.
std::string decimal_mul_pow(std::string_view digits, std::uint32_t exp2,
                            std::uint32_t exp5);

/// Compares two unsigned decimal spellings without leading zeros by value.
int decimal_compare(std::string_view a, std::string_view b);

}  // namespace jbx::cbor::detail
