#include "core/datetime.h"

#include <fmt/format.h>

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <iterator>
#include <random>

#include "core/error.h"

namespace dt = jbx::datetime;

namespace {

const std::string kTzdir = "/usr/share/zoneinfo";

std::string iso(std::int64_t t, const dt::TimeZone& z, std::uint32_t ns = 0) {
  std::string out;
  dt::format_iso_instant(dt::fields_in_zone(t, ns, z), out);
  return out;
}

std::string fmt_pattern(std::string_view pattern, std::int64_t t,
                        const dt::TimeZone& z, std::uint32_t ns = 0) {
  std::string out;
  dt::DatePattern::compile(pattern).format(dt::fields_in_zone(t, ns, z), out);
  return out;
}

std::string usage_message(std::string_view pattern) {
  try {
    dt::DatePattern::compile(pattern);
  } catch (const jbx::Error& e) {
    return e.message;
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(datetime)

BOOST_AUTO_TEST_CASE(civil_days_round_trip_and_known_dates) {
  BOOST_TEST(dt::days_from_civil(1970, 1, 1) == 0);
  BOOST_TEST(dt::days_from_civil(1969, 12, 31) == -1);
  BOOST_TEST(dt::days_from_civil(1900, 3, 1) * 86400 == -2203891200);
  BOOST_TEST(dt::days_from_civil(2000, 2, 29) == 11016);
  for (std::int64_t d = -800000; d < 800000; d += 37) {
    const dt::CivilDate c = dt::civil_from_days(d);
    BOOST_TEST_REQUIRE(dt::days_from_civil(c.year, c.month, c.day) == d);
  }
  const dt::CivilDate c = dt::civil_from_days(-719528);  // 0000-01-01
  BOOST_TEST(c.year == 0);
  BOOST_TEST(c.month == 1);
  BOOST_TEST(dt::weekday_from_days(0) == 4);   // Thursday
  BOOST_TEST(dt::weekday_from_days(-1) == 3);  // Wednesday
  BOOST_TEST(dt::days_in_month(1900, 2) == 28);
  BOOST_TEST(dt::days_in_month(2000, 2) == 29);
}

// Years beyond +-30000 take Hinnant's algorithms instead of Neri and
// Schneider's: each day's date follows the day before's across the seams,
// far out, and both ways round. Binary writers and the JSON writer use
// these for every date they write.
BOOST_AUTO_TEST_CASE(civil_days_continue_across_algorithms) {
  const auto next_day = [](const dt::CivilDate& c) {
    if (c.day < dt::days_in_month(c.year, c.month)) {
      return dt::CivilDate{c.year, c.month, c.day + 1};
    }
    if (c.month < 12) return dt::CivilDate{c.year, c.month + 1, 1};
    return dt::CivilDate{c.year + 1, 1, 1};
  };
  const std::int64_t seam = dt::days_from_civil(30000, 1, 1);
  for (const std::int64_t start :
       {seam - 800, -seam - 800, std::int64_t{-3} * 146097 * 1000000,
        std::int64_t{146097} * 1000000}) {
    dt::CivilDate c = dt::civil_from_days(start);
    for (std::int64_t d = start; d < start + 1600; ++d) {
      const dt::CivilDate got = dt::civil_from_days(d);
      BOOST_TEST_REQUIRE(got.year == c.year);
      BOOST_TEST_REQUIRE(got.month == c.month);
      BOOST_TEST_REQUIRE(got.day == c.day);
      BOOST_TEST_REQUIRE(dt::days_from_civil(c.year, c.month, c.day) == d);
      c = next_day(c);
    }
  }
  // 400 Gregorian years are 146097 days.
  BOOST_TEST(dt::days_from_civil(30000, 3, 1) -
                 dt::days_from_civil(29600, 3, 1) ==
             146097);
  BOOST_TEST(dt::days_from_civil(-29999, 3, 1) -
                 dt::days_from_civil(-30399, 3, 1) ==
             146097);
  BOOST_TEST(dt::floor_div(-1, 86400) == -1);
  BOOST_TEST(dt::floor_div(-86400, 86400) == -1);
  BOOST_TEST(dt::floor_div(86399, 86400) == 0);
  BOOST_TEST(dt::floor_div(INT64_MIN, 1000) == INT64_MIN / 1000 - 1);
}

BOOST_AUTO_TEST_CASE(offsets_parse) {
  BOOST_TEST(*dt::parse_offset("+08:00") == 28800);
  BOOST_TEST(*dt::parse_offset("-0530") == -19800);
  BOOST_TEST(*dt::parse_offset("+08") == 28800);
  BOOST_TEST(*dt::parse_offset("Z") == 0);
  BOOST_TEST(*dt::parse_offset("+05:30:15") == 19815);
  BOOST_TEST(!dt::parse_offset("+8:00"));
  BOOST_TEST(!dt::parse_offset("+19:00"));
  BOOST_TEST(!dt::parse_offset("+08:0"));
  BOOST_TEST(!dt::parse_offset("0800"));
}

BOOST_AUTO_TEST_CASE(berlin_transitions) {
  const auto z = dt::TimeZone::named("Europe/Berlin", kTzdir);
  BOOST_TEST(iso(1711846799, z) == "2024-03-31T01:59:59+01:00");
  BOOST_TEST(iso(1711846800, z) == "2024-03-31T03:00:00+02:00");
  BOOST_TEST(iso(1729990799, z) == "2024-10-27T02:59:59+02:00");
  BOOST_TEST(iso(1729990800, z) == "2024-10-27T02:00:00+01:00");
  BOOST_TEST(z.at(1711846800).abbr == "CEST");
  BOOST_TEST(z.at(1729990800).abbr == "CET");
  // Before 1970, and far after the last transition (POSIX footer rule).
  BOOST_TEST(iso(-15854400, z) == "1969-07-01T13:00:00+01:00");
  BOOST_TEST(iso(-775828800, z) == "1945-06-01T15:00:00+03:00");
  BOOST_TEST(iso(4118126400, z) == "2100-07-01T14:00:00+02:00");
}

BOOST_AUTO_TEST_CASE(new_york_transitions) {
  const auto z = dt::TimeZone::named("America/New_York", kTzdir);
  BOOST_TEST(iso(1710053999, z) == "2024-03-10T01:59:59-05:00");
  BOOST_TEST(iso(1710054000, z) == "2024-03-10T03:00:00-04:00");
  BOOST_TEST(iso(-299851200, z) == "1960-07-01T08:00:00-04:00");
  BOOST_TEST(iso(4129250399, z) == "2100-11-07T01:59:59-04:00");
  BOOST_TEST(iso(4129250400, z) == "2100-11-07T01:00:00-05:00");
}

BOOST_AUTO_TEST_CASE(local_times_resolve_like_java_time) {
  const auto berlin = dt::TimeZone::named("Europe/Berlin", kTzdir);
  const std::int64_t day = dt::days_from_civil(2024, 3, 31) * 86400;
  // In the spring gap 02:30 does not exist: moved forward to 03:30+02:00.
  BOOST_TEST(berlin.resolve_local(day + 2 * 3600 + 1800) == day + 3600 + 1800);
  // In the autumn overlap 02:30 happens twice: the earlier offset wins.
  const std::int64_t oct = dt::days_from_civil(2024, 10, 27) * 86400;
  BOOST_TEST(berlin.resolve_local(oct + 2 * 3600 + 1800) == oct + 1800);
  const auto ny = dt::TimeZone::named("America/New_York", kTzdir);
  const std::int64_t nov = dt::days_from_civil(2024, 11, 3) * 86400;
  BOOST_TEST(ny.resolve_local(nov + 3600 + 1800) == nov + 5 * 3600 + 1800);
  BOOST_TEST(dt::TimeZone::fixed(28800).resolve_local(28800) == 0);
}

BOOST_AUTO_TEST_CASE(zone_names) {
  BOOST_TEST(dt::TimeZone::named("+08:00", kTzdir).name() == "+08:00");
  BOOST_TEST(dt::TimeZone::named("UTC+8", kTzdir).at(0).offset == 28800);
  BOOST_TEST(dt::TimeZone::named("UTC", kTzdir).name() == "UTC");
  BOOST_CHECK_EXCEPTION(dt::TimeZone::named("Mars/Olympus", kTzdir), jbx::Error,
                        [](const jbx::Error& e) {
                          return e.message ==
                                 "unknown time zone 'Mars/Olympus'";
                        });
  BOOST_CHECK_EXCEPTION(dt::TimeZone::named("../etc/passwd", kTzdir),
                        jbx::Error, [](const jbx::Error& e) {
                          return e.message ==
                                 "unknown time zone '../etc/passwd'";
                        });
  BOOST_CHECK_EXCEPTION(
      dt::TimeZone::named("+25:00", kTzdir), jbx::Error,
      [](const jbx::Error& e) {
        return e.message ==
               "malformed time zone offset '+25:00' (expected +HH:MM, for "
               "example +08:00)";
      });
  BOOST_CHECK_THROW(dt::TimeZone::from_tzif("X", "TZif2"), jbx::Error);
}

BOOST_AUTO_TEST_CASE(iso_format_fractions_and_years) {
  const dt::TimeZone utc;
  BOOST_TEST(iso(0, utc) == "1970-01-01T00:00:00Z");
  BOOST_TEST(iso(-1, utc, 500000000) == "1969-12-31T23:59:59.500Z");
  BOOST_TEST(iso(0, utc, 1000) == "1970-01-01T00:00:00.000001Z");
  BOOST_TEST(iso(0, utc, 1) == "1970-01-01T00:00:00.000000001Z");
  BOOST_TEST(iso(-62167219200, utc) == "0000-01-01T00:00:00Z");
  BOOST_TEST(iso(-62167219201, utc) == "-0001-12-31T23:59:59Z");
  BOOST_TEST(iso(253402300800, utc) == "+10000-01-01T00:00:00Z");
}

BOOST_AUTO_TEST_CASE(iso_parse) {
  dt::Parsed p;
  dt::ParseError err;
  BOOST_TEST(dt::parse_iso("2024-03-31T01:30:00.25+02:00", p, err));
  BOOST_TEST(p.local_seconds == 1711848600);
  BOOST_TEST(p.nanos == 250000000u);
  BOOST_TEST(*p.offset == 7200);
  BOOST_TEST(dt::parse_iso("1969-12-31", p, err));
  BOOST_TEST(p.local_seconds == -86400);
  BOOST_TEST(!p.offset);
  BOOST_TEST(dt::parse_iso("1969-12-31 23:59Z", p, err));
  BOOST_TEST(p.local_seconds == -60);
  BOOST_TEST(*p.offset == 0);
  BOOST_TEST(!dt::parse_iso("2024-02-30", p, err));
  BOOST_TEST(err.message == "day 30 out of range for 2024-02");
  BOOST_TEST(err.position == 8u);
  BOOST_TEST(!dt::parse_iso("2024-03-31T25:00", p, err));
  BOOST_TEST(err.message == "time of day out of range");
  BOOST_TEST(!dt::parse_iso("2024/03/31", p, err));
  BOOST_TEST(err.message == "expected '-', found '/'");
  BOOST_TEST(err.position == 4u);
  BOOST_TEST(!dt::parse_iso("2024-03-31T10:00+2:0", p, err));
  BOOST_TEST(err.position == 16u);
}

BOOST_AUTO_TEST_CASE(iso_parse_of_the_usual_shape_reads_as_step_by_step) {
  // "yyyy-MM-ddTHH:mm:ss..." is read in one go; with a '+' before the
  // year, the same text is read step by step, to the same result and
  // errors one character later.
  const std::string base = "2024-03-31T01:30:59";
  const std::string swaps = "0123456789-:Tt .,Z+a";
  const std::string tails[] = {"",     ".5",     ".123Z",       ",25+02:00",
                               "Z",    "-05:30", ".1234567890", ".",
                               "+2:0", "x",      ".123+0530"};
  std::mt19937 rng(3);
  int fast = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string s = base;
    for (std::size_t k = rng() % 3; k > 0; --k) {
      s[rng() % s.size()] = swaps[rng() % swaps.size()];
    }
    if (rng() % 4 == 0) s.erase(rng() % s.size(), 1);
    s += tails[rng() % std::size(tails)];
    if (s[0] < '0' || s[0] > '9') continue;
    dt::Parsed a, b;
    dt::ParseError ea, eb;
    const bool ok = dt::parse_iso(s, a, ea);
    BOOST_TEST_REQUIRE(dt::parse_iso("+" + s, b, eb) == ok, s);
    if (ok) {
      ++fast;
      BOOST_TEST(a.local_seconds == b.local_seconds, s);
      BOOST_TEST(a.nanos == b.nanos, s);
      BOOST_TEST((a.offset == b.offset), s);
    } else {
      BOOST_TEST(ea.message == eb.message, s);
      BOOST_TEST(ea.position + 1 == eb.position, s);
    }
  }
  BOOST_TEST(fast > 1000);
}

BOOST_AUTO_TEST_CASE(pattern_numbers_are_padded_like_fmt) {
  // Fields of two and four digits come from a table, others digit by
  // digit: both against fmt's padding, over years 0 to 99999.
  const dt::TimeZone utc;
  const auto full = dt::DatePattern::compile("yyyy-MM-dd HH:mm:ss.SSS|yy");
  const auto narrow = dt::DatePattern::compile("y M d H m s S h");
  std::mt19937_64 rng(9);
  for (int n = 0; n < 20000; ++n) {
    const auto t =
        static_cast<std::int64_t>(rng() % 3217000000000) - 62167219200;
    const auto ns = static_cast<std::uint32_t>(rng() % 1000000000);
    const dt::Fields f = dt::fields_in_zone(t, ns, utc);
    std::string a, b;
    full.format(f, a);
    narrow.format(f, b);
    BOOST_TEST_REQUIRE(
        a == fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}|{:02}",
                         f.year, f.month, f.day, f.hour, f.minute, f.second,
                         f.nanos / 1000000, f.year % 100));
    BOOST_TEST_REQUIRE(b == fmt::format("{} {} {} {} {} {} {} {}", f.year,
                                        f.month, f.day, f.hour, f.minute,
                                        f.second, f.nanos / 100000000,
                                        f.hour % 12 == 0 ? 12 : f.hour % 12));
  }
}

