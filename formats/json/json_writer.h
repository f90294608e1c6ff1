// The JSON text writer: pretty (spaces or tabs), compact, JSON Lines, ASCII
// escaping and jq-style colour, with canonical minimal string escaping. It
// is the hot path of `fmt`, so it is a final class the reader can call
// without virtual dispatch. Not a parser and not a sorter (core/sort_keys.h).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/options.h"
#include "core/sink.h"
#include "formats/format.h"

namespace jbx {

class JsonWriter final : public Writer {
 public:
  /// Writes to `out`. Options are copied; the sink must outlive the writer.
  JsonWriter(Sink& out, const WriteOptions& o);

  Flow begin_object() override;
  Flow key(std::string_view name) override;
  void end_object() override;
  Flow begin_array() override;
  void end_array() override;

  void null_value() override;
  void bool_value(bool b) override;
  void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  /// Shortest round-trip form ("2.0", "0.1", "1e+300"). Throws
  /// Error(lossy) for NaN and infinities unless WriteOptions::nan allows.
  void double_value(double v) override;
  /// Writes `text` verbatim: it is valid RFC 8259 number syntax.
  void number_text(std::string_view text) override;
  void string_value(std::string_view utf8) override;
  /// string_value() for text known to need no escaping (no '"', '\\' or
  /// control character: the reader checked), copied without a scan unless
  /// --ascii needs one.
  void plain_string(std::string_view utf8);
  /// key() for a name known to need no escaping, like plain_string().
  Flow plain_key(std::string_view name);

  /// Inline forms of plain_key(), plain_string() and int_value() for the
  /// binary readers, which call the writer directly (templates): in compact
  /// output without colour, inside a container, a value is a copy and a
  /// comma, too little work for a call. `readable` is how many bytes from
  /// the text's start may be read (at least its size): a short text with
  /// kWordCopy of them is copied in whole words.
  Flow direct_key(std::string_view name, std::size_t readable);
  void direct_string(std::string_view utf8, std::size_t readable);
  void direct_int(std::int64_t v);
  static constexpr std::size_t kWordCopy = 32;
  void bytes_value(std::span<const std::uint8_t> bytes) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  void end_document() override;

  /// After an error in the middle of a document: takes back what was
  /// written of it when the sink still holds it (stdout holds up to a few
  /// MiB of a document), else ends the partial line; then resets the state
  /// so that the next document starts clean.
  void abandon();

 private:
  struct Frame {
    bool object = false;
    bool first = true;
    bool wrapper = false;  // {"@type": ..., "@value": ...} around a value
  };
  struct Pending {
    Annotation::Kind kind;
    std::string name;
    std::uint64_t tag;
  };

  void reset();  // after a document: no open container
  void before_value();
  void after_value();
  void separator();  // "," and the newline + indent before an item
  void newline_indent(std::size_t depth);
  void open_container(char c, bool object);
  void close_container(char c);
  void write_string(std::string_view s, const char* color);
  void copy_string(std::string_view s, const char* color);
  void open_wrappers(bool next_is_object);
  void scalar_color(const char* color);
  void end_color();
  void write_scalar(std::string_view text, const char* color);

  Sink& out_;
  WriteOptions opt_;
  bool pretty_;
  std::size_t unit_;  // indent characters per level
  std::vector<Frame> stack_;
  std::vector<Pending> pending_;
  std::string type_name_for_object_;
  bool have_type_name_for_object_ = false;
  bool in_doc_ = false;  // a document has begun and not yet ended
  std::string indent_;   // "\n" followed by many indent characters
  std::string scratch_;
  bool direct_ = false;  // compact, no colour, no --ascii: direct_* inline

