// The JSON text writer: pretty (spaces or tabs), compact, JSON Lines, ASCII
// escaping and jq-style colour, with canonical minimal string escaping. It
// is the hot path of `fmt`, so it is a final class the reader can call
// without virtual dispatch. Not a parser and not a sorter (core/sort_keys.h).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/byte_buffer.h"
#include "core/options.h"
#include "core/sink.h"
#include "formats/format.h"
#include "formats/json/shortest_double.h"

namespace jbx {

class JsonWriter final : public Writer {
 public:
  /// Writes to `out`. Options are copied; the sink must outlive the writer.
  JsonWriter(Sink& out, const WriteOptions& o);
  /// Writes to `out`, continuing `w`'s document where `w` is: the same
  /// options and open containers, after an item of the innermost one. What
  /// it writes there, whole items of that container, goes into `w`'s output
  /// by w.splice(): the CBOR reader converts the pieces of a large array on
  /// two threads this way.
  JsonWriter(Sink& out, const JsonWriter& w);
  /// The options it writes with.
  const WriteOptions& options() const { return opt_; }

  // The events the readers send most, without colour, --ascii or pending
  // annotations, are inline: one reservation, the separator copied whole
  // from a prepared buffer, and the text. The rest take the general path.
  // They are declared inline so that bytes_value() is the key function: the
  // vtable, and the out-of-line copies it needs, are then emitted only in
  // json_writer.cpp, never in the AVX2 build of the simdjson walk.
  inline Flow begin_object() override;
  inline Flow key(std::string_view name) override;
  inline void end_object() override;
  inline Flow begin_array() override;
  inline void end_array() override;

  inline void null_value() override;
  inline void bool_value(bool b) override;
  inline void int_value(std::int64_t v) override;
  inline void uint_value(std::uint64_t v) override;
  /// Shortest round-trip form ("2.0", "0.1", "1e+300"). Throws
  /// Error(lossy) for NaN and infinities unless WriteOptions::nan allows.
  inline void double_value(double v) override;
  /// Writes `text` verbatim: it is valid RFC 8259 number syntax.
  inline void number_text(std::string_view text) override;
  inline void string_value(std::string_view utf8) override;
  /// string_value() for text known to need no escaping (no '"', '\\' or
  /// control character: the reader checked), copied without a scan unless
  /// --ascii needs one.
  void plain_string(std::string_view utf8);
  /// key() for a name known to need no escaping, like plain_string().
  Flow plain_key(std::string_view name);
  /// plain_key() and plain_string() behind a chain of transforms.
  Flow stable_key(std::string_view name) override;
  Flow escape_free_key(std::string_view name) override;
  void stable_string(std::string_view utf8) override;

  /// plain_key(), plain_string() and int_value() for the binary readers,
  /// which know how far their buffers may be read: `readable` is how many
  /// bytes from the text's start may be read (at least its size); a short
  /// text with kWordCopy of them is copied in whole words.
  Flow direct_key(std::string_view name, std::size_t readable);
  void direct_string(std::string_view utf8, std::size_t readable);
  void direct_int(std::int64_t v);
  static constexpr std::size_t kWordCopy = 32;

  /// direct_key() for a name written again and again (the keys of the
  /// records FusedFeatures has seen): `text` keeps what is written before
  /// the value, the separator, the quoted name and the colon, as made for
  /// the depth `tag` names, followed by kWordCopy zero bytes. Made (or
  /// remade) when the depth differs, it is then copied in whole blocks.
  /// `name` has kWordCopy bytes readable past its end. A name that needs
  /// escaping is written as key() writes it, every time (no text is kept).
  Flow repeated_key(std::string_view name, std::string& text, std::size_t& tag);
  /// repeated_key() of a kept `text` (as made for `tag`) with a string
  /// value written in place: copies the key and the opening quote, and
  /// answers where at most `bound` bytes of the string, needing no
  /// escaping, go. Nothing counts as written until commit_string(). Null
  /// when the key would be made again (repeated_key() then makes it).
  char* repeated_member(const std::string& text, std::size_t tag,
                        std::size_t bound);
  /// Closes the string repeated_member() began, which ends at `end`.
  void commit_string(char* end);

  /// Declares [begin, begin + size) readable until clear_readable() (the
  /// JSON reader's padded input): plain keys, strings and numbers that
  /// start there at least kWordCopy bytes before its end are copied in
  /// whole words, whatever follows them.
  void set_readable(const char* begin, std::size_t size);
  void clear_readable() { readable_size_ = 0; }

  /// For tests: true sends every event through the general path, as colour
  /// does, so that the fast path can be compared with it byte for byte.
  void force_general_path(bool on);

  void bytes_value(std::span<const std::uint8_t> bytes) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  void end_document() override;

