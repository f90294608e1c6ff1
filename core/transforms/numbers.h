// Number spelling transforms, fastjson2's WriteLongAsString /
// BrowserCompatible (--bigint-as-string: integers beyond what a JavaScript
// double holds exactly become strings) and WriteBigDecimalAsPlain
// (--decimal=plain|exponent). Works on exact digit strings, never through a
// double. Not for number conversions between formats (see --lossy).
#pragma once

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

class NumberStyle final : public CountKeepingHandler {
 public:
  NumberStyle(Handler& next, bool bigint_as_string, DecimalStyle decimals)
      : CountKeepingHandler(next),
        bigint_as_string_(bigint_as_string),
        decimals_(decimals) {}

  void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  void double_value(double v) override;
  void number_text(std::string_view text) override;

 private:
  bool bigint_as_string_;
  DecimalStyle decimals_;
  std::string buf_;
};

}  // namespace jbx::transforms
