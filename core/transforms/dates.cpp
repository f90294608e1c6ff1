#include "core/transforms/dates.h"

#include <fmt/format.h>

#include "core/error.h"

namespace jbx::transforms {

namespace dt = jbx::datetime;

namespace {

// Milliseconds since the epoch, or nullopt when they overflow 64 bits.
std::optional<std::int64_t> to_millis(std::int64_t s, std::uint32_t nanos) {
  std::int64_t ms = 0;
  if (__builtin_mul_overflow(s, std::int64_t{1000}, &ms) ||
      __builtin_add_overflow(ms, std::int64_t{nanos / 1000000}, &ms)) {
    return std::nullopt;
  }
  return ms;
}

}  // namespace

DateFormat DateFormat::parse(std::string_view text, dt::TimeZone zone) {
  DateFormat f;
  f.zone = std::move(zone);
  if (text == "iso8601") {
    f.kind = Kind::iso8601;
  } else if (text == "millis") {
    f.kind = Kind::millis;
  } else if (text == "seconds" || text == "unixtime") {
    f.kind = Kind::seconds;
  } else {
    f.kind = Kind::pattern;
    f.pattern = dt::DatePattern::compile(text);
  }
  return f;
}

DateFormatter::DateFormatter(DateFormat format) : f_(std::move(format)) {
  fixed_zone_ = f_.zone.is_fixed();
  if (fixed_zone_) fixed_state_ = f_.zone.at(0);
  instants_fixed_ = fixed_zone_ && (f_.kind == DateFormat::Kind::pattern ||
                                    f_.kind == DateFormat::Kind::iso8601);
  // ISO 8601 needs no escaping; a pattern's literals may.
  const bool pattern = f_.kind == DateFormat::Kind::pattern;
  iso_text_ = instants_fixed_ && (!pattern || f_.pattern.has_layout());
  iso_in_place_ = iso_text_ && (!pattern || f_.pattern.escape_free());
}

const dt::TimeZone& DateFormatter::zone_named(std::string_view name) {
  for (const auto& [n, z] : zones_) {
    if (n == name) return z;
  }
  try {
    zones_.emplace_back(std::string(name), dt::TimeZone::named(name, f_.tzdir));
  } catch (const Error& e) {
    throw Error(Errc::unsupported,
                fmt::format("a date in time zone '{}': {}", name, e.message));
  }
  return zones_.back().second;
}

DateFormatter::Result DateFormatter::format(const Timestamp& t) {
  using K = Timestamp::Kind;
  if (t.kind == K::instant && instants_fixed_) {
    return format_instant(t.seconds, t.nanos);
  }
  if (t.kind == K::local_date_time && !t.zone.empty()) {
    // A wall-clock time in a named zone: the instant it denotes.
    const dt::TimeZone& z = zone_named(t.zone);
    Timestamp u = t;
    u.kind = K::instant;
    u.seconds = z.resolve_local(t.seconds);
    u.has_offset = true;
    u.offset_seconds = z.at(u.seconds).offset;
    u.zone = {};
    return format(u);
  }
  const bool local = t.kind != K::instant;
  // The instant that epoch numbers and zone letters refer to.
  std::int64_t instant = t.seconds;
  if (t.kind == K::local_date_time || t.kind == K::local_date) {
    instant = f_.zone.resolve_local(t.seconds);
  }
  switch (f_.kind) {
    case DateFormat::Kind::millis: {
      const auto ms = to_millis(instant, t.nanos);
      if (!ms) {
        throw Error(Errc::unsupported,
                    fmt::format("--date-format=millis: date {} seconds "
                                "from 1970 does not fit in 64-bit "
                                "milliseconds",
                                t.seconds));
      }
      return {true, *ms, {}};
    }
    case DateFormat::Kind::seconds:
      return {true, instant, {}};
    case DateFormat::Kind::iso8601:
    case DateFormat::Kind::pattern:
      break;
  }
  dt::Fields f;
  if (local) {
    f = dt::fields_from_local(t.seconds, t.nanos);
    const dt::ZoneState z = f_.zone.at(instant);
    f.offset = z.offset;
    f.abbr = z.abbr;
  } else {
    f = dt::fields_in_zone(t.seconds, t.nanos, f_.zone);
  }
  if (f_.kind == DateFormat::Kind::pattern) {
    const std::size_t need = f_.pattern.size_bound(f);
    if (buf_.size() < need) buf_.resize(need);
    const char* end = f_.pattern.format_to(f, buf_.data());
    return {false, 0,
            std::string_view(buf_.data(),
                             static_cast<std::size_t>(end - buf_.data())),
            f_.pattern.escape_free()};
  }
  buf_.clear();
  switch (t.kind) {
    case K::instant:
      dt::format_iso_instant(f, buf_);
      break;
    case K::local_date_time:
      dt::format_iso_local(f, buf_);
      break;
    case K::local_date:
      dt::format_iso_date(f, buf_);
      break;
    case K::local_time:
      dt::format_iso_time(f, buf_);
      break;
  }
  return {false, 0, buf_, true};  // digits, '-', ':', 'T', '.', '+', 'Z'
}

DateFormatter::Result DateFormatter::format_instant(std::int64_t seconds,
                                                    std::uint32_t nanos) {
  // The usual case, an instant shown at a fixed offset: no zone lookup.
  dt::Fields f = dt::fields_from_local(seconds + fixed_state_.offset, nanos);
  return format_fixed(f);
}

DateFormatter::Result DateFormatter::format_wall_clock(dt::Fields f,
                                                       std::int32_t offset) {
  dt::shift_fields(f, fixed_state_.offset - offset);
  if (f_.kind == DateFormat::Kind::pattern && f_.pattern.has_weekday()) {
    f.weekday =
        dt::weekday_from_days(dt::days_from_civil(f.year, f.month, f.day));
  }
  return format_fixed(f);
}

bool DateFormatter::format_iso_text(std::string_view iso, Result& r) {
  if (!iso_text_) return false;
  if (buf_.size() < kIsoTextRoom) buf_.resize(kIsoTextRoom);
  char* const p = buf_.data();
  const char* end = format_iso_to(iso, p);
  if (end == nullptr) return false;
  r = {false, 0, std::string_view(p, static_cast<std::size_t>(end - p)),
       iso_in_place_};
  return true;
}

DateFormatter::Result DateFormatter::format_fixed(dt::Fields& f) {
  f.offset = fixed_state_.offset;
  f.abbr = fixed_state_.abbr;
  const bool pattern = f_.kind == DateFormat::Kind::pattern;
  const std::size_t need =
      pattern ? f_.pattern.size_bound(f) : dt::kIsoInstantBound;
  if (buf_.size() < need) buf_.resize(need);
  char* const p = buf_.data();
  const char* end =
      pattern ? f_.pattern.format_to(f, p) : dt::put_iso_instant(f, p);
  return {false, 0, std::string_view(p, static_cast<std::size_t>(end - p)),
          !pattern || f_.pattern.escape_free()};
}

void FormatDates::timestamp_value(const Timestamp& t) {
  const DateFormatter::Result r = f_.format(t);
  if (r.is_number) {
    next_.int_value(r.number);
  } else {
    next_.string_value(r.text);
  }
}

// ---- DateFieldReader
// ------------------------------------------------------------

void DateFieldReader::not_a_date(std::string_view what,
                                 const PathTracker& where) const {
  if (o_.keep_errors) return;
  throw Error(Errc::type_mismatch,
              fmt::format("date at {}: expected a date string or an epoch "
                          "number, found {}",
                          where.normalized_path(), what));
}

bool DateFieldReader::number(std::string_view text, const PathTracker& where,
                             Timestamp& out) const {
  if (epoch(text, out)) return true;
  if (!o_.keep_errors) {
    throw Error(
        Errc::syntax,
        fmt::format("date at {}: {} is not an epoch count of {}",
                    where.normalized_path(), text,
                    o_.unit == EpochUnit::millis ? "milliseconds" : "seconds"));
  }
  return false;
}

bool DateFieldReader::text(std::string_view s, const PathTracker& where,
                           Timestamp& out) const {
  if (!o_.input_pattern) {
    // The usual shape, with an offset: no zone to resolve.
    std::int64_t local = 0;
    std::uint32_t nanos = 0;
    std::int32_t offset = 0;
    if (dt::parse_iso_fast(s, local, nanos, offset)) {
      Timestamp t;
      t.kind = Timestamp::Kind::instant;
      t.nanos = nanos;
      t.has_offset = true;
      t.seconds = local - offset;
      t.offset_seconds = offset;
      out = t;
      return true;
    }
  }
  return text_general(s, where, out);
}

bool DateFieldReader::text_general(std::string_view s, const PathTracker& where,
                                   Timestamp& out) const {
  dt::Parsed p;
  dt::ParseError err;
  const bool ok = o_.input_pattern
                      ? o_.input_pattern->parse(s, p, err, o_.tzdir)
                      : dt::parse_iso(s, p, err);
  if (!ok) {
    if (o_.keep_errors) return false;
    throw Error(
        Errc::syntax,
        fmt::format("date at {}: {} at character {} of \"{}\"",
                    where.normalized_path(), err.message, err.position + 1, s));
  }
  Timestamp t;
  t.kind = Timestamp::Kind::instant;
  t.nanos = p.nanos;
  t.has_offset = true;
  if (p.offset) {
    t.seconds = p.local_seconds - *p.offset;
    t.offset_seconds = *p.offset;
  } else {
    const dt::TimeZone& zone = p.zone ? *p.zone : o_.zone;
    t.seconds = zone.resolve_local(p.local_seconds);
    t.offset_seconds = zone.at(t.seconds).offset;
    if (!zone.is_fixed()) t.zone = zone.name();
  }
  out = t;
  return true;
}

bool DateFieldReader::epoch(std::string_view text, Timestamp& out) const {
  std::size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) ++i;
  std::int64_t whole = 0;
  const std::size_t b = i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (i - b >= 18) return false;  // beyond any representable date
    whole = whole * 10 + (text[i++] - '0');
  }
  if (i == b) return false;
  // The fraction, in nanoseconds of one unit.
  const std::int64_t unit_ns =
      o_.unit == EpochUnit::millis ? 1000000 : 1000000000;
  std::int64_t frac_ns = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    std::int64_t scale = unit_ns / 10;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (scale == 0 && text[i] != '0') return false;  // below a nanosecond
      frac_ns += (text[i++] - '0') * scale;
      scale /= 10;
    }
  }
  if (i != text.size()) return false;  // an exponent: not an epoch count
  std::int64_t secs = 0, nanos = 0;
  if (o_.unit == EpochUnit::millis) {
    secs = whole / 1000;
    nanos = (whole % 1000) * 1000000 + frac_ns;
  } else {
    secs = whole;
    nanos = frac_ns;
  }
  if (negative && nanos > 0) {
    secs = -secs - 1;
    nanos = 1000000000 - nanos;
  } else if (negative) {
    secs = -secs;
  }
  out = Timestamp{};
  out.kind = Timestamp::Kind::instant;
  out.seconds = secs;
  out.nanos = static_cast<std::uint32_t>(nanos);
  out.precision = o_.unit == EpochUnit::millis ? 3 : 0;
  if (nanos % 1000000 != 0) out.precision = 9;
  return true;
}

