#include "core/transforms/numbers.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/error.h"

namespace jbx::transforms {

namespace {

constexpr std::int64_t kMaxPlainDigits = 10000;

}  // namespace

bool is_unsafe_integer_text(std::string_view t) {
  // Up to fifteen characters spell at most 15 digits: below 2^53.
  if (t.size() < 16 || !is_integer_text(t)) return false;
  if (!t.empty() && t[0] == '-') t.remove_prefix(1);
  constexpr std::string_view kMax = "9007199254740991";
  if (t.size() != kMax.size()) return t.size() > kMax.size();
  return t > kMax;
}

void restyle_decimal(std::string_view t, DecimalStyle style, std::string& out) {
  out.clear();
  if (style == DecimalStyle::keep || is_integer_text(t)) {
    out.assign(t);
    return;
  }
  // The digits are read where they are, the integer part then the
  // fraction, without the point: value = digits * 10^exp10. (No copy and
  // no formatting library: a number-heavy document restyles each of its
  // numbers.)
  std::size_t i = 0;
  const bool negative = !t.empty() && t[0] == '-';
  if (negative) ++i;
  const auto is_digit = [&t](std::size_t k) {
    return k < t.size() && t[k] >= '0' && t[k] <= '9';
  };
  const std::size_t int_at = i;
  while (is_digit(i)) ++i;
  const std::string_view int_part = t.substr(int_at, i - int_at);
  std::string_view fraction;
  if (i < t.size() && t[i] == '.') {
    const std::size_t at = ++i;
    while (is_digit(i)) ++i;
    fraction = t.substr(at, i - at);
  }
  std::int64_t exp10 = -static_cast<std::int64_t>(fraction.size());
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) eneg = t[i++] == '-';
    std::int64_t e = 0;
    while (is_digit(i)) {
      // Saturate: such exponents fail the length check below anyway.
      if (e < 1'000'000'000) e = e * 10 + (t[i] - '0');
      ++i;
    }
    exp10 += eneg ? -e : e;
  }
  // Digit k of the integer part and the fraction taken as one.
  const std::size_t total = int_part.size() + fraction.size();
  const auto digit = [&](std::size_t k) {
    return k < int_part.size() ? int_part[k] : fraction[k - int_part.size()];
  };
  // Appends digits [from, to) of the same.
  const auto append = [&](std::size_t from, std::size_t to) {
    const std::size_t split = int_part.size();
    if (from < split) {
      out.append(int_part, from, std::min(to, split) - from);
      from = split;
    }
    if (from < to) out.append(fraction, from - split, to - from);
  };
  // Leading zeros carry no value; keep one digit for zero.
  std::size_t z = 0;
  while (z + 1 < total && digit(z) == '0') ++z;
  const std::size_t n = total - z;  // the significant digits: [z, total)
  out.reserve(n + 24);
  if (negative) out.push_back('-');
  if (style == DecimalStyle::exponent) {
    const std::int64_t e = exp10 + static_cast<std::int64_t>(n) - 1;
    out.push_back(digit(z));
    if (n > 1) {
      out.push_back('.');
      append(z + 1, total);
    }
    char buf[24];
    buf[0] = 'e';
    const auto r = std::to_chars(buf + 1, buf + sizeof buf, e);
    out.append(buf, r.ptr);
    return;
  }
  const auto sn = static_cast<std::int64_t>(n);
  if (exp10 > kMaxPlainDigits || -exp10 > kMaxPlainDigits + sn) {
    throw Error(Errc::unsupported,
                fmt::format("--decimal=plain: number {} is too long to "
                            "write without an exponent",
                            t));
  }
  if (exp10 >= 0) {
    append(z, total);
    if (n != 1 || digit(z) != '0') {
      out.append(static_cast<std::size_t>(exp10), '0');
    }
  } else if (sn > -exp10) {
    const std::size_t point = z + static_cast<std::size_t>(sn + exp10);
    append(z, point);
    out.push_back('.');
    append(point, total);
  } else {
    out += "0.";
    out.append(static_cast<std::size_t>(-exp10 - sn), '0');
    append(z, total);
  }
}

std::string_view NumberRules::integer_text(std::int64_t v) {
  buf_.clear();
  fmt::format_to(std::back_inserter(buf_), "{}", v);
  return buf_;
}

std::string_view NumberRules::integer_text(std::uint64_t v) {
  buf_.clear();
  fmt::format_to(std::back_inserter(buf_), "{}", v);
  return buf_;
}

std::string_view NumberRules::restyled(double v) {
  // The shortest spelling that reads back as v: exact for this double.
  std::string shortest = fmt::format("{}", v);
  if (is_integer_text(shortest)) shortest += ".0";
  restyle_decimal(shortest, decimals_, buf_);
  return buf_;
}

}  // namespace jbx::transforms
