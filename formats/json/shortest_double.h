// Shortest round-trip printing of a double, the text std::to_chars(double)
// gives, computed with Dragonbox (fmt's), which takes a fraction of the
// time of libstdc++'s: binary-to-JSON conversions of number-heavy data
// spend most of their time here.
#pragma once

#include <cstddef>

namespace jbx::detail {

/// Room put_shortest() may use at p (some of it past the text).
inline constexpr std::size_t kShortestRoom = 48;

/// Writes finite `v` exactly as std::to_chars(p, p + n, v) does (the
/// shorter of fixed and scientific notation, fixed on a tie); with
/// `mark_double`, a text with neither '.' nor 'e' gets ".0" so that it reads
/// back as a double. Uses up to kShortestRoom bytes at p; returns the end of
/// the text.
char* put_shortest(char* p, double v, bool mark_double);

}  // namespace jbx::detail
