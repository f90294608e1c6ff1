#include "formats/cbor/cbor_writer.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"
#include "formats/cbor/cbor_bignum.h"
#include "formats/cbor/cbor_time.h"
#include "formats/msgpack/msgpack_text.h"
#include "formats/patched_buffer.h"

namespace jbx {

namespace {

// The encoded text string (head and bytes) whose head is at buf[at];
// `head_len` is set to the head's length.
std::string_view encoded_text(std::string_view buf, std::size_t at,
                              std::size_t& head_len) {
  const auto ai =
      static_cast<unsigned>(static_cast<std::uint8_t>(buf[at]) & 31);
  std::uint64_t len = ai;
  head_len = 1;
  if (ai >= 24) {
    head_len += std::size_t{1} << (ai - 24);
    len = 0;
    for (std::size_t k = 1; k < head_len; ++k) {
      len = (len << 8) | static_cast<std::uint8_t>(buf[at + k]);
    }
  }
  return buf.substr(at, head_len + len);
}

// Encodes a head with the shortest argument (preferred serialisation);
// returns its length, at most 9.
std::size_t encode_head(char* out, std::uint8_t major, std::uint64_t arg) {
  const auto ib = static_cast<std::uint8_t>(major << 5);
  std::size_t n;
  std::uint8_t ai;
  if (arg < 24) {
    out[0] = static_cast<char>(ib | arg);
    return 1;
  }
  if (arg <= 0xff) {
    n = 1;
    ai = 24;
  } else if (arg <= 0xffff) {
    n = 2;
    ai = 25;
  } else if (arg <= 0xffffffffu) {
    n = 4;
    ai = 26;
  } else {
    n = 8;
    ai = 27;
  }
  out[0] = static_cast<char>(ib | ai);
  for (std::size_t i = 0; i < n; ++i) {
    out[1 + i] = static_cast<char>(arg >> (8 * (n - 1 - i)));
  }
  return n + 1;
}

// The float16 bits of `d` when the conversion is exact.
bool exact_half(double d, std::uint16_t& out) {
  const std::uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  if (d == 0) {
    out = sign;
    return true;
  }
  if (std::isinf(d)) {
    out = sign | 0x7c00;
    return true;
  }
  int exp;
  const double m =
      std::frexp(std::fabs(d), &exp);  // d = m * 2^exp, m in [0.5,1)
  // Normal float16: 1.f * 2^(exp-1) with exp-1 in -14..15 and 10 fraction
  // bits; subnormal: k * 2^-24 with k < 1024.
  if (exp - 1 >= -14 && exp - 1 <= 15) {
    const double scaled = std::ldexp(m, 11);  // 11 significant bits
    if (scaled != std::floor(scaled)) return false;
    const auto mant = static_cast<std::uint16_t>(scaled) & 0x3ff;
    out = static_cast<std::uint16_t>(sign | ((exp - 1 + 15) << 10) | mant);
    return true;
  }
  if (exp - 1 < -14) {
    const double k = std::ldexp(std::fabs(d), 24);
    if (k != std::floor(k) || k >= 1024) return false;
    out = static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(k));
    return true;
  }
  return false;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
}

std::string_view strip_zeros(std::string_view s) {
  const std::size_t nz = s.find_first_not_of('0');
  return nz == std::string_view::npos ? std::string_view("0") : s.substr(nz);
}

}  // namespace

CborWriter::CborWriter(Sink& out, const WriteOptions& o)
    : out_(out), opts_(o) {}

// A text (3) or byte (2) string: head and bytes in one step.
void CborWriter::text(std::uint8_t major, std::string_view bytes) {
  const std::size_t n = bytes.size();
  if (n < 24) {
    char* p = buf_.grow(1 + n);
    p[0] = static_cast<char>((major << 5) | n);
    if (n > 0) std::memcpy(p + 1, bytes.data(), n);
    return;
  }
  head(major, n);
  buf_.append(bytes);
}

