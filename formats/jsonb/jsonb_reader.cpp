#include "formats/jsonb/jsonb_reader.h"

#include <iconv.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "core/datetime.h"
#include "core/error.h"
#include "formats/binary_text.h"
#include "formats/json/json_fused.h"
#include "formats/json/json_writer.h"
#include "formats/jsonb/jsonb_number.h"

namespace jbx {

namespace {

using u8 = std::uint8_t;

// Tag bytes (spec section 2) that the decoder names.
constexpr u8 kStrFix0 = 0x49;
constexpr u8 kStrAscii = 0x79;
constexpr u8 kStrUtf8 = 0x7a;
constexpr u8 kStrUtf16 = 0x7b;
constexpr u8 kStrUtf16Le = 0x7c;
constexpr u8 kStrUtf16Be = 0x7d;
constexpr u8 kStrGb18030 = 0x7e;
constexpr u8 kSymbol = 0x7f;
constexpr u8 kChar = 0x90;
constexpr u8 kBinary = 0x91;
constexpr u8 kTyped = 0x92;
constexpr u8 kReference = 0x93;
constexpr u8 kArrayFix0 = 0x94;
constexpr u8 kArray = 0xa4;
constexpr u8 kObjectEnd = 0xa5;
constexpr u8 kObject = 0xa6;

bool is_int32_family(u8 t) { return t <= 0x48 || t >= 0xf0; }
bool is_string_tag(u8 t) { return t >= kStrFix0 && t <= kStrGb18030; }

// A flat Java-String-order comparison (UTF-16 code units) of two UTF-8
// strings, for numbering an external SymbolTable as fastjson2 does.
std::u16string to_utf16_units(std::string_view s) {
  std::u16string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    char32_t cp = c;
    std::size_t len = 1;
    if (c >= 0xf0 && i + 3 < s.size() + 0) {
      len = 4;
      cp = c & 0x07;
    } else if (c >= 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if (c >= 0xc0) {
      len = 2;
      cp = c & 0x1f;
    }
    for (std::size_t k = 1; k < len && i + k < s.size(); ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    }
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xd800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xdc00 + (cp & 0x3ff)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
  }
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

// "Z", "+08:00", "-05:30", "+08", "+05:30:15": Java ZoneOffset ids.
bool parse_offset_id(std::string_view z, std::int32_t& seconds) {
  if (z == "Z") {
    seconds = 0;
    return true;
  }
  if (z.size() < 3 || (z[0] != '+' && z[0] != '-')) return false;
  const auto two = [&](std::size_t at, int& v) {
    if (at + 2 > z.size() || z[at] < '0' || z[at] > '9' || z[at + 1] < '0' ||
        z[at + 1] > '9') {
      return false;
    }
    v = (z[at] - '0') * 10 + (z[at + 1] - '0');
    return true;
  };
  int h = 0;
  int m = 0;
  int s = 0;
  if (!two(1, h) || h > 18) return false;
  std::size_t at = 3;
  if (at < z.size()) {
    if (z[at] != ':' || !two(at + 1, m) || m > 59) return false;
    at += 3;
    if (at < z.size()) {
      if (z[at] != ':' || !two(at + 1, s) || s > 59) return false;
      at += 3;
    }
  }
  if (at != z.size()) return false;
  seconds = (h * 3600 + m * 60 + s) * (z[0] == '-' ? -1 : 1);
  return true;
}

}  // namespace

class JsonbReader::Impl {
 public:
  Impl(std::string_view data, const ReadOptions& o, JsonbReadOptions jo)
      : p_(reinterpret_cast<const u8*>(data.data())),
        n_(data.size()),
        opt_(o),
        jopt_(std::move(jo)) {
    if (!jopt_.symbol_table.empty()) {
      // fastjson2's SymbolTable: sorted in String order, duplicates gone,
      // ordinals from 1.
      external_ = jopt_.symbol_table;
      std::sort(external_.begin(), external_.end(),
                [](const std::string& a, const std::string& b) {
                  return to_utf16_units(a) < to_utf16_units(b);
                });
      external_.erase(std::unique(external_.begin(), external_.end()),
                      external_.end());
    }
  }
  ~Impl() {
    if (gb_ != reinterpret_cast<iconv_t>(-1)) iconv_close(gb_);
  }

  // Reads from `data` (a window on the input) from its start on.
  void reset(std::string_view data) {
    p_ = reinterpret_cast<const u8*>(data.data());
    n_ = data.size();
    pos_ = 0;
    next_give_ = SIZE_MAX;
  }

  // After reset(): the pages of a mapped input behind the values read go
  // back as the reader passes them (Source::give_back()); the window
  // starts at byte `base` of `in`. (References read earlier bytes again:
  // pages given back are read back in.)
  void give_back_to(Source& in, std::uint64_t base) {
    give_ = &in;
    give_base_ = base;
    next_give_ = kGiveStep;
  }

  // True when `data` starts with a whole document, or with one that is
  // wrong before it is cut short.
  bool complete(std::string_view data) {
    reset(data);
    NullHandler none;
    try {
      read_document(none);
    } catch (const Error& e) {
      return e.code != Errc::unexpected_end;
    }
    return true;
  }

  bool read_document(Handler& out) {
    if (pos_ >= n_) return false;
    doc_start_ = pos_;
    symbols_.clear();
    ref_memo_.clear();
    resolved_.clear();
    have_last_ref_ = false;
    reread_ = 0;
    reread_depth_ = 0;
    open_.clear();
    steps_ = 0;
    // Re-reading for references is bounded (references can double a tree
    // at every level): 64 times the rest of the input plus 64 MiB.
    reread_budget_ = 64 * (n_ - pos_) + (std::size_t{64} << 20);
    out_ = &out;
    json_ = dynamic_cast<JsonWriter*>(&out);
    counted_ = json_ == nullptr && out.takes_array_count() ? &out : nullptr;
    // The features in front of the JSON writer, called directly for keys
    // and strings (not when they would be told a top-level array's count).
    fused_ = json_ == nullptr && counted_ == nullptr
                 ? dynamic_cast<detail::FusedJson*>(&out)
                 : nullptr;
    try {
      value(0);
    } catch (Error& e) {
      if (e.pointer.empty()) e.pointer = pointer();
      throw;
    }
    out.end_document();
    return true;
  }

