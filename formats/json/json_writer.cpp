#include "formats/json/json_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/datetime.h"
#include "core/error.h"

namespace jbx {

namespace {

// jq 1.7.1's default palette (null, false, true, numbers, strings, arrays,
// objects, object keys) and its layout of colour codes around punctuation.
constexpr std::string_view kNullColor = "\x1b[1;30m";
constexpr std::string_view kScalarColor = "\x1b[0;39m";  // false true numbers
constexpr std::string_view kStringColor = "\x1b[0;32m";
constexpr std::string_view kContainerColor = "\x1b[1;39m";
constexpr std::string_view kKeyColor = "\x1b[34;1m";
constexpr std::string_view kReset = "\x1b[0m";

constexpr char kHex[] = "0123456789abcdef";

// What a byte needs inside a JSON string: 0 nothing, 'u' the \u00XX form,
// else the letter of its short escape.
constexpr std::array<char, 256> make_escape_table() {
  std::array<char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[static_cast<std::size_t>(c)] = 'u';
  t['\b'] = 'b';
  t['\f'] = 'f';
  t['\n'] = 'n';
  t['\r'] = 'r';
  t['\t'] = 't';
  t['"'] = '"';
  t['\\'] = '\\';
  return t;
}
constexpr std::array<char, 256> kEscape = make_escape_table();

constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;

// True when any of the 8 bytes of `v` needs escaping (exact, no false
// negatives): a control character, '"' or '\\', or (ascii) a byte >= 0x80.
inline bool needs_escape8(std::uint64_t v, bool ascii) {
  const std::uint64_t ctrl = (v - kOnes * 0x20) & ~v;
  const std::uint64_t q = v ^ (kOnes * '"');
  const std::uint64_t bs = v ^ (kOnes * '\\');
  const std::uint64_t quote = (q - kOnes) & ~q;
  const std::uint64_t back = (bs - kOnes) & ~bs;
  std::uint64_t m = (ctrl | quote | back) & kHighs;
  if (ascii) m |= v & kHighs;
  return m != 0;
}

#if defined(__SSE2__)
// A byte set in the mask for each byte of `x` that needs escaping, as
// needs_escape8().
inline int escapes16(__m128i x, bool ascii) {
  const __m128i ctrl = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1F)), x);
  const __m128i m =
      _mm_or_si128(ctrl, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                      _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
  return _mm_movemask_epi8(ascii ? _mm_or_si128(m, x) : m);
}
#endif

// Copies the `n` bytes at `s` to `p` when none needs escaping, in words
// (the last one overlapping the one before it), writing nothing outside
// [p, p + n); false as soon as one does (what was copied is then to be
// overwritten), and without SSE2 for 8 bytes or more.
inline bool copy_unescaped(const char* s, std::size_t n, bool ascii, char* p) {
#if defined(__SSE2__)
  if (n >= 16) {
    for (std::size_t i = 0; i + 16 < n; i += 16) {
      const __m128i x =
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      if (escapes16(x, ascii) != 0) return false;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p + i), x);
    }
    const __m128i x =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + n - 16));
    if (escapes16(x, ascii) != 0) return false;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + n - 16), x);
    return true;
  }
  if (n >= 8) {
    const __m128i a = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s));
    const __m128i b =
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + n - 8));
    if (escapes16(_mm_unpacklo_epi64(a, b), ascii) != 0) return false;
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), a);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p + n - 8), b);
    return true;
  }
#else
  // (Without SSE2, write_string()'s own loop of words takes these.)
  if (n >= 8) return false;
#endif
  if (n >= 4) {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    std::memcpy(&a, s, 4);
    std::memcpy(&b, s + n - 4, 4);
    if (needs_escape8(a | (std::uint64_t{b} << 32), ascii)) return false;
    std::memcpy(p, &a, 4);
    std::memcpy(p + n - 4, &b, 4);
    return true;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (kEscape[c] != 0 || (ascii && c >= 0x80)) return false;
    p[i] = s[i];
  }
  return true;
}