BOOST_AUTO_TEST_CASE(pattern_format) {
  const dt::TimeZone utc;
  const auto berlin = dt::TimeZone::named("Europe/Berlin", kTzdir);
  const std::int64_t t = 1711846800;  // 2024-03-31T01:00:00Z, a Sunday
  BOOST_TEST(fmt_pattern("yyyy-MM-dd HH:mm:ss", t, utc) ==
             "2024-03-31 01:00:00");
  BOOST_TEST(fmt_pattern("yyyy/MM/dd'T'HH:mm", t, berlin) ==
             "2024/03/31T03:00");
  BOOST_TEST(fmt_pattern("EEE, d MMM yy hh:mm a z", t, berlin) ==
             "Sun, 31 Mar 24 03:00 AM CEST");
  BOOST_TEST(fmt_pattern("EEEE MMMM", t, utc) == "Sunday March");
  BOOST_TEST(fmt_pattern("HH:mm:ss.SSS", t, utc, 123456789) == "01:00:00.123");
  BOOST_TEST(fmt_pattern("Z|ZZZZ|ZZZZZ|X|XX|XXX", t, berlin) ==
             "+0200|GMT+02:00|+02:00|+02|+0200|+02:00");
  BOOST_TEST(fmt_pattern("Z|ZZZZ|ZZZZZ|X|XXX|z", t, utc) ==
             "+0000|GMT|Z|Z|Z|UTC");
  BOOST_TEST(fmt_pattern("''h'' 'o''clock'", t, utc) == "'1' o'clock");
  BOOST_TEST(fmt_pattern("yyyy-MM-dd", -2203891200, utc) == "1900-03-01");
  BOOST_TEST(fmt_pattern("h a", 12 * 3600, utc) == "12 PM");
}