  std::size_t offset() const { return pos_; }

 private:
  // ---- errors -----------------------------------------------------------

  [[noreturn]] void fail(Errc code, std::string msg, std::size_t at) const {
    Error e(code, std::move(msg), at);
    e.binary = true;
    throw e;
  }
  [[noreturn]] void truncated(const char* what, std::size_t at) const {
    fail(Errc::unexpected_end,
         fmt::format("unexpected end of input in {}", what), at);
  }

  // ---- raw fields ---------------------------------------------------------

  void need(std::size_t k, const char* what, std::size_t at) const {
    if (n_ - pos_ < k) truncated(what, at);
  }
  u8 byte(const char* what, std::size_t at) {
    need(1, what, at);
    return p_[pos_++];
  }
  std::uint64_t be(int bytes, const char* what, std::size_t at) {
    need(static_cast<std::size_t>(bytes), what, at);
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | p_[pos_++];
    return v;
  }

  // A complete integer of any integer tag (spec 3.4): the int32 and int64
  // families, INT8, INT16 and BIGINT_LONG.
  std::int64_t integer(const char* what) {
    const std::size_t at = pos_;
    const u8 t = byte(what, at);
    if (t <= 0x2f) return t;
    if (t >= 0xf0) return static_cast<std::int64_t>(t) - 256;
    if (t <= 0x3f) {
      return (static_cast<std::int64_t>(t) - 0x38) * 256 + byte(what, at);
    }
    if (t <= 0x47) {
      return (static_cast<std::int64_t>(t) - 0x44) * 65536 +
             static_cast<std::int64_t>(be(2, what, at));
    }
    if (t == 0x48 || t == 0xbf) {
      return static_cast<std::int32_t>(
          static_cast<std::uint32_t>(be(4, what, at)));
    }
    if (t >= 0xd8 && t <= 0xef) return static_cast<std::int64_t>(t) - 0xe0;
    if (t >= 0xc8 && t <= 0xd7) {
      return (static_cast<std::int64_t>(t) - 0xd0) * 256 + byte(what, at);
    }
    if (t >= 0xc0 && t <= 0xc7) {
      return (static_cast<std::int64_t>(t) - 0xc4) * 65536 +
             static_cast<std::int64_t>(be(2, what, at));
    }
    if (t == 0xbe) return static_cast<std::int64_t>(be(8, what, at));
    if (t == 0xbd) return static_cast<std::int8_t>(byte(what, at));
    if (t == 0xbc) {
      return static_cast<std::int16_t>(
          static_cast<std::uint16_t>(be(2, what, at)));
    }
    if (t == 0xba) {
      if (pos_ < n_ && p_[pos_] == 0xba) {
        fail(Errc::syntax, fmt::format("nested big integer tag in {}", what),
             pos_);
      }
      return integer(what);
    }
    fail(Errc::syntax,
         fmt::format("expected an integer for {}, found tag 0x{:02x}", what, t),
         at);
  }

  std::int32_t int32(const char* what) {
    const std::size_t at = pos_;
    const std::int64_t v = integer(what);
    if (v < std::numeric_limits<std::int32_t>::min() ||
        v > std::numeric_limits<std::int32_t>::max()) {
      fail(Errc::syntax, fmt::format("{} {} is out of range", what, v), at);
    }
    return static_cast<std::int32_t>(v);
  }

  // A byte count that must fit in what is left of the input: checked before
  // anything is allocated or read.
  std::size_t length(const char* what, std::size_t at) {
    const std::size_t len_at = pos_;
    const std::int64_t v = integer(what);
    if (v < 0) {
      fail(Errc::syntax, fmt::format("negative {} length {}", what, v), len_at);
    }
    if (static_cast<std::uint64_t>(v) > n_ - pos_) {
      fail(Errc::unexpected_end,
           fmt::format("{} length {} exceeds the {} bytes left", what, v,
                       n_ - pos_),
           at);
    }
    return static_cast<std::size_t>(v);
  }

  // ---- strings ------------------------------------------------------------

  // Inline for plain ASCII, the common case: passed on as it is, and the
  // JSON writer need not scan it again.
  [[gnu::always_inline]] std::string_view latin1(std::size_t len) {
    const u8* s = p_ + pos_;
    if (!jopt_.sniffing && detail::first_special(s, len, p_ + n_) == len) {
      pos_ += len;
      plain_ = true;
      readable_ = static_cast<std::size_t>(p_ + n_ - s);
      return {reinterpret_cast<const char*>(s), len};
    }
    return latin1_slowly(len);
  }

  [[gnu::noinline]] std::string_view latin1_slowly(std::size_t len) {
    const u8* s = p_ + pos_;
    if (jopt_.sniffing) {
      for (std::size_t k = 0; k < len; ++k) {
        const u8 c = s[k];
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
            (c >= 0x7f && c < 0xa0)) {
          fail(Errc::syntax, "control character in a latin-1 string", pos_ + k);
        }
      }
    }
    pos_ += len;
    // Plain ASCII, the common case, is passed on as it is, and the JSON
    // writer need not scan it again.
    if (detail::first_special(s, len, p_ + n_) == len) {
      plain_ = true;
      readable_ = static_cast<std::size_t>(p_ + n_ - s);
      return {reinterpret_cast<const char*>(s), len};
    }
    std::size_t i = 0;
    while (i < len && s[i] < 0x80) ++i;
    if (i == len) return {reinterpret_cast<const char*>(s), len};
    scratch_.assign(reinterpret_cast<const char*>(s), i);
    for (; i < len; ++i) append_utf8(scratch_, s[i]);
    return scratch_;
  }

