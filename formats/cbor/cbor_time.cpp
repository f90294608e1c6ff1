#include "formats/cbor/cbor_time.h"

#include <cmath>
#include <cstdint>

#include "core/datetime.h"

namespace jbx::cbor::detail {

namespace {

constexpr std::int64_t kSecondsPerDay = 86400;

// Reads exactly `n` digits at text[pos..].
bool digits(std::string_view text, std::size_t pos, std::size_t n,
            unsigned& out) {
  if (pos + n > text.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + static_cast<unsigned>(text[i] - '0');
  }
  return true;
}

bool parse_date(std::string_view text, std::int64_t& days) {
  unsigned y = 0, m = 0, d = 0;
  if (!digits(text, 0, 4, y) || text.size() < 10 || text[4] != '-' ||
      !digits(text, 5, 2, m) || text[7] != '-' || !digits(text, 8, 2, d)) {
    return false;
  }
  const auto month = static_cast<int>(m);
  const auto day = static_cast<int>(d);
  if (month < 1 || month > 12 || day < 1 ||
      day > datetime::days_in_month(y, month)) {
    return false;
  }
  days = datetime::days_from_civil(y, month, day);
  return true;
}

void append2(std::string& out, unsigned v) {
  out.push_back(static_cast<char>('0' + v / 10));
  out.push_back(static_cast<char>('0' + v % 10));
}

void append_fraction(std::string& out, std::uint32_t nanos,
                     std::uint8_t precision) {
  int digits_needed = 9;
  std::uint32_t n = nanos;
  while (digits_needed > 0 && n % 10 == 0) {
    n /= 10;
    --digits_needed;
  }
  if (nanos == 0) digits_needed = 0;
  int keep = digits_needed;
  if (precision < 9 && precision >= digits_needed) keep = precision;
  if (keep == 0) return;
  out.push_back('.');
  std::uint32_t div = 100'000'000;
  for (int i = 0; i < keep; ++i, div /= 10) {
    out.push_back(static_cast<char>('0' + nanos / div % 10));
  }
}

bool append_date(std::string& out, std::int64_t days) {
  const datetime::CivilDate c = datetime::civil_from_days(days);
  if (c.year < 0 || c.year > 9999) return false;
  const auto y = static_cast<unsigned>(c.year);
  append2(out, y / 100);
  append2(out, y % 100);
  out.push_back('-');
  append2(out, static_cast<unsigned>(c.month));
  out.push_back('-');
  append2(out, static_cast<unsigned>(c.day));
  return true;
}

void append_time(std::string& out, std::int64_t secs_of_day,
                 std::uint32_t nanos, std::uint8_t precision) {
  const auto s = static_cast<unsigned>(secs_of_day);
  append2(out, s / 3600);
  out.push_back(':');
  append2(out, s / 60 % 60);
  out.push_back(':');
  append2(out, s % 60);
  append_fraction(out, nanos, precision);
}

}  // namespace

std::optional<Timestamp> parse_rfc3339(std::string_view text) {
  std::int64_t days = 0;
  if (!parse_date(text, days)) return std::nullopt;
  unsigned hh = 0, mm = 0, ss = 0;
  if (text.size() < 20 || (text[10] != 'T' && text[10] != 't') ||
      !digits(text, 11, 2, hh) || text[13] != ':' || !digits(text, 14, 2, mm) ||
      text[16] != ':' || !digits(text, 17, 2, ss) || hh > 23 || mm > 59 ||
      ss > 60) {
    return std::nullopt;
  }
  Timestamp t;
  t.precision = 0;
  std::size_t pos = 19;
  if (text[pos] == '.') {
    ++pos;
    const std::size_t start = pos;
    std::uint32_t nanos = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (pos - start < 9) {
        nanos = nanos * 10 + static_cast<std::uint32_t>(text[pos] - '0');
      }
      ++pos;
    }
    const std::size_t n = pos - start;
    if (n == 0) return std::nullopt;
    for (std::size_t k = n; k < 9; ++k) nanos *= 10;
    t.nanos = nanos;
    t.precision = static_cast<std::uint8_t>(n < 9 ? n : 9);
  }
  if (pos >= text.size()) return std::nullopt;
  std::int32_t offset = 0;
  if (text[pos] == 'Z' || text[pos] == 'z') {
    ++pos;
  } else if (text[pos] == '+' || text[pos] == '-') {
    unsigned oh = 0, om = 0;
    if (!digits(text, pos + 1, 2, oh) || pos + 3 >= text.size() ||
        text[pos + 3] != ':' || !digits(text, pos + 4, 2, om) || oh > 23 ||
        om > 59) {
      return std::nullopt;
    }
    offset = static_cast<std::int32_t>(oh * 3600 + om * 60);
    if (text[pos] == '-') offset = -offset;
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  // A leap second (:60) is read as the following second, as POSIX time does.
  t.seconds = days * kSecondsPerDay + hh * 3600 + mm * 60 + ss - offset;
  t.has_offset = true;
  t.offset_seconds = offset;
  return t;
}

std::optional<Timestamp> parse_full_date(std::string_view text) {
  std::int64_t days = 0;
  if (text.size() != 10 || !parse_date(text, days)) return std::nullopt;
  Timestamp t;
  t.kind = Timestamp::Kind::local_date;
  t.seconds = days * kSecondsPerDay;
  t.precision = 0;
  return t;
}

std::optional<std::string> format_rfc3339(const Timestamp& t) {
  // Years 0..9999 keep every intermediate far from int64 overflow.
  constexpr std::int64_t kLimit = 253402300800;  // 10000-01-01T00:00Z
  if (t.seconds < -62167219200 - 86400 || t.seconds > kLimit + 86400) {
    return std::nullopt;
  }
  const std::int64_t local = t.seconds + t.offset_seconds;
  const std::int64_t days = datetime::floor_div(local, kSecondsPerDay);
  std::string out;
  if (!append_date(out, days)) return std::nullopt;
  out.push_back('T');
  append_time(out, local - days * kSecondsPerDay, t.nanos, t.precision);
  if (t.offset_seconds == 0) {
    out.push_back('Z');
  } else {
    const std::int32_t off =
        t.offset_seconds < 0 ? -t.offset_seconds : t.offset_seconds;
    out.push_back(t.offset_seconds < 0 ? '-' : '+');
    append2(out, static_cast<unsigned>(off / 3600 % 100));
    out.push_back(':');
    append2(out, static_cast<unsigned>(off / 60 % 60));
  }
  return out;
}

std::optional<std::string> format_local(const Timestamp& t) {
  if (t.seconds < -62167219200 - 86400 || t.seconds > 253402300800 + 86400) {
    return std::nullopt;
  }
  const std::int64_t days = datetime::floor_div(t.seconds, kSecondsPerDay);
  const std::int64_t rest = t.seconds - days * kSecondsPerDay;
  std::string out;
  if (t.kind != Timestamp::Kind::local_time) {
    if (!append_date(out, days)) return std::nullopt;
    if (t.kind == Timestamp::Kind::local_date) return out;
    out.push_back('T');
  }
  append_time(out, rest, t.nanos, t.precision);
  return out;
}

std::optional<Timestamp> instant_from_double(double seconds) {
  // 2^63 is exact as a double; anything at or beyond it does not fit.
  if (!std::isfinite(seconds) || seconds >= 9223372036854775808.0 ||
      seconds < -9223372036854775808.0) {
    return std::nullopt;
  }
  double whole = std::floor(seconds);
  auto nanos = static_cast<std::int64_t>(std::llround((seconds - whole) * 1e9));
  auto secs = static_cast<std::int64_t>(whole);
  if (nanos >= 1'000'000'000) {
    nanos -= 1'000'000'000;
    if (secs == INT64_MAX) return std::nullopt;
    ++secs;
  }
  Timestamp t;
  t.seconds = secs;
  t.nanos = static_cast<std::uint32_t>(nanos);
  return t;
}

}  // namespace jbx::cbor::detail
