#include "core/datetime.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/byte_buffer.h"
#include "core/error.h"

namespace jbx::datetime {

namespace {

constexpr std::int64_t kDay = 86400;

constexpr std::array<std::string_view, 12> kMonthNames = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};
constexpr std::array<std::string_view, 7> kDayNames = {
    "Sunday",   "Monday", "Tuesday", "Wednesday",
    "Thursday", "Friday", "Saturday"};

bool is_leap(std::int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
bool iequals_prefix(std::string_view text, std::string_view word) {
  if (text.size() < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (lower(text[i]) != lower(word[i])) return false;
  }
  return true;
}

// "00" to "99", two bytes each: dates are formatted once per value on hot
// paths, mostly in fields of two and four digits.
constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536"
    "37383940414243444546474849505152535455565758596061626364656667686970717273"
    "7475767778798081828384858687888990919293949596979899";

// Writes v in decimal, zero-padded to `width` digits (more when it needs
// more), with a '-' before a negative value; returns the end. At most
// max(width, 20) + 1 bytes.
char* put_padded(char* p, std::int64_t v, int width) {
  std::uint64_t u = static_cast<std::uint64_t>(v);
  if (v < 0) {
    *p++ = '-';
    u = 0 - u;
  }
  if (width == 2 && u < 100) {
    std::memcpy(p, kPairs + 2 * u, 2);
    return p + 2;
  }
  if (width == 3 && u < 1000) {  // milliseconds
    *p = static_cast<char>('0' + u / 100);
    std::memcpy(p + 1, kPairs + 2 * (u % 100), 2);
    return p + 3;
  }
  if (width == 4 && u < 10000) {
    std::memcpy(p, kPairs + 2 * (u / 100), 2);
    std::memcpy(p + 2, kPairs + 2 * (u % 100), 2);
    return p + 4;
  }
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  for (int i = n; i < width; ++i) *p++ = '0';
  while (n > 0) *p++ = buf[--n];
  return p;
}

std::uint32_t read_be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
         (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}
std::int64_t read_be64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return static_cast<std::int64_t>(v);
}

// "+08:00", "+05:30:15", "Z" as java.time's XXXXX writes them; at most
// kOffsetBound bytes.
constexpr std::size_t kOffsetBound = 16;
char* put_offset(char* p, std::int32_t off, bool colon, bool minutes_always,
                 bool z_for_zero) {
  if (off == 0 && z_for_zero) {
    *p++ = 'Z';
    return p;
  }
  *p++ = off < 0 ? '-' : '+';
  std::int32_t a = off < 0 ? -off : off;
  const int h = a / 3600, m = (a / 60) % 60, s = a % 60;
  p = put_padded(p, h, 2);
  if (minutes_always || m != 0 || s != 0) {
    if (colon) *p++ = ':';
    p = put_padded(p, m, 2);
  }
  if (s != 0) {
    if (colon) *p++ = ':';
    p = put_padded(p, s, 2);
  }
  return p;
}

void append_offset(std::string& out, std::int32_t off, bool colon,
                   bool minutes_always, bool z_for_zero) {
  char buf[kOffsetBound];
  out.append(buf, put_offset(buf, off, colon, minutes_always, z_for_zero));
}

}  // namespace

// ---- calendar ---------------------------------------------------------------

namespace {

// Neri and Schneider's calendar algorithms ("Euclidean affine functions
// and their application to calendar algorithms", 2022): multiplications
// and shifts in 32 bits, no floor division. The calendar is shifted by 82
// eras of 400 years so that every date they take counts up from zero;
// they hold for years between -kFastYears and kFastYears, beyond which
// Hinnant's algorithms below take over.
constexpr std::uint32_t kShiftEras = 82;
constexpr std::uint32_t kShiftDays = 719468 + 146097 * kShiftEras;
constexpr std::uint32_t kShiftYears = 400 * kShiftEras;
constexpr std::int64_t kFastYears = 30000;
constexpr std::int64_t kFastDays = kFastYears * 365;

inline std::int64_t fast_days_from_civil(std::int64_t y, int m, int d) {
  const std::uint32_t jan_feb = m <= 2;
  const std::uint32_t yy =
      static_cast<std::uint32_t>(y + kShiftYears) - jan_feb;
  const std::uint32_t mm = static_cast<std::uint32_t>(m) + 12 * jan_feb;
  const std::uint32_t c = yy / 100;
  const std::uint32_t year_days = 1461 * yy / 4 - c + c / 4;
  const std::uint32_t month_days = (979 * mm - 2919) / 32;
  const std::uint32_t n =
      year_days + month_days + static_cast<std::uint32_t>(d - 1);
  return std::int64_t{n} - kShiftDays;
}

inline CivilDate fast_civil_from_days(std::int64_t z) {
  const std::uint32_t n = static_cast<std::uint32_t>(z + kShiftDays);
  const std::uint32_t n1 = 4 * n + 3;
  const std::uint32_t c = n1 / 146097;
  const std::uint32_t nc = n1 % 146097 / 4;
  const std::uint32_t n2 = 4 * nc + 3;
  const std::uint64_t p2 = std::uint64_t{2939745} * n2;
  const std::uint32_t yc = static_cast<std::uint32_t>(p2 >> 32);
  const std::uint32_t ny = static_cast<std::uint32_t>(p2) / 2939745 / 4;
  const std::uint32_t y = 100 * c + yc;
  const std::uint32_t n3 = 2141 * ny + 197913;
  const std::uint32_t m = n3 >> 16;
  const std::uint32_t d = (n3 & 0xFFFF) / 2141;
  const std::uint32_t jan_feb = ny >= 306;
  return {std::int64_t{y} - std::int64_t{kShiftYears} + jan_feb,
          static_cast<int>(m - 12 * jan_feb), static_cast<int>(d + 1)};
}

}  // namespace

// Otherwise Howard Hinnant's algorithms (public domain), valid for the
// whole range of int64 years that jbx handles.
std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  if (y > -kFastYears && y < kFastYears && m >= 1 && m <= 12 && d >= 1 &&
      d <= 31) {
    return fast_days_from_civil(y, m, d);
  }
  y -= m <= 2;
  const std::int64_t era = floor_div(y, 400);
  const std::int64_t yoe = y - era * 400;               // [0, 399]
  const std::int64_t mp = m > 2 ? m - 3 : m + 9;        // [0, 11]
  const std::int64_t doy = (153 * mp + 2) / 5 + d - 1;  // [0, 365]
  const std::int64_t doe =
      yoe * 365 + yoe / 4 - yoe / 100 + doy;  // [0, 146096]
  return era * 146097 + doe - 719468;
}