// ---- ParseDateFields
// ------------------------------------------------------------

Flow ParseDateFields::begin_object() {
  if (selected()) r_.not_a_date("an object", tracker_);
  const Flow f = next_.begin_object();
  if (f == Flow::visit) {
    tracker_.on_open(false);
  } else {
    tracker_.on_value_end();
  }
  return f;
}

Flow ParseDateFields::key(std::string_view name) { return keyed(name, false); }

Flow ParseDateFields::stable_key(std::string_view name) {
  return keyed(name, true);
}

Flow ParseDateFields::keyed(std::string_view name, bool stable) {
  tracker_.on_key(name, stable);
  const Flow f = key_to_next(name, stable);
  if (f != Flow::visit) tracker_.on_value_end();
  return f;
}

void ParseDateFields::end_object() {
  next_.end_object();
  tracker_.on_close();
}

Flow ParseDateFields::begin_array() {
  if (selected()) r_.not_a_date("an array", tracker_);
  const Flow f = next_.begin_array();
  if (f == Flow::visit) {
    tracker_.on_open(true);
  } else {
    tracker_.on_value_end();
  }
  return f;
}

void ParseDateFields::end_array() {
  next_.end_array();
  tracker_.on_close();
}

void ParseDateFields::null_value() {
  selected();
  next_.null_value();
  tracker_.on_value_end();
}

