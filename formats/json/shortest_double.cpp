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

int digit_count(std::uint64_t u) {
  int n = 1;
  while (u >= 10000) {
    u /= 10000;
    n += 4;
  }
  while (u >= 10) {
    u /= 10;
    ++n;
  }
  return n;
}

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
  const int n = digit_count(digits);
  const int e = dec.exponent;  // |v| = digits * 10^e
  // std::to_chars's choice, from the lengths of both forms: fixed when it
  // is not longer than scientific ("1e+04" against "10000" is a tie).
  const bool fixed = n == 1 ? (e >= -3 && e <= 4) : (e >= -(n + 3) && e <= 5);
  if (fixed && e > 0 && (v < 0 ? -v : v) >= 0x1p53) {
    // std::to_chars prints such an integer's exact digits, which the
    // shortest ones followed by zeros need not be: rare enough to leave.
    const auto r = std::to_chars(p, p + kShortestRoom, v);
    return with_mark(begin, r.ptr, mark_double);
  }
  if (v < 0) *p++ = '-';
  if (fixed) {
    if (e >= 0) {
      p = put_uint(p, digits);
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
      // "12.34": the digits written one place on, the integer part moved
      // back over the gap.
      char* end = put_uint(p + 1, digits);
      const int whole = n - frac;
      std::memmove(p, p + 1, static_cast<std::size_t>(whole));
      p[whole] = '.';
      return end;
    }
    // "0.0012": at most 3 + n zeros before the digits (the choice above).
    std::memcpy(p, "0.000000000000000000000000", 24);
    p += 2 + (frac - n);
    return put_uint(p, digits);
  }
  // Scientific: "d.ddde+XX", at least two exponent digits.
  char* end = put_uint(p + 1, digits);
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