CivilDate civil_from_days(std::int64_t z) {
  if (z > -kFastDays && z < kFastDays) return fast_civil_from_days(z);
  z += 719468;
  const std::int64_t era = floor_div(z, 146097);
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe =
      (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  const std::int64_t y = yoe + era * 400 + (m <= 2);
  return {y, m, d};
}

int weekday_from_days(std::int64_t days) {
  const std::int64_t w = (days + 4) % 7;
  return static_cast<int>(w < 0 ? w + 7 : w);
}

int days_in_month(std::int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
  if (month == 2 && is_leap(year)) return 29;
  return kDays[month - 1];
}

// ---- time zones -------------------------------------------------------------

namespace {

// One rule date of a POSIX TZ string: Jn, n or Mm.w.d, and a time of day.
struct RuleDate {
  char kind = 'M';  // 'J', 'n' or 'M'
  int month = 0, week = 0, wday = 0, day = 0;
  std::int32_t time = 7200;  // seconds after local midnight
};

std::int64_t rule_day(const RuleDate& r, std::int64_t year) {
  if (r.kind == 'J') {
    std::int64_t d = days_from_civil(year, 1, 1) + r.day - 1;
    if (is_leap(year) && r.day >= 60) ++d;
    return d;
  }
  if (r.kind == 'n') return days_from_civil(year, 1, 1) + r.day;
  const std::int64_t first = days_from_civil(year, r.month, 1);
  std::int64_t d = first + (r.wday - weekday_from_days(first) + 7) % 7;
  d += 7 * (r.week - 1);
  const std::int64_t limit = first + days_in_month(year, r.month);
  while (d >= limit) d -= 7;
  return d;
}

}  // namespace

struct TimeZone::Data {
  struct Type {
    std::int32_t offset = 0;
    bool dst = false;
    std::string abbr;
  };
  std::string name = "UTC";
  bool fixed = true;
  Type fixed_type{0, false, "UTC"};
  std::vector<std::int64_t> trans;
  std::vector<std::uint8_t> trans_type;
  std::vector<Type> types;
  // POSIX TZ footer: applies after the last transition.
  bool has_rule = false;
  bool rule_has_dst = false;
  Type rule_std, rule_dst;
  RuleDate start, end;
};

namespace {

// A cursor over a POSIX TZ string ("CET-1CEST,M3.5.0,M10.5.0/3").
struct PosixParser {
  std::string_view s;
  std::size_t i = 0;

  bool name(std::string& out) {
    if (i < s.size() && s[i] == '<') {
      const std::size_t close = s.find('>', i);
      if (close == std::string_view::npos) return false;
      out.assign(s.substr(i + 1, close - i - 1));
      i = close + 1;
      return true;
    }
    const std::size_t b = i;
    while (i < s.size() && is_alpha(s[i])) ++i;
    out.assign(s.substr(b, i - b));
    return i - b >= 3;
  }
  bool number(int& v, int max_digits) {
    const std::size_t b = i;
    v = 0;
    while (i < s.size() && is_digit(s[i]) && i - b < std::size_t(max_digits)) {
      v = v * 10 + (s[i++] - '0');
    }
    return i > b;
  }
  // [+-]hh[:mm[:ss]] in seconds, sign as written.
  bool hms(std::int32_t& out) {
    int sign = 1;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      if (s[i] == '-') sign = -1;
      ++i;
    }
    int h = 0, m = 0, sec = 0;
    if (!number(h, 3)) return false;
    if (i < s.size() && s[i] == ':') {
      ++i;
      if (!number(m, 2)) return false;
      if (i < s.size() && s[i] == ':') {
        ++i;
        if (!number(sec, 2)) return false;
      }
    }
    out = sign * (h * 3600 + m * 60 + sec);
    return true;
  }
  bool rule(RuleDate& r) {
    if (i >= s.size()) return false;
    if (s[i] == 'J') {
      ++i;
      r.kind = 'J';
      if (!number(r.day, 3) || r.day < 1 || r.day > 365) return false;
    } else if (s[i] == 'M') {
      ++i;
      r.kind = 'M';
      if (!number(r.month, 2) || i >= s.size() || s[i++] != '.') return false;
      if (!number(r.week, 1) || i >= s.size() || s[i++] != '.') return false;
      if (!number(r.wday, 1)) return false;
      if (r.month < 1 || r.month > 12 || r.week < 1 || r.week > 5 ||
          r.wday > 6) {
        return false;
      }
    } else {
      r.kind = 'n';
      if (!number(r.day, 3) || r.day > 365) return false;
    }
    r.time = 7200;
    if (i < s.size() && s[i] == '/') {
      ++i;
      if (!hms(r.time)) return false;
    }
    return true;
  }
};

bool parse_posix_tz(std::string_view text, TimeZone::Data& d) {
  PosixParser p{text};
  std::int32_t off = 0;
  if (!p.name(d.rule_std.abbr) || !p.hms(off)) return false;
  d.rule_std.offset = -off;
  d.has_rule = true;
  if (p.i == text.size()) return true;
  if (!p.name(d.rule_dst.abbr)) return false;
  d.rule_dst.dst = true;
  d.rule_dst.offset = d.rule_std.offset + 3600;
  if (p.i < text.size() && text[p.i] != ',') {
    if (!p.hms(off)) return false;
    d.rule_dst.offset = -off;
  }
  if (p.i >= text.size() || text[p.i++] != ',' || !p.rule(d.start)) {
    return false;
  }
  if (p.i >= text.size() || text[p.i++] != ',' || !p.rule(d.end)) {
    return false;
  }
  d.rule_has_dst = true;
  return p.i == text.size();
}

const TimeZone::Data::Type& rule_type(const TimeZone::Data& d, std::int64_t t) {
  if (!d.rule_has_dst) return d.rule_std;
  const std::int64_t year =
      civil_from_days(floor_div(t + d.rule_std.offset, kDay)).year;
  const std::int64_t start =
      rule_day(d.start, year) * kDay + d.start.time - d.rule_std.offset;
  const std::int64_t end =
      rule_day(d.end, year) * kDay + d.end.time - d.rule_dst.offset;
  const bool dst =
      start < end ? (t >= start && t < end) : !(t >= end && t < start);
  return dst ? d.rule_dst : d.rule_std;
}

[[noreturn]] void bad_tzif(std::string_view name) {
  throw Error(Errc::usage,
              fmt::format("time zone '{}': malformed tz database file", name));
}

}  // namespace

TimeZone::TimeZone() {
  static const std::shared_ptr<const Data> kUtc = std::make_shared<Data>();
  d_ = kUtc;
}

TimeZone TimeZone::fixed(std::int32_t seconds) {
  if (seconds == 0) return TimeZone();
  auto d = std::make_shared<Data>();
  std::string name;
  append_offset(name, seconds, true, true, false);
  d->name = name;
  d->fixed_type = {seconds, false, name};
  return TimeZone(std::move(d));
}

std::optional<std::int32_t> parse_offset(std::string_view t) {
  if (t == "Z" || t == "z") return 0;
  if (t.size() < 2 || (t[0] != '+' && t[0] != '-')) return std::nullopt;
  const int sign = t[0] == '-' ? -1 : 1;
  std::size_t i = 1;
  auto two = [&](int& v) {
    if (i + 2 > t.size() || !is_digit(t[i]) || !is_digit(t[i + 1])) {
      return false;
    }
    v = (t[i] - '0') * 10 + (t[i + 1] - '0');
    i += 2;
    return true;
  };
  int h = 0, m = 0, s = 0;
  if (t.size() == 2 && is_digit(t[1])) {  // "+8"
    h = t[1] - '0';
    i = 2;
  } else if (!two(h)) {
    return std::nullopt;
  }
  if (i < t.size()) {
    const bool colon = t[i] == ':';
    if (colon) ++i;
    if (!two(m)) return std::nullopt;
    if (i < t.size()) {
      if (colon != (t[i] == ':')) return std::nullopt;
      if (colon) ++i;
      if (!two(s)) return std::nullopt;
    }
  }
  if (i != t.size() || h > 18 || m > 59 || s > 59) return std::nullopt;
  const std::int32_t total = h * 3600 + m * 60 + s;
  if (total > 18 * 3600) return std::nullopt;
  return sign * total;
}

