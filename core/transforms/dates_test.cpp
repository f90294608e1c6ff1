#include "core/transforms/dates.h"

#include <fmt/format.h>

#include <boost/test/unit_test.hpp>

#include "core/error.h"
#include "core/transforms/transform_test_util.h"

namespace tf = jbx::transforms;
namespace dt = jbx::datetime;
using jbx::Handler;
using jbx::Timestamp;
using tf::testing::error_of;
using tf::testing::run;

namespace {

const std::string kTzdir = "/usr/share/zoneinfo";

dt::TimeZone zone(std::string_view name) {
  return dt::TimeZone::named(name, kTzdir);
}

/// Writes one native timestamp through FormatDates.
std::string format(const Timestamp& t, std::string_view fmt,
                   std::string_view tz = "UTC") {
  jbx::StringSink sink;
  jbx::WriteOptions wo;
  wo.compact = true;
  auto writer = jbx::kJsonFormat.make_writer(sink, wo);
  tf::FormatDates f(*writer, tf::DateFormat::parse(fmt, zone(tz)));
  f.timestamp_value(t);
  f.end_document();
  writer->finish();
  return std::string(sink.data());
}

Timestamp instant(std::int64_t s, std::uint32_t ns = 0) {
  Timestamp t;
  t.seconds = s;
  t.nanos = ns;
  return t;
}

/// --date-fields PATHS, then --date-format FMT, both in zone `tz`.
tf::testing::Make fields(std::vector<std::string> paths, std::string_view fmt,
                         std::string_view tz = "UTC",
                         tf::EpochUnit unit = tf::EpochUnit::millis,
                         bool keep = false, std::string_view input = "") {
  return [=](Handler& next) -> std::unique_ptr<Handler> {
    struct Chain final : jbx::ForwardingHandler {
      Chain(Handler& n, tf::DateFieldOptions o, tf::DateFormat f)
          : ForwardingHandler(static_cast<Handler&>(parse_)),
            format_(n, std::move(f)),
            parse_(format_, std::move(o)) {}
      tf::FormatDates format_;
      tf::ParseDateFields parse_;
    };
    tf::DateFieldOptions o;
    for (const std::string& p : paths) {
      o.fields.push_back(tf::parse_rule_path("date-fields", p));
    }
    o.zone = zone(tz);
    o.unit = unit;
    o.keep_errors = keep;
    o.tzdir = kTzdir;
    if (!input.empty()) o.input_pattern = dt::DatePattern::compile(input);
    return std::make_unique<Chain>(next, std::move(o),
                                   tf::DateFormat::parse(fmt, zone(tz)));
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dates)

BOOST_AUTO_TEST_CASE(instants_in_each_format) {
  const Timestamp t = instant(1711848600, 123000000);  // 2024-03-31T01:30Z
  BOOST_TEST(format(t, "iso8601") == "\"2024-03-31T01:30:00.123Z\"\n");
  BOOST_TEST(format(t, "iso8601", "Europe/Berlin") ==
             "\"2024-03-31T03:30:00.123+02:00\"\n");
  BOOST_TEST(format(t, "millis") == "1711848600123\n");
  BOOST_TEST(format(t, "seconds") == "1711848600\n");
  BOOST_TEST(format(t, "unixtime") == "1711848600\n");
  BOOST_TEST(format(t, "yyyy-MM-dd HH:mm:ss z", "America/New_York") ==
             "\"2024-03-30 21:30:00 EDT\"\n");
}

BOOST_AUTO_TEST_CASE(before_1970) {
  BOOST_TEST(format(instant(-1, 500000000), "millis") == "-500\n");
  BOOST_TEST(format(instant(-14182940), "iso8601", "America/New_York") ==
             "\"1969-07-20T16:17:40-04:00\"\n");
  BOOST_TEST(format(instant(-2208988800), "yyyy-MM-dd E") ==
             "\"1900-01-01 Mon\"\n");
}

BOOST_AUTO_TEST_CASE(local_values_keep_their_wall_clock) {
  Timestamp date;
  date.kind = Timestamp::Kind::local_date;
  date.seconds = 19813 * 86400;  // 2024-03-31
  BOOST_TEST(format(date, "iso8601", "Europe/Berlin") == "\"2024-03-31\"\n");
  BOOST_TEST(format(date, "millis", "Europe/Berlin") == "1711839600000\n");
  Timestamp ldt;
  ldt.kind = Timestamp::Kind::local_date_time;
  ldt.seconds = 19813 * 86400 + 2 * 3600 + 1800;  // 02:30, in the gap
  BOOST_TEST(format(ldt, "iso8601", "Europe/Berlin") ==
             "\"2024-03-31T02:30:00\"\n");
  BOOST_TEST(format(ldt, "seconds", "Europe/Berlin") == "1711848600\n");
  Timestamp time;
  time.kind = Timestamp::Kind::local_time;
  time.seconds = 3723;
  BOOST_TEST(format(time, "iso8601") == "\"01:02:03\"\n");
  BOOST_TEST(format(time, "HH.mm") == "\"01.02\"\n");
}

BOOST_AUTO_TEST_CASE(millis_overflow_is_an_error) {
  BOOST_CHECK_THROW(format(instant(INT64_MAX / 10), "millis"), jbx::Error);
}

BOOST_AUTO_TEST_CASE(iso_strings_at_paths) {
  BOOST_TEST(
      run(R"({"a":"2024-03-31T03:30:00+02:00","b":"2024-03-31","c":"x"})",
          fields({"$.a", "$.b"}, "millis")) ==
      "{\"a\":1711848600000,\"b\":1711843200000,\"c\":\"x\"}\n");
  // Without an offset the text is local time in the zone: 02:30 in the
  // spring gap becomes 03:30+02:00.
  BOOST_TEST(run(R"(["2024-03-31T02:30:00","2024-10-27T02:30:00"])",
                 fields({"$[*]"}, "iso8601", "Europe/Berlin")) ==
             "[\"2024-03-31T03:30:00+02:00\",\"2024-10-27T02:30:00+02:00\"]\n");
}

BOOST_AUTO_TEST_CASE(epoch_numbers) {
  BOOST_TEST(run(R"({"t":[-1000,1.5,0]})", fields({"$.t[*]"}, "iso8601")) ==
             "{\"t\":[\"1969-12-31T23:59:59Z\",\"1970-01-01T00:00:00.001500Z\","
             "\"1970-01-01T00:00:00Z\"]}\n");
  BOOST_TEST(run(R"({"t":-86400.25})",
                 fields({"$.t"}, "iso8601", "UTC", tf::EpochUnit::seconds)) ==
             "{\"t\":\"1969-12-30T23:59:59.750Z\"}\n");
}

BOOST_AUTO_TEST_CASE(input_pattern) {
  BOOST_TEST(run(R"({"d":"31/03/2024 02:30"})",
                 fields({"$..d"}, "iso8601", "America/New_York",
                        tf::EpochUnit::millis, false, "dd/MM/yyyy HH:mm")) ==
             "{\"d\":\"2024-03-31T02:30:00-04:00\"}\n");
}

BOOST_AUTO_TEST_CASE(errors_name_path_and_character) {
  BOOST_TEST(
      error_of(R"({"a":[{"t":"2024-03-3x"}]})", fields({"$..t"}, "iso8601")) ==
      "date at $['a'][0]['t']: expected a 2-digit day, found 'x' at "
      "character 10 of \"2024-03-3x\"");
  BOOST_TEST(error_of(R"({"t":true})", fields({"$.t"}, "iso8601")) ==
             "date at $['t']: expected a date string or an epoch number, "
             "found true");
  BOOST_TEST(error_of(R"({"t":1e3})", fields({"$.t"}, "iso8601")) ==
             "date at $['t']: 1e3 is not an epoch count of milliseconds");
  // keep passes them on; nulls always pass.
  BOOST_TEST(
      run(R"({"t":"soon","u":true,"v":null,"w":{"x":1}})",
          fields({"$.*"}, "iso8601", "UTC", tf::EpochUnit::millis, true)) ==
      "{\"t\":\"soon\",\"u\":true,\"v\":null,\"w\":{\"x\":1}}\n");
}

BOOST_AUTO_TEST_CASE(zoned_local_date_times_resolve_in_their_zone) {
  Timestamp t;
  t.kind = Timestamp::Kind::local_date_time;
  t.seconds = 19813 * 86400 + 2 * 3600 + 1800;  // 2024-03-31T02:30, a gap
  t.zone = "Europe/Berlin";
  BOOST_TEST(format(t, "iso8601") == "\"2024-03-31T01:30:00Z\"\n");
  BOOST_TEST(format(t, "yyyy-MM-dd HH:mm z", "America/New_York") ==
             "\"2024-03-30 21:30 EDT\"\n");
  t.zone = "Mars/Base";
  BOOST_CHECK_EXCEPTION(format(t, "iso8601"), jbx::Error,
                        [](const jbx::Error& e) {
                          return e.message ==
                                 "a date in time zone 'Mars/Base': unknown "
                                 "time zone 'Mars/Base'";
                        });
}

BOOST_AUTO_TEST_CASE(wall_clocks_at_an_offset_as_instants) {
  // format_wall_clock() shifts the text's own fields to the format's
  // offset; format_instant() counts seconds since 1970: the same text, at
  // month and year ends, leap days, before 1970 and at the edges of the
  // offsets (+-18:00), with and without the day of the week.
  const char* const patterns[] = {"iso8601", "yyyy-MM-dd HH:mm:ss",
                                  "E yyyy/MM/dd'T'HH:mm:ss.SSS Z"};
  const std::int32_t zones[] = {0,         8 * 3600,   -5 * 3600,
                                18 * 3600, -18 * 3600, 5 * 3600 + 1800};
  const std::int32_t offsets[] = {
      0,          8 * 3600,        -5 * 3600,       18 * 3600,
      -18 * 3600, 5 * 3600 + 1800, -9 * 3600 - 1800};
  std::uint64_t seed = 12345;
  const auto next = [&seed] {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    return seed >> 33;
  };
  int checked = 0;
  for (const char* pattern : patterns) {
    for (const std::int32_t zone : zones) {
      tf::DateFormatter f(
          tf::DateFormat::parse(pattern, dt::TimeZone::fixed(zone)));
      BOOST_TEST_REQUIRE(f.instants_fixed());
      for (int k = 0; k < 3000; ++k) {
        // Days from 1600 to 2400, biased to the first and last days of
        // months; times near midnight.
        const auto day = static_cast<std::int64_t>(next() % 292000) - 135000;
        dt::Fields w = dt::fields_from_local(day * 86400, 0);
        if (k % 2 == 0) {
          w.day = k % 4 == 0 ? 1 : dt::days_in_month(w.year, w.month);
        }
        w.hour = static_cast<int>(next() % 24);
        w.minute = static_cast<int>(next() % 60);
        w.second = static_cast<int>(next() % 60);
        w.nanos = static_cast<std::uint32_t>(next() % 1000) * 1000000;
        const std::int32_t offset = offsets[next() % std::size(offsets)];
        const std::int64_t local =
            dt::days_from_civil(w.year, w.month, w.day) * 86400 +
            w.hour * 3600 + w.minute * 60 + w.second;
        const std::string want(f.format_instant(local - offset, w.nanos).text);
        const std::string got(f.format_wall_clock(w, offset).text);
        BOOST_TEST(got == want, local << " at " << offset);
        ++checked;
      }
    }
  }
  BOOST_TEST(checked == 54000);
}

BOOST_AUTO_TEST_CASE(iso_texts_formatted_from_their_digits) {
  // format_iso_text() writes a text in ISO 8601 or a pattern of numbers
  // and literals (copying its digits when the text is at the format's
  // offset): the same as format_wall_clock() of the fields read, and
  // declined for patterns with names or fractions, and texts that are not
  // in the fast forms or not dates.
  const char* const patterns[] = {
      "yyyy-MM-dd HH:mm:ss",    "dd/MM/yyyy", "HH:mm",
      "yyyy'T'HHmmss",          "iso8601",    "E yyyy-MM-dd",
      "yyyy-MM-dd HH:mm:ss.SSS"};
  // (The last, with seconds, is never a whole number of minutes away.)
  const std::int32_t zones[] = {0, 8 * 3600, -5 * 3600 - 1800, 3600 + 7};
  const char* const suffixes[] = {
      "Z",     "+08:00",      "-05:30",   ".5Z",        ".123Z",
      ".000Z", ".123456789Z", "",         "+8",         ".Z",
      "z",     "+08:00x",     ".5-05:30", ".000+08:00", ".123456+01:00"};
  std::uint64_t seed = 99;
  const auto next = [&seed] {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    return seed >> 33;
  };
  int copied = 0;
  int declined = 0;
  int same_offset = 0;
  for (const char* pattern : patterns) {
    for (const std::int32_t zone : zones) {
      tf::DateFormatter f(
          tf::DateFormat::parse(pattern, dt::TimeZone::fixed(zone)));
      for (int k = 0; k < 2000; ++k) {
        // Some fields out of range: the text is then no date.
        // (ISO 8601 allows 't' and RFC 3339 a space for the 'T'.)
        const std::string text = fmt::format(
            "{:04}-{:02}-{:02}{}{:02}:{:02}:{:02}{}", next() % 10000,
            next() % 13, next() % 32, "Tt "[next() % 3], next() % 25,
            next() % 61, next() % 61, suffixes[next() % std::size(suffixes)]);
        dt::Fields w;
        std::int32_t offset = 0;
        const bool fast = dt::parse_iso_fast_fields(text, w, offset);
        tf::DateFormatter::Result r;
        if (!f.format_iso_text(text, r)) {
          ++declined;
          continue;
        }
        ++copied;
        BOOST_TEST_REQUIRE(fast, text);
        if (offset == zone) ++same_offset;
        const std::string got(r.text);
        BOOST_TEST(got == f.format_wall_clock(w, offset).text, text);
      }
    }
  }
  BOOST_TEST(copied > 1000);
  BOOST_TEST(same_offset > 100);
  BOOST_TEST(declined > 1000);
  // The common case, exactly.
  tf::DateFormatter utc(
      tf::DateFormat::parse("yyyy-MM-dd HH:mm:ss", dt::TimeZone()));
  tf::DateFormatter::Result r;
  BOOST_TEST_REQUIRE(utc.format_iso_text("2027-01-19T08:53:21.240Z", r));
  BOOST_TEST(r.text == "2027-01-19 08:53:21");
  BOOST_TEST_REQUIRE(utc.format_iso_text("2027-01-01T05:53:21+08:00", r));
  BOOST_TEST(r.text == "2026-12-31 21:53:21");
  BOOST_TEST(!utc.format_iso_text("0000-01-01T05:53:21+08:00", r));
  BOOST_TEST(!utc.format_iso_text("2027-02-29T08:53:21Z", r));
  // ISO 8601 at UTC and at an offset: the fraction in groups of three and
  // only when not zero, as java.time writes it.
  tf::DateFormatter iso(tf::DateFormat::parse("iso8601", dt::TimeZone()));
  BOOST_TEST_REQUIRE(iso.format_iso_text("2027-01-01T05:53:21.24+08:00", r));
  BOOST_TEST(r.text == "2026-12-31T21:53:21.240Z");
  BOOST_TEST_REQUIRE(iso.format_iso_text("2027-01-19T08:53:21.000Z", r));
  BOOST_TEST(r.text == "2027-01-19T08:53:21Z");
  BOOST_TEST(r.escape_free);
  tf::DateFormatter india(
      tf::DateFormat::parse("iso8601", dt::TimeZone::fixed(5 * 3600 + 1800)));
  BOOST_TEST_REQUIRE(india.format_iso_text("0000-01-01T00:00:00.1234Z", r));
  BOOST_TEST(r.text == "0000-01-01T05:30:00.123400+05:30");
  BOOST_TEST(!india.format_iso_text("2027-01-19T08:53:21", r));
}

BOOST_AUTO_TEST_CASE(iso_text_read_as_fields) {
  dt::Fields f;
  std::int32_t offset = 0;
  BOOST_TEST_REQUIRE(
      dt::parse_iso_fast_fields("2024-02-29T23:59:58.123+05:30", f, offset));
  BOOST_TEST(f.year == 2024);
  BOOST_TEST(f.month == 2);
  BOOST_TEST(f.day == 29);
  BOOST_TEST(f.hour == 23);
  BOOST_TEST(f.minute == 59);
  BOOST_TEST(f.second == 58);
  BOOST_TEST(f.nanos == 123000000u);
  BOOST_TEST(offset == 5 * 3600 + 1800);
  BOOST_TEST(!dt::parse_iso_fast_fields("2023-02-29T00:00:00Z", f, offset));
  BOOST_TEST(!dt::parse_iso_fast_fields("2024-02-29T00:00:00", f, offset));
  dt::shift_fields(f, -(23 * 3600 + 59 * 60 + 58) - 1);  // a second before
  BOOST_TEST(f.day == 28);
  BOOST_TEST(f.hour == 23);
  BOOST_TEST(f.second == 59);
  f = dt::Fields{2023, 12, 31, 23, 0, 0, 0, 0, 0, {}};
  dt::shift_fields(f, 3600);
  BOOST_TEST((f.year == 2024 && f.month == 1 && f.day == 1 && f.hour == 0));
}

BOOST_AUTO_TEST_SUITE_END()