inline char* put_u16(char* p, unsigned cp) {
  p[0] = '\\';
  p[1] = 'u';
  p[2] = kHex[(cp >> 12) & 0xF];
  p[3] = kHex[(cp >> 8) & 0xF];
  p[4] = kHex[(cp >> 4) & 0xF];
  p[5] = kHex[cp & 0xF];
  return p + 6;
}

void append_2(std::string& s, unsigned v) {
  s += static_cast<char>('0' + v / 10);
  s += static_cast<char>('0' + v % 10);
}

void append_date(std::string& s, std::int64_t days) {
  const auto [y, m, d] = datetime::civil_from_days(days);
  char buf[32];
  if (y >= 0 && y <= 9999) {
    const auto uy = static_cast<unsigned>(y);
    s += static_cast<char>('0' + uy / 1000);
    s += static_cast<char>('0' + uy / 100 % 10);
    s += static_cast<char>('0' + uy / 10 % 10);
    s += static_cast<char>('0' + uy % 10);
  } else {
    // ISO 8601 expanded years carry a sign.
    if (y > 0) s += '+';
    auto r = std::to_chars(buf, buf + sizeof buf, y);
    s.append(buf, r.ptr);
  }
  s += '-';
  append_2(s, static_cast<unsigned>(m));
  s += '-';
  append_2(s, static_cast<unsigned>(d));
}

void append_time(std::string& s, std::int64_t secs_of_day,
                 std::uint32_t nanos) {
  const auto t = static_cast<unsigned>(secs_of_day);
  append_2(s, t / 3600);
  s += ':';
  append_2(s, t / 60 % 60);
  s += ':';
  append_2(s, t % 60);
  if (nanos != 0) {
    // Only as many fraction digits as needed: 3, 6 or 9.
    int digits = 9;
    std::uint32_t frac = nanos;
    if (nanos % 1000000 == 0) {
      digits = 3;
      frac = nanos / 1000000;
    } else if (nanos % 1000 == 0) {
      digits = 6;
      frac = nanos / 1000;
    }
    char buf[10];
    for (int i = digits - 1; i >= 0; --i) {
      buf[i] = static_cast<char>('0' + frac % 10);
      frac /= 10;
    }
    s += '.';
    s.append(buf, static_cast<std::size_t>(digits));
  }
}

}  // namespace

JsonWriter::JsonWriter(Sink& out, const WriteOptions& o) : out_(out), opt_(o) {
  if (opt_.lines) opt_.compact = true;
  pretty_ = !opt_.compact && (opt_.tab || opt_.indent > 0);
  unit_ = opt_.tab ? 1 : static_cast<std::size_t>(std::max(opt_.indent, 0));
  const char fill = opt_.tab ? '\t' : ' ';
  indent_.assign(1, '\n');
  indent_.append(4096, fill);
  std::memset(sep_, fill, sizeof sep_);
  sep_[0] = ',';
  if (pretty_) {
    sep_[1] = '\n';
    nl_ = 1;
    step_ = unit_;
    colon_ = 3;
  }
  kinds_.assign(64, 0);
  if (opt_.color || opt_.ascii) slow_fixed_ |= kSlowOptions;
  update_slow();
}

JsonWriter::JsonWriter(Sink& out, const JsonWriter& w)
    : JsonWriter(out, w.opt_) {
  slow_fixed_ = w.slow_fixed_;
  in_array_ = w.in_array_;
  in_doc_ = w.in_doc_;
  have_type_name_for_object_ = w.have_type_name_for_object_;
  depth_ = w.depth_;
  nl_ = w.nl_;
  kinds_ = w.kinds_;
  pending_ = w.pending_;
  type_name_for_object_ = w.type_name_for_object_;
  first_ = false;
  update_slow();
}

void JsonWriter::splice(std::string_view items) {
  if (items.empty()) return;
  out_.write(items);
  first_ = false;
}

void JsonWriter::force_general_path(bool on) {
  slow_fixed_ = static_cast<std::uint8_t>(on ? slow_fixed_ | kSlowForced
                                             : slow_fixed_ & ~kSlowForced);
  update_slow();
}