std::string CborWriter::pointer() const {
  // A key, once written, stays where it is: a canonical head is inserted
  // at its container's start, after the keys of the containers around it.
  std::string p;
  for (std::size_t level = 0; level < depth_; ++level) {
    const Open& o = stack_[level];
    if (o.major == 5) {
      std::size_t head_len = 0;
      const std::string_view k = encoded_text(buf_.view(), o.key, head_len);
      msgpack::detail::append_pointer_token(p, k.substr(head_len));
    } else if (o.count > 0) {
      p += '/';
      p += std::to_string(o.count - 1);
    }
  }
  return p;
}

void CborWriter::refuse(Errc code, std::string message) const {
  Error e(code, std::move(message));
  e.pointer = pointer();
  throw e;
}

void CborWriter::grow_stack() {
  stack_.resize(std::max<std::size_t>(16, stack_.size() * 2));
}

void CborWriter::note_entry() { entry_starts_.push_back(buf_.size()); }

void CborWriter::long_head(const Open& o) {
  const auto at = static_cast<std::ptrdiff_t>(o.patch_at);
  patches_.insert(patches_.begin() + at, Patch{o.pos, o.count, o.major});
}

// Deterministic encoding: the container is complete and last in buf_, so
// its entries can be sorted and its head inserted right away.
void CborWriter::end_canonical(const Open& o) {
  if (o.major == 5) sort_entries(o);
  entry_starts_.resize(o.entries);
  char h[9];
  buf_.insert(o.pos, std::string_view(h, encode_head(h, o.major, o.count)));
}

// RFC 8949 4.2.1: keys sorted by the bytewise lexicographic order of
// their deterministic encodings. Every key here is a text string.
void CborWriter::sort_entries(const Open& o) {
  const std::size_t n = entry_starts_.size() - o.entries;
  if (n < 2) return;
  struct Entry {
    std::size_t begin, end;
    std::string_view key;
  };
  std::vector<Entry> entries(n);
  for (std::size_t i = 0; i < n; ++i) {
    entries[i].begin = entry_starts_[o.entries + i];
    entries[i].end = i + 1 < n ? entry_starts_[o.entries + i + 1] : buf_.size();
  }
  for (Entry& e : entries) {
    std::size_t head_len = 0;
    e.key = encoded_text(buf_.view(), e.begin, head_len);
  }
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const Entry& a, const Entry& b) { return a.key < b.key; });
  std::string sorted;
  sorted.reserve(buf_.size() - entries.front().begin);
  for (const Entry& e : entries) {
    sorted.append(buf_.view().substr(e.begin, e.end - e.begin));
  }
  std::memcpy(buf_.data() + entry_starts_[o.entries], sorted.data(),
              sorted.size());
}

void CborWriter::uint_value(std::uint64_t v) {
  value_start();
  head(0, v);
}

void CborWriter::double_value(double v) {
  value_start();
  float_value(v);
}

// Shortest of float16/32/64 that keeps the value exactly; every NaN
// becomes the quiet float16 NaN 0x7e00, as RFC 8949 4.2.2 suggests.
void CborWriter::float_canonical(double v) {
  std::uint16_t h16;
  if (std::isnan(v)) {
    buf_.append("\xf9\x7e\x00", 3);
    return;
  }
  if (exact_half(v, h16)) {
    buf_.push_back(static_cast<char>(0xf9));
    buf_.push_back(static_cast<char>(h16 >> 8));
    buf_.push_back(static_cast<char>(h16 & 0xff));
    return;
  }
  const auto f = static_cast<float>(v);
  if (static_cast<double>(f) == v) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    buf_.push_back(static_cast<char>(0xfa));
    for (int s = 24; s >= 0; s -= 8) {
      buf_.push_back(static_cast<char>(bits >> s));
    }
    return;
  }
  char* p = buf_.grow(9);
  p[0] = static_cast<char>(0xfb);
  detail::store_be64(p + 1, std::bit_cast<std::uint64_t>(v));
}