TimeZone TimeZone::named(std::string_view name, const std::string& tzdir) {
  if (name == "UTC" || name == "Z" || name == "GMT" || name == "UT") {
    return TimeZone();
  }
  std::string_view off = name;
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (name.size() > prefix.size() &&
        name.substr(0, prefix.size()) == prefix &&
        (name[prefix.size()] == '+' || name[prefix.size()] == '-')) {
      off = name.substr(prefix.size());
      break;
    }
  }
  if (!off.empty() && (off[0] == '+' || off[0] == '-')) {
    if (auto s = parse_offset(off)) return fixed(*s);
    throw Error(Errc::usage,
                fmt::format("malformed time zone offset '{}' (expected "
                            "+HH:MM, for example +08:00)",
                            name));
  }
  // Only plain zone ids: never a path that leaves the database.
  bool ok = !name.empty() && name.front() != '/' && name.size() < 256;
  for (std::size_t i = 0; ok && i < name.size(); ++i) {
    const char c = name[i];
    ok = is_alpha(c) || is_digit(c) || c == '/' || c == '_' || c == '-' ||
         c == '+';
    if (c == '/' && i + 1 < name.size() && name[i + 1] == '/') ok = false;
  }
  const auto unknown = [&] {
    return Error(Errc::usage, fmt::format("unknown time zone '{}'", name));
  };
  if (!ok) throw unknown();
  std::ifstream in(tzdir + "/" + std::string(name), std::ios::binary);
  if (!in) throw unknown();
  std::string data;
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    data.append(buf, static_cast<std::size_t>(in.gcount()));
    if (data.size() > (1u << 20)) bad_tzif(name);
  }
  if (data.size() < 4 || data.compare(0, 4, "TZif") != 0) throw unknown();
  return from_tzif(name, data);
}

TimeZone TimeZone::from_tzif(std::string_view name, std::string_view data) {
  auto d = std::make_shared<Data>();
  d->name.assign(name);
  d->fixed = false;
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const std::size_t n = data.size();
  if (n < 44 || data.compare(0, 4, "TZif") != 0) bad_tzif(name);
  struct Counts {
    std::uint64_t isut, isstd, leap, time, type, chars;
  };
  auto counts = [&](std::size_t at) {
    return Counts{read_be32(p + at + 20), read_be32(p + at + 24),
                  read_be32(p + at + 28), read_be32(p + at + 32),
                  read_be32(p + at + 36), read_be32(p + at + 40)};
  };
  Counts c = counts(0);
  std::size_t at = 44;
  std::size_t time_size = 4;
  if (data[4] >= '2') {
    // Skip the version 1 block; use the 64-bit data that follows.
    const std::uint64_t v1 =
        c.time * 5 + c.type * 6 + c.chars + c.leap * 8 + c.isstd + c.isut;
    if (v1 > n || at + v1 + 44 > n) bad_tzif(name);
    at += v1;
    if (data.compare(at, 4, "TZif") != 0) bad_tzif(name);
    c = counts(at);
    at += 44;
    time_size = 8;
  }
  const std::uint64_t block = c.time * (time_size + 1) + c.type * 6 + c.chars +
                              c.leap * (time_size + 4) + c.isstd + c.isut;
  if (c.type == 0 || c.type > 256 || c.time > n || block > n - at) {
    bad_tzif(name);
  }
  d->trans.reserve(c.time);
  for (std::uint64_t i = 0; i < c.time; ++i) {
    const unsigned char* q = p + at + i * time_size;
    d->trans.push_back(time_size == 8
                           ? read_be64(q)
                           : static_cast<std::int32_t>(read_be32(q)));
  }
  at += c.time * time_size;
  for (std::uint64_t i = 0; i < c.time; ++i) {
    if (p[at + i] >= c.type) bad_tzif(name);
    d->trans_type.push_back(p[at + i]);
  }
  at += c.time;
  const std::size_t chars_at = at + c.type * 6;
  for (std::uint64_t i = 0; i < c.type; ++i) {
    const unsigned char* q = p + at + i * 6;
    Data::Type t;
    t.offset = static_cast<std::int32_t>(read_be32(q));
    t.dst = q[4] != 0;
    if (q[5] >= c.chars) bad_tzif(name);
    const std::string_view chars(data.data() + chars_at, c.chars);
    const std::size_t end = chars.find('\0', q[5]);
    t.abbr.assign(chars.substr(q[5], end == std::string_view::npos
                                         ? std::string_view::npos
                                         : end - q[5]));
    d->types.push_back(std::move(t));
  }
  at += block - c.time * (time_size + 1);
  if (time_size == 8 && at < n && data[at] == '\n') {
    const std::size_t end = data.find('\n', at + 1);
    if (end != std::string_view::npos && end > at + 1) {
      Data probe;
      if (parse_posix_tz(data.substr(at + 1, end - at - 1), probe)) {
        d->has_rule = true;
        d->rule_has_dst = probe.rule_has_dst;
        d->rule_std = probe.rule_std;
        d->rule_dst = probe.rule_dst;
        d->start = probe.start;
        d->end = probe.end;
      }
    }
  }
  if (!std::is_sorted(d->trans.begin(), d->trans.end())) bad_tzif(name);
  return TimeZone(std::move(d));
}

ZoneState TimeZone::at(std::int64_t t) const {
  const Data& d = *d_;
  const Data::Type* type = nullptr;
  if (d.fixed) {
    type = &d.fixed_type;
  } else if (d.has_rule && (d.trans.empty() || t >= d.trans.back())) {
    type = &rule_type(d, t);
  } else if (d.trans.empty() || t < d.trans.front()) {
    type = &d.types.front();
  } else {
    const auto it = std::upper_bound(d.trans.begin(), d.trans.end(), t);
    type = &d.types[d.trans_type[static_cast<std::size_t>(it - d.trans.begin() -
                                                          1)]];
  }
  return {type->offset, type->dst, type->abbr};
}

std::int64_t TimeZone::resolve_local(std::int64_t local) const {
  if (d_->fixed) return local - d_->fixed_type.offset;
  // Offsets never exceed a day, and transitions are further apart than
  // two days: the offsets a day before and after are the candidates.
  const std::int32_t before = at(local - kDay).offset;
  const std::int32_t after = at(local + kDay).offset;
  const std::int64_t ta = local - before;
  if (at(ta).offset == before) return ta;
  const std::int64_t tb = local - after;
  if (at(tb).offset == after) return tb;
  return ta;  // a gap: shift forward by its length, as java.time does
}

const std::string& TimeZone::name() const { return d_->name; }
bool TimeZone::is_fixed() const { return d_->fixed; }

// ---- fields and ISO 8601
// ------------------------------------------------------

Fields fields_from_local(std::int64_t local, std::uint32_t nanos) {
  Fields f;
  // Floor division by a constant: multiplications, where floor_div()
  // would divide.
  std::int64_t days = local / kDay;
  std::int64_t rest = local % kDay;
  if (rest < 0) {
    rest += kDay;
    --days;
  }
  const auto secs = static_cast<std::uint32_t>(rest);
  const CivilDate c = civil_from_days(days);
  f.year = c.year;
  f.month = c.month;
  f.day = c.day;
  f.hour = static_cast<int>(secs / 3600);
  f.minute = static_cast<int>(secs / 60 % 60);
  f.second = static_cast<int>(secs % 60);
  f.nanos = nanos;
  f.weekday = weekday_from_days(days);
  return f;
}