void JsonWriter::set_readable(const char* begin, std::size_t size) {
  readable_begin_ = reinterpret_cast<std::uintptr_t>(begin);
  // A text starting at offset i can be read in words when
  // i + kWordCopy <= size.
  readable_size_ = size >= kWordCopy ? size - kWordCopy + 1 : 0;
}

void JsonWriter::update_slow() {
  std::uint8_t s = slow_fixed_;
  if (depth_ == 0) s |= kSlowTop;
  if (nl_ >= kSepCopy) s |= kSlowDeep;
  if ((kinds_[depth_] & kWrapper) != 0) s |= kSlowWrapper;
  if (!pending_.empty() || have_type_name_for_object_) s |= kSlowPending;
  slow_ = s;
}

void JsonWriter::grow_kinds() { kinds_.resize(kinds_.size() * 2, 0); }

void JsonWriter::push(std::uint8_t kind) {
  if (++depth_ == kinds_.size()) grow_kinds();
  kinds_[depth_] = kind;
  in_array_ = (kind & kArray) != 0;
  first_ = true;
  nl_ += step_;
  update_slow();
}

void JsonWriter::pop() {
  --depth_;
  in_array_ = (kinds_[depth_] & kArray) != 0;
  first_ = false;  // the container just closed was an item
  nl_ -= step_;
  update_slow();
}

void JsonWriter::newline_indent(std::size_t depth) {
  std::size_t n = depth * unit_;
  if (n + 1 <= indent_.size()) {
    out_.write(std::string_view(indent_.data(), n + 1));
    return;
  }
  out_.put('\n');
  while (n > 0) {
    const std::size_t k = std::min(n, indent_.size() - 1);
    out_.write(std::string_view(indent_.data() + 1, k));
    n -= k;
  }
}

void JsonWriter::separator() {
  if (opt_.color) {
    if (!first_) {
      out_.write(kContainerColor);
      out_.put(',');
    }
    out_.write(kReset);
  } else if (!first_) {
    out_.put(',');
  }
  first_ = false;
  if (pretty_) newline_indent(depth_);
}

void JsonWriter::before_value() {
  if (!in_doc_) {
    in_doc_ = true;
    out_.mark_document();
  }
  if (depth_ > 0 && in_array_) separator();
  if (!pending_.empty()) open_wrappers(false);
}

void JsonWriter::after_value() {
  while (depth_ > 0 && (kinds_[depth_] & kWrapper) != 0) close_container('}');
}

void JsonWriter::open_wrappers(bool next_is_object) {
  // Move the list out: key() and string_value() below re-enter the writer.
  std::vector<Pending> list;
  list.swap(pending_);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Pending& p = list[i];
    if (i + 1 == list.size() && next_is_object &&
        p.kind == Annotation::Kind::type_name) {
      type_name_for_object_ = p.name;
      have_type_name_for_object_ = true;
      break;
    }
    if (opt_.color) out_.write(kContainerColor);
    out_.put('{');
    push(kWrapper);
    key("@type");
    if (p.kind == Annotation::Kind::type_name) {
      write_string(p.name, opt_.color ? kStringColor.data() : nullptr);
    } else {
      write_string("tag:" + std::to_string(p.tag),
                   opt_.color ? kStringColor.data() : nullptr);
    }
    key("@value");
  }
  list.clear();
  pending_.swap(list);  // keep the capacity
  update_slow();
}

void JsonWriter::open_container(char c, std::uint8_t kind) {
  if (!in_doc_) {
    in_doc_ = true;
    out_.mark_document();
  }
  if (depth_ > 0 && in_array_) separator();
  if (!pending_.empty()) open_wrappers(kind == 0);
  if (opt_.color) out_.write(kContainerColor);
  out_.put(c);
  push(kind);
}

void JsonWriter::close_container(char c) {
  const bool empty = first_;
  pop();
  if (!empty) {
    if (pretty_) newline_indent(depth_);
    if (opt_.color) out_.write(kContainerColor);
  }
  out_.put(c);
  if (opt_.color) out_.write(kReset);
}

