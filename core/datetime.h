// Dates and times for the date transforms: proleptic Gregorian calendar
// arithmetic, time zones read from the system tz database (TZif files, with
// their POSIX TZ footer for later years), ISO 8601 and java.time-style
// patterns (fastjson2's setDateFormat letters). Not a tz database and not a
// locale library: names of months, days and AM/PM are English only.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jbx::datetime {

struct CivilDate {
  std::int64_t year = 1970;
  int month = 1;  // 1..12
  int day = 1;    // 1..31
};

/// Days since 1970-01-01 of a proleptic Gregorian date (negative before).
std::int64_t days_from_civil(std::int64_t year, int month, int day);
/// The date `days` days after 1970-01-01.
CivilDate civil_from_days(std::int64_t days);
/// 0 = Sunday .. 6 = Saturday.
int weekday_from_days(std::int64_t days);
/// 28..31.
int days_in_month(std::int64_t year, int month);
/// Floor division, for seconds-to-days splits of negative times.
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/// What a zone says about one instant.
struct ZoneState {
  std::int32_t offset = 0;  // seconds east of UTC
  bool dst = false;
  std::string_view abbr;  // "CET", "EDT"; valid while the TimeZone lives
};

/// A time zone: UTC, a fixed offset, or an IANA zone from TZif data.
/// Cheap to copy (shares its data); immutable, so safe across threads.
class TimeZone {
 public:
  /// UTC.
  TimeZone();

  /// A fixed offset, `seconds` east of UTC.
  static TimeZone fixed(std::int32_t seconds);
  /// "UTC", "Z", "GMT", an offset ("+08:00", "-0530", "+08"), or an IANA
  /// name read as `tzdir`/NAME. Throws Error(usage) for a malformed offset
  /// or a name that is not in the database ("unknown time zone 'X'").
  static TimeZone named(std::string_view name, const std::string& tzdir);
  /// Parses TZif data (RFC 8536, versions 1 to 4) for zone `name`. Throws
  /// Error(usage) when the data is malformed.
  static TimeZone from_tzif(std::string_view name, std::string_view data);

  /// The offset, DST flag and abbreviation in force at `utc_seconds`.
  ZoneState at(std::int64_t utc_seconds) const;
  /// The instant of wall-clock time `local_seconds` (seconds since
  /// 1970-01-01T00:00 as if UTC), as java.time resolves it: in an overlap
  /// the earlier offset, in a gap the time is moved forward by the gap.
  std::int64_t resolve_local(std::int64_t local_seconds) const;
  /// "UTC", "+08:00" or the IANA name as given.
  const std::string& name() const;
  bool is_fixed() const;

  struct Data;

 private:
  explicit TimeZone(std::shared_ptr<const Data> d) : d_(std::move(d)) {}
  std::shared_ptr<const Data> d_;
};

/// Parses "+08:00", "-0530", "+08", "Z" into seconds east of UTC; nullopt
/// when `text` is not an offset.
std::optional<std::int32_t> parse_offset(std::string_view text);

/// A broken-down date-time, what patterns format and parse.
struct Fields {
  std::int64_t year = 1970;
  int month = 1, day = 1, hour = 0, minute = 0, second = 0;
  std::uint32_t nanos = 0;
  int weekday = 4;  // 0 = Sunday; 1970-01-01 was a Thursday
  std::int32_t offset = 0;
  std::string_view abbr;  // zone abbreviation for 'z'
};

/// Splits `local_seconds` (wall clock as if UTC) into fields.
Fields fields_from_local(std::int64_t local_seconds, std::uint32_t nanos);
/// The fields of instant `utc_seconds` seen in `zone`.
Fields fields_in_zone(std::int64_t utc_seconds, std::uint32_t nanos,
                      const TimeZone& zone);

/// Appends ISO 8601: "2024-03-31T03:30:00+02:00", fraction digits in groups
/// of three and only when non-zero (java.time's style), "Z" for UTC.
void format_iso_instant(const Fields& f, std::string& out);
void format_iso_date(const Fields& f, std::string& out);   // 2024-03-31
void format_iso_time(const Fields& f, std::string& out);   // 03:30:00
void format_iso_local(const Fields& f, std::string& out);  // no offset

/// The most bytes put_iso_instant() writes.
inline constexpr std::size_t kIsoInstantBound = 64;
/// Writes what format_iso_instant() appends, at `out`, which has room for
/// kIsoInstantBound bytes; returns the end.
char* put_iso_instant(const Fields& f, char* out);

/// Result of parsing a date-time text: wall-clock time and, when the text
/// carried one, its offset.
struct Parsed {
  std::int64_t local_seconds = 0;  // wall clock as if UTC
  std::uint32_t nanos = 0;
  std::optional<std::int32_t> offset;  // from the text
  std::optional<TimeZone> zone;        // from a zone name in the text
};