  std::string_view utf8(std::size_t len) {
    const char* s = reinterpret_cast<const char*>(p_ + pos_);
    // One pass checks the UTF-8 and what JSON would have to escape.
    const detail::TextScan scan = detail::scan_text(p_ + pos_, len, p_ + n_);
    if (scan.invalid_at != detail::TextScan::npos) {
      fail(Errc::invalid_utf8,
           "string is not valid utf-8: " +
               detail::describe_invalid_utf8(p_ + pos_ + scan.invalid_at,
                                             len - scan.invalid_at),
           pos_ + scan.invalid_at);
    }
    plain_ = scan.plain;
    readable_ = n_ - pos_;
    pos_ += len;
    return {s, len};
  }

  std::string_view utf16(std::size_t len, bool big_endian, std::size_t at) {
    if (len % 2 != 0) {
      fail(Errc::syntax, fmt::format("utf-16 string of odd length {}", len),
           at);
    }
    const u8* s = p_ + pos_;
    const std::size_t base = pos_;
    pos_ += len;
    scratch_.clear();
    const auto unit = [&](std::size_t i) -> char32_t {
      return big_endian ? (char32_t{s[i]} << 8) | s[i + 1]
                        : (char32_t{s[i + 1]} << 8) | s[i];
    };
    for (std::size_t i = 0; i < len; i += 2) {
      char32_t u = unit(i);
      if (u >= 0xd800 && u <= 0xdbff) {
        const char32_t lo = i + 2 < len ? unit(i + 2) : 0;
        if (lo < 0xdc00 || lo > 0xdfff) {
          fail(Errc::invalid_utf8,
               fmt::format("unpaired utf-16 surrogate 0x{:04x}",
                           static_cast<unsigned>(u)),
               base + i);
        }
        u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
        i += 2;
      } else if (u >= 0xdc00 && u <= 0xdfff) {
        fail(Errc::invalid_utf8,
             fmt::format("unpaired utf-16 surrogate 0x{:04x}",
                         static_cast<unsigned>(u)),
             base + i);
      }
      append_utf8(scratch_, u);
    }
    return scratch_;
  }

  std::string_view gb18030(std::size_t len) {
    if (gb_ == reinterpret_cast<iconv_t>(-1)) {
      gb_ = iconv_open("UTF-8", "GB18030");
      if (gb_ == reinterpret_cast<iconv_t>(-1)) {
        fail(Errc::unsupported, "gb18030 strings need iconv support", pos_);
      }
    }
    iconv(gb_, nullptr, nullptr, nullptr, nullptr);
    // UTF-8 is at most 1.5 times as long as GB18030: 1 byte stays 1, 2
    // bytes become at most 3, 4 bytes become 4.
    scratch_.resize(len + len / 2 + 4);
    char* in = const_cast<char*>(reinterpret_cast<const char*>(p_ + pos_));
    std::size_t in_left = len;
    char* out = scratch_.data();
    std::size_t out_left = scratch_.size();
    const std::size_t base = pos_;
    const std::size_t r = iconv(gb_, &in, &in_left, &out, &out_left);
    if (r == static_cast<std::size_t>(-1) ||
        iconv(gb_, nullptr, nullptr, &out, &out_left) ==
            static_cast<std::size_t>(-1)) {
      fail(Errc::invalid_utf8, "string is not valid gb18030",
           base + (len - in_left));
    }
    scratch_.resize(scratch_.size() - out_left);
    pos_ += len;
    return scratch_;
  }

  std::string_view external_symbol(std::int64_t id, std::size_t at) {
    const std::uint64_t ordinal = static_cast<std::uint64_t>(-(id + 1)) + 1;
    if (external_.empty()) {
      fail(Errc::unsupported,
           fmt::format("symbol {} refers to an external symbol table, and "
                       "none was given",
                       id),
           at);
    }
    if (ordinal > external_.size()) {
      fail(Errc::syntax,
           fmt::format("symbol {} is not in the external symbol table of {} "
                       "names",
                       id, external_.size()),
           at);
    }
    return external_[ordinal - 1];
  }

  std::string_view symbol_ref(std::int64_t id, std::size_t at) {
    if (id < 0) return external_symbol(id, at);
    const auto it = symbols_.find(id);
    if (it == symbols_.end()) {
      fail(Errc::syntax, fmt::format("symbol {} is not defined", id), at);
    }
    return it->second;
  }

  // A symbol or type-name definition: STR then INT id.
  std::string_view define_symbol(const char* what) {
    const std::string_view s = plain_string(what);
    const std::size_t id_at = pos_;
    const std::int64_t id = int32("symbol id");
    if (id < 0) {
      fail(Errc::syntax, fmt::format("negative symbol id {} defined", id),
           id_at);
    }
    if (reread_depth_ > 0) return s;  // defined already by the first reading
    auto& slot = symbols_[id];
    slot.assign(s);
    return slot;
  }

  // The body of a string tag `t` (tag already consumed at `at`).
  // Inline for the short strings fastjson2 spells in the tag.
  [[gnu::always_inline]] std::string_view string_body(u8 t, std::size_t at) {
    plain_ = false;  // until latin1() or utf8() find otherwise
    if (t <= 0x78) {
      const std::size_t len = t - kStrFix0;
      need(len, "string", at);
      return latin1(len);
    }
    return other_string_body(t, at);
  }

  [[gnu::noinline]] std::string_view other_string_body(u8 t, std::size_t at) {
    if (t == kSymbol) {
      if (pos_ >= n_) truncated("symbol", at);
      if (is_int32_family(p_[pos_])) return symbol_ref(integer("symbol"), at);
      const std::string_view s = define_symbol("symbol");
      plain_ = false;  // a copy: its text was scanned where it was defined
      return s;
    }
    if (t == kStrAscii) {
      // A negative length here is an external symbol (spec 10.3).
      const std::size_t len_at = pos_;
      const std::int64_t v = integer("string length");
      if (v < 0) return external_symbol(v, at);
      pos_ = len_at;
      return latin1(length("string", at));
    }
    const std::size_t len = length("string", at);
    switch (t) {
      case kStrUtf8:
        return utf8(len);
      case kStrUtf16Le:
        return utf16(len, false, at);
      case kStrUtf16Be:
        return utf16(len, true, at);
      case kStrUtf16: {
        // Optional BOM; big-endian without one.
        if (len >= 2 && p_[pos_] == 0xff && p_[pos_ + 1] == 0xfe) {
          pos_ += 2;
          return utf16(len - 2, false, at);
        }
        if (len >= 2 && p_[pos_] == 0xfe && p_[pos_ + 1] == 0xff) {
          pos_ += 2;
          return utf16(len - 2, true, at);
        }
        return utf16(len, true, at);
      }
      default:
        return gb18030(len);
    }
  }