Flow JsonWriter::begin_object_general() {
  open_container('{', 0);
  if (have_type_name_for_object_) {
    have_type_name_for_object_ = false;
    update_slow();
    key("@type");
    write_string(type_name_for_object_,
                 opt_.color ? kStringColor.data() : nullptr);
  }
  return Flow::visit;
}

Flow JsonWriter::key_general(std::string_view name) {
  if (slow_ == 0 && name.size() <= kLongText) {
    out_.commit(key_start(0));
    write_string(name, nullptr);
    out_.write(std::string_view(": ", colon_ - 1));
    return Flow::visit;
  }
  separator();
  write_string(name, opt_.color ? kKeyColor.data() : nullptr);
  if (opt_.color) {
    out_.write(kContainerColor);
    out_.put(':');
    out_.write(kReset);
  } else {
    out_.put(':');
  }
  if (pretty_) out_.put(' ');
  return Flow::visit;
}

void JsonWriter::end_object_general() {
  close_container('}');
  after_value();
}

Flow JsonWriter::begin_array_general() {
  open_container('[', kArray);
  return Flow::visit;
}

void JsonWriter::end_array_general() {
  close_container(']');
  after_value();
}

void JsonWriter::write_scalar(std::string_view text, bool is_null) {
  if (slow_ == 0) {
    // Inside a container with nothing else to do: the separator and the
    // text in one reservation.
    char* p = value_start(text.size());
    if (!text.empty()) std::memcpy(p, text.data(), text.size());
    out_.commit(p + text.size());
    return;
  }
  before_value();
  if (opt_.color) {
    out_.write(is_null ? kNullColor : kScalarColor);
    out_.write(text);
    out_.write(kReset);
  } else {
    out_.write(text);
  }
  after_value();
}

void JsonWriter::double_value_general(double v) {
  if (!std::isfinite(v)) {
    const char* name =
        std::isnan(v) ? "NaN" : (v > 0 ? "Infinity" : "-Infinity");
    switch (opt_.nan) {
      case NanPolicy::null:
        null_value();
        return;
      case NanPolicy::string:
        string_value(name);
        return;
      case NanPolicy::error:
        break;
    }
    throw Error(Errc::lossy, std::string(std::isnan(v) ? "NaN" : "infinity") +
                                 " cannot be written as JSON (use --nan)");
  }
  char buf[detail::kShortestRoom];
  // Keep it a double when read back: "2" becomes "2.0".
  char* end = detail::put_shortest(buf, v, /*mark_double=*/true);
  write_scalar(std::string_view(buf, static_cast<std::size_t>(end - buf)));
}

void JsonWriter::string_value_general(std::string_view utf8) {
  if (slow_ == 0) {
    out_.commit(value_start(0));
    write_string(utf8, nullptr);
    return;
  }
  before_value();
  write_string(utf8, opt_.color ? kStringColor.data() : nullptr);
  after_value();
}

void JsonWriter::copy_string(std::string_view s, const char* color) {
  if (color != nullptr) out_.write(color);
  char* p = out_.reserve(s.size() + 2);
  *p++ = '"';
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  p += s.size();
  *p++ = '"';
  out_.commit(p);
  if (color != nullptr) out_.write(kReset);
}

void JsonWriter::plain_string_general(std::string_view utf8) {
  if (opt_.ascii || utf8.size() > kLongText) {
    string_value(utf8);
    return;
  }
  before_value();
  copy_string(utf8, opt_.color ? kStringColor.data() : nullptr);
  after_value();
}

Flow JsonWriter::stable_key(std::string_view name) { return plain_key(name); }

Flow JsonWriter::escape_free_key(std::string_view name) {
  return plain_key(name);
}

void JsonWriter::stable_string(std::string_view utf8) { plain_string(utf8); }

Flow JsonWriter::plain_key_general(std::string_view name) {
  if (opt_.ascii || name.size() > kLongText) return key(name);
  separator();
  copy_string(name, opt_.color ? kKeyColor.data() : nullptr);
  if (opt_.color) {
    out_.write(kContainerColor);
    out_.put(':');
    out_.write(kReset);
  } else {
    out_.put(':');
  }
  if (pretty_) out_.put(' ');
  return Flow::visit;
}