// Integers: major type 0/1 within 64 bits, else a tag 2/3 bignum.
void CborWriter::integer_text(bool negative, std::string_view digits) {
  digits = strip_zeros(digits);
  if (digits.size() > cbor::detail::kMaxBignumDigits) {
    refuse(Errc::unsupported,
           "number of " + std::to_string(digits.size()) +
               " digits is too long for a CBOR bignum (at most " +
               std::to_string(cbor::detail::kMaxBignumDigits) + ")");
  }
  static constexpr std::string_view kMax = "18446744073709551615";
  if (!negative || digits == "0") {
    if (cbor::detail::decimal_compare(digits, kMax) <= 0) {
      std::uint64_t v = 0;
      std::from_chars(digits.data(), digits.data() + digits.size(), v);
      return head(0, v);
    }
    const std::string b = cbor::detail::decimal_to_bytes(digits);
    head(6, 2);
    head(2, b.size());
    buf_.append(b);
    return;
  }
  // Major type 1 and tag 3 both store n = -1 - value = |value| - 1.
  const std::string n = cbor::detail::decimal_decrement(digits);
  if (cbor::detail::decimal_compare(n, kMax) <= 0) {
    std::uint64_t v = 0;
    std::from_chars(n.data(), n.data() + n.size(), v);
    return head(1, v);
  }
  const std::string b = cbor::detail::decimal_to_bytes(n);
  head(6, 3);
  head(2, b.size());
  buf_.append(b);
}

// Tag 4 [exponent, mantissa]: value = mantissa * 10^exponent, exactly the
// digits written ("1.50" keeps its scale: 4([-2, 150])).
void CborWriter::decimal_fraction(bool negative, std::string_view int_digits,
                                  std::string_view frac_digits,
                                  std::string_view exp) {
  // |exponent| below 10^18 minus the fraction's length (bounded by memory)
  // fits int64, the reader's limit for tag 4 exponents.
  std::int64_t e = 0;
  bool exp_negative = false;
  if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) {
    exp_negative = exp[0] == '-';
    exp.remove_prefix(1);
  }
  const std::string_view ed = strip_zeros(exp.empty() ? "0" : exp);
  if (ed.size() > 18) {
    refuse(Errc::unsupported,
           "exponent of number is too large for a CBOR decimal fraction");
  }
  for (const char c : ed) e = e * 10 + (c - '0');
  if (exp_negative) e = -e;
  e -= static_cast<std::int64_t>(frac_digits.size());
  std::string mantissa(int_digits);
  mantissa += frac_digits;
  head(6, 4);
  buf_.push_back(static_cast<char>(0x82));
  const std::int64_t ev = e;
  if (ev >= 0) {
    head(0, static_cast<std::uint64_t>(ev));
  } else {
    head(1, static_cast<std::uint64_t>(-(ev + 1)));
  }
  integer_text(negative, mantissa);
}

// The common spellings in one pass: integers of up to 19 digits (below
// 2^64, so no overflow check) and, unless decimals are kept exact, decimals
// that std::from_chars takes whole and in range. Everything else (leading
// zeros, big integers, out-of-range exponents, errors) is left to the
// general path below, which gives the same bytes for these.
bool CborWriter::number_fast(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
  const bool negative = p != end && *p == '-';
  if (negative) ++p;
  const char* const digits = p;
  std::uint64_t v = 0;
  while (p != end && static_cast<unsigned>(*p - '0') < 10) {
    v = v * 10 + static_cast<unsigned>(*p - '0');
    ++p;
  }
  const auto n = static_cast<std::size_t>(p - digits);
  if (n == 0 || n > 19 || (n > 1 && *digits == '0')) return false;
  if (p == end) {
    if (!negative || v == 0) {
      head(0, v);
    } else {
      head(1, v - 1);  // -1 - value = |value| - 1
    }
    return true;
  }
  if (opts_.exact_decimals) return false;
  double d = 0;
  const auto r = std::from_chars(text.data(), end, d);
  if (r.ec != std::errc() || r.ptr != end) return false;
  float_value(d);
  return true;
}

