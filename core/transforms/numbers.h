// Number spelling transforms, fastjson2's WriteLongAsString /
// BrowserCompatible (--bigint-as-string: integers beyond what a JavaScript
// double holds exactly become strings) and WriteBigDecimalAsPlain
// (--decimal=plain|exponent). Works on exact digit strings, never through a
// double. Not for number conversions between formats (see --lossy).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/events.h"

namespace jbx::transforms {

enum class DecimalStyle : std::uint8_t {
  keep,      // as spelled
  plain,     // no exponent: 1.5e3 -> 1500, 1e-7 -> 0.0000001
  exponent,  // scientific: 1500.0 -> 1.5000e3, 0.00012 -> 1.2e-4
};

/// Largest magnitude written as a number under --bigint-as-string:
/// JavaScript's Number.MAX_SAFE_INTEGER, fastjson2's bound.
inline constexpr std::int64_t kMaxSafeInteger = 9007199254740991;

/// Rewrites decimal number text (a fraction or an exponent) in `style`
/// into `out`; integers are copied unchanged. Throws Error(unsupported)
/// when the plain form would exceed 10000 digits.
void restyle_decimal(std::string_view text, DecimalStyle style,
                     std::string& out);

/// True when `text` (valid JSON number syntax) is an integer spelling
/// whose magnitude exceeds kMaxSafeInteger.
bool is_unsafe_integer_text(std::string_view text);

/// True when `text` (valid JSON number syntax) has no fraction or exponent.
inline bool is_integer_text(std::string_view text) {
  for (const char c : text) {
    if (c == '.' || c == 'e' || c == 'E') return false;
  }
  return true;
}

/// How --bigint-as-string and --decimal write each number, sent to `next`
/// (a Handler, or a writer called directly): the rules of NumberStyle, and
/// of the fused features (fused.h).
class NumberRules {
 public:
  NumberRules(bool bigint_as_string, DecimalStyle decimals)
      : bigint_as_string_(bigint_as_string), decimals_(decimals) {}

  /// Whether any number may be written otherwise than as it came.
  bool active() const {
    return bigint_as_string_ || decimals_ != DecimalStyle::keep;
  }
  template <class Next>
  void int_value(std::int64_t v, Next& next) {
    if (bigint_as_string_ && (v > kMaxSafeInteger || v < -kMaxSafeInteger)) {
      next.string_value(integer_text(v));
    } else {
      next.int_value(v);
    }
  }
  template <class Next>
  void uint_value(std::uint64_t v, Next& next) {
    if (bigint_as_string_ && v > std::uint64_t{kMaxSafeInteger}) {
      next.string_value(integer_text(v));
    } else {
      next.uint_value(v);
    }
  }
  template <class Next>
  void double_value(double v, Next& next) {
    if (decimals_ == DecimalStyle::keep || !std::isfinite(v)) {
      next.double_value(v);
    } else {
      next.number_text(restyled(v));
    }
  }
  template <class Next>
  void number_text(std::string_view t, Next& next) {
    // (An unsafe integer text has at least 16 bytes and no fraction.)
    if (bigint_as_string_ && is_unsafe_integer_text(t)) {
      next.string_value(t);
    } else if (restyles(t)) {
      restyle_decimal(t, decimals_, buf_);
      next.number_text(buf_);
    } else {
      next.number_text(t);
    }
  }

 private:
  // Whether restyle_decimal() may write `t` otherwise than as it is: a
  // number with an exponent, or in the exponent style also one with a
  // fraction. (A decimal without an exponent, in JSON's syntax, is in the
  // plain style already.)
  bool restyles(std::string_view t) const {
    if (decimals_ == DecimalStyle::keep) return false;
    const bool fractions = decimals_ == DecimalStyle::exponent;
    for (const char c : t) {
      if (c == 'e' || c == 'E' || (fractions && c == '.')) return true;
    }
    return false;
  }
  // The digits of `v`, in buf_.
  std::string_view integer_text(std::int64_t v);
  std::string_view integer_text(std::uint64_t v);
  // The shortest spelling of `v` that reads back as it, in decimals_, in
  // buf_.
  std::string_view restyled(double v);

  bool bigint_as_string_;
  DecimalStyle decimals_;
  std::string buf_;
};

class NumberStyle final : public CountKeepingHandler {
 public:
  NumberStyle(Handler& next, bool bigint_as_string, DecimalStyle decimals)
      : CountKeepingHandler(next), rules_(bigint_as_string, decimals) {}

  void int_value(std::int64_t v) override { rules_.int_value(v, next_); }
  void uint_value(std::uint64_t v) override { rules_.uint_value(v, next_); }
  void double_value(double v) override { rules_.double_value(v, next_); }
  void number_text(std::string_view text) override {
    rules_.number_text(text, next_);
  }
  // Names and strings pass as they are.
  Flow stable_key(std::string_view name) override {
    return next_.stable_key(name);
  }
  Flow escape_free_key(std::string_view name) override {
    return next_.escape_free_key(name);
  }
  void stable_string(std::string_view s) override { next_.stable_string(s); }

 private:
  NumberRules rules_;
};

}  // namespace jbx::transforms
