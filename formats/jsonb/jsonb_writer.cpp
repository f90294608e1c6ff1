#include "formats/jsonb/jsonb_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/datetime.h"
#include "core/error.h"
#include "formats/jsonb/jsonb_number.h"
#include "formats/patched_buffer.h"

namespace jbx {

namespace {

// No byte of the 8 at `p` has its high bit set.
bool ascii8(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return (w & 0x8080808080808080u) == 0;
}

// Decodes one code point of UTF-8 at s[i] (valid by the event contract;
// a bad byte is taken as U+FFFD so the writer never reads out of bounds).
char32_t next_cp(std::string_view s, std::size_t& i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 1;
  char32_t cp = c;
  if (c >= 0xf0) {
    len = 4;
    cp = c & 0x07;
  } else if (c >= 0xe0) {
    len = 3;
    cp = c & 0x0f;
  } else if (c >= 0xc0) {
    len = 2;
    cp = c & 0x1f;
  } else if (c >= 0x80) {
    ++i;
    return 0xfffd;
  }
  if (i + len > s.size()) {
    i = s.size();
    return 0xfffd;
  }
  for (std::size_t k = 1; k < len; ++k) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  }
  i += len;
  return cp;
}

// A JSON decimal that is zero with a minus sign: -0.0, -0e5.
bool is_negative_zero(std::string_view text) {
  if (text.empty() || text[0] != '-') return false;
  for (const char c : text.substr(1)) {
    if (c == 'e' || c == 'E') break;
    if (c != '0' && c != '.') return false;
  }
  return true;
}

}  // namespace

JsonbWriter::JsonbWriter(Sink& out, const WriteOptions& o)
    : out_(out), opt_(o) {}

void JsonbWriter::put_be(std::uint64_t v, int bytes) {
  char* p = buf_.grow(static_cast<std::size_t>(bytes));
  for (int i = bytes - 1; i >= 0; --i) *p++ = static_cast<char>(v >> (8 * i));
}

// Spec 7.3: Latin-1 tags when every character fits; otherwise fastjson2's
// JDK 9+ heuristic between UTF-16LE and UTF-8, so that output matches it.
void JsonbWriter::put_string(std::string_view s) {
  // Most strings are ASCII: one byte per character, stored as it is.
  std::size_t ascii = 0;
  while (ascii + 8 <= s.size() && ascii8(s.data() + ascii)) ascii += 8;
  while (ascii < s.size() && static_cast<unsigned char>(s[ascii]) < 0x80) {
    ++ascii;
  }
  if (ascii == s.size()) {
    if (s.size() <= 47) {
      char* p = buf_.grow(1 + s.size());
      p[0] = static_cast<char>(0x49 + s.size());
      if (!s.empty()) std::memcpy(p + 1, s.data(), s.size());
      return;
    }
    put(0x79);
    put_int32(static_cast<std::int32_t>(s.size()));
    buf_.append(s);
    return;
  }
  // The text as UTF-16 code units, decoded once: every choice below reads
  // them. A text has no more units than bytes.
  if (utf16_.size() < s.size()) utf16_.resize(s.size());
  char16_t* const u = utf16_.data();
  for (std::size_t i = 0; i < ascii; ++i) u[i] = static_cast<char16_t>(s[i]);
  std::size_t units = ascii;
  bool latin1 = true;
  for (std::size_t i = ascii; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      u[units++] = c;
      ++i;
      continue;
    }
    char32_t cp = next_cp(s, i);
    if (cp > 0xff) latin1 = false;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      u[units++] = static_cast<char16_t>(0xd800 + (cp >> 10));
      cp = 0xdc00 + (cp & 0x3ff);
    }
    u[units++] = static_cast<char16_t>(cp);
  }
  if (latin1) {
    if (units <= 47) {
      put(static_cast<std::uint8_t>(0x49 + units));
    } else {
      put(0x79);
      put_int32(static_cast<std::int32_t>(units));
    }
    char* p = buf_.grow(units);
    for (std::size_t k = 0; k < units; ++k) p[k] = static_cast<char>(u[k]);
    return;
  }
  if (units > std::numeric_limits<std::int32_t>::max() / 2) {
    throw Error(Errc::unsupported, "string too long for jsonb");
  }
  // Look at the first min(64, units) code units: how many have a zero
  // high or low byte.
  const std::size_t probe = std::min<std::size_t>(64, units);
  std::size_t zeroish = 0;
  for (std::size_t k = 0; k < probe; ++k) {
    zeroish += (u[k] & 0xff) == 0 || (u[k] >> 8) == 0;
  }
  const bool utf16 =
      zeroish == 0 || probe / zeroish >= 3 || s.size() > units * 2;
  if (!utf16) {
    put(0x7a);
    put_int32(static_cast<std::int32_t>(s.size()));
    buf_.append(s);
    return;
  }
  put(0x7c);
  put_int32(static_cast<std::int32_t>(units * 2));
  char* p = buf_.grow(units * 2);
  for (std::size_t k = 0; k < units; ++k) {
    p[2 * k] = static_cast<char>(u[k]);
    p[2 * k + 1] = static_cast<char>(u[k] >> 8);
  }
}