Fields fields_in_zone(std::int64_t t, std::uint32_t nanos,
                      const TimeZone& zone) {
  const ZoneState z = zone.at(t);
  Fields f = fields_from_local(t + z.offset, nanos);
  f.offset = z.offset;
  f.abbr = z.abbr;
  return f;
}

namespace {

// The ISO 8601 pieces, written at `p` (kIsoInstantBound bytes hold an
// instant); each returns the end.

// A fraction of a second as java.time writes it: in groups of three
// digits, and only when not zero.
char* put_fraction(char* p, std::uint32_t nanos) {
  if (nanos == 0) return p;
  *p++ = '.';
  if (nanos % 1000000 == 0) return put_padded(p, nanos / 1000000, 3);
  if (nanos % 1000 == 0) return put_padded(p, nanos / 1000, 6);
  return put_padded(p, nanos, 9);
}

char* put_iso_date(const Fields& f, char* p) {
  if (f.year > 9999) *p++ = '+';
  p = put_padded(p, f.year, 4);
  *p++ = '-';
  p = put_padded(p, f.month, 2);
  *p++ = '-';
  return put_padded(p, f.day, 2);
}

char* put_iso_time(const Fields& f, char* p) {
  p = put_padded(p, f.hour, 2);
  *p++ = ':';
  p = put_padded(p, f.minute, 2);
  *p++ = ':';
  p = put_padded(p, f.second, 2);
  return put_fraction(p, f.nanos);
}

char* put_iso_local(const Fields& f, char* p) {
  p = put_iso_date(f, p);
  *p++ = 'T';
  return put_iso_time(f, p);
}

// Appends what `put` writes at a buffer of kIsoInstantBound bytes.
template <class Put>
void append_put(std::string& out, const Fields& f, Put put) {
  char buf[kIsoInstantBound];
  out.append(buf, put(f, buf));
}

}  // namespace

void format_iso_date(const Fields& f, std::string& out) {
  append_put(out, f, put_iso_date);
}

void format_iso_time(const Fields& f, std::string& out) {
  append_put(out, f, put_iso_time);
}

void format_iso_local(const Fields& f, std::string& out) {
  append_put(out, f, put_iso_local);
}

void format_iso_instant(const Fields& f, std::string& out) {
  format_iso_local(f, out);
  append_offset(out, f.offset, true, true, true);
}

char* put_iso_instant(const Fields& f, char* p) {
  return put_offset(put_iso_local(f, p), f.offset, true, true, true);
}

namespace {

// Eight bytes as a little-endian number, whatever the machine's order.
std::uint64_t load_le64(const char* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) {
    v = __builtin_bswap64(v);
  }
  return v;
}

// A byte mask of the digit places in eight bytes of text.
constexpr std::uint64_t digit_lanes(std::string_view shape) {
  std::uint64_t m = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    if (shape[i] == '0') m |= std::uint64_t{0xFF} << (8 * i);
  }
  return m;
}

// Checks eight bytes against `shape`: a digit where it has '0', its own
// byte elsewhere, except bytes `free` marks. On success `v` holds each
// digit's value in its byte.
template <std::uint64_t Digits, std::uint64_t Free>
bool match8(std::uint64_t x, std::uint64_t want, std::uint64_t& v) {
  constexpr std::uint64_t kHigh = Digits & 0xF0F0F0F0F0F0F0F0;
  constexpr std::uint64_t kFixed = ~(Digits | Free);
  constexpr std::uint64_t kZeros = Digits & 0x3030303030303030;
  constexpr std::uint64_t kSixes = Digits & 0x0606060606060606;
  // A digit is 0x30..0x39: high nibble 3, and adding 6 keeps it there
  // (no byte can carry into the next once its high nibble is 3).
  const bool ok = ((x & (kHigh | kFixed)) == (kZeros | (want & kFixed))) &
                  (((x + kSixes) & kHigh) == kZeros);
  v = (x & Digits) - kZeros;
  return ok;
}

// A match8() value with each byte the number of its digit and the next
// one's: at most 99, so no byte carries into the next.
constexpr std::uint64_t pairs_of(std::uint64_t v) { return v * 10 + (v >> 8); }

// The number at byte `i` of a pairs_of() value.
constexpr std::uint32_t pair_at(std::uint64_t w, int i) {
  return static_cast<std::uint32_t>((w >> (8 * i)) & 0xFF);
}

constexpr std::uint32_t kPow10[] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

}  // namespace

namespace {

// What parse_iso_fast() reads: the wall clock as written, its fraction
// (nanoseconds) and its offset (seconds).
struct IsoParts {
  std::uint32_t year, month, day, hour, minute, second, nanos;
  std::int32_t offset;
};

[[gnu::always_inline]] inline bool parse_iso_parts(std::string_view t,
                                                   IsoParts& r) {
  const std::size_t n = t.size();
  if (n < 20) return false;
  const char* p = t.data();
  // "yyyy-MM-" and "ddTHH:mm", the 'T' checked apart ('t', ' ').
  std::uint64_t a = 0, b = 0;
#if defined(__SSE2__)
  // In one comparison: XOR with the template leaves a digit's value in its
  // byte (0 to 9 only for '0' to '9') and zero for a separator that
  // matches; no byte may exceed its limit (the 'T' is free).
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i x =
      _mm_xor_si128(v, _mm_setr_epi8('0', '0', '0', '0', '-', '0', '0', '-',
                                     '0', '0', 0, '0', '0', ':', '0', '0'));
  const __m128i over = _mm_subs_epu8(
      x, _mm_setr_epi8(9, 9, 9, 9, 0, 9, 9, 0, 9, 9, -1, 9, 9, 0, 9, 9));
  const bool shape =
      _mm_movemask_epi8(_mm_cmpeq_epi8(over, _mm_setzero_si128())) == 0xFFFF;
  a = static_cast<std::uint64_t>(_mm_cvtsi128_si64(x));
  b = static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x))) &
      ~(std::uint64_t{0xFF} << 16);
#else
  constexpr std::uint64_t kDate = digit_lanes("0000-00-");
  constexpr std::uint64_t kTime = digit_lanes("00T00:00");
  constexpr std::uint64_t kSep = std::uint64_t{0xFF} << 16;
  // Both halves are read (no short circuit): `&` of the two results.
  const bool shape = (static_cast<int>(match8<kDate, 0>(
                          load_le64(p), load_le64("0000-00-"), a)) &
                      static_cast<int>(match8<kTime, kSep>(
                          load_le64(p + 8), load_le64("00T00:00"), b))) != 0;