  // A string tag (0x49..0x7e) or a symbol (0x7f) at pos_.
  [[gnu::always_inline]] std::string_view any_string(const char* what) {
    const std::size_t at = pos_;
    const u8 t = byte(what, at);
    if (t < kStrFix0 || t > kSymbol) [[unlikely]] {
      not_a_string(what, t, at);
    }
    return string_body(t, at);
  }
  [[noreturn, gnu::noinline]] void not_a_string(const char* what, u8 t,
                                                std::size_t at) {
    fail(Errc::syntax,
         fmt::format("expected a string for {}, found tag 0x{:02x}", what, t),
         at);
  }

  // A string tag without symbols (the string of a definition).
  std::string_view plain_string(const char* what) {
    if (pos_ < n_ && p_[pos_] == kSymbol) {
      fail(Errc::syntax, fmt::format("expected a string for {}", what), pos_);
    }
    return any_string(what);
  }

  // The type name after a 0x92 tag: STR INT(id) | INT(id) | symbol.
  std::string_view type_name() {
    const std::size_t at = pos_;
    if (pos_ >= n_) truncated("type name", at);
    const u8 t = p_[pos_];
    if (is_int32_family(t)) return symbol_ref(integer("type name"), at);
    if (t == kSymbol) return any_string("type name");
    if (!is_string_tag(t)) {
      fail(Errc::syntax,
           fmt::format("expected a type name, found tag 0x{:02x}", t), at);
    }
    return define_symbol("type name");
  }

  // ---- numbers ----------------------------------------------------------

  // BIGINT payload (after the tag) as decimal text in num_.
  void bigint_body(std::size_t at) {
    const std::size_t len = length("big integer", at);
    if (len == 0) fail(Errc::syntax, "big integer of zero bytes", at);
    if (len > jsonb::kMaxBigBytes) {
      fail(Errc::unsupported,
           fmt::format("big integer of {} bytes exceeds the limit of {}", len,
                       jsonb::kMaxBigBytes),
           at);
    }
    num_.clear();
    jsonb::append_twos_complement_decimal({p_ + pos_, len}, num_);
    pos_ += len;
  }

  void decimal(std::size_t at) {
    const std::int64_t scale = int32("decimal scale");
    const std::size_t u_at = pos_;
    if (pos_ >= n_) truncated("decimal", at);
    if (p_[pos_] == 0xbb) {
      ++pos_;
      bigint_body(u_at);
    } else {
      const std::int64_t v = integer("decimal unscaled value");
      num_.clear();
      char buf[24];
      num_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    }
    text_.clear();
    jsonb::append_decimal_text(num_, scale, text_);
    out_->number_text(text_);
  }

  // ---- dates ------------------------------------------------------------

  struct Civil {
    std::int64_t days = 0;
    std::int64_t secs = 0;  // of the day
    std::uint32_t nanos = 0;
  };

  std::int64_t date_fields(std::size_t at) {
    const auto year = static_cast<std::int16_t>(
        static_cast<std::uint16_t>(be(2, "date", at)));
    const unsigned month = byte("date", at);
    const unsigned day = byte("date", at);
    if (month < 1 || month > 12) {
      fail(Errc::syntax, fmt::format("invalid month {}", month), at);
    }
    if (day < 1 || day > static_cast<unsigned>(datetime::days_in_month(
                             year, static_cast<int>(month)))) {
      fail(Errc::syntax,
           fmt::format("invalid day {:04}-{:02}-{:02}", year, month, day), at);
    }
    return datetime::days_from_civil(year, static_cast<int>(month),
                                     static_cast<int>(day));
  }

  std::uint32_t nanos() {
    const std::size_t n_at = pos_;
    const std::int64_t v = integer("nanoseconds");
    if (v < 0 || v > 999'999'999) {
      fail(Errc::syntax, fmt::format("nanoseconds {} out of range", v), n_at);
    }
    return static_cast<std::uint32_t>(v);
  }

  void time_fields(std::size_t at, Civil& c) {
    const unsigned h = byte("time", at);
    const unsigned m = byte("time", at);
    const unsigned s = byte("time", at);
    if (h > 23 || m > 59 || s > 59) {
      fail(Errc::syntax, fmt::format("invalid time {:02}:{:02}:{:02}", h, m, s),
           at);
    }
    c.secs = h * 3600 + m * 60 + s;
    c.nanos = nanos();
  }

  void date_value(u8 t, std::size_t at) {
    Timestamp ts;
    switch (t) {
      case 0xa7: {  // LOCAL_TIME
        Civil c;
        time_fields(at, c);
        ts.kind = Timestamp::Kind::local_time;
        ts.seconds = c.secs;
        ts.nanos = c.nanos;
        break;
      }
      case 0xa8:    // LOCAL_DATETIME
      case 0xaa: {  // TIMESTAMP_WITH_TIMEZONE
        Civil c;
        c.days = date_fields(at);
        time_fields(at, c);
        ts.kind = Timestamp::Kind::local_date_time;
        ts.seconds = c.days * 86400 + c.secs;
        ts.nanos = c.nanos;
        if (t == 0xaa) {
          const std::string_view zone = any_string("zone id");
          std::int32_t off = 0;
          if (parse_offset_id(zone, off)) {
            ts.kind = Timestamp::Kind::instant;
            ts.has_offset = true;
            ts.offset_seconds = off;
            ts.seconds -= off;
          } else {
            if (zone.empty()) fail(Errc::syntax, "empty zone id", at);
            ts.zone = zone;
          }
        }
        break;
      }
      case 0xa9:  // LOCAL_DATE
        ts.kind = Timestamp::Kind::local_date;
        ts.seconds = date_fields(at) * 86400;
        ts.precision = 0;
        break;
      case 0xab: {  // TIMESTAMP_MILLIS
        const auto ms = static_cast<std::int64_t>(be(8, "timestamp", at));
        // Floored; ms - seconds * 1000 would overflow at -2^63.
        ts.seconds = datetime::floor_div(ms, 1000);
        const std::int64_t rem = ms % 1000;
        ts.nanos =
            static_cast<std::uint32_t>(rem < 0 ? rem + 1000 : rem) * 1000000;
        ts.precision = 3;
        break;
      }
      case 0xac:  // TIMESTAMP_SECONDS
        ts.seconds = static_cast<std::int32_t>(
            static_cast<std::uint32_t>(be(4, "timestamp", at)));
        ts.precision = 3;
        break;
      case 0xad:  // TIMESTAMP_MINUTES
        ts.seconds = std::int64_t{60} *
                     static_cast<std::int32_t>(
                         static_cast<std::uint32_t>(be(4, "timestamp", at)));
        ts.precision = 3;
        break;
      default: {  // 0xae TIMESTAMP: LONG seconds, INT nanos
        ts.seconds = integer("timestamp seconds");
        ts.nanos = nanos();
        break;
      }
    }
    out_->timestamp_value(ts);
  }