void JsonbWriter::put_double(double v) {
  if (v == 0 && !std::signbit(v)) {
    put(0xb2);
  } else if (v == 1) {
    put(0xb3);
  } else if (v != 0 && v >= -2147483648.0 && v <= 2147483647.0 &&
             static_cast<double>(static_cast<std::int64_t>(v)) == v) {
    put(0xb4);
    put_int64(static_cast<std::int64_t>(v));
  } else {
    // Everything else, including -0.0 whose sign fastjson2 would drop.
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    put(0xb5);
    put_be(bits, 8);
  }
}

void JsonbWriter::put_bigint(std::string_view digits, bool negative) {
  if (digits.size() > jsonb::kMaxBigDigits) {
    throw Error(Errc::unsupported,
                fmt::format("integer of {} digits exceeds jbx's limit of {}",
                            digits.size(), jsonb::kMaxBigDigits));
  }
  jsonb::decimal_to_twos_complement(digits, negative, scratch_);
  put(0xbb);
  put_int32(static_cast<std::int32_t>(scratch_.size()));
  buf_.append(scratch_);
}

// A decimal as BigDecimal with the literal's scale (spec 5.2 and 15.1).
void JsonbWriter::put_decimal(std::string_view text) {
  const bool negative = text[0] == '-';
  std::size_t i = negative ? 1 : 0;
  std::string& digits = scratch_;
  digits.clear();
  std::int64_t frac = 0;
  std::int64_t exp = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    digits.push_back(text[i++]);
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      digits.push_back(text[i++]);
      ++frac;
    }
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool eneg = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    for (; i < text.size(); ++i) {
      exp = std::min<std::int64_t>(exp * 10 + (text[i] - '0'),
                                   std::int64_t{1} << 40);
    }
    if (eneg) exp = -exp;
  }
  const std::int64_t scale = frac - exp;
  if (scale < std::numeric_limits<std::int32_t>::min() ||
      scale > std::numeric_limits<std::int32_t>::max()) {
    throw Error(Errc::unsupported,
                fmt::format("decimal {} has an exponent out of jsonb's range",
                            text.substr(0, 40)));
  }
  const std::size_t lead =
      std::min(digits.find_first_not_of('0'), digits.size() - 1);
  const std::string_view mag = std::string_view(digits).substr(lead);
  const bool zero = mag == "0";
  std::int64_t unscaled = 0;
  bool fits64 = false;
  if (mag.size() <= 19) {
    std::uint64_t u = 0;
    std::from_chars(mag.data(), mag.data() + mag.size(), u);
    const std::uint64_t limit =
        negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
    if (u <= limit) {
      fits64 = true;
      unscaled = negative && !zero ? static_cast<std::int64_t>(0 - u)
                                   : static_cast<std::int64_t>(u);
    }
  }
  if (fits64 && scale == 0) {
    put(0xb8);
    put_int64(unscaled);
    return;
  }
  put(0xb9);
  put_int32(static_cast<std::int32_t>(scale));
  if (fits64 && unscaled >= std::numeric_limits<std::int32_t>::min() &&
      unscaled <= std::numeric_limits<std::int32_t>::max()) {
    put_int32(static_cast<std::int32_t>(unscaled));
  } else if (fits64) {
    // Beyond int32: fastjson2 writes the unscaled long in full width.
    put(0xbe);
    put_be(static_cast<std::uint64_t>(unscaled), 8);
  } else {
    const std::string copy(mag);
    put_bigint(copy, negative);
  }
}

