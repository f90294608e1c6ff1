// Date transforms: writing dates (Timestamp events from binary formats, or
// recognised by ParseDateFields) as ISO 8601, epoch numbers or a java.time
// pattern in a time zone (--date-format, --timezone), and recognising JSON
// strings and numbers at --date-fields paths as dates (--date-input-format,
// --epoch-unit, --date-errors). Stream: no value is buffered.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/datetime.h"
#include "core/events.h"
#include "core/path/path.h"
#include "core/transforms/path_tracker.h"

namespace jbx::transforms {

/// How dates are written: --date-format and --timezone.
struct DateFormat {
  enum class Kind : std::uint8_t { iso8601, millis, seconds, pattern };
  Kind kind = Kind::iso8601;
  datetime::DatePattern pattern;  // Kind::pattern
  datetime::TimeZone zone;        // default UTC
  /// The tz database, for local date-times that name their zone (JSONB
  /// ZonedDateTime): they are resolved there, then shown in `zone`.
  std::string tzdir = "/usr/share/zoneinfo";

  /// "iso8601", "millis", "seconds" (also fastjson2's "unixtime"), else a
  /// pattern. Throws Error(usage) for a bad pattern.
  static DateFormat parse(std::string_view text, datetime::TimeZone zone);
};

/// Formats timestamps per a DateFormat: the work of FormatDates, shared
/// with handlers that do it inline (FusedFeatures). Caches the time zones
/// that dates name. Throws like FormatDates.
class DateFormatter {
 public:
  explicit DateFormatter(DateFormat format);

  /// A formatted date: an integer (millis, seconds) or a text, valid until
  /// the next call.
  struct Result {
    bool is_number = false;
    std::int64_t number = 0;
    std::string_view text;
    bool escape_free = false;  // text needs no escaping in a JSON string
  };
  Result format(const Timestamp& t);
  /// Whether instants are written at one offset, as a pattern or ISO 8601:
  /// then format() of an instant is format_instant().
  bool instants_fixed() const { return instants_fixed_; }
  /// format() of the instant `seconds` since 1970, with instants_fixed().
  Result format_instant(std::int64_t seconds, std::uint32_t nanos);
  /// format_instant() of the instant that the wall clock `f` (its weekday
  /// unset) shows at `offset`, as datetime::parse_iso_fast_fields() reads
  /// it: shifted to the format's offset without counting days since 1970.
  Result format_wall_clock(datetime::Fields f, std::int32_t offset);
  /// format_wall_clock() of the text datetime::parse_iso_fast_fields()
  /// reads, when the format is ISO 8601 or a pattern of numbers and
  /// literals: false (and `r` unset) otherwise.
  bool format_iso_text(std::string_view iso, Result& r);
  /// Whether format_iso_text() may answer true: ISO 8601 or a pattern of
  /// numbers and literals, with instants_fixed().
  bool formats_iso_text() const { return iso_text_; }
  /// Whether format_iso_text() applies, with a text that needs no
  /// escaping in a JSON string: then format_iso_to() writes it in place.
  bool iso_in_place() const { return iso_in_place_; }
  /// The room format_iso_to() writes in.
  static constexpr std::size_t kIsoTextRoom = std::max(
      datetime::DatePattern::kFormatIsoRoom, datetime::kIsoInstantBound);
  /// format_iso_text() at `out`, which has room for kIsoTextRoom bytes:
  /// the end, or nullptr.
  /// (Always inline: the JSON reader's kernels call it.)
  [[gnu::always_inline]] char* format_iso_to(std::string_view iso,
                                             char* out) const {
    if (f_.kind == DateFormat::Kind::pattern) {
      return f_.pattern.format_iso_text(iso, fixed_state_.offset, out);
    }
    return datetime::put_iso_text_instant(iso, fixed_state_.offset, out);
  }

 private:
  /// Writes `f`, a wall clock at the fixed offset, with instants_fixed().
  Result format_fixed(datetime::Fields& f);
  const datetime::TimeZone& zone_named(std::string_view name);