  // Where a value inside a container goes once its comma is written, or
  // nullptr when the general path must take it (top level, annotations).
  char* direct_value(std::size_t n);
  static char* copy_text(char* p, std::string_view s, std::size_t readable);
};

namespace detail {

// The 8 decimal digits of x < 10^8, most significant in the lowest byte, as
// byte values 0-9: divisions by 10^4, 100 and 10 done in all lanes at once
// with multiplications (exact for these ranges).
inline std::uint64_t digits8(std::uint32_t x) {
  std::uint64_t v = (x / 10000) | (std::uint64_t{x % 10000} << 32);
  std::uint64_t h = ((v * 10486) >> 20) & 0x0000007f0000007fULL;
  v = h | ((v - h * 100) << 16);
  h = ((v * 103) >> 10) & 0x000f000f000f000fULL;
  return h | ((v - h * 10) << 8);
}

inline char* put8(char* p, std::uint64_t digits) {
  digits += 0x3030303030303030ULL;
  if constexpr (std::endian::native == std::endian::big) {
    digits = __builtin_bswap64(digits);
  }
  std::memcpy(p, &digits, 8);
  return p + 8;
}

// x < 10^8 without leading zeros; writes 8 bytes, returns the end of the
// digits.
inline char* put_leading(char* p, std::uint32_t x) {
  if (x == 0) {
    *p = '0';
    return p + 1;
  }
  const std::uint64_t d = digits8(x);
  const int zeros = std::countr_zero(d) / 8;  // leading zero digits
  put8(p, d >> (8 * zeros));
  return p + (8 - zeros);
}

/// Writes `v` in decimal as std::to_chars does, using up to 24 bytes at p
/// (some past the digits); returns the end of the digits.
inline char* put_int(char* p, std::int64_t v) {
  std::uint64_t u = static_cast<std::uint64_t>(v);
  if (v < 0) {
    *p++ = '-';
    u = 0 - u;
  }
  constexpr std::uint64_t k8 = 100000000;
  if (u < k8) return put_leading(p, static_cast<std::uint32_t>(u));
  if (u < k8 * k8) {
    p = put_leading(p, static_cast<std::uint32_t>(u / k8));
    return put8(p, digits8(static_cast<std::uint32_t>(u % k8)));
  }
  p = put_leading(p, static_cast<std::uint32_t>(u / (k8 * k8)));
  p = put8(p, digits8(static_cast<std::uint32_t>(u / k8 % k8)));
  return put8(p, digits8(static_cast<std::uint32_t>(u % k8)));
}

}  // namespace detail

inline char* JsonWriter::copy_text(char* p, std::string_view s,
                                   std::size_t readable) {
  if (s.size() <= kWordCopy && readable >= kWordCopy) {
    // The caller reserved kWordCopy bytes: the bytes past the text are
    // overwritten by whatever comes next.
    std::memcpy(p, s.data(), kWordCopy);
  } else if (!s.empty()) {  // an empty view may carry a null data()
    std::memcpy(p, s.data(), s.size());
  }
  return p + s.size();
}

inline char* JsonWriter::direct_value(std::size_t n) {
  if (!direct_ || stack_.empty() || !pending_.empty()) return nullptr;
  Frame& f = stack_.back();
  // A wrapper's value closes the wrapper after it: the general path. (With
  // a container open, the document has begun: in_doc_ is set already.)
  if (f.wrapper) return nullptr;
  char* p = out_.reserve(n + 1);
  if (!f.object) {
    *p = ',';
    p += f.first ? 0 : 1;
    f.first = false;
  }
  return p;
}

inline Flow JsonWriter::direct_key(std::string_view name,
                                   std::size_t readable) {
  if (!direct_ || name.size() > 4096) return plain_key(name);
  Frame& f = stack_.back();
  char* p = out_.reserve(name.size() + kWordCopy + 4);
  *p = ',';
  p += f.first ? 0 : 1;
  f.first = false;
  *p++ = '"';
  p = copy_text(p, name, readable);
  *p++ = '"';
  *p++ = ':';
  out_.commit(p);
  return Flow::visit;
}

inline void JsonWriter::direct_string(std::string_view utf8,
                                      std::size_t readable) {
  char* p =
      utf8.size() <= 4096 ? direct_value(utf8.size() + kWordCopy + 2) : nullptr;
  if (p == nullptr) {
    plain_string(utf8);
    return;
  }
  *p++ = '"';
  p = copy_text(p, utf8, readable);
  *p++ = '"';
  out_.commit(p);
}

inline void JsonWriter::direct_int(std::int64_t v) {
  char* p = direct_value(24);
  if (p == nullptr) {
    int_value(v);
    return;
  }
  out_.commit(detail::put_int(p, v));
}

}  // namespace jbx
