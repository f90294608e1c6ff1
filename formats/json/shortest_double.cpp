#include "formats/json/shortest_double.h"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "formats/json/json_writer.h"

namespace jbx::detail {

namespace {

char* with_mark(char* begin, char* end, bool mark_double) {
  if (mark_double &&
      std::memchr(begin, '.', static_cast<std::size_t>(end - begin)) ==
          nullptr &&
      std::memchr(begin, 'e', static_cast<std::size_t>(end - begin)) ==
          nullptr) {
    std::memcpy(end, ".0", 2);
    end += 2;
  }
  return end;
}

}  // namespace

char* put_shortest(char* p, double v, bool mark_double) {
  if (v == 0) {
    if (std::signbit(v)) *p++ = '-';
    std::memcpy(p, "0.0", 3);
    return p + (mark_double ? 3 : 1);
  }
  char* const begin = p;
  const auto dec = fmt::detail::dragonbox::to_decimal(v < 0 ? -v : v);
  const std::uint64_t digits = dec.significand;
  const int e = dec.exponent;  // |v| = digits * 10^e
  if (v < 0) *p++ = '-';
  // The digits go one place on, where scientific notation has them after
  // its first digit; each layout then moves what it must.
  char* end = put_uint(p + 1, digits);
  const auto n = static_cast<int>(end - (p + 1));
  // std::to_chars's choice, from the lengths of both forms: fixed when it
  // is not longer than scientific ("1e+04" against "10000" is a tie).
  const bool fixed = n == 1 ? (e >= -3 && e <= 4) : (e >= -(n + 3) && e <= 5);
  if (fixed && e > 0 && (v < 0 ? -v : v) >= 0x1p53) {
    // std::to_chars prints such an integer's exact digits, which the
    // shortest ones followed by zeros need not be: rare enough to leave.
    const auto r = std::to_chars(begin, begin + kShortestRoom, v);
    return with_mark(begin, r.ptr, mark_double);
  }
  if (fixed) {
    if (e >= 0) {
      std::memmove(p, p + 1, static_cast<std::size_t>(n));
      p += n;
      std::memset(p, '0', 8);  // e <= 5
      p += e;
      if (mark_double) {
        std::memcpy(p, ".0", 2);
        p += 2;
      }
      return p;
    }
    const int frac = -e;
    if (n > frac) {
      // "12.34": the integer part moved back over the gap.
      const int whole = n - frac;
      std::memmove(p, p + 1, static_cast<std::size_t>(whole));
      p[whole] = '.';
      return end;
    }
    // "0.0012": at most 3 zeros between the point and the digits.
    const auto lead = static_cast<std::size_t>(2 + frac - n);
    std::memmove(p + lead, p + 1, static_cast<std::size_t>(n));
    std::memcpy(p, "0.000", lead);
    return p + lead + static_cast<std::size_t>(n);
  }
  // Scientific: "d.ddde+XX", at least two exponent digits.
  p[0] = p[1];
  if (n > 1) {
    p[1] = '.';
  } else {
    end = p + 1;
  }
  int x = e + n - 1;
  *end++ = 'e';
  *end++ = x < 0 ? '-' : '+';
  if (x < 0) x = -x;
  if (x >= 100) {
    *end++ = static_cast<char>('0' + x / 100);
    x %= 100;
  }
  end[0] = static_cast<char>('0' + x / 10);
  end[1] = static_cast<char>('0' + x % 10);
  return end + 2;
}

}  // namespace jbx::detail