  // ---- structure --------------------------------------------------------

  void enter(std::size_t depth, std::size_t at) const {
    if (depth >= opt_.max_depth) {
      fail(Errc::depth_limit,
           fmt::format("nesting deeper than {} levels", opt_.max_depth), at);
    }
  }

  // Runs `f` with events going nowhere (a skipped container or member).
  template <typename F>
  void muted(F&& f) {
    Handler* saved = out_;
    out_ = &null_;
    f();
    out_ = saved;
  }

  void after_flow(Flow f) {
    // Stop: the rest of the document is read (to find where the next one
    // starts) but nobody hears it.
    if (f == Flow::stop) out_ = &null_;
  }

  void array(std::size_t count, std::size_t depth, std::size_t at) {
    enter(depth, at);
    // Every element takes at least one byte. (A sniffed head is cut short:
    // there the elements it does hold are the evidence.)
    if (count > n_ - pos_ && !jopt_.sniffing) {
      fail(Errc::unexpected_end,
           fmt::format("array count {} exceeds the {} bytes left", count,
                       n_ - pos_),
           at);
    }
    const Flow f = out_->begin_array();
    if (f == Flow::skip) {
      muted([&] {
        for (std::size_t i = 0; i < count; ++i) value(depth + 1);
      });
      return;
    }
    after_flow(f);
    open_.push_back(at);
    const std::size_t step = push_step(true);
    // Between the items of the top-level array, the writer may stream it
    // (not while a reference is read again: out_ is then another handler).
    Handler* counted = depth == 0 && out_ == counted_ ? counted_ : nullptr;
    for (std::size_t i = 0; i < count; ++i) {
      path_[step].index = i;
      value(depth + 1);
      if (counted != nullptr && out_ == counted) {
        counted->top_array_items(count);
      }
      if (pos_ > next_give_) [[unlikely]]
        give_back();
    }
    --steps_;
    open_.pop_back();
    out_->end_array();
  }

  // The text of a key that is not a string (fastjson2 with WriteClassName
  // writes Integer keys as integers): its decimal or JSON spelling.
  std::string_view key_text(std::size_t depth) {
    const std::size_t at = pos_;
    if (pos_ >= n_) truncated("object", at);
    u8 t = p_[pos_];
    if (t >= kStrFix0 && t <= kSymbol) return any_string("object key");
    if (jopt_.sniffing) {
      fail(Errc::syntax, "object key is not a string", at);
    }
    if (opt_.keys_error) {  // --keys=error
      fail(Errc::type_mismatch,
           fmt::format("object key must be a string, found tag 0x{:02x}", t),
           at);
    }
    // A typed key: the type has nowhere to go in a key; the key stays.
    while (t == kTyped) {
      ++pos_;
      type_name();
      if (pos_ >= n_) truncated("object", at);
      t = p_[pos_];
    }
    if (t >= kStrFix0 && t <= kSymbol) return any_string("object key");
    if (t == kArray || t == kObject || (t >= kArrayFix0 && t < kArray) ||
        t == kReference) {
      fail(Errc::unsupported, "object key is a container or a reference", at);
    }
    // A scalar: decode it into a TreeBuilder-free capture of its text.
    KeyCapture cap(key_);
    Handler* saved = out_;
    out_ = &cap;
    value(depth);
    out_ = saved;
    if (!cap.ok) fail(Errc::unsupported, "object key has no text form", at);
    plain_ = false;
    return key_;
  }

  void object(std::size_t depth, std::size_t at) {
    enter(depth, at);
    const Flow f = out_->begin_object();
    if (f == Flow::skip) {
      muted([&] { members(depth, at, kNoStep); });
      return;
    }
    after_flow(f);
    open_.push_back(at);
    const std::size_t step = push_step(false);
    members(depth, at, step);
    --steps_;
    open_.pop_back();
    out_->end_object();
  }

  void members(std::size_t depth, std::size_t at, std::size_t step) {
    for (;;) {
      if (pos_ > next_give_) [[unlikely]]
        give_back();
      if (step != kNoStep) path_[step].has_key = false;
      if (pos_ >= n_) truncated("object", at);
      if (p_[pos_] == kObjectEnd) {
        ++pos_;
        return;
      }
      const std::size_t key_at = pos_;
      const std::string_view k = key_text(depth + 1);
      if (step != kNoStep) path_[step].set_key(k, p_, n_);
      Flow kf = Flow::visit;
      try {
        kf = emit_key(k);
      } catch (Error& e) {
        located(e, key_at);
        throw;
      }
      if (kf == Flow::skip) {
        muted([&] { value(depth + 1); });
      } else {
        after_flow(kf);
        value(depth + 1);
      }
    }
  }

  void value(std::size_t depth) {
    const std::size_t at = pos_;
    try {
      value_at(depth, at);
    } catch (Error& e) {
      located(e, at);
      throw;
    }
  }