#endif
  const char tee = p[10];
  if (!shape || (tee != 'T' && tee != 't' && tee != ' ')) return false;
  std::uint32_t sec = 0;
  std::size_t i = 19;
  std::uint32_t frac = 0;
  // ":ss.SSS" and a byte that is no digit: the seconds and milliseconds,
  // the usual fraction, in one test.
  constexpr std::uint64_t kTail = digit_lanes(":00.000x");
  constexpr std::uint64_t kLast = std::uint64_t{0xFF} << 56;
  std::uint64_t t8 = 0;
  if (n >= 24 &&
      match8<kTail, kLast>(load_le64(p + 16), load_le64(":00.000x"), t8) &&
      !is_digit(p[23])) {
    const std::uint64_t w = pairs_of(t8);
    sec = pair_at(w, 1);
    frac =
        (pair_at(w, 4) * 10 + static_cast<std::uint32_t>((t8 >> 48) & 0xFF)) *
        1000000;
    i = 23;
  } else {
    const unsigned s1 = static_cast<unsigned char>(p[17]) - '0';
    const unsigned s2 = static_cast<unsigned char>(p[18]) - '0';
    if (p[16] != ':' || s1 > 9 || s2 > 9) return false;
    sec = s1 * 10 + s2;
  }
  a = pairs_of(a);
  b = pairs_of(b);
  const std::uint32_t y = pair_at(a, 0) * 100 + pair_at(a, 2);
  const std::uint32_t mo = pair_at(a, 5);
  const std::uint32_t d = pair_at(b, 0);
  const std::uint32_t h = pair_at(b, 3);
  const std::uint32_t mi = pair_at(b, 6);
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59) {
    return false;
  }
  if (d > 28 && static_cast<int>(d) > days_in_month(y, static_cast<int>(mo))) {
    return false;
  }
  if (i == 23) {
    // Milliseconds, read above.
  } else if (p[i] == '.' || p[i] == ',') {
    const std::size_t start = ++i;
    while (i < n && i - start < 10) {
      const unsigned c = static_cast<unsigned char>(p[i]) - '0';
      if (c > 9) break;
      frac = frac * 10 + c;
      ++i;
    }
    const std::size_t count = i - start;
    if (count == 0 || count > 9) return false;  // the general parser says why
    frac *= kPow10[9 - count];
  }
  std::int32_t off = 0;
  if (n - i == 1 && (p[i] == 'Z' || p[i] == 'z')) {
    off = 0;
  } else if (n - i == 6 && (p[i] == '+' || p[i] == '-')) {
    // "+HH:MM" as the last six of eight bytes (the text has at least 20).
    constexpr std::uint64_t kOffset = digit_lanes("...00:00");
    constexpr std::uint64_t kLead = 0xFFFFFF;
    std::uint64_t o = 0;
    if (!match8<kOffset, kLead>(load_le64(p + n - 8), load_le64("...00:00"),
                                o)) {
      return false;
    }
    o = pairs_of(o);
    const auto oh = static_cast<std::int32_t>(pair_at(o, 3));
    const auto om = static_cast<std::int32_t>(pair_at(o, 6));
    if (oh > 18 || om > 59 || oh * 3600 + om * 60 > 18 * 3600) return false;
    off = oh * 3600 + om * 60;
    if (p[i] == '-') off = -off;
  } else {
    return false;  // no offset, or another spelling of one
  }
  r = IsoParts{y, mo, d, h, mi, sec, frac, off};
  return true;
}

// The day and the minute of the day of `r` moved by `shift` seconds, when
// that is whole minutes and keeps the month (most offsets, most days): then
// only the day, hour and minute of its text change.
[[gnu::always_inline]] inline bool shift_in_month(
    const IsoParts& r, std::int32_t shift, std::uint32_t& day,
    std::uint32_t& minute_of_day) {
  std::int32_t minutes =
      static_cast<std::int32_t>(r.hour * 60 + r.minute) + shift / 60;
  // (A day before or after: the day's pair is written, when it stays
  // within the month. Without branches: which way a date goes is as
  // random as its hour.)
  const std::int32_t earlier = minutes < 0;
  const std::int32_t later = minutes >= 24 * 60;
  minutes += (earlier - later) * (24 * 60);
  day = r.day + static_cast<std::uint32_t>(later) -
        static_cast<std::uint32_t>(earlier);
  const bool in_month =
      !((later != 0) & (r.day >= 28)) & !((earlier != 0) & (r.day <= 1));
  minute_of_day = static_cast<std::uint32_t>(minutes);
  return (shift % 60 == 0) & in_month & (minute_of_day < 24 * 60);
}

}  // namespace

bool parse_iso_fast(std::string_view t, std::int64_t& local_seconds,
                    std::uint32_t& nanos, std::int32_t& offset) {
  IsoParts r;
  if (!parse_iso_parts(t, r)) return false;
  local_seconds =
      fast_days_from_civil(r.year, static_cast<int>(r.month),
                           static_cast<int>(r.day)) *
          kDay +
      static_cast<std::int64_t>(r.hour * 3600 + r.minute * 60 + r.second);
  nanos = r.nanos;
  offset = r.offset;
  return true;
}

namespace {

void set_fields(const IsoParts& r, Fields& f) {
  f.year = r.year;
  f.month = static_cast<int>(r.month);
  f.day = static_cast<int>(r.day);
  f.hour = static_cast<int>(r.hour);
  f.minute = static_cast<int>(r.minute);
  f.second = static_cast<int>(r.second);
  f.nanos = r.nanos;
}

}  // namespace

char* put_iso_text_instant(std::string_view text, std::int32_t offset,
                           char* out) {
  IsoParts r;
  if (!parse_iso_parts(text, r)) return nullptr;
  std::uint32_t day = 0;
  std::uint32_t m = 0;
  if (shift_in_month(r, offset - r.offset, day, m)) {
    // "yyyy-MM-" and ":ss" as they are (four digits of year), the day,
    // hour and minute written again.
    std::memcpy(out, text.data(), 8);
    std::memcpy(out + 8, kPairs + 2 * day, 2);
    out[10] = 'T';
    std::memcpy(out + 11, kPairs + 2 * (m / 60), 2);
    out[13] = ':';
    std::memcpy(out + 14, kPairs + 2 * (m % 60), 2);
    std::memcpy(out + 16, text.data() + 16, 3);
    return put_offset(put_fraction(out + 19, r.nanos), offset, true, true,
                      true);
  }
  Fields f;
  set_fields(r, f);
  shift_fields(f, offset - r.offset);
  f.offset = offset;
  return put_iso_instant(f, out);
}

bool parse_iso_fast_fields(std::string_view t, Fields& f,
                           std::int32_t& offset) {
  IsoParts r;
  if (!parse_iso_parts(t, r)) return false;
  set_fields(r, f);
  offset = r.offset;
  return true;
}

void shift_fields(Fields& f, std::int32_t seconds) {
  if (seconds == 0) return;
  constexpr std::int32_t kDaySeconds = 86400;
  std::int32_t sod = f.hour * 3600 + f.minute * 60 + f.second + seconds;
  int days = 0;
  for (; sod < 0; sod += kDaySeconds) --days;
  for (; sod >= kDaySeconds; sod -= kDaySeconds) ++days;
  f.hour = sod / 3600;
  f.minute = sod / 60 % 60;
  f.second = sod % 60;
  if (days == 0) return;
  // At most a month's end or start away: one step of month.
  f.day += days;
  if (f.day < 1) {
    if (--f.month < 1) {
      f.month = 12;
      --f.year;
    }
    f.day += days_in_month(f.year, f.month);
  } else if (f.day > 28) {
    const int last = days_in_month(f.year, f.month);
    if (f.day > last) {
      f.day -= last;
      if (++f.month > 12) {
        f.month = 1;
        ++f.year;
      }
    }
  }
}