BOOST_AUTO_TEST_CASE(pattern_errors_name_the_letter) {
  BOOST_TEST(usage_message("yyyy-QQ") ==
             "unknown letter 'Q' in date pattern 'yyyy-QQ'");
  BOOST_TEST(usage_message("dddd") ==
             "too many letters 'dddd' in date pattern 'dddd'");
  BOOST_TEST(usage_message("yyyy 'at") ==
             "unclosed quote in date pattern 'yyyy 'at'");
}

BOOST_AUTO_TEST_CASE(pattern_parse) {
  dt::Parsed p;
  dt::ParseError err;
  const auto pat = dt::DatePattern::compile("yyyy-MM-dd HH:mm:ss");
  BOOST_TEST(pat.parse("2024-03-31 02:30:00", p, err, kTzdir));
  BOOST_TEST(p.local_seconds == 1711852200);
  BOOST_TEST(!p.offset);
  BOOST_TEST(!pat.parse("2024-03-31 02:30", p, err, kTzdir));
  BOOST_TEST(err.message == "expected ':', found end of text");
  BOOST_TEST(err.position == 16u);

  const auto ampm = dt::DatePattern::compile("dd/MM/yyyy hh:mm a XXX");
  BOOST_TEST(ampm.parse("01/07/1960 08:00 PM -04:00", p, err, kTzdir));
  BOOST_TEST(p.local_seconds == -299822400);
  BOOST_TEST(*p.offset == -14400);

  const auto named = dt::DatePattern::compile("EEE MMM d yyyy z");
  BOOST_TEST(named.parse("Sun Mar 31 2024 Europe/Berlin", p, err, kTzdir));
  BOOST_TEST(p.zone->name() == "Europe/Berlin");
  BOOST_TEST(!named.parse("Mon Mar 31 2024 UTC", p, err, kTzdir));
  BOOST_TEST(err.message == "2024-03-31 is a Sunday, not a Monday");
  BOOST_TEST(err.position == 0u);

  const auto compact = dt::DatePattern::compile("yyyyMMddHHmmssSSS");
  BOOST_TEST(compact.parse("19691231235959250", p, err, kTzdir));
  BOOST_TEST(p.local_seconds == -1);
  BOOST_TEST(p.nanos == 250000000u);
}