  // A handler's Error (a writer or transform refusing a value) has no
  // offset: it gets the offset of the value it was given, the innermost
  // one on the way out. The reader's own errors have theirs.
  static void located(Error& e, std::size_t at) {
    if (e.offset) return;
    e.offset = at;
    e.binary = true;
  }

  void value_at(std::size_t depth, std::size_t at) {
    const u8 t = byte("value", at);
    if (t <= 0x48 || t >= 0xbc) {  // every integer tag but BIGINT_LONG
      --pos_;
      const std::int64_t v = integer("integer");
      if (out_ == json_) {
        json_->direct_int(v);
      } else {
        out_->int_value(v);
      }
      return;
    }
    if (t >= kStrFix0 && t <= kSymbol) {
      const std::string_view s = string_body(t, at);
      if (out_ == json_ && plain_) {
        json_->direct_string(s, readable_);
      } else if (fused_ != nullptr && out_ == fused_) {
        // (A plain text lies in the input, which holds it until the
        // document ends.)
        detail::fused_string(*fused_, s, plain_, plain_);
      } else {
        out_->string_value(s);
      }
      return;
    }
    if (t >= kArrayFix0 && t < kArray) {
      array(t - kArrayFix0, depth, at);
      return;
    }
    switch (t) {
      case kArray: {
        const std::size_t c_at = pos_;
        const std::int64_t c = integer("array count");
        if (c < 0) {
          fail(Errc::syntax, fmt::format("negative array count {}", c), c_at);
        }
        array(static_cast<std::size_t>(std::min<std::uint64_t>(
                  static_cast<std::uint64_t>(c),
                  std::numeric_limits<std::size_t>::max())),
              depth, at);
        return;
      }
      case kObject:
        object(depth, at);
        return;
      case kObjectEnd:
        fail(Errc::syntax, "object end tag 0xa5 outside an object", at);
      case kTyped: {
        const std::string_view name = type_name();
        Annotation a;
        a.kind = Annotation::Kind::type_name;
        a.name = name;
        out_->annotation(a);
        // Typed values may nest (a type of a type); each is a level.
        enter(depth, at);
        value(depth + 1);
        return;
      }
      case kReference:
        reference(depth, at);
        return;
      case kChar: {
        const std::int64_t c = integer("char");
        if (c < 0 || c > 0xffff) {
          fail(Errc::syntax, fmt::format("char {} out of range", c), at);
        }
        if (c >= 0xd800 && c <= 0xdfff) {
          fail(Errc::invalid_utf8,
               fmt::format("unpaired utf-16 surrogate 0x{:04x}", c), at);
        }
        scratch_.clear();
        append_utf8(scratch_, static_cast<char32_t>(c));
        out_->string_value(scratch_);
        return;
      }
      case kBinary: {
        const std::size_t len = length("binary", at);
        out_->bytes_value({p_ + pos_, len});
        pos_ += len;
        return;
      }
      case 0xa7:
      case 0xa8:
      case 0xa9:
      case 0xaa:
      case 0xab:
      case 0xac:
      case 0xad:
      case 0xae:
        date_value(t, at);
        return;
      case 0xaf:
        out_->null_value();
        return;
      case 0xb0:
        out_->bool_value(false);
        return;
      case 0xb1:
        out_->bool_value(true);
        return;
      case 0xb2:
        out_->double_value(0.0);
        return;
      case 0xb3:
        out_->double_value(1.0);
        return;
      case 0xb4:
        out_->double_value(static_cast<double>(integer("double")));
        return;
      case 0xb5: {
        const std::uint64_t bits = be(8, "double", at);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        out_->double_value(d);
        return;
      }
      case 0xb6:
        out_->double_value(
            static_cast<double>(static_cast<float>(integer("float"))));
        return;
      case 0xb7: {
        const auto bits = static_cast<std::uint32_t>(be(4, "float", at));
        float f;
        std::memcpy(&f, &bits, sizeof f);
        out_->double_value(static_cast<double>(f));
        return;
      }
      case 0xb8: {
        const std::int64_t v = integer("decimal");
        num_.clear();
        char buf[24];
        num_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
        out_->number_text(num_);
        return;
      }
      case 0xb9:
        decimal(at);
        return;
      case 0xba: {
        const std::int64_t v = integer("big integer");
        num_.clear();
        char buf[24];
        num_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
        out_->number_text(num_);
        return;
      }
      case 0xbb:
        bigint_body(at);
        out_->number_text(num_);
        return;
      default:
        fail(Errc::syntax, fmt::format("unassigned tag 0x{:02x}", t), at);
    }
  }

  Flow emit_key(std::string_view k) {
    if (out_ == json_ && plain_) return json_->direct_key(k, readable_);
    if (fused_ != nullptr && out_ == fused_) {
      return detail::fused_key(*fused_, k, plain_, plain_, readable_,
                               pos_ < n_ ? json_first(p_[pos_]) : '\0');
    }
    return out_->key(k);
  }

  // The first byte of the JSON text of the value whose tag is `t`, for
  // the features' plain_key(): '\0' when it depends on options or on what
  // follows (dates, decimals, binary, typed values, references).
  static char json_first(u8 t) {
    if (t <= 0x48 || t >= 0xbc) return '0';  // integers
    if (t >= kStrFix0 && t <= kSymbol) return '"';
    if (t >= kArrayFix0 && t <= kArray) return '[';
    switch (t) {
      case kObject:
        return '{';
      case 0xaf:
        return 'n';
      case 0xb0:
        return 'f';
      case 0xb1:
        return 't';
      default:
        return '\0';
    }
  }

  // ---- where we are, for the JSON Pointer of an error --------------------

  static constexpr std::size_t kNoStep = ~std::size_t{0};

  // Steps are reused across documents, so their keys keep their capacity.
  std::size_t push_step(bool array) {
    if (steps_ == path_.size()) path_.emplace_back();
    path_[steps_].array = array;
    path_[steps_].index = 0;
    path_[steps_].key.clear();
    path_[steps_].key_in_input = nullptr;
    path_[steps_].has_key = false;
    return steps_++;
  }