  /// Appends `items`: what a writer made from this one (see the
  /// constructor) wrote, whole items of the innermost open container.
  void splice(std::string_view items);
  /// Appends `docs`: whole documents, each with its end, that a writer made
  /// with this one's options wrote. Only between documents.
  void append_documents(std::string_view docs) { out_.write(docs); }

  /// After an error in the middle of a document: takes back what was
  /// written of it when the sink still holds it (stdout holds up to a few
  /// MiB of a document), else ends the partial line; then resets the state
  /// so that the next document starts clean.
  void abandon() override;

 private:
  struct Pending {
    Annotation::Kind kind;
    std::string name;
    std::uint64_t tag;
  };

  // What a container is, one byte per open level in kinds_.
  static constexpr std::uint8_t kArray = 1;
  static constexpr std::uint8_t kWrapper = 2;  // {"@type":..,"@value":..}

  // Why events take the general path (slow_); none: the inline one.
  static constexpr std::uint8_t kSlowOptions = 1;   // colour or --ascii
  static constexpr std::uint8_t kSlowForced = 2;    // force_general_path()
  static constexpr std::uint8_t kSlowTop = 4;       // no container open
  static constexpr std::uint8_t kSlowDeep = 8;      // indent past kSepCopy
  static constexpr std::uint8_t kSlowWrapper = 16;  // inside a wrapper
  static constexpr std::uint8_t kSlowPending = 32;  // annotations to write

  // The separator before an item, "," then (pretty) "\n" and the indent, is
  // copied in one piece of this size from sep_ (from sep_ + 1 without the
  // comma) and the output advanced by its true length.
  static constexpr std::size_t kSepCopy = 32;
  // Longer texts are written by the general path, in bounded pieces.
  static constexpr std::size_t kLongText = 65536;

  void reset();  // after a document: no open container
  void update_slow();
  void push(std::uint8_t kind);
  void pop();
  void before_value();
  void after_value();
  void separator();  // "," and the newline + indent before an item
  void newline_indent(std::size_t depth);
  void open_container(char c, std::uint8_t kind);
  void close_container(char c);
  void write_string(std::string_view s, const char* color);
  void copy_string(std::string_view s, const char* color);
  void open_wrappers(bool next_is_object);
  // A scalar in the colour of a number, or of null.
  void write_scalar(std::string_view text, bool is_null = false);
  void grow_kinds();

  // The general path of each inline event.
  Flow begin_object_general();
  Flow begin_array_general();
  void end_object_general();
  void end_array_general();
  Flow key_general(std::string_view name);
  Flow plain_key_general(std::string_view name);
  Flow repeated_key_general(std::string_view name, std::string& text,
                            std::size_t& tag);
  void plain_string_general(std::string_view utf8);
  void string_value_general(std::string_view utf8);
  void double_value_general(double v);

  // The fast path's pieces.
  char* value_start(std::size_t n);
  char* key_start(std::size_t n);
  void open_fast(char c, std::uint8_t kind);
  void close_fast(char c);
  void text_fast(std::string_view s, bool words);
  Flow key_fast(std::string_view name, bool words);
  bool padded(std::string_view s) const;
  static char* copy_text(char* p, std::string_view s, bool words);
  /// Copies a repeated key's `text` (repeated_key()) with `room` bytes
  /// more reserved after it; returns its end.
  char* copy_repeated(const std::string& text, std::size_t room);