void CborWriter::number_text(std::string_view text) {
  value_start();
  if (number_fast(text)) return;
  // RFC 8259 syntax: -?int(.frac)?([eE][+-]?digits)?
  std::string_view s = text;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  const std::size_t int_end = s.find_first_not_of("0123456789");
  const std::string_view int_digits = s.substr(0, int_end);
  std::string_view frac, exp;
  if (int_end != std::string_view::npos) {
    std::string_view rest = s.substr(int_end);
    if (rest[0] == '.') {
      rest.remove_prefix(1);
      const std::size_t fe = rest.find_first_not_of("0123456789");
      frac = rest.substr(0, fe);
      rest =
          fe == std::string_view::npos ? std::string_view() : rest.substr(fe);
    }
    if (!rest.empty() && (rest[0] == 'e' || rest[0] == 'E')) {
      exp = rest.substr(1);
      rest = {};
    }
    if (!rest.empty()) {
      throw Error(Errc::syntax, "invalid number '" + std::string(text) + "'");
    }
  }
  if (!all_digits(int_digits)) {
    throw Error(Errc::syntax, "invalid number '" + std::string(text) + "'");
  }
  if (int_end == std::string_view::npos) return integer_text(negative, s);
  if (opts_.exact_decimals) {
    // A decimal fraction has no negative zero: -0.0 keeps its sign as a
    // float (its scale, which zero's value does not show, is not kept).
    if (negative &&
        int_digits.find_first_not_of('0') == std::string_view::npos &&
        frac.find_first_not_of('0') == std::string_view::npos) {
      return float_value(-0.0);
    }
    return decimal_fraction(negative, int_digits, frac, exp);
  }
  double d = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), d);
  if (r.ec == std::errc::result_out_of_range) {
    // Too small rounds to zero like any other double rounding; too large
    // has no float64 at all. The decimal exponent decides which it is.
    long long e10 = 0;
    std::string_view ed = exp;
    bool en = false;
    if (!ed.empty() && (ed[0] == '+' || ed[0] == '-')) {
      en = ed[0] == '-';
      ed.remove_prefix(1);
    }
    ed = strip_zeros(ed.empty() ? "0" : ed);
    if (ed.size() > 17) {
      e10 = en ? -1'000'000'000'000'000'000LL : 1'000'000'000'000'000'000LL;
    } else {
      std::from_chars(ed.data(), ed.data() + ed.size(), e10);
      if (en) e10 = -e10;
    }
    // The power of ten of the first non-zero digit decides: at or above
    // 10^1 the value overflowed, below it underflowed to zero.
    const std::string all = std::string(int_digits) + std::string(frac);
    const std::size_t first = all.find_first_not_of('0');
    const long long magnitude =
        first == std::string::npos
            ? -1
            : e10 + static_cast<long long>(int_digits.size()) - 1 -
                  static_cast<long long>(first);
    if (magnitude > 0) {
      std::string shown(text.substr(0, 40));
      if (text.size() > 40) shown += "...";
      refuse(Errc::lossy, "number " + shown +
                              " is too large for a float64 (use "
                              "--decimals=exact)");
    }
    d = negative ? -0.0 : 0.0;
  } else if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
    throw Error(Errc::syntax, "invalid number '" + std::string(text) + "'");
  }
  float_value(d);
}