  std::string pointer() const {
    std::string p;
    for (std::size_t i = 0; i < steps_; ++i) {
      // An object between members (its next key not read, or refused)
      // is the place itself.
      if (!path_[i].array && !path_[i].has_key) break;
      p.push_back('/');
      if (path_[i].array) {
        p += std::to_string(path_[i].index);
        continue;
      }
      for (char c : path_[i].key_view()) {
        if (c == '~') {
          p += "~0";
        } else if (c == '/') {
          p += "~1";
        } else {
          p.push_back(c);
        }
      }
    }
    return p;
  }

  // ---- references -------------------------------------------------------

  void reference(std::size_t depth, std::size_t at) {
    std::string path(any_string("reference path"));
    if (jopt_.refs == JsonbRefs::keep) {
      // '#-1' repeats the previous path; print that path, as fastjson2 does.
      if (path == "#-1" && have_last_ref_) {
        path = last_path_;
      } else {
        last_path_ = path;
        have_last_ref_ = true;
      }
      if (out_->begin_object() == Flow::skip) return;
      if (out_->key("$ref") != Flow::skip) out_->string_value(path);
      out_->end_object();
      return;
    }
    std::size_t target = 0;
    if (reread_depth_ > 0) {
      // Re-reading an earlier value: its references were resolved (and
      // checked) when first read. One that was not is ahead of the
      // reference being resolved: a forward reference.
      const auto it = resolved_.find(at);
      if (it == resolved_.end()) {
        fail(Errc::unsupported,
             fmt::format("reference '{}' refers to a value not read yet", path),
             at);
      }
      target = it->second;
    } else {
      target = resolve(path, at);
      resolved_.emplace(at, target);
      have_last_ref_ = true;
      last_ref_ = target;
    }
    // Each re-read counts as a level, so chains of references to
    // references stay within the depth limit.
    enter(depth, at);
    const std::size_t saved = pos_;
    pos_ = target;
    ++reread_depth_;
    value(depth + 1);
    --reread_depth_;
    charge(pos_ - target, at);
    pos_ = saved;
  }

  // The start of the earlier, complete value that `path` names. Targets
  // end before their reference, so every reference inside one points
  // further back and re-reading terminates.
  std::size_t resolve(const std::string& path, std::size_t at) {
    std::size_t target = 0;
    if (path == "#-1") {
      if (!have_last_ref_) {
        fail(Errc::syntax, "reference '#-1' without a previous reference", at);
      }
      target = last_ref_;
    } else if (path == "..") {
      fail(Errc::unsupported,
           "reference '..' refers to the value that contains it (a cycle)", at);
    } else {
      const auto it = ref_memo_.find(path);
      target = it != ref_memo_.end() ? it->second : locate(path, at);
      ref_memo_.emplace(path, target);
    }
    if (target >= at) {
      fail(Errc::unsupported,
           fmt::format("reference '{}' refers to a value not read yet", path),
           at);
    }
    const std::size_t saved = pos_;
    pos_ = target;
    ++reread_depth_;
    skip_types();
    --reread_depth_;
    const std::size_t core = pos_;
    pos_ = saved;
    if (std::find(open_.begin(), open_.end(), core) != open_.end()) {
      fail(Errc::unsupported,
           fmt::format("reference '{}' refers to a value that contains it (a "
                       "cycle)",
                       path),
           at);
    }
    return target;
  }

  void charge(std::size_t bytes, std::size_t at) {
    reread_ += bytes;
    if (reread_ > reread_budget_) {
      fail(Errc::unsupported,
           fmt::format("references expand to more than {} bytes",
                       reread_budget_),
           at);
    }
  }

  // The offset of the value that a "$..." path names, found by walking the
  // document from its start.
  std::size_t locate(const std::string& path, std::size_t at) {
    if (path.empty() || path[0] != '$') {
      fail(Errc::unsupported,
           fmt::format("unsupported reference path '{}'", path), at);
    }
    const std::size_t saved = pos_;
    std::size_t cur = doc_start_;
    std::size_t i = 1;
    ++reread_depth_;
    while (i < path.size()) {
      pos_ = cur;
      skip_types();
      if (pos_ >= at) {
        fail(Errc::unsupported,
             fmt::format("reference '{}' refers to a value not read yet", path),
             at);
      }
      const std::size_t container = pos_;
      const u8 t = p_[pos_];
      if (path[i] == '[') {
        const std::size_t close = path.find(']', i);
        std::uint64_t index = 0;
        const auto r =
            std::from_chars(path.data() + i + 1,
                            path.data() + std::min(close, path.size()), index);
        if (close == std::string::npos || r.ptr != path.data() + close ||
            !(t >= kArrayFix0 && t <= kArray)) {
          fail(Errc::syntax,
               fmt::format("reference '{}' does not name a value", path), at);
        }
        ++pos_;
        const std::uint64_t count =
            t == kArray ? static_cast<std::uint64_t>(integer("array count"))
                        : t - kArrayFix0;
        if (index >= count) {
          fail(Errc::syntax,
               fmt::format("reference '{}' does not name a value", path), at);
        }
        for (std::uint64_t k = 0; k < index && pos_ < at; ++k) {
          muted([&] { value(0); });
        }
        charge(pos_ - container, at);
        cur = pos_;
        i = close + 1;
      } else if (path[i] == '.') {
        std::string name;
        ++i;
        while (i < path.size() && path[i] != '.' && path[i] != '[') {
          if (path[i] == '\\' && i + 1 < path.size()) ++i;
          name.push_back(path[i++]);
        }
        if (t != kObject) {
          fail(Errc::syntax,
               fmt::format("reference '{}' does not name a value", path), at);
        }
        ++pos_;
        bool found = false;
        while (pos_ < at && p_[pos_] != kObjectEnd) {
          std::string_view k;
          muted([&] { k = key_text(0); });
          if (k == name) {
            found = true;
            break;
          }
          muted([&] { value(0); });
        }
        if (!found) {
          fail(Errc::syntax,
               fmt::format("reference '{}' does not name a value", path), at);
        }
        charge(pos_ - container, at);
        cur = pos_;
      } else {
        fail(Errc::unsupported,
             fmt::format("unsupported reference path '{}'", path), at);
      }
    }
    --reread_depth_;
    pos_ = saved;
    return cur;
  }