namespace {

// Reads exactly `n` digits at `i`.
bool digits(std::string_view t, std::size_t& i, int n, std::int64_t& v) {
  v = 0;
  for (int k = 0; k < n; ++k) {
    if (i >= t.size() || !is_digit(t[i])) return false;
    v = v * 10 + (t[i++] - '0');
  }
  return true;
}

bool fail(ParseError& err, std::size_t pos, std::string msg) {
  err.position = pos;
  err.message = std::move(msg);
  return false;
}

std::string describe(std::string_view t, std::size_t i) {
  if (i >= t.size()) return "end of text";
  return fmt::format("'{}'", t[i]);
}

bool check_ranges(std::int64_t y, std::int64_t mo, std::int64_t d,
                  std::int64_t h, std::int64_t mi, std::int64_t s,
                  ParseError& err, std::size_t pos_month, std::size_t pos_day,
                  std::size_t pos_time) {
  if (mo < 1 || mo > 12) {
    return fail(err, pos_month, fmt::format("month {} out of range", mo));
  }
  if (d < 1 || d > days_in_month(y, static_cast<int>(mo))) {
    return fail(err, pos_day,
                fmt::format("day {} out of range for {}-{:02}", d, y, mo));
  }
  if (h > 23 || mi > 59 || s > 59) {
    return fail(err, pos_time, "time of day out of range");
  }
  return true;
}

}  // namespace

namespace {

struct IsoFields {
  std::int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  std::size_t pos_month = 0, pos_day = 0, pos_time = 0;
  bool seconds = false;  // read up to the seconds: a fraction may follow
};

// The usual shape, "yyyy-MM-ddTHH:mm:ss" (or 't' or ' ' for 'T') with a
// four-digit year, read in one go: what the steps of read_iso_fields()
// read from it, without their checks after each field.
bool iso_prefix(std::string_view t, IsoFields& f) {
  if (t.size() < 19) return false;
  const char* p = t.data();
  if (p[4] != '-' || p[7] != '-' || p[13] != ':' || p[16] != ':' ||
      (p[10] != 'T' && p[10] != 't' && p[10] != ' ')) {
    return false;
  }
  bool bad = false;
  const auto num = [p, &bad](std::size_t at, int n) {
    std::int64_t v = 0;
    for (int k = 0; k < n; ++k) {
      const unsigned c = static_cast<unsigned char>(p[at + k]) - '0';
      bad |= c > 9;
      v = v * 10 + c;
    }
    return v;
  };
  f.y = num(0, 4);
  f.mo = num(5, 2);
  f.d = num(8, 2);
  f.h = num(11, 2);
  f.mi = num(14, 2);
  f.s = num(17, 2);
  f.pos_month = 5;
  f.pos_day = 8;
  f.pos_time = 11;
  f.seconds = true;
  return !bad;
}

// The date and time of day, up to the seconds, step by step.
bool read_iso_fields(std::string_view t, std::size_t& i, IsoFields& f,
                     ParseError& err) {
  int ysign = 1;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
    ysign = t[i] == '-' ? -1 : 1;
    ++i;
  }
  const std::size_t ystart = i;
  while (i < t.size() && is_digit(t[i]) && i - ystart < 9) {
    f.y = f.y * 10 + (t[i++] - '0');
  }
  if (i - ystart < 4) {
    return fail(
        err, i,
        fmt::format("expected a 4-digit year, found {}", describe(t, i)));
  }
  f.y *= ysign;
  if (i >= t.size() || t[i] != '-') {
    return fail(err, i, fmt::format("expected '-', found {}", describe(t, i)));
  }
  f.pos_month = ++i;
  if (!digits(t, i, 2, f.mo)) {
    return fail(
        err, i,
        fmt::format("expected a 2-digit month, found {}", describe(t, i)));
  }
  if (i >= t.size() || t[i] != '-') {
    return fail(err, i, fmt::format("expected '-', found {}", describe(t, i)));
  }
  f.pos_day = ++i;
  if (!digits(t, i, 2, f.d)) {
    return fail(
        err, i,
        fmt::format("expected a 2-digit day, found {}", describe(t, i)));
  }
  f.pos_time = i + 1;
  if (i >= t.size() || (t[i] != 'T' && t[i] != 't' && t[i] != ' ')) {
    return true;
  }
  ++i;
  if (!digits(t, i, 2, f.h)) {
    return fail(
        err, i,
        fmt::format("expected a 2-digit hour, found {}", describe(t, i)));
  }
  if (i >= t.size() || t[i] != ':') {
    return fail(err, i, fmt::format("expected ':', found {}", describe(t, i)));
  }
  ++i;
  if (!digits(t, i, 2, f.mi)) {
    return fail(
        err, i,
        fmt::format("expected 2-digit minutes, found {}", describe(t, i)));
  }
  if (i < t.size() && t[i] == ':') {
    ++i;
    if (!digits(t, i, 2, f.s)) {
      return fail(
          err, i,
          fmt::format("expected 2-digit seconds, found {}", describe(t, i)));
    }
    f.seconds = true;
  }
  return true;
}

}  // namespace

bool parse_iso(std::string_view t, Parsed& out, ParseError& err) {
  std::size_t i = 0;
  IsoFields f;
  if (iso_prefix(t, f)) {
    i = 19;
  } else {
    f = IsoFields{};
    if (!read_iso_fields(t, i, f, err)) return false;
  }
  std::uint32_t nanos = 0;
  if (f.seconds && i < t.size() && (t[i] == '.' || t[i] == ',')) {
    ++i;
    const std::size_t fstart = i;
    std::uint32_t scale = 100000000;
    while (i < t.size() && is_digit(t[i])) {
      if (i - fstart >= 9) {
        return fail(err, i, "more than 9 digits of fraction");
      }
      nanos += static_cast<std::uint32_t>(t[i++] - '0') * scale;
      scale /= 10;
    }
    if (i == fstart) {
      return fail(err, i,
                  fmt::format("expected a digit, found {}", describe(t, i)));
    }
  }
  if (!check_ranges(f.y, f.mo, f.d, f.h, f.mi, f.s, err, f.pos_month, f.pos_day,
                    f.pos_time)) {
    return false;
  }
  out = Parsed{};
  out.local_seconds =
      days_from_civil(f.y, static_cast<int>(f.mo), static_cast<int>(f.d)) *
          kDay +
      f.h * 3600 + f.mi * 60 + f.s;
  out.nanos = nanos;
  if (i < t.size()) {
    const auto off = parse_offset(t.substr(i));
    if (!off) {
      return fail(err, i,
                  fmt::format("expected 'Z' or an offset such as +02:00, "
                              "found {}",
                              describe(t, i)));
    }
    out.offset = *off;
  }
  return true;
}

// ---- patterns ---------------------------------------------------------------