Flow JsonWriter::repeated_key_general(std::string_view name, std::string& text,
                                      std::size_t& tag) {
  // (`tag` stays as it is for such a name: the next call comes here too.)
  if (!jbx::detail::escape_free(name)) return key_general(name);
  if (slow_ != 0 || name.size() > kLongText) {
    return direct_key(name, name.size() + kWordCopy);
  }
  // The text of key_fast(), with its comma, for this depth.
  text.assign(sep_, 1 + nl_);
  text += '"';
  text += name;
  text.append("\": ", colon_);
  text.append(kWordCopy, '\0');
  tag = nl_;
  return repeated_key(name, text, tag);
}

void JsonWriter::write_string(std::string_view s, const char* color) {
  if (color != nullptr) out_.write(color);
  const bool ascii = opt_.ascii;
  // Most strings need no escape: copied as they are checked, in words.
  // (The loop below goes byte by byte after its last whole word, which in
  // short strings is most of their bytes.)
  if (s.size() <= kLongText) {
    char* p = out_.reserve(s.size() + 2);
    *p = '"';
    if (copy_unescaped(s.data(), s.size(), ascii, p + 1)) {
      p += 1 + s.size();
      *p++ = '"';
      out_.commit(p);
      if (color != nullptr) out_.write(kReset);
      return;
    }
  }
  const char* in = s.data();
  std::size_t n = s.size();
  // Worst case 6 output bytes per input byte (\u00XX); strings are done in
  // bounded chunks so a huge string never needs a huge reservation.
  constexpr std::size_t kChunk = 16384;
  char* p = out_.reserve(std::min(n, kChunk) * 6 + 2);
  *p++ = '"';
  while (n > 0) {
    std::size_t chunk = std::min(n, kChunk);
    if (chunk < n && ascii) {
      // Do not split a UTF-8 sequence between chunks.
      while (chunk > 0 &&
             (static_cast<unsigned char>(in[chunk]) & 0xC0) == 0x80) {
        --chunk;
      }
      if (chunk == 0) chunk = std::min(n, kChunk);
    }
    const char* end = in + chunk;
    while (in < end) {
      if (end - in >= 8) {
        std::uint64_t v;
        std::memcpy(&v, in, 8);
        if (!needs_escape8(v, ascii)) {
          std::memcpy(p, in, 8);
          p += 8;
          in += 8;
          continue;
        }
      }
      const auto c = static_cast<unsigned char>(*in);
      const char e = kEscape[c];
      if (e == 0 && !(ascii && c >= 0x80)) {
        *p++ = static_cast<char>(c);
        ++in;
      } else if (e == 'u') {
        p = put_u16(p, c);
        ++in;
      } else if (e != 0) {
        *p++ = '\\';
        *p++ = e;
        ++in;
      } else {
        // ASCII mode, a UTF-8 sequence (valid by the readers' contract).
        unsigned cp = 0;
        int len = 1;
        if (c >= 0xF0) {
          cp = c & 0x07u;
          len = 4;
        } else if (c >= 0xE0) {
          cp = c & 0x0Fu;
          len = 3;
        } else {
          cp = c & 0x1Fu;
          len = 2;
        }
        if (end - in < len) len = static_cast<int>(end - in);
        for (int i = 1; i < len; ++i) {
          cp = (cp << 6) | (static_cast<unsigned char>(in[i]) & 0x3Fu);
        }
        in += len;
        if (cp >= 0x10000) {
          cp -= 0x10000;
          p = put_u16(p, 0xD800 | (cp >> 10));
          p = put_u16(p, 0xDC00 | (cp & 0x3FF));
        } else {
          p = put_u16(p, cp);
        }
      }
    }
    n -= chunk;
    out_.commit(p);
    p = out_.reserve(std::min(n, kChunk) * 6 + 2);
  }
  *p++ = '"';
  out_.commit(p);
  if (color != nullptr) out_.write(kReset);
}