void JsonbWriter::number_text(std::string_view text) {
  value_start();
  const bool is_integer = text.find_first_of(".eE") == std::string_view::npos;
  if (is_integer) {
    std::int64_t v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec == std::errc() && r.ptr == text.data() + text.size()) {
      // fastjson2's JSON parser: int32 except -2^31 (a Long), int64 except
      // -2^63 (a BigInteger); spec 15.1.
      if (v > std::numeric_limits<std::int32_t>::min() &&
          v <= std::numeric_limits<std::int32_t>::max()) {
        put_int32(static_cast<std::int32_t>(v));
      } else if (v == std::numeric_limits<std::int64_t>::min()) {
        put(0xba);
        put_int64(v);
      } else {
        put_int64(v);
      }
      return;
    }
    const bool negative = text[0] == '-';
    put_bigint(text.substr(negative ? 1 : 0), negative);
    return;
  }
  if (!opt_.exact_decimals || is_negative_zero(text)) {
    // (BigDecimal has no negative zero: -0.0 keeps its sign as a double.)
    double d = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), d);
    // Out of double's range: the exact form instead of an infinity or a
    // zero that the text does not say.
    if (r.ec == std::errc() && std::isfinite(d)) {
      put_double(d);
      return;
    }
  }
  put_decimal(text);
}

void JsonbWriter::grow_stack() {
  stack_.resize(std::max<std::size_t>(16, stack_.size() * 2));
}

void JsonbWriter::too_long(std::uint64_t count) {
  throw Error(Errc::unsupported,
              fmt::format("array of {} elements is too long for jsonb", count));
}

void JsonbWriter::long_header(const Frame& f) {
  if (f.count >
      static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
    too_long(f.count);
  }
  const auto at = static_cast<std::ptrdiff_t>(f.patch_at);
  patches_.insert(patches_.begin() + at,
                  Patch{f.header, static_cast<std::int32_t>(f.count)});
}

void JsonbWriter::stream_array(std::uint64_t n, std::size_t block) {
  if (!streamed_.on) {
    // Only the top-level array, once an element has begun: an empty one
    // has no comma to count. One too long is refused as it ends.
    if (depth_ == 0 || !stack_[0].array || stack_[0].header != 0 ||
        stack_[0].count == 0 || annotated_ ||
        n > static_cast<std::uint64_t>(
                std::numeric_limits<std::int32_t>::max())) {
      return;
    }
    // What goes out of the document from here, the sink may take back
    // (abandon()).
    out_.mark_document();
    char head[6];
    if (n < 16) {
      head[0] = static_cast<char>(0x94 + n);
      out_.write({head, 1});
    } else {
      out_.write({head, long_header(head, static_cast<std::int32_t>(n))});
    }
    streamed_ = {true, n};
    flush_front(1, 1);  // over the header's placeholder
  }
  // What comes before the element being written is complete.
  const std::size_t cut = depth_ >= 2 ? stack_[1].header : buf_.size();
  if (cut >= block && cut > 0) flush_front(0, cut);
}

void JsonbWriter::flush_front(std::size_t from, std::size_t cut) {
  const std::size_t k = detail::flush_patched(
      out_, buf_, from, cut, patches_,
      [](const Patch& p, char* head) { return long_header(head, p.count); });
  for (std::size_t d = 1; d < depth_; ++d) {
    stack_[d].header -= cut;
    stack_[d].patch_at -= k;
  }
}

void JsonbWriter::uint_value(std::uint64_t v) {
  if (v <=
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    int_value(static_cast<std::int64_t>(v));
    return;
  }
  value_start();
  put(0xbb);
  put(0x09);  // 9 bytes: a zero sign byte, then the 8 magnitude bytes
  put(0x00);
  put_be(v, 8);
}

void JsonbWriter::double_value(double v) {
  value_start();
  put_double(v);
}