void ParseDateFields::bool_value(bool b) {
  if (selected()) r_.not_a_date(b ? "true" : "false", tracker_);
  next_.bool_value(b);
  tracker_.on_value_end();
}

void ParseDateFields::int_value(std::int64_t v) {
  if (selected()) {
    number_date(fmt::format("{}", v));
  } else {
    next_.int_value(v);
  }
  tracker_.on_value_end();
}

void ParseDateFields::uint_value(std::uint64_t v) {
  if (selected()) {
    number_date(fmt::format("{}", v));
  } else {
    next_.uint_value(v);
  }
  tracker_.on_value_end();
}

void ParseDateFields::double_value(double v) {
  if (selected()) {
    number_date(fmt::format("{}", v));
  } else {
    next_.double_value(v);
  }
  tracker_.on_value_end();
}

void ParseDateFields::number_text(std::string_view text) {
  if (selected()) {
    number_date(text);
  } else {
    next_.number_text(text);
  }
  tracker_.on_value_end();
}

void ParseDateFields::string_value(std::string_view s) {
  string_or_date(s, false);
}

void ParseDateFields::stable_string(std::string_view s) {
  string_or_date(s, true);
}

void ParseDateFields::string_or_date(std::string_view s, bool stable) {
  Timestamp t;
  if (selected() && r_.text(s, tracker_, t)) {
    next_.timestamp_value(t);
  } else {
    string_to_next(s, stable);
  }
  tracker_.on_value_end();
}

void ParseDateFields::bytes_value(std::span<const std::uint8_t> b) {
  if (selected()) r_.not_a_date("a byte string", tracker_);
  next_.bytes_value(b);
  tracker_.on_value_end();
}

void ParseDateFields::timestamp_value(const Timestamp& t) {
  selected();  // already a date
  next_.timestamp_value(t);
  tracker_.on_value_end();
}

void ParseDateFields::number_date(std::string_view text) {
  Timestamp t;
  if (r_.number(text, tracker_, t)) {
    next_.timestamp_value(t);
  } else {
    next_.number_text(text);
  }
}

}  // namespace jbx::transforms