/// Why a parse failed: a message and the character position in the text.
struct ParseError {
  std::string message;
  std::size_t position = 0;
};

/// Parses ISO 8601: a date "2024-03-31", optionally followed by 'T' (or a
/// space) and "HH:MM[:SS[.fraction]]", optionally followed by "Z" or an
/// offset. Returns false and fills `err` on failure.
bool parse_iso(std::string_view text, Parsed& out, ParseError& err);

/// The usual shape of ISO 8601, "yyyy-MM-ddTHH:mm:ss[.fraction]" and "Z"
/// or "+HH:MM", read in one go: true with the wall clock, fraction and
/// offset that parse_iso() reads from it. False for any other text (no
/// offset, another shape, a value out of range), which parse_iso() then
/// reads or rejects as ever.
bool parse_iso_fast(std::string_view text, std::int64_t& local_seconds,
                    std::uint32_t& nanos, std::int32_t& offset);
/// parse_iso_fast() that leaves the wall clock in fields, as written (the
/// weekday is not set): for a formatter that shows it at an offset
/// (shift_fields()) without going through seconds since 1970.
bool parse_iso_fast_fields(std::string_view text, Fields& f,
                           std::int32_t& offset);

/// put_iso_instant() of the text parse_iso_fast_fields() reads, shown at
/// `offset`: the end, or nullptr (nothing written) for any other text.
/// `out` has room for kIsoInstantBound bytes.
char* put_iso_text_instant(std::string_view text, std::int32_t offset,
                           char* out);

/// Moves the wall clock in `f` (not its weekday) by `seconds`, at most
/// 28 days either way.
void shift_fields(Fields& f, std::int32_t seconds);

/// A compiled date pattern in java.time letters (DateTimeFormatter):
/// y M d H h m s S a E z Z X, text in single quotes ('' is a quote), and
/// any other non-letter as a literal.
class DatePattern {
 public:
  /// Throws Error(usage) naming an unknown letter ("unknown letter 'Q' in
  /// date pattern 'yyyy-QQ'"), an unsupported count or an unclosed quote.
  static DatePattern compile(std::string_view pattern);

  /// Appends `f` formatted.
  void format(const Fields& f, std::string& out) const;
  /// The most bytes format_to() writes for `f`.
  std::size_t size_bound(const Fields& f) const {
    return bound_ + abbr_items_ * f.abbr.size();
  }
  /// Writes `f` formatted at `out`, which has room for size_bound(f)
  /// bytes; returns the end.
  char* format_to(const Fields& f, char* out) const;
  /// format_to() of the ISO 8601 text `iso` in a form parse_iso_fast()
  /// reads, at `offset`, for a pattern of numbers and literals only (years
  /// 0 to 9999): at the text's own offset its digits are copied,
  /// unconverted. Returns nullptr (having written nothing) otherwise.
  /// `out` has room for kFormatIsoRoom bytes.
  char* format_iso_text(std::string_view iso, std::int32_t offset,
                        char* out) const;
  static constexpr std::size_t kFormatIsoRoom = 34;
  /// Whether the pattern is one format_iso_text() writes: numbers and
  /// literals only.
  bool has_layout() const { return has_layout_; }
  /// True when no text this pattern writes needs escaping in a JSON
  /// string (no quote, backslash or control character).
  bool escape_free() const { return escape_free_; }
  /// Parses `text` completely; fields absent from the pattern default to
  /// 1970-01-01T00:00:00. Returns false and fills `err` on failure.
  bool parse(std::string_view text, Parsed& out, ParseError& err,
             const std::string& tzdir) const;
  /// True when the pattern writes or reads a zone or offset.
  bool has_zone() const { return has_zone_; }
  /// True when the pattern writes the day of the week ('E').
  bool has_weekday() const { return has_weekday_; }

 private:
  void compile_layout();

  struct Item {
    char letter = 0;  // 0: literal
    int count = 0;
    std::string literal;
  };
  std::vector<Item> items_;
  // Patterns of literals and two- and four-digit numbers only, each
  // number at most once, such as "yyyy-MM-dd HH:mm:ss", also as a
  // template of kLayoutWidth bytes and the places of the numbers' pairs of
  // digits (century, year of century, month, day, hour, minute, second):
  // format_to() copies the template and writes every pair, those the
  // pattern lacks past its end, for years 0 to 9999.
  static constexpr std::size_t kLayoutWidth = 32;
  std::array<char, kLayoutWidth> layout_{};
  std::array<std::uint8_t, 7> pair_pos_{};
  std::uint8_t layout_size_ = 0;
  bool has_layout_ = false;
  bool has_zone_ = false;
  bool has_weekday_ = false;
  bool escape_free_ = true;
  std::size_t bound_ = 0;       // size_bound() without abbreviations
  std::size_t abbr_items_ = 0;  // 'z' items
};

}  // namespace jbx::datetime