  DateFormat f_;
  // UTC or a fixed offset: what the zone says about every instant, read
  // once.
  bool fixed_zone_ = false;
  bool instants_fixed_ = false;
  bool iso_text_ = false;
  bool iso_in_place_ = false;
  datetime::ZoneState fixed_state_;
  std::string buf_;
  std::vector<std::pair<std::string, datetime::TimeZone>> zones_;  // cache
};

/// Replaces each timestamp_value with a string (ISO 8601, pattern) or an
/// integer (millis, seconds). Instants are shown in the format's zone;
/// local date-times, dates and times keep their wall clock (millis and
/// seconds resolve them in the zone; a local time counts from midnight).
/// Throws Error(unsupported) when millis overflow 64 bits or a date names
/// a zone that is not in the tz database.
class FormatDates final : public CountKeepingHandler {
 public:
  FormatDates(Handler& next, DateFormat format)
      : CountKeepingHandler(next), f_(std::move(format)) {}
  void timestamp_value(const Timestamp& t) override;
  // Names and strings pass as they are.
  Flow stable_key(std::string_view name) override {
    return next_.stable_key(name);
  }
  Flow escape_free_key(std::string_view name) override {
    return next_.escape_free_key(name);
  }
  void stable_string(std::string_view s) override { next_.stable_string(s); }

 private:
  DateFormatter f_;
};

enum class EpochUnit : std::uint8_t { millis, seconds };

struct DateFieldOptions {
  std::vector<path::Query> fields;  // simple queries (parse_rule_path)
  std::optional<datetime::DatePattern> input_pattern;  // else ISO 8601
  datetime::TimeZone zone;  // for texts without an offset
  EpochUnit unit = EpochUnit::millis;
  bool keep_errors = false;  // --date-errors=keep
  std::string tzdir;         // zone names in texts (pattern letter z)
};

/// What ParseDateFields does with one value at a date path, shared with
/// handlers that track paths themselves (FusedFeatures). `where` is the
/// value's location, for error messages.
class DateFieldReader {
 public:
  explicit DateFieldReader(DateFieldOptions options) : o_(std::move(options)) {}

  const DateFieldOptions& options() const { return o_; }
  /// Whether texts are read as ISO 8601 (no input pattern): then one that
  /// datetime::parse_iso_fast() takes is the instant it says, and text()
  /// need not be asked.
  bool reads_iso() const { return !o_.input_pattern; }
  /// A value that cannot be a date: throws unless keep_errors.
  void not_a_date(std::string_view what, const PathTracker& where) const;
  /// A number (its JSON text): true and the instant, or false when
  /// keep_errors lets a number that is no epoch count pass unchanged.
  bool number(std::string_view text, const PathTracker& where,
              Timestamp& out) const;
  /// A string: true and the instant, or false when keep_errors lets an
  /// unreadable text pass unchanged.
  bool text(std::string_view s, const PathTracker& where, Timestamp& out) const;

 private:
  // Texts other than the usual ISO 8601 shape with an offset.
  [[gnu::noinline]] bool text_general(std::string_view s,
                                      const PathTracker& where,
                                      Timestamp& out) const;
  /// Reads an epoch number; false when `text` is not one.
  bool epoch(std::string_view text, Timestamp& out) const;

  DateFieldOptions o_;
};

/// Turns strings and numbers at the selected paths into instants
/// (timestamp_value, with the offset they were read with). Nulls pass.
/// Anything else, or an unreadable text, is Error(syntax) naming the path
/// and the character ("date at $['a']: month 13 out of range at character
/// 6 of "2024-13-01"") unless keep_errors, which passes it on unchanged.
class ParseDateFields final : public CountKeepingHandler {
 public:
  ParseDateFields(Handler& next, DateFieldOptions options)
      : CountKeepingHandler(next),
        r_(std::move(options)),
        tracker_(r_.options().fields) {}

  Flow begin_object() override;
  Flow key(std::string_view name) override;
  Flow stable_key(std::string_view name) override;
  void end_object() override;
  Flow begin_array() override;
  void end_array() override;
  void null_value() override;
  void bool_value(bool b) override;
  void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  void double_value(double v) override;
  void number_text(std::string_view text) override;
  void string_value(std::string_view s) override;
  void stable_string(std::string_view s) override;
  void bytes_value(std::span<const std::uint8_t> b) override;
  void timestamp_value(const Timestamp& t) override;

 private:
  bool selected() {
    tracker_.on_value_begin();
    return tracker_.selected() >= 0;
  }
  void number_date(std::string_view text);
  /// key() and string_value(), passing on a name or string that stays as
  /// it came by stable_key() or stable_string() when `stable`.
  Flow keyed(std::string_view name, bool stable);
  void string_or_date(std::string_view s, bool stable);

  DateFieldReader r_;
  PathTracker tracker_;
};

}  // namespace jbx::transforms