DatePattern DatePattern::compile(std::string_view pattern) {
  DatePattern p;
  const auto usage = [&](std::string msg) {
    return Error(Errc::usage,
                 fmt::format("{} in date pattern '{}'", msg, pattern));
  };
  std::size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if (c == '\'') {
      Item lit;
      if (i + 1 < pattern.size() && pattern[i + 1] == '\'') {
        lit.literal = "'";
        i += 2;
      } else {
        ++i;
        for (;;) {
          if (i >= pattern.size()) throw usage("unclosed quote");
          if (pattern[i] == '\'') {
            if (i + 1 < pattern.size() && pattern[i + 1] == '\'') {
              lit.literal.push_back('\'');
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          lit.literal.push_back(pattern[i++]);
        }
      }
      p.items_.push_back(std::move(lit));
      continue;
    }
    if (!is_alpha(c)) {
      if (p.items_.empty() || p.items_.back().letter != 0) {
        p.items_.push_back(Item{});
      }
      p.items_.back().literal.push_back(c);
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < pattern.size() && pattern[j] == c) ++j;
    const int count = static_cast<int>(j - i);
    int max = 0;
    switch (c) {
      case 'y':
        max = 9;
        break;
      case 'M':
      case 'E':
        max = 4;
        break;
      case 'd':
      case 'H':
      case 'h':
      case 'm':
      case 's':
        max = 2;
        break;
      case 'S':
        max = 9;
        break;
      case 'a':
        max = 1;
        break;
      case 'z':
        max = 3;
        break;
      case 'Z':
      case 'X':
        max = 5;
        break;
      default:
        throw usage(fmt::format("unknown letter '{}'", c));
    }
    if (count > max) {
      throw usage(
          fmt::format("too many letters '{}'", pattern.substr(i, j - i)));
    }
    if (c == 'y' && count == 3) {
      throw usage("unsupported year width 'yyy'");
    }
    if (c == 'z' || c == 'Z' || c == 'X') p.has_zone_ = true;
    if (c == 'E') p.has_weekday_ = true;
    if (c == 'z') ++p.abbr_items_;  // an abbreviation, or an offset
    p.items_.push_back(Item{c, count, {}});
    i = j;
  }
  // What format_to() writes at most, beyond the zone abbreviations: a
  // number's digits and sign (put_padded), the longest name, an offset
  // after "GMT".
  for (const Item& it : p.items_) {
    switch (it.letter) {
      case 0:
        p.bound_ += it.literal.size();
        if (!jbx::detail::escape_free(it.literal)) p.escape_free_ = false;
        break;
      case 'M':
      case 'E':
        p.bound_ += 9;  // September, Wednesday
        break;
      case 'z':
      case 'Z':
      case 'X':
        p.bound_ += 3 + kOffsetBound;
        break;
      default:
        p.bound_ += 21;
        break;
    }
  }
  if (p.abbr_items_ > 0) p.escape_free_ = false;  // abbreviations from files
  p.compile_layout();
  return p;
}

void DatePattern::compile_layout() {
  std::size_t pos = 0;
  pair_pos_.fill(kLayoutWidth);  // absent: written past the end
  const auto pair = [&](std::size_t field) {
    if (pair_pos_[field] != kLayoutWidth || pos + 2 > kLayoutWidth) {
      return false;
    }
    pair_pos_[field] = static_cast<std::uint8_t>(pos);
    pos += 2;
    return true;
  };
  for (const Item& it : items_) {
    bool ok = true;
    switch (it.letter) {
      case 0:
        ok = pos + it.literal.size() <= kLayoutWidth;
        if (ok) {
          std::memcpy(layout_.data() + pos, it.literal.data(),
                      it.literal.size());
          pos += it.literal.size();
        }
        break;
      case 'y':
        ok = it.count == 4 && pair(0) && pair(1);
        break;
      case 'M':
        ok = it.count == 2 && pair(2);
        break;
      case 'd':
        ok = it.count == 2 && pair(3);
        break;
      case 'H':
        ok = it.count == 2 && pair(4);
        break;
      case 'm':
        ok = it.count == 2 && pair(5);
        break;
      case 's':
        ok = it.count == 2 && pair(6);
        break;
      default:
        ok = false;
        break;
    }
    if (!ok) return;
  }
  has_layout_ = true;
  layout_size_ = static_cast<std::uint8_t>(pos);
  // format_to() writes the whole template and a pair past it.
  bound_ = std::max(bound_, kLayoutWidth + 2);
}

void DatePattern::format(const Fields& f, std::string& out) const {
  const std::size_t n = out.size();
  out.resize(n + size_bound(f));
  char* end = format_to(f, out.data() + n);
  out.resize(static_cast<std::size_t>(end - out.data()));
}

char* DatePattern::format_iso_text(std::string_view iso, std::int32_t offset,
                                   char* p) const {
  IsoParts r;
  if (!has_layout_ || !parse_iso_parts(iso, r)) return nullptr;
  // Where the pairs of digits of compile_layout()'s fields are in the
  // text: "yyyy-MM-ddTHH:mm:ss".
  static constexpr std::array<std::uint8_t, 7> kAt = {0, 2, 5, 8, 11, 14, 17};
  if (r.offset != offset) {
    // Offsets of whole minutes that keep the month (most): only the day,
    // hour and minute change.
    std::uint32_t day = 0;
    std::uint32_t m = 0;
    if (shift_in_month(r, offset - r.offset, day, m)) {
      std::memcpy(p, layout_.data(), kLayoutWidth);
      for (const std::size_t k : {0, 1, 2, 6}) {
        std::memcpy(p + pair_pos_[k], iso.data() + kAt[k], 2);
      }
      std::memcpy(p + pair_pos_[3], kPairs + 2 * day, 2);
      std::memcpy(p + pair_pos_[4], kPairs + 2 * (m / 60), 2);
      std::memcpy(p + pair_pos_[5], kPairs + 2 * (m % 60), 2);
      return p + layout_size_;
    }
    Fields f;
    set_fields(r, f);
    f.nanos = 0;  // no fraction in a layout: its digits need not be read
    shift_fields(f, offset - r.offset);
    // (Beyond four digits of year the layout does not apply.)
    if (f.year < 0 || f.year > 9999) return nullptr;
    return format_to(f, p);
  }
  std::memcpy(p, layout_.data(), kLayoutWidth);
  for (std::size_t k = 0; k < kAt.size(); ++k) {
    std::memcpy(p + pair_pos_[k], iso.data() + kAt[k], 2);
  }
  return p + layout_size_;
}

char* DatePattern::format_to(const Fields& f, char* p) const {
  if (has_layout_ && f.year >= 0 && f.year <= 9999 &&
      static_cast<unsigned>(f.month | f.day | f.hour | f.minute | f.second) <
          100) {
    const auto y = static_cast<std::uint32_t>(f.year);
    const auto put = [p, this](std::size_t field, std::uint32_t v) {
      std::memcpy(p + pair_pos_[field], kPairs + 2 * v, 2);
    };
    std::memcpy(p, layout_.data(), kLayoutWidth);
    put(0, y / 100);
    put(1, y % 100);
    put(2, static_cast<std::uint32_t>(f.month));
    put(3, static_cast<std::uint32_t>(f.day));
    put(4, static_cast<std::uint32_t>(f.hour));
    put(5, static_cast<std::uint32_t>(f.minute));
    put(6, static_cast<std::uint32_t>(f.second));
    return p + layout_size_;
  }
  const auto text = [&p](std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  };
  for (const Item& it : items_) {
    switch (it.letter) {
      case 0:
        // Mostly one separator: not worth a call to memcpy.
        if (it.literal.size() == 1) {
          *p++ = it.literal[0];
        } else {
          text(it.literal);
        }
        break;
      case 'y':
        if (it.count == 2) {
          const std::int64_t r = f.year % 100;
          p = put_padded(p, r < 0 ? r + 100 : r, 2);
        } else {
          p = put_padded(p, f.year, it.count);
        }
        break;
      case 'M':
        if (it.count >= 3) {
          const std::string_view name = kMonthNames[f.month - 1];
          text(it.count == 3 ? name.substr(0, 3) : name);
        } else {
          p = put_padded(p, f.month, it.count);
        }
        break;
      case 'd':
        p = put_padded(p, f.day, it.count);
        break;
      case 'H':
        p = put_padded(p, f.hour, it.count);
        break;
      case 'h':
        p = put_padded(p, f.hour % 12 == 0 ? 12 : f.hour % 12, it.count);
        break;
      case 'm':
        p = put_padded(p, f.minute, it.count);
        break;
      case 's':
        p = put_padded(p, f.second, it.count);
        break;
      case 'S': {
        char nine[32];
        put_padded(nine, f.nanos, 9);
        text(std::string_view(nine, static_cast<std::size_t>(it.count)));
        break;
      }
      case 'a':
        text(f.hour < 12 ? "AM" : "PM");
        break;
      case 'E': {
        const std::string_view name = kDayNames[f.weekday];
        text(it.count == 4 ? name : name.substr(0, 3));
        break;
      }
      case 'z':
        if (f.abbr.empty()) {
          p = put_offset(p, f.offset, true, true, false);
        } else {
          text(f.abbr);
        }
        break;
      case 'Z':
        if (it.count <= 3) {
          p = put_offset(p, f.offset, false, true, false);
        } else if (it.count == 4) {
          text("GMT");
          if (f.offset != 0) p = put_offset(p, f.offset, true, true, false);
        } else {
          p = put_offset(p, f.offset, true, true, true);
        }
        break;
      case 'X':
        p = put_offset(p, f.offset, it.count == 3 || it.count == 5,
                       it.count != 1, true);
        break;
    }
  }
  return p;
}

namespace {

// Reads 1..max digits (count 1) or exactly `count` digits.
bool field_digits(std::string_view t, std::size_t& i, int count, int max,
                  std::int64_t& v) {
  if (count >= 2) return digits(t, i, count, v);
  const std::size_t b = i;
  v = 0;
  while (i < t.size() && is_digit(t[i]) && i - b < std::size_t(max)) {
    v = v * 10 + (t[i++] - '0');
  }
  return i > b;
}

// Matches one of `names` (full, or their first three letters) at `i`.
int match_name(std::string_view t, std::size_t& i, const auto& names,
               bool full) {
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::string_view n = full ? names[k] : names[k].substr(0, 3);
    if (iequals_prefix(t.substr(i), n)) {
      i += n.size();
      return static_cast<int>(k);
    }
  }
  return -1;
}

}  // namespace

