#include "core/transforms/numbers.h"

#include <fmt/format.h>

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
  std::size_t i = 0;
  const bool negative = !t.empty() && t[0] == '-';
  if (negative) ++i;
  std::string digits;
  std::int64_t exp10 = 0;  // value = digits * 10^exp10
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') digits.push_back(t[i++]);
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      digits.push_back(t[i++]);
      --exp10;
    }
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) eneg = t[i++] == '-';
    std::int64_t e = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      // Saturate: such exponents fail the length check below anyway.
      if (e < 1'000'000'000) e = e * 10 + (t[i] - '0');
      ++i;
    }
    exp10 += eneg ? -e : e;
  }
  // Leading zeros carry no value; keep one digit for zero.
  const std::size_t nz = digits.find_first_not_of('0');
  digits.erase(0, nz == std::string::npos ? digits.size() - 1 : nz);
  if (negative) out.push_back('-');
  if (style == DecimalStyle::exponent) {
    const std::int64_t e = exp10 + static_cast<std::int64_t>(digits.size()) - 1;
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1);
    }
    fmt::format_to(std::back_inserter(out), "e{}", e);
    return;
  }
  const std::int64_t n = static_cast<std::int64_t>(digits.size());
  if (exp10 > kMaxPlainDigits || -exp10 > kMaxPlainDigits + n) {
    throw Error(Errc::unsupported,
                fmt::format("--decimal=plain: number {} is too long to "
                            "write without an exponent",
                            t));
  }
  if (exp10 >= 0) {
    out += digits;
    if (digits != "0") out.append(static_cast<std::size_t>(exp10), '0');
  } else if (n > -exp10) {
    out.append(digits, 0, static_cast<std::size_t>(n + exp10));
    out.push_back('.');
    out.append(digits, static_cast<std::size_t>(n + exp10));
  } else {
    out += "0.";
    out.append(static_cast<std::size_t>(-exp10 - n), '0');
    out += digits;
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