  Sink& out_;
  WriteOptions opt_;
  bool pretty_;
  std::uint8_t slow_ = 0;
  std::uint8_t slow_fixed_ = 0;  // kSlowOptions, kSlowForced
  bool first_ = true;            // the open container has no item yet
  bool in_array_ = false;        // the open container is an array
  bool in_doc_ = false;          // a document has begun and not yet ended
  bool have_type_name_for_object_ = false;
  std::size_t depth_ = 0;  // open containers
  std::size_t nl_ = 0;     // pretty: 1 + depth_ * unit_ ("\n" + indent)
  std::size_t step_ = 0;   // what nl_ grows by per level: unit_ or 0
  std::size_t colon_ = 2;  // the key's closing quote and ':', then ' '
  std::size_t unit_;       // indent characters per level
  std::vector<std::uint8_t> kinds_;  // [1, depth_]: kArray, kWrapper
  std::uintptr_t readable_begin_ = 0;
  std::size_t readable_size_ = 0;  // starts that can be copied in words
  std::vector<Pending> pending_;
  std::string type_name_for_object_;
  std::string indent_;  // "\n" followed by many indent characters
  std::string scratch_;
  char sep_[kSepCopy + 1];  // ",", then "\n" and indent characters
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

/// Writes `u` in decimal as std::to_chars does, using up to 24 bytes at p
/// (some past the digits); returns the end of the digits.
inline char* put_uint(char* p, std::uint64_t u) {
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

/// put_uint() for a signed value: up to 24 bytes at p.
inline char* put_int(char* p, std::int64_t v) {
  std::uint64_t u = static_cast<std::uint64_t>(v);
  if (v < 0) {
    *p++ = '-';
    u = 0 - u;
  }
  return put_uint(p, u);
}

}  // namespace detail

// The inline paths below are always inlined: the simdjson walk that calls
// them is compiled once per CPU kernel, and an out-of-line copy built with
// AVX2 must not become the one every caller links to (see the class).

[[gnu::always_inline]] inline bool JsonWriter::padded(
    std::string_view s) const {
  return reinterpret_cast<std::uintptr_t>(s.data()) - readable_begin_ <
         readable_size_;
}

[[gnu::always_inline]] inline char* JsonWriter::copy_text(char* p,
                                                          std::string_view s,
                                                          bool words) {
  // The caller reserved kWordCopy bytes past the text: the bytes past it
  // are overwritten by whatever comes next.
  if (s.size() > kWordCopy) {
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
  }
  if (words) {
    std::memcpy(p, s.data(), kWordCopy);
    return p + s.size();
  }
  return detail::copy_short(p, s.data(), s.size());
}

// Room for the separator and n bytes after it; writes the separator (none
// in an object: the key had it) and returns where the value goes.
[[gnu::always_inline]] inline char* JsonWriter::value_start(std::size_t n) {
  char* p = out_.reserve(kSepCopy + n);
  std::memcpy(p, sep_ + static_cast<std::size_t>(first_), kSepCopy);
  p += in_array_ ? static_cast<std::size_t>(!first_) + nl_ : 0;
  first_ = false;
  return p;
}

[[gnu::always_inline]] inline char* JsonWriter::key_start(std::size_t n) {
  char* p = out_.reserve(kSepCopy + n);
  std::memcpy(p, sep_ + static_cast<std::size_t>(first_), kSepCopy);
  p += static_cast<std::size_t>(!first_) + nl_;
  first_ = false;
  return p;
}

[[gnu::always_inline]] inline void JsonWriter::open_fast(char c,
                                                         std::uint8_t kind) {
  char* p = value_start(1);
  *p++ = c;
  out_.commit(p);
  if (++depth_ == kinds_.size()) grow_kinds();
  kinds_[depth_] = kind;
  in_array_ = kind == kArray;
  first_ = true;
  nl_ += step_;
  // The fast path was taken, so no other reason applies.
  slow_ = nl_ >= kSepCopy ? kSlowDeep : 0;
}

[[gnu::always_inline]] inline void JsonWriter::close_fast(char c) {
  // The newline and indent of the level below, unless the container is
  // empty: both a copy from sep_ + 1.
  nl_ -= step_;
  char* p = out_.reserve(kSepCopy + 1);
  std::memcpy(p, sep_ + 1, kSepCopy);
  p += first_ ? 0 : nl_;
  *p++ = c;
  out_.commit(p);
  const std::uint8_t k = kinds_[--depth_];
  in_array_ = (k & kArray) != 0;
  first_ = false;
  slow_ = static_cast<std::uint8_t>((depth_ == 0 ? kSlowTop : 0) |
                                    ((k & kWrapper) != 0 ? kSlowWrapper : 0));
  if ((k & kWrapper) != 0) after_value();  // close the wrapper too
}

[[gnu::always_inline]] inline void JsonWriter::text_fast(std::string_view s,
                                                         bool words) {
  char* p = value_start(s.size() + kWordCopy + 2);
  *p++ = '"';
  p = copy_text(p, s, words);
  *p++ = '"';
  out_.commit(p);
}

[[gnu::always_inline]] inline Flow JsonWriter::key_fast(std::string_view name,
                                                        bool words) {
  char* p = key_start(name.size() + kWordCopy + 4);
  *p++ = '"';
  p = copy_text(p, name, words);
  std::memcpy(p, "\": ", 4);
  out_.commit(p + colon_);
  return Flow::visit;
}

[[gnu::always_inline]] inline Flow JsonWriter::begin_object() {
  if (slow_ != 0) return begin_object_general();
  open_fast('{', 0);
  return Flow::visit;
}

[[gnu::always_inline]] inline Flow JsonWriter::begin_array() {
  if (slow_ != 0) return begin_array_general();
  open_fast('[', kArray);
  return Flow::visit;
}

[[gnu::always_inline]] inline void JsonWriter::end_object() {
  if (slow_ != 0) {
    end_object_general();
    return;
  }
  close_fast('}');
}

[[gnu::always_inline]] inline void JsonWriter::end_array() {
  if (slow_ != 0) {
    end_array_general();
    return;
  }
  close_fast(']');
}

[[gnu::always_inline]] inline Flow JsonWriter::key(std::string_view name) {
  return key_general(name);
}

[[gnu::always_inline]] inline Flow JsonWriter::plain_key(
    std::string_view name) {
  if (slow_ != 0 || name.size() > kLongText) return plain_key_general(name);
  return key_fast(name, padded(name));
}

[[gnu::always_inline]] inline Flow JsonWriter::direct_key(
    std::string_view name, std::size_t readable) {
  if (slow_ != 0 || name.size() > kLongText) return plain_key_general(name);
  return key_fast(name, readable >= kWordCopy);
}

[[gnu::always_inline]] inline Flow JsonWriter::repeated_key(
    std::string_view name, std::string& text, std::size_t& tag) {
  if (tag != nl_ || slow_ != 0) [[unlikely]] {
    return repeated_key_general(name, text, tag);
  }
  out_.commit(copy_repeated(text, 0));
  first_ = false;
  return Flow::visit;
}

[[gnu::always_inline]] inline char* JsonWriter::copy_repeated(
    const std::string& text, std::size_t room) {
  // Made with the comma, which the first member skips.
  const std::size_t skip = first_ ? 1 : 0;
  const std::size_t n = text.size() - kWordCopy - skip;
  const char* from = text.data() + skip;
  char* p = out_.reserve(n + kWordCopy + room);
  std::memcpy(p, from, kWordCopy);
  for (std::size_t k = kWordCopy; k < n; k += kWordCopy) {
    std::memcpy(p + k, from + k, kWordCopy);
  }
  return p + n;
}

[[gnu::always_inline]] inline char* JsonWriter::repeated_member(
    const std::string& text, std::size_t tag, std::size_t bound) {
  if (tag != nl_ || slow_ != 0) [[unlikely]] {
    return nullptr;
  }
  char* p = copy_repeated(text, bound + 2);
  *p = '"';
  return p + 1;
}

[[gnu::always_inline]] inline void JsonWriter::commit_string(char* end) {
  *end = '"';
  out_.commit(end + 1);
  first_ = false;
}

[[gnu::always_inline]] inline void JsonWriter::plain_string(
    std::string_view utf8) {
  if (slow_ != 0 || utf8.size() > kLongText) {
    plain_string_general(utf8);
    return;
  }
  text_fast(utf8, padded(utf8));
}

[[gnu::always_inline]] inline void JsonWriter::direct_string(
    std::string_view utf8, std::size_t readable) {
  if (slow_ != 0 || utf8.size() > kLongText) {
    plain_string_general(utf8);
    return;
  }
  text_fast(utf8, readable >= kWordCopy);
}

[[gnu::always_inline]] inline void JsonWriter::string_value(
    std::string_view utf8) {
  string_value_general(utf8);
}

[[gnu::always_inline]] inline void JsonWriter::number_text(
    std::string_view text) {
  if (slow_ != 0 || text.size() > kLongText) {
    write_scalar(text);
    return;
  }
  char* p = value_start(text.size() + kWordCopy);
  out_.commit(copy_text(p, text, padded(text)));
}

[[gnu::always_inline]] inline void JsonWriter::null_value() {
  if (slow_ != 0) {
    write_scalar("null", true);
    return;
  }
  char* p = value_start(4);
  std::memcpy(p, "null", 4);
  out_.commit(p + 4);
}

[[gnu::always_inline]] inline void JsonWriter::bool_value(bool b) {
  if (slow_ != 0) {
    write_scalar(b ? "true" : "false");
    return;
  }
  // "true" and "false" as one 8-byte copy each, advanced by 4 or 5.
  char* p = value_start(8);
  std::memcpy(p, b ? "true\0\0\0" : "false\0\0", 8);
  out_.commit(p + 5 - static_cast<std::size_t>(b));
}

[[gnu::always_inline]] inline void JsonWriter::int_value(std::int64_t v) {
  if (slow_ != 0) {
    char buf[24];
    write_scalar(std::string_view(
        buf, static_cast<std::size_t>(detail::put_int(buf, v) - buf)));
    return;
  }
  out_.commit(detail::put_int(value_start(24), v));
}

[[gnu::always_inline]] inline void JsonWriter::direct_int(std::int64_t v) {
  int_value(v);
}

[[gnu::always_inline]] inline void JsonWriter::uint_value(std::uint64_t v) {
  if (slow_ != 0) {
    char buf[24];
    write_scalar(std::string_view(
        buf, static_cast<std::size_t>(detail::put_uint(buf, v) - buf)));
    return;
  }
  out_.commit(detail::put_uint(value_start(24), v));
}

[[gnu::always_inline]] inline void JsonWriter::double_value(double v) {
  if (slow_ != 0 || !std::isfinite(v)) {
    double_value_general(v);
    return;
  }
  out_.commit(detail::put_shortest(value_start(detail::kShortestRoom), v,
                                   /*mark_double=*/true));
}

}  // namespace jbx
