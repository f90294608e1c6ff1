#include "formats/msgpack/msgpack_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "formats/msgpack/msgpack_reader.h"
#include "formats/msgpack/msgpack_text.h"
#include "formats/patched_buffer.h"

namespace jbx::msgpack {

using jbx::detail::store_be16;
using jbx::detail::store_be32;
using jbx::detail::store_be64;

namespace {

// A decimal as sign, significant digits (no leading or trailing zeros) and
// the power of ten of the last digit: value = digits * 10^exp. Exponents
// saturate at +-10^12, far outside any double's range.
struct Decimal {
  bool negative = false;
  std::string digits;
  std::int64_t exp = 0;
};

void normalize(std::string_view text, Decimal& d) {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    d.negative = text[i] == '-';
    ++i;
  }
  std::int64_t frac_digits = 0;
  bool in_fraction = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      in_fraction = true;
    } else if (c >= '0' && c <= '9') {
      if (!(d.digits.empty() && c == '0')) d.digits += c;
      if (in_fraction) ++frac_digits;
    } else {
      break;
    }
  }
  std::int64_t e = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
      neg = text[i] == '-';
      ++i;
    }
    constexpr std::int64_t kSaturate = 1'000'000'000'000;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      e = std::min(kSaturate, e * 10 + (text[i] - '0'));
    }
    if (neg) e = -e;
  }
  d.exp = e - frac_digits;
  while (!d.digits.empty() && d.digits.back() == '0') {
    d.digits.pop_back();
    ++d.exp;
  }
}

// Rough decimal exponent of the leading digit, for overflow checks.
std::int64_t magnitude(const Decimal& d) {
  return d.exp + static_cast<std::int64_t>(d.digits.size()) - 1;
}

double parse_double(std::string_view text, const Decimal& dec) {
  double d = 0;
  const char* first = text.data();
  if (!text.empty() && text[0] == '+') ++first;
  const auto r = std::from_chars(first, text.data() + text.size(), d);
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars leaves d unset: the IEEE rounding is an infinity above the
    // range and a zero below it.
    const double v = magnitude(dec) > 0 ? HUGE_VAL : 0.0;
    return dec.negative ? -v : v;
  }
  return d;
}

}  // namespace

namespace detail {

bool decimal_equals_double(std::string_view text, double d) {
  Decimal a;
  normalize(text, a);
  if (!std::isfinite(d)) return false;
  if (d == 0) return a.digits.empty();
  if (a.digits.empty()) return false;
  // Every double has an exact decimal expansion of at most 767 significant
  // digits; 800 digits after the point in scientific form show all of it.
  if (a.digits.size() > 800) return false;
  Decimal b;
  normalize(fmt::format("{:.800e}", d), b);
  return a.negative == b.negative && a.digits == b.digits && a.exp == b.exp;
}

}  // namespace detail

MsgpackWriter::MsgpackWriter(Sink& out, const WriteOptions& options)
    : out_(out), options_(options) {}

std::string MsgpackWriter::pointer() const {
  std::string p;
  for (std::size_t level = 0; level < depth_; ++level) {
    const Container& c = open_[level];
    if (c.is_map) {
      // The key as written: str header (fixstr, str8, str16, str32), bytes.
      const auto* k =
          reinterpret_cast<const unsigned char*>(body_.data()) + c.key;
      std::size_t n = 0;
      std::size_t h = 1;
      if ((k[0] & 0xe0) == 0xa0) {
        n = k[0] & 0x1f;
      } else {
        h += std::size_t{1} << (k[0] - 0xd9);
        for (std::size_t i = 1; i < h; ++i) n = (n << 8) | k[i];
      }
      detail::append_pointer_token(p,
                                   {reinterpret_cast<const char*>(k) + h, n});
    } else if (c.count > 0) {
      p += fmt::format("/{}", c.count - 1);
    }
  }
  return p;
}

void MsgpackWriter::too_long(bool is_map) {
  throw Error(Errc::unsupported,
              is_map ? "map of more than 4294967295 members has no MessagePack "
                       "form"
                     : "array of more than 4294967295 elements has no "
                       "MessagePack form");
}

void MsgpackWriter::grow_stack() {
  open_.resize(std::max<std::size_t>(16, open_.size() * 2));
}

void MsgpackWriter::long_header(const Container& c) {
  const auto at = static_cast<std::ptrdiff_t>(c.patch_at);
  patches_.insert(patches_.begin() + at, Patch{c.pos, c.count, c.is_map});
}