  // Steps over type annotations in front of a value, for the path walk.
  void skip_types() {
    while (pos_ < n_ && p_[pos_] == kTyped) {
      ++pos_;
      type_name();
    }
  }

  // Receives the one scalar of a non-string key and spells it.
  class KeyCapture final : public Handler {
   public:
    explicit KeyCapture(std::string& s) : s_(s) { s_.clear(); }
    Flow begin_object() override { return Flow::skip; }
    Flow key(std::string_view) override { return Flow::skip; }
    void end_object() override {}
    Flow begin_array() override { return Flow::skip; }
    void end_array() override {}
    void uint_value(std::uint64_t) override {}
    void bytes_value(std::span<const std::uint8_t>) override {}
    void timestamp_value(const Timestamp&) override {}
    void annotation(const Annotation&) override {}
    void end_document() override {}
    void null_value() override { set("null"); }
    void bool_value(bool b) override { set(b ? "true" : "false"); }
    void int_value(std::int64_t v) override {
      char buf[24];
      set({buf, std::to_chars(buf, buf + sizeof buf, v).ptr});
    }
    void double_value(double v) override {
      char buf[32];
      set({buf, std::to_chars(buf, buf + sizeof buf, v).ptr});
    }
    void number_text(std::string_view t) override { set(t); }
    void string_value(std::string_view t) override { set(t); }
    bool ok = false;

   private:
    void set(std::string_view t) {
      s_.assign(t);
      ok = true;
    }
    std::string& s_;
  };

  const u8* p_;
  std::size_t n_;
  std::size_t pos_ = 0;
  std::size_t doc_start_ = 0;
  ReadOptions opt_;
  JsonbReadOptions jopt_;
  std::vector<std::string> external_;
  Handler* out_ = nullptr;
  // The JSON writer when it is the consumer: its inline forms are called
  // directly while out_ is it (not while muted or spelling a key).
  JsonWriter* json_ = nullptr;
  detail::FusedJson* fused_ = nullptr;
  // give_back_to(): Source::give_back() once pos_ is past next_give_.
  static constexpr std::size_t kGiveStep = std::size_t{4} << 20;
  Source* give_ = nullptr;
  std::uint64_t give_base_ = 0;
  std::size_t next_give_ = SIZE_MAX;
  [[gnu::noinline]] void give_back() {
    give_->give_back(give_base_ + pos_);
    next_give_ = pos_ + kGiveStep;
  }
  // The handler the events go to, when a writer that streams arrays is
  // at the end of its chain (Handler::takes_array_count()): told the
  // count of a top-level array between its items (top_array_items()).
  Handler* counted_ = nullptr;
  bool plain_ = false;        // the last string needs no JSON escaping
  std::size_t readable_ = 0;  // bytes readable from that string's start
  NullHandler null_;
  std::string scratch_;  // transcoded strings
  std::string num_;      // digits of big numbers
  std::string text_;     // decimal spelling
  std::string key_;      // spelled non-string keys
  std::unordered_map<std::int64_t, std::string> symbols_;
  std::unordered_map<std::string, std::size_t> ref_memo_;
  std::unordered_map<std::size_t, std::size_t> resolved_;  // ref -> target
  std::vector<std::size_t> open_;
  struct Step {
    bool array = false;
    std::size_t index = 0;
    // The current key: where it is in the input when it is there (most
    // keys; the input outlives the read), else a copy. Copying every key
    // cost more than the rest of its handling.
    const char* key_in_input = nullptr;
    std::size_t key_size = 0;
    std::string key;
    bool has_key = false;  // an object's: a key was read for this member

    void set_key(std::string_view k, const u8* input, std::size_t size) {
      has_key = true;
      const auto at = reinterpret_cast<std::uintptr_t>(k.data()) -
                      reinterpret_cast<std::uintptr_t>(input);
      if (at <= size && k.size() <= size - at) {
        key_in_input = k.data();
        key_size = k.size();
      } else {
        key_in_input = nullptr;
        key.assign(k);
      }
    }
    std::string_view key_view() const {
      return key_in_input != nullptr ? std::string_view(key_in_input, key_size)
                                     : std::string_view(key);
    }
  };
  std::vector<Step> path_;
  std::size_t steps_ = 0;
  std::size_t last_ref_ = 0;
  std::string last_path_;  // keep mode
  bool have_last_ref_ = false;
  int reread_depth_ = 0;
  std::size_t reread_ = 0;
  std::size_t reread_budget_ = 0;
  iconv_t gb_ = reinterpret_cast<iconv_t>(-1);
};

JsonbReader::JsonbReader(Source& in, const ReadOptions& o, JsonbReadOptions jo)
    : impl_(std::make_unique<Impl>(std::string_view(), o, std::move(jo))),
      in_(&in) {}

JsonbReader::JsonbReader(std::string_view data, const ReadOptions& o,
                         JsonbReadOptions jo)
    : impl_(std::make_unique<Impl>(data, o, std::move(jo))) {}

JsonbReader::~JsonbReader() = default;

bool JsonbReader::read_document(Handler& out) {
  if (in_ == nullptr) return impl_->read_document(out);
  // From a pipe, the window is filled until it holds the whole document
  // (a pass without events finds its end); at the end of the input, the
  // read below reports what is cut short.
  const std::string_view w = in_->document_window(
      base_, [this](std::string_view v) { return impl_->complete(v); });
  impl_->reset(w);
  impl_->give_back_to(*in_, base_);
  bool read = false;
  try {
    read = impl_->read_document(out);
  } catch (Error& e) {
    if (e.offset) *e.offset += base_;  // the reader counts from the window
    throw;
  }
  base_ += impl_->offset();
  impl_->reset(w.substr(impl_->offset()));
  return read;
}

std::size_t JsonbReader::offset() const {
  return static_cast<std::size_t>(base_) + impl_->offset();
}

}  // namespace jbx