void JsonWriter::bytes_value(std::span<const std::uint8_t> bytes) {
  static constexpr char kB64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  static constexpr char kB64Url[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  if (opt_.bytes == BytesEncoding::array) {
    begin_array();
    for (const std::uint8_t b : bytes) int_value(b);
    end_array();
    return;
  }
  scratch_.clear();
  if (opt_.bytes == BytesEncoding::hex) {
    scratch_.reserve(bytes.size() * 2);
    for (const std::uint8_t b : bytes) {
      scratch_ += kHex[b >> 4];
      scratch_ += kHex[b & 0xF];
    }
  } else {
    // base64 is padded (RFC 4648 section 4); base64url is not (section 5,
    // as JWT and most JSON uses do).
    const bool url = opt_.bytes == BytesEncoding::base64url;
    const char* table = url ? kB64Url : kB64;
    scratch_.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
      const std::uint32_t v = (std::uint32_t{bytes[i]} << 16) |
                              (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
      scratch_ += table[v >> 18];
      scratch_ += table[(v >> 12) & 63];
      scratch_ += table[(v >> 6) & 63];
      scratch_ += table[v & 63];
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
      std::uint32_t v = std::uint32_t{bytes[i]} << 16;
      if (rest == 2) v |= std::uint32_t{bytes[i + 1]} << 8;
      scratch_ += table[v >> 18];
      scratch_ += table[(v >> 12) & 63];
      if (rest == 2) scratch_ += table[(v >> 6) & 63];
      if (!url) scratch_.append(rest == 2 ? 1 : 2, '=');
    }
  }
  before_value();
  write_string(scratch_, opt_.color ? kStringColor.data() : nullptr);
  after_value();
}

void JsonWriter::timestamp_value(const Timestamp& t) {
  std::string s;
  switch (t.kind) {
    case Timestamp::Kind::local_date:
      append_date(s, datetime::floor_div(t.seconds, 86400));
      break;
    case Timestamp::Kind::local_time:
      append_time(s, t.seconds - datetime::floor_div(t.seconds, 86400) * 86400,
                  t.nanos);
      break;
    case Timestamp::Kind::local_date_time:
    case Timestamp::Kind::instant: {
      std::int64_t secs = t.seconds;
      const bool offset = t.kind == Timestamp::Kind::instant && t.has_offset;
      if (offset) secs += t.offset_seconds;
      const std::int64_t days = datetime::floor_div(secs, 86400);
      append_date(s, days);
      s += 'T';
      append_time(s, secs - days * 86400, t.nanos);
      if (t.kind == Timestamp::Kind::local_date_time && !t.zone.empty()) {
        // Wall-clock time in a region zone (JSONB zoned date-times): the
        // zone id in brackets, as fastjson2 and java.time print it.
        s += '[';
        s += t.zone;
        s += ']';
      }
      if (t.kind == Timestamp::Kind::instant) {
        // A zero offset is "Z", as RFC 3339 and java.time write it, whether
        // or not the source carried one.
        if (!offset || t.offset_seconds == 0) {
          s += 'Z';
        } else {
          std::int32_t o = t.offset_seconds;
          s += o < 0 ? '-' : '+';
          if (o < 0) o = -o;
          append_2(s, static_cast<unsigned>(o / 3600));
          s += ':';
          append_2(s, static_cast<unsigned>(o / 60 % 60));
        }
      }
      break;
    }
  }
  before_value();
  write_string(s, opt_.color ? kStringColor.data() : nullptr);
  after_value();
}

void JsonWriter::annotation(const Annotation& a) {
  if (opt_.drop_type_names) return;
  pending_.push_back(Pending{a.kind, std::string(a.name), a.tag});
  update_slow();
}

void JsonWriter::abandon() {
  if (!in_doc_) return;
  // Take the half document back when the sink still holds it; else end
  // its line so the next document starts on a line of its own.
  if (!out_.drop_document()) out_.put('\n');
  reset();
}

void JsonWriter::end_document() {
  out_.put('\n');
  reset();
}

void JsonWriter::reset() {
  in_doc_ = false;
  depth_ = 0;
  first_ = true;
  in_array_ = false;
  nl_ = pretty_ ? 1 : 0;
  pending_.clear();
  have_type_name_for_object_ = false;
  update_slow();
}

}  // namespace jbx