void MsgpackWriter::write_uint(std::uint64_t v) {
  if (v <= 0x7f) {
    body_.push_back(static_cast<char>(v));
  } else if (v <= 0xff) {
    char* p = body_.grow(2);
    p[0] = static_cast<char>(0xcc);
    p[1] = static_cast<char>(v);
  } else if (v <= 0xffff) {
    char* p = body_.grow(3);
    p[0] = static_cast<char>(0xcd);
    store_be16(p + 1, static_cast<std::uint16_t>(v));
  } else if (v <= 0xffffffffu) {
    char* p = body_.grow(5);
    p[0] = static_cast<char>(0xce);
    store_be32(p + 1, static_cast<std::uint32_t>(v));
  } else {
    char* p = body_.grow(9);
    p[0] = static_cast<char>(0xcf);
    store_be64(p + 1, v);
  }
}

void MsgpackWriter::uint_value(std::uint64_t v) {
  begin_value();
  write_uint(v);
}

void MsgpackWriter::double_value(double v) {
  begin_value();
  write_double(v);
}

void MsgpackWriter::lossy(std::string_view text, std::string_view why) {
  switch (options_.lossy) {
    case LossyPolicy::string:
      write_raw_string(0xa0, 0xd9, text);
      return;
    case LossyPolicy::nearest: {
      Decimal dec;
      normalize(text, dec);
      write_double(parse_double(text, dec));
      return;
    }
    case LossyPolicy::error:
      break;
  }
  std::string shown(text.substr(0, 40));
  if (text.size() > 40) shown += "...";
  Error e(Errc::lossy,
          fmt::format("number {} {} (use --lossy=string or --lossy=nearest)",
                      shown, why));
  e.pointer = pointer();
  throw e;
}

void MsgpackWriter::number_text(std::string_view text) {
  begin_value();
  const char* first = text.data();
  const char* last = first + text.size();
  if (text.find_first_of(".eE") == std::string_view::npos) {
    std::int64_t i = 0;
    auto r = std::from_chars(first, last, i);
    if (r.ec == std::errc() && r.ptr == last) {
      write_int(i);
      return;
    }
    std::uint64_t u = 0;
    r = std::from_chars(first, last, u);
    if (r.ec == std::errc() && r.ptr == last) {
      write_uint(u);
      return;
    }
    lossy(text);  // an integer beyond 64 bits
    return;
  }
  Decimal dec;
  normalize(text, dec);
  const double d = parse_double(text, dec);
  if (std::isinf(d)) {
    lossy(text, "is too large for a float64");
    return;
  }
  if (options_.exact_decimals && !detail::decimal_equals_double(text, d)) {
    lossy(text);
    return;
  }
  write_double(d);
}

void MsgpackWriter::write_raw_string(std::uint8_t fix, std::uint8_t b8,
                                     std::string_view s) {
  // fix: fixstr 0xa0 (lengths 0..31); b8: str8 0xd9 or bin8 0xc4, followed
  // by the 16 and 32-bit forms at b8 + 1 and b8 + 2.
  const std::size_t n = s.size();
  char* p = nullptr;
  if (fix != 0 && n <= 31) {
    p = body_.grow(1 + n);
    *p++ = static_cast<char>(fix | n);
  } else if (n <= 0xff) {
    p = body_.grow(2 + n);
    *p++ = static_cast<char>(b8);
    *p++ = static_cast<char>(n);
  } else if (n <= 0xffff) {
    p = body_.grow(3 + n);
    *p++ = static_cast<char>(b8 + 1);
    store_be16(p, static_cast<std::uint16_t>(n));
    p += 2;
  } else if (n <= 0xffffffffu) {
    p = body_.grow(5 + n);
    *p++ = static_cast<char>(b8 + 2);
    store_be32(p, static_cast<std::uint32_t>(n));
    p += 4;
  } else {
    throw Error(Errc::unsupported,
                "string or byte string of 4 GiB or more has no MessagePack "
                "form");
  }
  if (n > 0) std::memcpy(p, s.data(), n);
}

void MsgpackWriter::write_ext(std::int8_t type,
                              std::span<const std::uint8_t> payload) {
  const std::size_t n = payload.size();
  char* p = nullptr;
  switch (n) {
    case 1:
    case 2:
    case 4:
    case 8:
    case 16: {
      p = body_.grow(2 + n);
      const int log2 = __builtin_ctz(static_cast<unsigned>(n));
      *p++ = static_cast<char>(0xd4 + log2);
      break;
    }
    default:
      if (n <= 0xff) {
        p = body_.grow(3 + n);
        *p++ = static_cast<char>(0xc7);
        *p++ = static_cast<char>(n);
      } else if (n <= 0xffff) {
        p = body_.grow(4 + n);
        *p++ = static_cast<char>(0xc8);
        store_be16(p, static_cast<std::uint16_t>(n));
        p += 2;
      } else if (n <= 0xffffffffu) {
        p = body_.grow(6 + n);
        *p++ = static_cast<char>(0xc9);
        store_be32(p, static_cast<std::uint32_t>(n));
        p += 4;
      } else {
        throw Error(Errc::unsupported,
                    "extension of 4 GiB or more has no MessagePack form");
      }
  }
  *p++ = static_cast<char>(type);
  if (n > 0) std::memcpy(p, payload.data(), n);
}