void JsonbWriter::bytes_value(std::span<const std::uint8_t> bytes) {
  value_start();
  if (bytes.size() >
      static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    throw Error(Errc::unsupported, "byte string too long for jsonb");
  }
  put(0x91);
  put_int32(static_cast<std::int32_t>(bytes.size()));
  buf_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// Fields of a wall-clock time: [be16 year, month, day,] hour, minute,
// second, INT nanos.
void JsonbWriter::put_local(std::int64_t seconds, std::uint32_t nanos,
                            bool with_date, std::uint8_t tag) {
  const std::int64_t days = datetime::floor_div(seconds, 86400);
  const std::int64_t sod = seconds - days * 86400;
  if (with_date) {
    const datetime::CivilDate c = datetime::civil_from_days(days);
    const std::int64_t lo = tag == 0xa9 ? -32768 : 0;
    if (c.year < lo || c.year > 32767) {
      throw Error(
          Errc::unsupported,
          fmt::format("year {} cannot be written as a jsonb date", c.year));
    }
    put(tag);
    put_be(static_cast<std::uint16_t>(c.year), 2);
    put(static_cast<std::uint8_t>(c.month));
    put(static_cast<std::uint8_t>(c.day));
    if (tag == 0xa9) return;
  } else {
    put(tag);
  }
  put(static_cast<std::uint8_t>(sod / 3600));
  put(static_cast<std::uint8_t>(sod / 60 % 60));
  put(static_cast<std::uint8_t>(sod % 60));
  put_int32(static_cast<std::int32_t>(nanos));
}

void JsonbWriter::timestamp_value(const Timestamp& t) {
  value_start();
  const std::uint32_t nanos = std::min<std::uint32_t>(t.nanos, 999'999'999);
  switch (t.kind) {
    case Timestamp::Kind::local_date:
      put_local(t.seconds, 0, true, 0xa9);
      return;
    case Timestamp::Kind::local_time:
      put_local(t.seconds, nanos, false, 0xa7);
      return;
    case Timestamp::Kind::local_date_time:
      if (t.zone.empty()) {
        put_local(t.seconds, nanos, true, 0xa8);
      } else {
        put_local(t.seconds, nanos, true, 0xaa);
        put_string(t.zone);
      }
      return;
    case Timestamp::Kind::instant:
      break;
  }
  if (t.has_offset || !t.zone.empty()) {
    // ZonedDateTime / OffsetDateTime: the wall-clock fields in that zone.
    const std::int64_t off = t.has_offset ? t.offset_seconds : 0;
    put_local(t.seconds + off, nanos, true, 0xaa);
    if (!t.zone.empty()) {
      put_string(t.zone);
      return;
    }
    if (off == 0) {
      put_string("Z");
      return;
    }
    const std::int64_t a = off < 0 ? -off : off;
    std::string id = fmt::format("{}{:02}:{:02}", off < 0 ? '-' : '+', a / 3600,
                                 a / 60 % 60);
    if (a % 60 != 0) id += fmt::format(":{:02}", a % 60);
    put_string(id);
    return;
  }
  // java.util.Date when the source carries milliseconds at most (spec 14
  // writer rules), else Instant.
  // Before 1970 with a fraction, as (seconds + 1) * 1000 less the rest, so
  // that the least millisecond, -2^63, is reached without overflowing.
  const std::int64_t milli = nanos / 1'000'000;
  const bool up = t.seconds < 0 && milli > 0;
  std::int64_t ms = 0;
  if (t.precision <= 3 && nanos % 1'000'000 == 0 &&
      !__builtin_mul_overflow(t.seconds + (up ? 1 : 0), 1000, &ms) &&
      !__builtin_add_overflow(ms, up ? milli - 1000 : milli, &ms)) {
    constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
    constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
    if (ms % 1000 == 0 && t.seconds >= kMin && t.seconds <= kMax) {
      put(0xac);
      put_be(static_cast<std::uint32_t>(t.seconds), 4);
    } else if (ms % 60000 == 0 && ms / 60000 >= kMin && ms / 60000 <= kMax) {
      put(0xad);
      put_be(static_cast<std::uint32_t>(ms / 60000), 4);
    } else {
      put(0xab);
      put_be(static_cast<std::uint64_t>(ms), 8);
    }
    return;
  }
  put(0xae);
  put_int64(t.seconds);
  put_int32(static_cast<std::int32_t>(nanos));
}

void JsonbWriter::annotation(const Annotation& a) {
  if (a.kind != Annotation::Kind::type_name) return;  // no JSONB form
  if (!annotated_) value_start();
  annotated_ = true;
  put(0x92);
  const auto it = type_ids_.find(std::string(a.name));
  if (it != type_ids_.end()) {
    put_int32(it->second);
    return;
  }
  const auto id = static_cast<std::int32_t>(type_ids_.size());
  type_ids_.emplace(std::string(a.name), id);
  put_string(a.name);
  put_int32(id);
}

void JsonbWriter::end_document() {
  streamed_.end_document(depth_ != 0);
  depth_ = 0;
  flush_front(0, buf_.size());
  in_array_ = false;
  type_ids_.clear();
  annotated_ = false;
}

}  // namespace jbx