BOOST_AUTO_TEST_CASE(truncated_or_corrupt_tzif_is_an_error_not_a_crash) {
  std::ifstream in(kTzdir + "/America/New_York", std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  BOOST_TEST_REQUIRE(data.size() > 100u);
  int accepted = 0;
  for (std::size_t n = 0; n < data.size(); ++n) {
    try {
      const auto z = dt::TimeZone::from_tzif("NY", data.substr(0, n));
      z.at(1710054000);
      z.resolve_local(0);
      ++accepted;
    } catch (const jbx::Error&) {
    }
  }
  // Only prefixes that end after the 64-bit data block parse (the footer
  // is optional).
  BOOST_TEST(accepted < 200);
  std::string flipped = data;
  for (std::size_t i = 20; i < 60; ++i) {
    flipped[i] = static_cast<char>(0xff);
    try {
      dt::TimeZone::from_tzif("NY", flipped).at(0);
    } catch (const jbx::Error&) {
    }
  }
}

// The calendar's fast arithmetic near the present and the general one far
// from it agree with counting days one by one, across both boundaries.
BOOST_AUTO_TEST_CASE(calendar_agrees_with_counting_days) {
  std::int64_t y = -40000;
  int m = 1, d = 1;
  std::int64_t days = dt::days_from_civil(y, m, d);
  std::size_t bad = 0;
  while (y < 40000) {
    if (dt::days_from_civil(y, m, d) != days) ++bad;
    const dt::CivilDate c = dt::civil_from_days(days);
    if (c.year != y || c.month != m || c.day != d) ++bad;
    ++days;
    if (++d > dt::days_in_month(y, m)) {
      d = 1;
      if (++m > 12) {
        m = 1;
        ++y;
      }
    }
  }
  BOOST_TEST(bad == 0u);
  BOOST_TEST(dt::days_from_civil(1970, 1, 1) == 0);
  BOOST_TEST(dt::days_from_civil(2000, 3, 1) == 11017);
}

namespace {

// Texts near the usual ISO 8601 shape: mostly well formed, some out of
// range, some cut short or spelled another way.
std::string random_iso(std::mt19937_64& rng) {
  const auto pick = [&rng](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  const auto chance = [&](int percent) { return pick(0, 99) < percent; };
  const int y = chance(20) ? pick(1960, 1975) : pick(0, 9999);
  const int mo = chance(5) ? pick(0, 13) : pick(1, 12);
  const int d = chance(30) ? pick(28, 32) - (chance(5) ? 28 : 0) : pick(1, 28);
  const int h = chance(3) ? 24 : pick(0, 23);
  const int mi = chance(3) ? 60 : pick(0, 59);
  const int s = chance(3) ? 60 : pick(0, 59);
  const char sep = "TTTTt "[pick(0, 5)];
  std::string t = fmt::format("{:04}-{:02}-{:02}{}{:02}:{:02}:{:02}", y, mo, d,
                              sep, h, mi, s);
  if (chance(80)) {
    const int n = pick(0, 10);
    if (n > 0) t.push_back(chance(80) ? '.' : ',');
    for (int k = 0; k < n; ++k)
      t.push_back(static_cast<char>('0' + pick(0, 9)));
  }
  const int form = pick(0, 99);
  if (form < 35) {
    t.push_back(chance(80) ? 'Z' : 'z');
  } else if (form < 85) {
    const int oh = chance(10) ? pick(18, 19) : pick(0, 14);
    const int om = chance(10) ? pick(59, 60) : 15 * pick(0, 3);
    t += fmt::format("{}{:02}{}{:02}", chance(50) ? '+' : '-', oh,
                     chance(90) ? ":" : "", om);
    if (chance(5)) t += fmt::format(":{:02}", pick(0, 59));
  } else if (form < 92) {
    static const char* const kOdd[] = {
        "+08", "-5", "+0530", "Zx", "+8:00", " ", "+08:0", "Z ", "+08:00 "};
    t += kOdd[pick(0, 8)];
  }  // else no offset
  if (chance(3))
    t.resize(static_cast<std::size_t>(pick(0, static_cast<int>(t.size()))));
  if (!t.empty() && chance(2))
    t[static_cast<std::size_t>(pick(0, static_cast<int>(t.size()) - 1))] = 'x';
  if (chance(2)) t.insert(t.begin(), chance(50) ? '+' : '1');
  return t;
}

}  // namespace

// The one-go reader of the usual shape reads what the general parser
// reads, and leaves everything else to it.
BOOST_AUTO_TEST_CASE(fast_iso_parse_agrees_with_the_general_parser) {
  std::mt19937_64 rng(20240331);
  int fast = 0, general = 0, mismatches = 0;
  for (int n = 0; n < 300000; ++n) {
    const std::string t = random_iso(rng);
    std::int64_t local = 0;
    std::uint32_t nanos = 0;
    std::int32_t offset = 0;
    const bool quick = dt::parse_iso_fast(t, local, nanos, offset);
    dt::Parsed p;
    dt::ParseError err;
    const bool ok = dt::parse_iso(t, p, err);
    general += ok;
    if (!quick) continue;
    ++fast;
    if (!ok || !p.offset || p.zone || p.local_seconds != local ||
        p.nanos != nanos || *p.offset != offset) {
      if (++mismatches <= 5) BOOST_TEST_MESSAGE("mismatch: " << t);
    }
  }
  BOOST_TEST(mismatches == 0);
  // The usual shape is the usual case: most readable texts take the fast
  // path.
  BOOST_TEST(fast > general / 2);
  BOOST_TEST(fast > 100000);
}

// Written straight into a buffer, ISO 8601 and simple patterns come out as
// the general code writes them, for dates from far before 1970 to after
// 9999, fractions of every precision and offsets with seconds.
BOOST_AUTO_TEST_CASE(fast_formatting_agrees_with_the_general_one) {
  std::mt19937_64 rng(19700101);
  const auto pick = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const std::int64_t year0 = dt::days_from_civil(0, 1, 1) * 86400;
  const std::int64_t year10000 = dt::days_from_civil(10000, 1, 1) * 86400;
  const auto plain = dt::DatePattern::compile("yyyy-MM-dd HH:mm:ss");
  const auto quoted = dt::DatePattern::compile("dd/MM/yyyy'T'HH.mm.ss' h'");
  // A literal too long for the template: the general formatting.
  const std::string pad(40, '.');
  const auto plain_general =
      dt::DatePattern::compile("yyyy-MM-dd HH:mm:ss'" + pad + "'");
  const auto quoted_general =
      dt::DatePattern::compile("dd/MM/yyyy'T'HH.mm.ss' h" + pad + "'");
  const std::int32_t offsets[] = {0,      3600,  -18000, 19800, 20700,
                                  -34200, 64800, -64800, 3723,  -45296};
  int mismatches = 0;
  for (int n = 0; n < 200000; ++n) {
    std::int64_t t = 0;
    switch (n % 4) {
      case 0:
        t = pick(year0, year10000);
        break;
      case 1:
        t = pick(-86400 * 400, 86400 * 400);
        break;
      case 2:
        t = pick(-(std::int64_t{1} << 40), std::int64_t{1} << 40);
        break;
      default:
        t = pick(year0 - 86400 * 3, year0 + 86400 * 3);
        if (n % 8 == 3) t += year10000 - year0;
        break;
    }
    std::uint32_t ns = 0;
    switch (pick(0, 3)) {
      case 1:
        ns = static_cast<std::uint32_t>(pick(0, 999)) * 1000000;
        break;
      case 2:
        ns = static_cast<std::uint32_t>(pick(0, 999999)) * 1000;
        break;
      case 3:
        ns = static_cast<std::uint32_t>(pick(0, 999999999));
        break;
    }
    const auto zone = dt::TimeZone::fixed(offsets[pick(0, 9)]);
    const dt::Fields f = dt::fields_in_zone(t, ns, zone);
    std::string general;
    dt::format_iso_instant(f, general);
    char buf[dt::kIsoInstantBound];
    const std::string fast(buf, dt::put_iso_instant(f, buf));
    std::string a, b, c, d;
    plain.format(f, a);
    plain_general.format(f, b);
    quoted.format(f, c);
    quoted_general.format(f, d);
    if (fast != general || a + pad != b || c + pad != d) {
      if (++mismatches <= 5) {
        BOOST_TEST_MESSAGE(general << " " << fast << " " << a << " " << c);
      }
    }
  }
  BOOST_TEST(mismatches == 0);
  BOOST_TEST(fmt_pattern("yyyy-MM-dd HH:mm:ss", 0, dt::TimeZone()) ==
             "1970-01-01 00:00:00");
  BOOST_TEST(fmt_pattern("yyyy-MM-dd HH:mm:ss", -1, dt::TimeZone()) ==
             "1969-12-31 23:59:59");
  BOOST_TEST(fmt_pattern("yyyy-MM-dd", year0 - 1, dt::TimeZone()) ==
             "-0001-12-31");
  BOOST_TEST(fmt_pattern("yyyy-MM-dd", year10000, dt::TimeZone()) ==
             "10000-01-01");
}

BOOST_AUTO_TEST_SUITE_END()