void MsgpackWriter::bytes_value(std::span<const std::uint8_t> bytes) {
  const int ext = pending_ext_;
  begin_value();
  if (ext != 256) {
    write_ext(static_cast<std::int8_t>(ext), bytes);
    return;
  }
  write_raw_string(0, 0xc4,
                   {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

void MsgpackWriter::timestamp_value(const Timestamp& t) {
  begin_value();
  if (t.kind != Timestamp::Kind::instant) {
    std::string s;
    detail::append_iso8601(s, t);
    write_raw_string(0xa0, 0xd9, s);
    return;
  }
  const auto secs = static_cast<std::uint64_t>(t.seconds);
  if (t.seconds >= 0 && (secs >> 34) == 0) {
    if (t.nanos == 0 && (secs >> 32) == 0) {
      char* p = body_.grow(6);
      p[0] = static_cast<char>(0xd6);
      p[1] = static_cast<char>(-1);
      store_be32(p + 2, static_cast<std::uint32_t>(secs));
    } else {
      char* p = body_.grow(10);
      p[0] = static_cast<char>(0xd7);
      p[1] = static_cast<char>(-1);
      store_be64(p + 2, (std::uint64_t{t.nanos} << 34) | secs);
    }
    return;
  }
  char* p = body_.grow(15);
  p[0] = static_cast<char>(0xc7);
  p[1] = 12;
  p[2] = static_cast<char>(-1);
  store_be32(p + 3, t.nanos);
  store_be64(p + 7, secs);
}

void MsgpackWriter::annotation(const Annotation& a) {
  // Only this format's own extension types survive; see the header.
  if (a.kind != Annotation::Kind::type_name ||
      a.name.substr(0, kExtPrefix.size()) != kExtPrefix) {
    return;
  }
  const std::string_view num = a.name.substr(kExtPrefix.size());
  int type = 0;
  const auto r = std::from_chars(num.data(), num.data() + num.size(), type);
  if (r.ec == std::errc() && r.ptr == num.data() + num.size() && type >= -128 &&
      type <= 127 && type != -1) {
    pending_ext_ = type;
  }
}

namespace {

// The header of a map or array of `count` (at most kMaxCount) entries, at
// h[0, 5); returns its length.
std::size_t encode_header(char* h, bool is_map, std::uint64_t count) {
  if (count <= 15) {
    h[0] = static_cast<char>((is_map ? 0x80 : 0x90) | count);
    return 1;
  }
  if (count <= 0xffff) {
    h[0] = static_cast<char>(is_map ? 0xde : 0xdc);
    store_be16(h + 1, static_cast<std::uint16_t>(count));
    return 3;
  }
  h[0] = static_cast<char>(is_map ? 0xdf : 0xdd);
  store_be32(h + 1, static_cast<std::uint32_t>(count));
  return 5;
}

}  // namespace

void MsgpackWriter::stream_array(std::uint64_t n, std::size_t block) {
  if (!streamed_.on) {
    // Only the top-level array, once an element has begun: an empty one
    // has no comma to count. One too long is refused as it grows.
    if (depth_ == 0 || open_[0].is_map || open_[0].pos != 0 ||
        open_[0].count == 0 || n > kMaxCount) {
      return;
    }
    // What goes out of the document from here, the sink may take back
    // (abandon()).
    out_.mark_document();
    char h[5];
    out_.write({h, encode_header(h, false, n)});
    streamed_ = {true, n};
    flush_front(1, 1);  // over the header's placeholder
  }
  // What comes before the element being written is complete.
  const std::size_t cut = depth_ >= 2 ? open_[1].pos : body_.size();
  if (cut >= block && cut > 0) flush_front(0, cut);
}

void MsgpackWriter::flush_front(std::size_t from, std::size_t cut) {
  const std::size_t k = jbx::detail::flush_patched(
      out_, body_, from, cut, patches_, [](const Patch& p, char* h) {
        return encode_header(h, p.is_map, p.count);
      });
  for (std::size_t d = 1; d < depth_; ++d) {
    Container& c = open_[d];
    c.pos -= cut;
    c.key = c.key >= cut ? c.key - cut : 0;
    c.patch_at -= k;
  }
}

void MsgpackWriter::end_document() {
  pending_ext_ = 256;
  streamed_.end_document(depth_ != 0);
  while (depth_ != 0) end();  // a document cut short still gets counts
  flush_front(0, body_.size());
}

}  // namespace jbx::msgpack