void CborWriter::bytes_value(std::span<const std::uint8_t> bytes) {
  value_start();
  head(2, bytes.size());
  buf_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

void CborWriter::timestamp_value(const Timestamp& t) {
  value_start();
  auto text_tag = [&](std::uint64_t tag, const std::string& s) {
    head(6, tag);
    text(3, s);
  };
  switch (t.kind) {
    case Timestamp::Kind::instant: {
      // An instant read with an offset (tag 0, JSONB zoned times) keeps it
      // in an RFC 3339 string; otherwise epoch seconds (tag 1), as a float
      // only when that float reads back to the same nanosecond.
      if (t.has_offset) {
        if (auto s = cbor::detail::format_rfc3339(t)) return text_tag(0, *s);
      }
      if (t.nanos == 0) {
        head(6, 1);
        if (t.seconds >= 0) {
          head(0, static_cast<std::uint64_t>(t.seconds));
        } else {
          head(1, static_cast<std::uint64_t>(-(t.seconds + 1)));
        }
        return;
      }
      const double d = static_cast<double>(t.seconds) + t.nanos / 1e9;
      const auto back = cbor::detail::instant_from_double(d);
      if (!back || back->seconds != t.seconds || back->nanos != t.nanos) {
        Timestamp utc = t;
        utc.offset_seconds = 0;
        if (auto s = cbor::detail::format_rfc3339(utc)) {
          return text_tag(0, *s);
        }
      }
      head(6, 1);
      float_value(d);
      return;
    }
    case Timestamp::Kind::local_date:
      // RFC 8943: tag 1004 full-date text, tag 100 days beyond year 9999.
      if (auto s = cbor::detail::format_local(t)) return text_tag(1004, *s);
      head(6, 100);
      {
        const std::int64_t days =
            t.seconds / 86400 - (t.seconds % 86400 < 0 ? 1 : 0);
        if (days >= 0) {
          head(0, static_cast<std::uint64_t>(days));
        } else {
          head(1, static_cast<std::uint64_t>(-(days + 1)));
        }
      }
      return;
    case Timestamp::Kind::local_date_time:
    case Timestamp::Kind::local_time:
      // CBOR has no tag for wall-clock times without a zone: ISO 8601 text.
      if (auto s = cbor::detail::format_local(t)) {
        text(3, *s);
        return;
      }
      refuse(Errc::lossy, "local date-time outside years 0-9999");
  }
}

void CborWriter::annotation(const Annotation& a) {
  value_start();
  counted_ = true;
  if (a.kind == Annotation::Kind::cbor_tag) {
    head(6, a.tag);
    return;
  }
  // A type name wraps the value as tag 27 [name, value] ("serialised
  // language-independent object"); the reader turns it back into a name.
  head(6, 27);
  buf_.push_back(static_cast<char>(0x82));
  text(3, a.name);
}

void CborWriter::stream_array(std::uint64_t n, std::size_t block) {
  if (!streamed_.on) {
    // Only the top-level array, once an element has begun: an empty one
    // has no comma to count.
    if (depth_ == 0 || stack_[0].major != 4 || stack_[0].pos != 0 ||
        stack_[0].count == 0 || counted_) {
      return;
    }
    // What goes out of the document from here, the sink may take back
    // (abandon()).
    out_.mark_document();
    char h[9];
    out_.write(std::string_view(h, encode_head(h, 4, n)));
    streamed_ = {true, n};
    // (In preferred mode buf_[0] is the head's placeholder.)
    const std::size_t from = opts_.canonical ? 0 : 1;
    flush_front(from, from);
  }
  // What comes before the element being written is complete.
  const std::size_t cut = depth_ >= 2 ? stack_[1].pos : buf_.size();
  if (cut >= block && cut > 0) flush_front(0, cut);
}

void CborWriter::flush_front(std::size_t from, std::size_t cut) {
  const std::size_t k = detail::flush_patched(
      out_, buf_, from, cut, patches_,
      [](const Patch& p, char* h) { return encode_head(h, p.major, p.count); });
  for (std::size_t d = 1; d < depth_; ++d) {
    Open& o = stack_[d];
    o.pos -= cut;
    o.key = o.key >= cut ? o.key - cut : 0;
    o.patch_at -= k;
  }
  for (std::size_t& e : entry_starts_) e -= cut;
}

void CborWriter::end_document() {
  counted_ = false;
  streamed_.end_document(depth_ != 0);
  if (!opts_.canonical) {
    while (depth_ != 0) end();  // a document cut short still gets counts
  }
  depth_ = 0;
  in_array_ = false;
  flush_front(0, buf_.size());
  entry_starts_.clear();
}

}  // namespace jbx