bool DatePattern::parse(std::string_view t, Parsed& out, ParseError& err,
                        const std::string& tzdir) const {
  std::size_t i = 0;
  std::int64_t y = 1970, mo = 1, d = 1, h = 0, mi = 0, s = 0;
  std::size_t pos_month = 0, pos_day = 0, pos_time = 0;
  int weekday = -1;
  std::size_t pos_weekday = 0;
  int pm = -1;
  bool twelve = false;
  std::uint32_t nanos = 0;
  out = Parsed{};
  for (const Item& it : items_) {
    const std::size_t start = i;
    auto expected = [&](std::string_view what) {
      return fail(err, start,
                  fmt::format("expected {}, found {}", what, describe(t, i)));
    };
    std::int64_t v = 0;
    switch (it.letter) {
      case 0:
        if (t.substr(i, it.literal.size()) != it.literal) {
          return expected(fmt::format("'{}'", it.literal));
        }
        i += it.literal.size();
        break;
      case 'y':
        if (!field_digits(t, i, it.count, 9, v)) return expected("a year");
        y = it.count == 2 ? 2000 + v : v;
        break;
      case 'M':
        pos_month = start;
        if (it.count >= 3) {
          const int k = match_name(t, i, kMonthNames, it.count == 4);
          if (k < 0) return expected("a month name");
          mo = k + 1;
        } else if (!field_digits(t, i, it.count, 2, mo)) {
          return expected("a month");
        }
        break;
      case 'd':
        pos_day = start;
        if (!field_digits(t, i, it.count, 2, d)) return expected("a day");
        break;
      case 'H':
      case 'h':
        pos_time = start;
        if (!field_digits(t, i, it.count, 2, h)) return expected("an hour");
        if (it.letter == 'h') {
          twelve = true;
          if (h < 1 || h > 12) {
            return fail(err, start, fmt::format("hour {} out of range", h));
          }
        }
        break;
      case 'm':
        pos_time = start;
        if (!field_digits(t, i, it.count, 2, mi)) return expected("minutes");
        break;
      case 's':
        pos_time = start;
        if (!field_digits(t, i, it.count, 2, s)) return expected("seconds");
        break;
      case 'S': {
        if (!digits(t, i, it.count, v)) return expected("fraction digits");
        for (int k = it.count; k < 9; ++k) v *= 10;
        nanos = static_cast<std::uint32_t>(v);
        break;
      }
      case 'a':
        if (iequals_prefix(t.substr(i), "AM")) {
          pm = 0;
        } else if (iequals_prefix(t.substr(i), "PM")) {
          pm = 1;
        } else {
          return expected("AM or PM");
        }
        i += 2;
        break;
      case 'E':
        pos_weekday = start;
        weekday = match_name(t, i, kDayNames, it.count == 4);
        if (weekday < 0) return expected("a day name");
        break;
      case 'z': {
        std::size_t j = i;
        while (j < t.size() &&
               (is_alpha(t[j]) || is_digit(t[j]) || t[j] == '/' ||
                t[j] == '_' || t[j] == '+' || t[j] == '-' || t[j] == ':')) {
          ++j;
        }
        if (j == i) return expected("a time zone");
        try {
          out.zone = TimeZone::named(t.substr(i, j - i), tzdir);
        } catch (const Error& e) {
          return fail(err, start, e.message);
        }
        i = j;
        break;
      }
      case 'Z':
      case 'X': {
        std::size_t j = i;
        if (it.letter == 'Z' && it.count == 4 && t.substr(i, 3) == "GMT") {
          i += 3;
          j = i;
          if (j >= t.size() || (t[j] != '+' && t[j] != '-')) {
            out.offset = 0;
            break;
          }
        }
        if (j < t.size() && (t[j] == 'Z' || t[j] == 'z')) {
          ++j;
        } else if (j < t.size() && (t[j] == '+' || t[j] == '-')) {
          ++j;
          while (j < t.size() && (is_digit(t[j]) || t[j] == ':')) ++j;
        }
        const auto off = parse_offset(t.substr(i, j - i));
        if (!off) return expected("an offset such as +02:00");
        out.offset = *off;
        i = j;
        break;
      }
    }
  }
  if (i != t.size()) {
    return fail(err, i,
                fmt::format("unexpected {} after the date", describe(t, i)));
  }
  if (twelve) {
    h = h % 12 + (pm == 1 ? 12 : 0);
  } else if (pm == 1 && h < 12) {
    h += 12;
  }
  if (!check_ranges(y, mo, d, h, mi, s, err, pos_month, pos_day, pos_time)) {
    return false;
  }
  const std::int64_t days =
      days_from_civil(y, static_cast<int>(mo), static_cast<int>(d));
  if (weekday >= 0 && weekday != weekday_from_days(days)) {
    return fail(
        err, pos_weekday,
        fmt::format("{}-{:02}-{:02} is a {}, not a {}", y, mo, d,
                    kDayNames[weekday_from_days(days)], kDayNames[weekday]));
  }
  out.local_seconds = days * kDay + h * 3600 + mi * 60 + s;
  out.nanos = nanos;
  return true;
}

}  // namespace jbx::datetime
