#include "formats/cbor/cbor_reader.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "core/sink.h"
#include "core/worker.h"
#include "formats/binary_text.h"
#include "formats/cbor/cbor_bignum.h"
#include "formats/cbor/cbor_time.h"
#include "formats/json/json_fused.h"
#include "formats/json/json_piece_writer.h"
#include "formats/json/json_writer.h"
#include "formats/msgpack/msgpack_text.h"

namespace jbx {

namespace {

// Tags whose content already has the right JSON meaning (expected base64
// conversions 21-23, URI, base64 text, regular expression, MIME message):
// the content is read as if untagged.
bool passes_through(std::uint64_t tag) {
  return (tag >= 21 && tag <= 23) || (tag >= 32 && tag <= 36);
}

template <class T>
T load_be(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::little) {
    if constexpr (sizeof v == 2) v = __builtin_bswap16(v);
    if constexpr (sizeof v == 4) v = __builtin_bswap32(v);
    if constexpr (sizeof v == 8) v = __builtin_bswap64(v);
  }
  return v;
}

// The argument that follows a head with additional info 24..27: 1, 2, 4 or
// 8 big-endian bytes at p.
[[gnu::always_inline]] inline std::uint64_t argument(const std::uint8_t* p,
                                                     std::uint8_t ai) {
  switch (ai) {
    case 24:
      return p[0];
    case 25:
      return load_be<std::uint16_t>(p);
    case 26:
      return load_be<std::uint32_t>(p);
    default:
      return load_be<std::uint64_t>(p);
  }
}

double half_to_double(std::uint16_t h) {
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(mant, -24);
  } else if (exp != 31) {
    v = std::ldexp(mant + 1024, exp - 25);
  } else if (mant == 0) {
    v = INFINITY;
  } else {
    // Keep the payload: the quiet bit and the 9 payload bits move to the
    // top of the float64 mantissa, as a float16 -> float64 widening does.
    std::uint64_t bits =
        0x7ff0000000000000ull | (static_cast<std::uint64_t>(mant) << 42);
    std::memcpy(&v, &bits, 8);
  }
  return (h & 0x8000) != 0 ? -v : v;
}

const char* major_name(int major) {
  static constexpr const char* kNames[] = {"unsigned integer",
                                           "negative integer",
                                           "byte string",
                                           "text string",
                                           "array",
                                           "map",
                                           "tag",
                                           "simple value"};
  return kNames[major];
}

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
}

void append_base64(std::string& out, std::span<const std::uint8_t> b) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::size_t i = 0;
  for (; i + 3 <= b.size(); i += 3) {
    const std::uint32_t v =
        (std::uint32_t{b[i]} << 16) | (std::uint32_t{b[i + 1]} << 8) | b[i + 2];
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (i + 1 == b.size()) {
    const std::uint32_t v = std::uint32_t{b[i]} << 16;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out += "==";
  } else if (i + 2 == b.size()) {
    const std::uint32_t v =
        (std::uint32_t{b[i]} << 16) | (std::uint32_t{b[i + 1]} << 8);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back('=');
  }
}

// Renders a non-text map key as compact JSON text ("1", "true", "[1,2]");
// a string, byte string (base64) or date at the top level is written
// without quotes, since it becomes the key's text itself.
class KeyText final : public Handler {
 public:
  explicit KeyText(std::string& out) : out_(out) {}

  Flow begin_object() override {
    sep();
    out_.push_back('{');
    first_.push_back(true);
    return Flow::visit;
  }
  Flow key(std::string_view name) override {
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
    append_json_string(out_, name);
    out_.push_back(':');
    after_key_ = true;
    return Flow::visit;
  }
  void end_object() override {
    out_.push_back('}');
    first_.pop_back();
  }
  Flow begin_array() override {
    sep();
    out_.push_back('[');
    first_.push_back(true);
    return Flow::visit;
  }
  void end_array() override {
    out_.push_back(']');
    first_.pop_back();
  }
  void null_value() override { raw("null"); }
  void bool_value(bool b) override { raw(b ? "true" : "false"); }
  void int_value(std::int64_t v) override { raw(std::to_string(v)); }
  void uint_value(std::uint64_t v) override { raw(std::to_string(v)); }
  void double_value(double v) override {
    if (std::isnan(v)) return raw("NaN");
    if (std::isinf(v)) return raw(v < 0 ? "-Infinity" : "Infinity");
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    raw(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  }
  void number_text(std::string_view t) override { raw(t); }
  void string_value(std::string_view s) override { text(s); }
  void bytes_value(std::span<const std::uint8_t> b) override {
    std::string s;
    append_base64(s, b);
    text(s);
  }
  void timestamp_value(const Timestamp& t) override {
    auto s = t.kind == Timestamp::Kind::instant
                 ? cbor::detail::format_rfc3339(t)
                 : cbor::detail::format_local(t);
    if (s) {
      text(*s);
    } else {
      raw(std::to_string(t.seconds));
    }
  }
  void annotation(const Annotation&) override {}
  void end_document() override {}

 private:
  void sep() {
    if (first_.empty()) return;
    if (after_key_) {
      after_key_ = false;
    } else if (first_.back()) {
      first_.back() = false;
    } else {
      out_.push_back(',');
    }
  }
  void raw(std::string_view s) {
    sep();
    out_ += s;
  }
  void text(std::string_view s) {
    if (first_.empty()) {
      out_ += s;
      return;
    }
    sep();
    append_json_string(out_, s);
  }

  std::string& out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

// Items to read up to a break: an indefinite-length container.
constexpr std::uint64_t kUntilBreak = UINT64_MAX;

using detail::FusedJson;

// What a decoder needs to cut a large top-level array into pieces.
struct Split {
  Worker& worker;
  std::size_t piece;       // bytes of input per piece, about
  std::uint64_t kept = 0;  // pieces read by the worker and kept
};

struct Head {
  std::uint8_t major = 0;
  std::uint8_t ai = 0;
  bool indefinite = false;
  std::uint64_t arg = 0;
  std::size_t offset = 0;  // of the initial byte
};

// One pass over the items of a buffer. `h == nullptr` means "decode and
// check, emit nothing": used for skipped containers, after Flow::stop and
// for sniffing. The handler's type is a template parameter so that the JSON
// writer (a final class) is called without virtual dispatch.
class Decoder {
 public:
  Decoder(const std::uint8_t* begin, std::size_t size, std::size_t pos,
          const ReadOptions& o, bool sniffing)
      : begin_(begin),
        end_(begin + size),
        p_(begin + pos),
        next_give_(end_),
        opts_(o),
        sniffing_(sniffing) {}

  std::size_t pos() const { return static_cast<std::size_t>(p_ - begin_); }
  bool at_end() const { return p_ == end_; }
  /// A top-level array read into a JsonWriter is then cut into pieces.
  void set_split(Split* s) { split_ = s; }
  /// The handler the events go to, when a writer that streams arrays is
  /// at the end of its chain (Handler::takes_array_count()): told the
  /// count of a top-level array between its items (top_array_items()).
  void set_counted(Handler* h) { counted_ = h; }
  /// The pages of a mapped input behind the items read go back as the
  /// decoder passes them (Source::give_back()); the window starts at byte
  /// `base` of `in`.
  void set_give_back(Source& in, std::uint64_t base) {
    give_back_ = &in;
    base_ = base;
    next_give_ = step_on(p_);
  }

  template <class H>
  void item(H* h, std::uint32_t depth) {
    const Head hd = head();
    try {
      deliver(hd, h, depth);
    } catch (Error& e) {
      located(e, hd.offset);
      throw;
    }
  }

 private:
  // An item inside a container (the caller checked that one follows).
  // The ones most documents are made of are read here, without item()'s
  // call: integers, float64, short text, false, true and null. The rest,
  // and any of these cut short by the end of the input, go to item().
  template <class H>
  [[gnu::always_inline]] void value(H* h, std::uint32_t depth) {
    const std::uint8_t ib = *p_;
    const std::uint8_t* at = p_;
    try {
      if (ib < 24) {
        ++p_;
        if (h != nullptr) detail::emit_int(*h, ib);
        return;
      }
      if (ib < 0x40) {
        // Other integers: the head, then 0, 1, 2, 4 or 8 bytes.
        const std::uint8_t ai = ib & 31;
        const std::size_t n = ai < 24 ? 0 : std::size_t{1} << (ai - 24);
        if (ai < 28 && n < left()) {
          const std::uint64_t arg = ai < 24 ? ai : argument(p_ + 1, ai);
          p_ += 1 + n;
          if (h == nullptr) return;
          if (arg > static_cast<std::uint64_t>(INT64_MAX)) [[unlikely]] {
            if (ib < 0x20) {
              h->uint_value(arg);
            } else {
              big_negative(h, arg);
            }
            return;
          }
          const auto v = static_cast<std::int64_t>(arg);
          detail::emit_int(*h, ib < 0x20 ? v : -1 - v);
          return;
        }
      }
      if (ib == 0xfb && left() > 8) {
        const double d = std::bit_cast<double>(load_be<std::uint64_t>(p_ + 1));
        p_ += 9;
        if (h != nullptr) h->double_value(d);
        return;
      }
      const std::size_t n = static_cast<std::uint8_t>(ib - 0x60);
      if (n < 24 && n < left()) {
        ++p_;
        bool plain = true;
        const std::string_view t = short_text(n, plain);
        if (h != nullptr) send_string(*h, t, plain, readable(t));
        return;
      }
      if (ib >= 0xf4 && ib <= 0xf6) {
        ++p_;
        if (h == nullptr) return;
        if (ib == 0xf6) {
          h->null_value();
        } else {
          h->bool_value(ib == 0xf5);
        }
        return;
      }
    } catch (Error& e) {
      located(e, static_cast<std::size_t>(at - begin_));
      throw;
    }
    item(h, depth);
  }

  // Whether `t` lies in the input, which holds it until the document ends
  // (joined chunks do not).
  bool in_input(std::string_view t) const {
    const auto* at = reinterpret_cast<const std::uint8_t*>(t.data());
    return at >= begin_ && at < end_;
  }

  // The first byte of the JSON text of the item at `ib`, its initial byte,
  // for the features' plain_key(): '\0' when it depends on options (byte
  // strings, tags, floats that may be NaN) or is not known.
  static char json_first(std::uint8_t ib) {
    switch (ib >> 5) {
      case 0:
        return '0';
      case 1:
        return '-';
      case 3:
        return '"';
      case 4:
        return '[';
      case 5:
        return '{';
      default:
        break;
    }
    switch (ib) {
      case 0xf4:
        return 'f';
      case 0xf5:
        return 't';
      case 0xf6:
        return 'n';
      default:
        return '\0';
    }
  }

  // A text key, to `h`: to the features in front of the JSON writer as
  // the JSON reader gives one where it can (detail::fused_key()).
  template <class H>
  [[gnu::always_inline]] Flow send_key(H& h, std::string_view t, bool plain,
                                       std::size_t readable) {
    if constexpr (std::is_same_v<H, FusedJson>) {
      return detail::fused_key(h, t, plain, in_input(t), readable,
                               p_ < end_ ? json_first(*p_) : '\0');
    } else {
      return detail::emit_key(h, t, plain, readable);
    }
  }
  // A text string, to `h`: to the features in front of the JSON writer as
  // escape-free text when it is.
  template <class H>
  [[gnu::always_inline]] void send_string(H& h, std::string_view t, bool plain,
                                          std::size_t readable) {
    if constexpr (std::is_same_v<H, FusedJson>) {
      detail::fused_string(h, t, plain, in_input(t));
    } else {
      detail::emit_string(h, t, plain, readable);
    }
  }

  // The n bytes of a text string at p_ (n <= left()), checked as UTF-8.
  [[gnu::always_inline]] std::string_view short_text(std::size_t n,
                                                     bool& plain) {
    const std::uint8_t* s = p_;
    const detail::TextScan scan = detail::scan_text(s, n, end_);
    if (scan.invalid_at != detail::TextScan::npos) [[unlikely]] {
      bad_utf8(s, n, scan.invalid_at);
    }
    if (!scan.plain) plain = false;
    p_ += n;
    return {reinterpret_cast<const char*>(s), n};
  }
  // How many bytes from the start of a text in the input may be read.
  std::size_t readable(std::string_view t) const {
    return static_cast<std::size_t>(
        end_ - reinterpret_cast<const std::uint8_t*>(t.data()));
  }
  [[noreturn]] void bad_utf8(const std::uint8_t* s, std::size_t n,
                             std::size_t at) {
    fail(Errc::invalid_utf8,
         "invalid UTF-8 in text string: " +
             detail::describe_invalid_utf8(s + at, n - at),
         static_cast<std::size_t>(s - begin_) + at);
  }
  // A handler's Error (a writer or transform refusing a value) has no
  // offset: it gets the offset of the item it was given, the innermost
  // item on the way out. The decoder's own errors have theirs.
  static void located(Error& e, std::size_t offset) {
    if (e.offset) return;
    e.offset = offset;
    e.binary = true;
  }

  template <class H>
  void deliver(const Head& hd, H* h, std::uint32_t depth) {
    switch (hd.major) {
      case 0:
        if (h == nullptr) return;
        if (hd.arg <= static_cast<std::uint64_t>(INT64_MAX)) {
          detail::emit_int(*h, static_cast<std::int64_t>(hd.arg));
        } else {
          h->uint_value(hd.arg);
        }
        return;
      case 1:
        if (h == nullptr) return;
        if (hd.arg <= static_cast<std::uint64_t>(INT64_MAX)) {
          detail::emit_int(*h, -1 - static_cast<std::int64_t>(hd.arg));
        } else {
          big_negative(h, hd.arg);
        }
        return;
      case 2: {
        const auto b = bytes(hd);
        if (h != nullptr) h->bytes_value(b);
        return;
      }
      case 3: {
        const Text t = text(hd);
        if (h != nullptr) send_string(*h, t.s, t.plain, t.readable);
        return;
      }
      case 4:
        return array(hd, h, depth);
      case 5:
        return map(hd, h, depth);
      case 6:
        return tag(hd, h, depth);
      default:
        return simple(hd, h);
    }
  }

  [[noreturn]] void fail(Errc code, std::string msg, std::size_t offset) {
    Error e(code, std::move(msg), offset);
    e.binary = true;
    throw e;
  }
  [[noreturn]] void fail_end(const char* what) {
    fail(Errc::unexpected_end,
         std::string("unexpected end of input in ") + what,
         static_cast<std::size_t>(end_ - begin_));
  }
  std::size_t left() const { return static_cast<std::size_t>(end_ - p_); }

  // Inlined: it runs once per item, and its callers know the major type.
  [[gnu::always_inline]] Head head() {
    Head hd;
    hd.offset = pos();
    const std::uint8_t ib = *p_++;
    hd.major = ib >> 5;
    hd.ai = ib & 31;
    if (hd.ai < 24) {
      hd.arg = hd.ai;
    } else if (hd.ai <= 27) {
      // ai 24..27: the argument follows in 1, 2, 4 or 8 big-endian bytes.
      const std::size_t n = std::size_t{1} << (hd.ai - 24);
      if (left() < n) {
        if (hd.major == 7) {
          static constexpr const char* kWhat[] = {"simple value", "float16",
                                                  "float32", "float64"};
          fail_end(kWhat[hd.ai - 24]);
        }
        fail_end(major_name(hd.major));
      }
      hd.arg = argument(p_, hd.ai);
      p_ += n;
    } else if (hd.ai == 31 && hd.major >= 2 && hd.major <= 5) {
      hd.indefinite = true;
    } else if (hd.ai == 31 && hd.major == 7) {
      fail(Errc::syntax, "unexpected break", hd.offset);
    } else {
      fail(Errc::syntax,
           "invalid major type " + std::to_string(hd.major) +
               " with additional info " + std::to_string(hd.ai),
           hd.offset);
    }
    return hd;
  }

  // When sniffing, a length or count beyond the cut-off head proves
  // nothing, unless no input could hold it: then the bytes are something
  // else (MessagePack's fixints and map16 heads read as such lengths).
  void implausible_when_sniffing(const Head& hd) {
    constexpr std::uint64_t kNoInput = std::uint64_t{1} << 48;  // 256 TiB
    if (sniffing_ && hd.arg >= kNoInput) {
      fail(Errc::syntax, "length beyond any input", hd.offset);
    }
  }

  // Definite chunk or string: checks the length against the input first.
  [[gnu::always_inline]] std::span<const std::uint8_t> definite(
      const Head& hd) {
    if (hd.arg > left()) {
      implausible_when_sniffing(hd);
      fail(Errc::unexpected_end,
           std::string(major_name(hd.major)) + " of " + std::to_string(hd.arg) +
               " bytes exceeds the input (" + std::to_string(left()) +
               " bytes left)",
           hd.offset);
    }
    const std::span<const std::uint8_t> s(p_, static_cast<std::size_t>(hd.arg));
    p_ += hd.arg;
    return s;
  }

  // A definite text string's bytes, checked as UTF-8; `plain` is cleared
  // when JSON will have to escape something in it.
  [[gnu::always_inline]] std::span<const std::uint8_t> definite_text(
      const Head& hd, bool& plain) {
    const auto s = definite(hd);
    const detail::TextScan scan = detail::scan_text(s.data(), s.size(), end_);
    if (scan.invalid_at != detail::TextScan::npos) {
      bad_utf8(s.data(), s.size(), scan.invalid_at);
    }
    if (!scan.plain) plain = false;
    return s;
  }

  // An indefinite-length string: definite chunks of the same major type
  // up to a break (RFC 8949 3.2.3), concatenated into scratch_.
  std::span<const std::uint8_t> chunks(const Head& hd, bool& plain) {
    scratch_.clear();
    for (;;) {
      if (at_end()) fail_end(major_name(hd.major));
      if (*p_ == 0xff) {
        ++p_;
        break;
      }
      const Head c = head();
      if (c.major != hd.major || c.indefinite) {
        fail(Errc::syntax,
             std::string("invalid chunk in indefinite-length ") +
                 major_name(hd.major),
             c.offset);
      }
      const auto s = hd.major == 3 ? definite_text(c, plain) : definite(c);
      scratch_.append(reinterpret_cast<const char*>(s.data()), s.size());
    }
    return {reinterpret_cast<const std::uint8_t*>(scratch_.data()),
            scratch_.size()};
  }

  std::span<const std::uint8_t> bytes(const Head& hd) {
    bool plain = true;
    return hd.indefinite ? chunks(hd, plain) : definite(hd);
  }

  struct Text {
    std::string_view s;
    bool plain;            // nothing for JSON to escape
    std::size_t readable;  // bytes that may be read from s.data()
  };
  [[gnu::always_inline]] Text text(const Head& hd) {
    bool plain = true;
    const auto s = hd.indefinite ? chunks(hd, plain) : definite_text(hd, plain);
    // Chunks are joined in scratch_; a definite string lies in the input.
    const std::size_t readable =
        hd.indefinite ? s.size() : static_cast<std::size_t>(end_ - s.data());
    return {
        {reinterpret_cast<const char*>(s.data()), s.size()}, plain, readable};
  }

  void check_depth(const Head& hd, std::uint32_t depth) {
    if (depth >= opts_.max_depth) {
      fail(Errc::depth_limit,
           "nesting deeper than " + std::to_string(opts_.max_depth) + " levels",
           hd.offset);
    }
  }

  // The handler for children: none when skipping or stopped.
  template <class H>
  H* child(H* h, Flow f) {
    if (h == nullptr) return nullptr;
    if (f == Flow::stop) stopped_ = true;
    return f == Flow::visit ? h : nullptr;
  }
  template <class H>
  H* live(H* h) const {
    return stopped_ ? nullptr : h;
  }

  // -1 - arg is below INT64_MIN: exact text.
  template <class H>
  [[gnu::noinline]] static void big_negative(H* h, std::uint64_t arg) {
    h->number_text("-" + cbor::detail::decimal_increment(std::to_string(arg)));
  }

  // Containers and tags are not inlined into item(): it runs once per
  // value and stays small that way.
  template <class H>
  [[gnu::noinline]] void array(const Head& hd, H* h, std::uint32_t depth) {
    check_depth(hd, depth);
    // Every item takes at least one byte: a count beyond the input is a
    // lie, caught before any work is done for it.
    // When sniffing, a count beyond the cut-off head proves nothing, and
    // the items up to the cut are still worth checking.
    if (!hd.indefinite && hd.arg > left()) implausible_when_sniffing(hd);
    if (!hd.indefinite && hd.arg > left() && !sniffing_) {
      fail(Errc::unexpected_end,
           "array of " + std::to_string(hd.arg) + " items exceeds the input (" +
               std::to_string(left()) + " bytes left)",
           hd.offset);
    }
    H* c = child(h, h != nullptr ? h->begin_array() : Flow::visit);
    std::uint64_t left = hd.indefinite ? kUntilBreak : hd.arg;
    if constexpr (std::is_same_v<H, JsonWriter>) {
      if (depth == 0 && split_ != nullptr && c != nullptr)
        split<Piece>(c, left);
    } else if constexpr (std::is_same_v<H, FusedJson>) {
      if (depth == 0 && split_ != nullptr && c != nullptr) {
        split<FusedPiece>(c, left);
      }
    }
    if (hd.indefinite) {
      for (;;) {
        if (at_end()) fail_end("array");
        if (*p_ == 0xff) {
          ++p_;
          break;
        }
        value(live(c), depth + 1);
        if (p_ > next_give_) [[unlikely]] {
          give_back();
        }
      }
    } else if (depth == 0 && counted_ != nullptr && c != nullptr) {
      top_items(c, hd.arg);
    } else {
      for (; left != 0; --left) {
        if (at_end()) fail_end("array");
        value(live(c), depth + 1);
        if (p_ > next_give_) [[unlikely]] {
          give_back();
        }
      }
    }
    if (live(c) != nullptr) c->end_array();
  }

  // The `n` items of a top-level array read into a writer, which may
  // stream the array, told its count after each item.
  template <class H>
  [[gnu::noinline]] void top_items(H* c, std::uint64_t n) {
    for (std::uint64_t left = n; left != 0; --left) {
      if (at_end()) fail_end("array");
      value(live(c), 1);
      counted_->top_array_items(n);
      if (p_ > next_give_) [[unlikely]] {
        give_back();
      }
    }
  }

  // The items of a large top-level array, read into a JsonWriter in
  // pieces, two at a time: this thread reads one while the worker reads
  // the next into a writer of its own, whose text is spliced in after.
  //
  // Where an item begins cannot be known without reading every item before
  // it, so the worker's piece starts where one is likely to: at the first
  // place, a piece's worth of bytes on, that starts as the first item does
  // (a map's head and first key). Its text is kept only when this thread's
  // piece ends exactly there: then it began at an item, and reading it gave
  // what reading on here would have given, the same text or the same
  // error. Otherwise it is dropped and this thread reads on. The items left
  // over (`left` of them) are read by the caller, as without pieces.
  //
  // Read into the fused features (FusedPiece), a piece that ends in an
  // error is dropped too, and this thread reads it: the features name a
  // value by its path, whose index in the array only this thread knows.
  template <class P, class H>
  void split(H* w, std::uint64_t& left) {
    const std::string_view start = item_start();
    if (start.empty()) return;
    // Whatever ends the loop, the worker is done with the input and the
    // piece before they go.
    struct Settle {
      Worker& worker;
      ~Settle() { worker.wait(); }
    };
    const auto piece = std::make_unique<P>(*this, *w);
    Settle settle{split_->worker};
    while (left != 0) {
      const std::uint8_t* theirs = likely_item(p_, start);
      if (theirs == nullptr) return;
      const std::uint8_t* next = likely_item(theirs, start);
      piece->from = theirs;
      piece->to = next != nullptr ? next : end_;
      split_->worker.start(&run_piece<P>, piece.get());
      // This thread's piece, read as the caller's loop reads.
      while (p_ < theirs && left != 0) {
        if (at_end()) fail_end("array");
        if (*p_ == 0xff && left == kUntilBreak) break;
        value(w, 1);
        if (left != kUntilBreak) --left;
      }
      split_->worker.wait();
      if (p_ < theirs) return;     // the array ended first
      if (p_ != theirs) continue;  // not where an item begins
      // Past the array's end: its items, or its error (which comes after
      // them, where the array has none left).
      if (left != kUntilBreak &&
          (piece->count > left || (piece->count == left && piece->error))) {
        return;
      }
      if (P::kRereadErrors && piece->error) return;
      const std::string_view items = piece->text();
      piece->splice_into(*w);
      // The worker writes its next piece over this text.
      Worker::evict(items.data(), items.size());
      ++split_->kept;
      if (piece->error) std::rethrow_exception(piece->error);
      p_ = piece->ended;
      if (left != kUntilBreak) left -= piece->count;
    }
  }

  // The worker's piece of an array (split()).
  struct alignas(64) Piece {  // on cache lines of its own
    Piece(const Decoder& d, const JsonWriter& w)
        : begin(d.begin_), end(d.end_), opts(d.opts_), like(unused, w) {}

    const std::uint8_t* begin;
    const std::uint8_t* end;
    const ReadOptions opts;
    StringSink unused;
    const JsonWriter like;  // the array's writer as its items begin
    // Made on the worker, from its own heap: a writer is written to on
    // every event, and its blocks must not share a cache line with this
    // thread's.
    std::unique_ptr<StringSink> sink;
    std::unique_ptr<JsonWriter> writer;   // continues `like`, into `sink`
    const std::uint8_t* from = nullptr;   // where an item is likely to begin
    const std::uint8_t* to = nullptr;     // the piece ends at the first item
                                          // end from here on
    const std::uint8_t* ended = nullptr;  // where it ended
    std::uint64_t count = 0;              // the items it read
    std::exception_ptr error;             // what ended it early

    static constexpr bool kRereadErrors = false;
    std::string_view text() const { return sink->data(); }
    void splice_into(JsonWriter& w) const { w.splice(text()); }

    // The handler of a piece: a writer of its own for each, as one that
    // gave up inside an item is left inside it.
    JsonWriter* start() {
      if (sink == nullptr) sink = std::make_unique<StringSink>();
      sink->clear();
      writer = std::make_unique<JsonWriter>(*sink, like);
      return writer.get();
    }
  };

  // Reads the worker's piece (a Piece or FusedPiece at `arg`) into the
  // handler its start() makes.
  template <class P>
  static void run_piece(void* arg) {
    auto& pc = *static_cast<P*>(arg);
    pc.count = 0;
    pc.error = nullptr;
    Decoder d(pc.begin, static_cast<std::size_t>(pc.end - pc.begin),
              static_cast<std::size_t>(pc.from - pc.begin), pc.opts, false);
    try {
      auto* h = pc.start();
      // A break or the end of the input is left to the array's reader,
      // which knows whether one may come there.
      while (d.p_ < pc.to && !d.at_end() && *d.p_ != 0xff) {
        d.value(h, 1);
        ++pc.count;
      }
    } catch (...) {
      pc.error = std::current_exception();
    }
    pc.ended = d.p_;
  }

  // The worker's piece of an array read into the fused features
  // (split()): the same, into features and a writer of its own.
  struct alignas(64) FusedPiece {  // on cache lines of its own
    FusedPiece(const Decoder& d, FusedJson& f)
        : begin(d.begin_), end(d.end_), opts(d.opts_), out(f.next(), &f) {}

    const std::uint8_t* begin;
    const std::uint8_t* end;
    const ReadOptions opts;
    PieceWriter out;  // made on the worker for each piece (begin())
    const std::uint8_t* from = nullptr;
    const std::uint8_t* to = nullptr;
    const std::uint8_t* ended = nullptr;
    std::uint64_t count = 0;
    std::exception_ptr error;

    static constexpr bool kRereadErrors = true;
    std::string_view text() const { return out.text(); }
    void splice_into(FusedJson& f) { out.splice_into(f); }
    // Features and a writer of their own for each piece. (The writer reads
    // no text in whole words past its end: the decoder says for each how
    // far it may.)
    FusedJson* start() {
      out.begin(static_cast<std::size_t>(to - from), nullptr, 0);
      return &out.fused();
    }
  };

  // The bytes every item of the array at p_ is likely to start with: the
  // head of a map and its first key, a short text. Empty for other items.
  std::string_view item_start() const {
    if (left() < 3 || (*p_ >> 5) != 5) return {};
    const std::uint8_t ai = *p_ & 31;
    const std::size_t head = ai < 24    ? 1
                             : ai <= 27 ? 1 + (std::size_t{1} << (ai - 24))
                                        : 0;
    if (head == 0 && ai != 31) return {};
    const std::size_t h = head == 0 ? 1 : head;
    if (left() <= h) return {};
    const std::size_t key = static_cast<std::uint8_t>(p_[h] - 0x60);
    if (key == 0 || key >= 24 || left() < h + 1 + key) return {};
    return {reinterpret_cast<const char*>(p_), h + 1 + key};
  }

  // The first place a piece's worth of bytes after `from` that starts
  // with `start`, or nullptr.
  const std::uint8_t* likely_item(const std::uint8_t* from,
                                  std::string_view start) const {
    if (static_cast<std::size_t>(end_ - from) <= split_->piece) return nullptr;
    const std::uint8_t* at = from + split_->piece;
    const void* found = memmem(at, static_cast<std::size_t>(end_ - at),
                               start.data(), start.size());
    return static_cast<const std::uint8_t*>(found);
  }

  // A non-text key's JSON text may be at most this many bytes per byte of
  // its encoding, plus the slack (a 2-byte tag 1 date renders as 20).
  static constexpr std::size_t kKeyTextPerByte = 16;
  static constexpr std::size_t kKeyTextSlack = 1024;

  // Reads one map key and passes it to `c`; returns the handler for the
  // member's value.
  template <class H>
  H* map_key(H* c, std::uint32_t depth) {
    const std::size_t off = pos();
    const std::size_t n = static_cast<std::uint8_t>(*p_ - 0x60);
    if (n < 24 && n < left()) {
      // A short text key, as value() reads one.
      ++p_;
      bool plain = true;
      const std::string_view t = short_text(n, plain);
      if (c == nullptr) return nullptr;
      try {
        return child(c, send_key(*c, t, plain, readable(t)));
      } catch (Error& e) {
        located(e, off);
        throw;
      }
    }
    const std::uint8_t major = *p_ >> 5;
    if (major == 3) {
      const Head hd = head();
      const Text t = text(hd);
      if (c == nullptr) return nullptr;
      try {
        return child(c, send_key(*c, t.s, t.plain, t.readable));
      } catch (Error& e) {
        located(e, off);
        throw;
      }
    }
    if (opts_.keys_error) {
      fail(Errc::type_mismatch,
           std::string("map key must be a text string, found ") +
               major_name(major),
           off);
    }
    std::string rendered;
    KeyText kt(rendered);
    item(&kt, depth + 1);
    // A non-text key inside a non-text key is escaped again at each level,
    // which doubles every backslash: 30 nested levels in 100 bytes would
    // render as gigabytes. Keys whose text outgrows their encoding this
    // much are refused (legitimate keys stay far below: a bignum key
    // renders at 2.5 characters per byte, a float64 at 3).
    const std::size_t raw = pos() - off;
    if (rendered.size() > kKeyTextPerByte * raw + kKeyTextSlack) {
      fail(Errc::unsupported,
           "map key of " + std::to_string(raw) + " bytes renders as " +
               std::to_string(rendered.size()) +
               " bytes of JSON text, beyond the limit",
           off);
    }
    if (c == nullptr) return nullptr;
    try {
      return child(c, c->key(rendered));
    } catch (Error& e) {
      located(e, off);
      throw;
    }
  }

  template <class H>
  [[gnu::noinline]] void map(const Head& hd, H* h, std::uint32_t depth) {
    check_depth(hd, depth);
    if (!hd.indefinite && hd.arg > left() / 2) implausible_when_sniffing(hd);
    if (!hd.indefinite && hd.arg > left() / 2 && !sniffing_) {
      fail(Errc::unexpected_end,
           "map of " + std::to_string(hd.arg) + " pairs exceeds the input (" +
               std::to_string(left()) + " bytes left)",
           hd.offset);
    }
    H* c = child(h, h != nullptr ? h->begin_object() : Flow::visit);
    for (std::uint64_t i = 0; hd.indefinite || i < hd.arg; ++i) {
      if (at_end()) fail_end("map");
      if (*p_ == 0xff) {
        if (hd.indefinite) {
          ++p_;
          break;
        }
        fail(Errc::syntax, "unexpected break", pos());
      }
      __builtin_prefetch(p_ + 512);
      H* v = map_key(live(c), depth);
      if (at_end()) fail_end("map");
      value(live(v), depth + 1);
      if (p_ > next_give_) [[unlikely]] {
        give_back();
      }
    }
    if (live(c) != nullptr) c->end_object();
  }

  static double float_of(const Head& hd) {
    double d = 0;
    if (hd.ai == 25) {
      d = half_to_double(static_cast<std::uint16_t>(hd.arg));
    } else if (hd.ai == 26) {
      float f;
      const auto bits = static_cast<std::uint32_t>(hd.arg);
      std::memcpy(&f, &bits, 4);
      d = f;
    } else {
      std::memcpy(&d, &hd.arg, 8);
    }
    return d;
  }

  template <class H>
  void simple(const Head& hd, H* h) {
    switch (hd.ai) {
      case 20:
      case 21:
        if (h != nullptr) h->bool_value(hd.ai == 21);
        return;
      case 22:
        if (h != nullptr) h->null_value();
        return;
      case 25:
      case 26:
      case 27:
        if (h != nullptr) h->double_value(float_of(hd));
        return;
      default:
        // undefined (23) and unassigned simple values have no JSON or jbx
        // equivalent: they read as null. A two-byte simple value below 32
        // is not well-formed (RFC 8949 3.3).
        if (hd.ai == 24 && hd.arg < 32) {
          fail(Errc::syntax,
               "invalid simple value " + std::to_string(hd.arg) +
                   " in two-byte form",
               hd.offset);
        }
        // Sniffing: MessagePack's negative fixints (0xe0-0xff) look like
        // these; JSON-derived CBOR never contains them.
        if (sniffing_) {
          fail(Errc::syntax, "unassigned simple value", hd.offset);
        }
        if (h != nullptr) h->null_value();
        return;
    }
  }

  // ---- tags ----

  [[noreturn]] void bad_content(std::uint64_t tag, const char* expected,
                                std::size_t offset) {
    fail(Errc::type_mismatch,
         "tag " + std::to_string(tag) + " expects " + expected, offset);
  }

  // Content of tags 2 and 3, as exact decimal text.
  std::string bignum(std::uint64_t tag) {
    if (at_end()) fail_end("tag");
    const std::size_t off = pos();
    if ((*p_ >> 5) != 2) bad_content(tag, "a byte string", off);
    const Head b = head();
    auto magnitude = bytes(b);
    while (!magnitude.empty() && magnitude.front() == 0) {
      magnitude = magnitude.subspan(1);
    }
    if (magnitude.size() > cbor::detail::kMaxBignumBytes) {
      fail(Errc::unsupported,
           "bignum of " + std::to_string(magnitude.size()) +
               " bytes is longer than " +
               std::to_string(cbor::detail::kMaxBignumBytes) + " bytes",
           off);
    }
    std::string digits = cbor::detail::bytes_to_decimal(magnitude);
    if (tag == 3) return "-" + cbor::detail::decimal_increment(digits);
    return digits;
  }

  // An integer of major type 0 or 1 that fits int64 (exponents of tags 4
  // and 5).
  std::int64_t small_int(std::uint64_t tag, const char* what) {
    if (at_end()) fail_end("array");
    const std::size_t off = pos();
    const std::uint8_t major = *p_ >> 5;
    if (major > 1) bad_content(tag, what, off);
    const Head n = head();
    if (n.arg > static_cast<std::uint64_t>(INT64_MAX)) {
      fail(Errc::unsupported,
           "exponent of tag " + std::to_string(tag) + " is out of range", off);
    }
    const auto v = static_cast<std::int64_t>(n.arg);
    return major == 0 ? v : -1 - v;
  }

  // Tags 4 and 5: [exponent, mantissa]; the mantissa is an integer or a
  // bignum. Returns {negative, magnitude digits, exponent}.
  struct Scaled {
    bool negative;
    std::string digits;
    std::int64_t exp;
  };
  Scaled scaled(std::uint64_t tag) {
    constexpr const char* kWhat = "an array of an exponent and a mantissa";
    if (at_end()) fail_end("tag");
    const std::size_t off = pos();
    if ((*p_ >> 5) != 4) bad_content(tag, kWhat, off);
    const Head a = head();
    if (!a.indefinite && a.arg != 2) bad_content(tag, kWhat, off);
    Scaled s{false, {}, 0};
    s.exp = small_int(tag, kWhat);
    if (at_end()) fail_end("array");
    const std::size_t moff = pos();
    const std::uint8_t major = *p_ >> 5;
    if (major <= 1) {
      const Head m = head();
      s.negative = major == 1;
      s.digits = std::to_string(m.arg);
      if (s.negative) s.digits = cbor::detail::decimal_increment(s.digits);
    } else if (major == 6) {
      const Head t = head();
      if (t.indefinite || (t.arg != 2 && t.arg != 3)) {
        bad_content(tag, kWhat, moff);
      }
      std::string n = bignum(t.arg);
      s.negative = n[0] == '-';
      s.digits = s.negative ? n.substr(1) : std::move(n);
    } else {
      bad_content(tag, kWhat, moff);
    }
    if (a.indefinite) {
      if (at_end()) fail_end("array");
      if (*p_ != 0xff) bad_content(tag, kWhat, off);
      ++p_;
    }
    return s;
  }

  // Longest run of zeros a decimal fraction is spelled out with before
  // exponent notation is used instead ("5e-70", not 70 zeros).
  static constexpr std::uint64_t kMaxZeros = 64;

  static std::string decimal_text(bool negative, std::string digits,
                                  std::int64_t exp,
                                  std::uint64_t max_zeros = kMaxZeros) {
    std::string out = negative && digits != "0" ? "-" : "";
    if (exp >= 0) {
      const auto e = static_cast<std::uint64_t>(exp);
      if (digits == "0") {
        out += e <= max_zeros ? "0" : "0e" + std::to_string(e);
      } else if (e <= max_zeros) {
        out += digits;
        out.append(e, '0');
      } else {
        out += digits + "e" + std::to_string(e);
      }
      return out;
    }
    // -(exp + 1) + 1 avoids negating INT64_MIN.
    const std::uint64_t k = static_cast<std::uint64_t>(-(exp + 1)) + 1;
    const std::uint64_t len = digits.size();
    if (k < len) {
      out += digits.substr(0, len - k);
      out.push_back('.');
      out += digits.substr(len - k);
    } else if (k - len <= max_zeros) {
      out += "0.";
      out.append(k - len, '0');
      out += digits;
    } else {
      out += digits + "e-" + std::to_string(k);
    }
    return out;
  }

  // Beyond this a bigfloat's exact decimal has over 11 000 digits.
  static constexpr std::int64_t kMaxBinaryExponent = 16384;

  std::string bigfloat_text(Scaled s, std::size_t off) {
    if (s.exp > kMaxBinaryExponent || s.exp < -kMaxBinaryExponent) {
      fail(Errc::unsupported,
           "bigfloat exponent " + std::to_string(s.exp) + " is beyond +-16384",
           off);
    }
    if (s.exp >= 0) {
      return decimal_text(s.negative,
                          cbor::detail::decimal_mul_pow(
                              s.digits, static_cast<std::uint32_t>(s.exp), 0),
                          0);
    }
    // m * 2^-k = m * 5^k / 10^k: always a finite decimal.
    auto k = static_cast<std::uint32_t>(-s.exp);
    std::string digits = cbor::detail::decimal_mul_pow(s.digits, 0, k);
    while (k > 0 && digits.size() > 1 && digits.back() == '0') {
      digits.pop_back();
      --k;
    }
    // Spelled out in full: the exponent bound keeps it below 16384 chars.
    return decimal_text(s.negative, std::move(digits),
                        -static_cast<std::int64_t>(k), UINT64_MAX);
  }

  template <class H>
  [[gnu::noinline]] void tag(const Head& hd, H* h, std::uint32_t depth) {
    check_depth(hd, depth);
    if (at_end()) fail_end("tag");
    const std::uint64_t t = hd.arg;
    const std::size_t off = pos();
    const std::uint8_t major = *p_ >> 5;
    switch (t) {
      case 0: {
        if (major != 3) bad_content(0, "a text string", off);
        const std::string_view s = text(head()).s;
        const auto ts = cbor::detail::parse_rfc3339(s);
        if (!ts) {
          fail(Errc::syntax, "invalid RFC 3339 date-time in tag 0", off);
        }
        if (h != nullptr) h->timestamp_value(*ts);
        return;
      }
      case 1: {
        Timestamp ts;
        if (major <= 1) {
          const Head n = head();
          if (n.arg > static_cast<std::uint64_t>(INT64_MAX)) {
            fail(Errc::unsupported, "epoch time in tag 1 is out of range", off);
          }
          const auto v = static_cast<std::int64_t>(n.arg);
          ts.seconds = major == 0 ? v : -1 - v;
        } else if (major == 7 && (*p_ & 31) >= 25 && (*p_ & 31) <= 27) {
          const double d = float_of(head());
          const auto r = cbor::detail::instant_from_double(d);
          if (!r) {
            fail(Errc::unsupported, "epoch time in tag 1 is out of range", off);
          }
          ts = *r;
        } else {
          bad_content(1, "a number", off);
        }
        if (h != nullptr) h->timestamp_value(ts);
        return;
      }
      case 2:
      case 3: {
        const std::string n = bignum(t);
        if (h != nullptr) h->number_text(n);
        return;
      }
      case 4: {
        Scaled s = scaled(4);
        const std::string n =
            decimal_text(s.negative, std::move(s.digits), s.exp);
        if (h != nullptr) h->number_text(n);
        return;
      }
      case 5: {
        const std::string n = bigfloat_text(scaled(5), off);
        if (h != nullptr) h->number_text(n);
        return;
      }
      case 100: {
        // RFC 8943: days since 1970-01-01. +-10^11 days is far beyond
        // any calendar use and keeps the seconds inside int64.
        if (major > 1) bad_content(100, "an integer", off);
        const Head n = head();
        if (n.arg > 100'000'000'000ull) {
          fail(Errc::unsupported, "date in tag 100 is out of range", off);
        }
        const auto v = static_cast<std::int64_t>(n.arg);
        Timestamp ts;
        ts.kind = Timestamp::Kind::local_date;
        ts.seconds = (major == 0 ? v : -1 - v) * 86400;
        ts.precision = 0;
        if (h != nullptr) h->timestamp_value(ts);
        return;
      }
      case 1004: {
        if (major != 3) bad_content(1004, "a text string", off);
        const auto ts = cbor::detail::parse_full_date(text(head()).s);
        if (!ts)
          fail(Errc::syntax, "invalid RFC 3339 full-date in tag 1004", off);
        if (h != nullptr) h->timestamp_value(*ts);
        return;
      }
      case 27:
        // [type name, value]: jbx's carrier for JSONB type names.
        if (*p_ == 0x82 && left() >= 2 && (p_[1] >> 5) == 3) {
          ++p_;
          const std::string_view name = text(head()).s;
          std::string kept(name);
          if (h != nullptr) {
            Annotation a;
            a.kind = Annotation::Kind::type_name;
            a.name = kept;
            h->annotation(a);
          }
          if (at_end()) fail_end("array");
          return item(h, depth + 1);
        }
        break;
      case 55799:  // self-described CBOR: no meaning beyond the marker
        return item(h, depth + 1);
      default:
        if (passes_through(t)) return item(h, depth + 1);
        break;
    }
    if (h != nullptr) {
      Annotation a;
      a.kind = Annotation::Kind::cbor_tag;
      a.tag = t;
      h->annotation(a);
    }
    item(h, depth + 1);
  }

  const std::uint8_t* begin_;
  const std::uint8_t* end_;
  const std::uint8_t* p_;
  const std::uint8_t* next_give_;
  const ReadOptions& opts_;
  bool sniffing_;
  bool stopped_ = false;
  Split* split_ = nullptr;
  Handler* counted_ = nullptr;
  // Source::give_back() once p_ is past next_give_ (end_: never).
  static constexpr std::size_t kGiveStep = std::size_t{4} << 20;
  const std::uint8_t* step_on(const std::uint8_t* p) const {
    return static_cast<std::size_t>(end_ - p) > kGiveStep ? p + kGiveStep
                                                          : end_;
  }
  [[gnu::noinline]] void give_back() {
    if (give_back_ != nullptr) give_back_->give_back(base_ + pos());
    next_give_ = step_on(p_);
  }
  Source* give_back_ = nullptr;
  std::uint64_t base_ = 0;
  std::string scratch_;
};

// The JSON Pointer of the value that holds byte `target` of the CBOR item
// at the start of `b`, for an error there: the decoder keeps no path as it
// reads, so the item is walked again up to that byte, in one pass over the
// heads and lengths. An error at a map key, or in one that is not a text
// string or an integer, names the map; one where the input ends between
// items names the container cut short (or, in a map, the member whose
// value is missing).
std::string error_pointer(const std::uint8_t* b, std::size_t n,
                          std::size_t target, std::uint32_t max_depth) {
  struct Frame {
    enum Kind : std::uint8_t { array, map, chunks };
    Frame(Kind k, bool indef, std::uint64_t items)
        : kind(k), indefinite(indef), count(items) {}
    Kind kind;
    bool indefinite;
    std::uint64_t count;  // items (a map's keys and values both)
    std::uint64_t done = 0;
    bool named = false;  // a map: `key` names the value being read
    std::string key;
  };
  std::vector<Frame> st;
  std::size_t p = 0;
  bool cut_short = false;  // the input ends between items
  bool in_key = false;     // the error is inside a map key
  const auto complete = [&st] {
    // An item ended: its container counts it, and ends with its last one.
    while (!st.empty()) {
      Frame& f = st.back();
      ++f.done;
      if (f.indefinite || f.done < f.count) return;
      st.pop_back();
    }
  };
  while (p < target) {
    if (p >= n) {
      cut_short = true;
      break;
    }
    const std::uint8_t ib = b[p];
    if (ib == 0xff) {
      // A break ends an indefinite container, which is then an item.
      if (st.empty() || !st.back().indefinite) break;
      ++p;
      st.pop_back();
      complete();
      continue;
    }
    const unsigned major = ib >> 5;
    const unsigned ai = ib & 31;
    std::size_t size = 1;
    if (ai >= 24 && ai <= 27) size += std::size_t{1} << (ai - 24);
    if (ai >= 28 && ai <= 30) break;  // malformed: the error is here
    if (n - p < size || p + size > target) break;  // in the head
    std::uint64_t arg = ai;
    if (ai >= 24 && ai <= 27) {
      arg = 0;
      for (std::size_t i = 1; i < size; ++i) arg = arg << 8 | b[p + i];
    }
    const bool indefinite = ai == 31;
    Frame* top = st.empty() ? nullptr : &st.back();
    const bool key =
        top != nullptr && top->kind == Frame::map && top->done % 2 == 0;
    if (major == 6) {  // a tag: the tagged item takes its place
      p += size;
      continue;
    }
    if (major == 4 || major == 5) {
      if (key) {
        top->named = false;  // a container as a key: no pointer token
      }
      if (st.size() >= max_depth) break;
      // (A count the input cannot hold is not read that far.)
      const std::uint64_t items =
          major == 5 && !indefinite
              ? (arg > UINT64_MAX / 2 ? UINT64_MAX : 2 * arg)
              : arg;
      p += size;
      if (!indefinite && items == 0) {
        complete();
        continue;
      }
      st.emplace_back(major == 4 ? Frame::array : Frame::map, indefinite,
                      items);
      continue;
    }
    if ((major == 2 || major == 3) && indefinite) {
      if (key) top->named = false;
      p += size;
      st.emplace_back(Frame::chunks, true, 0);
      continue;
    }
    // A scalar, with its payload for strings.
    const bool text = major == 2 || major == 3;
    if (text && arg > n - p - size) {
      in_key = key;
      break;  // cut short inside it
    }
    const std::size_t end =
        p + size + (text ? static_cast<std::size_t>(arg) : 0);
    if (end > target) {
      in_key = key;
      break;  // the error is inside it
    }
    if (key) {
      top->named = true;
      if (major == 3) {
        top->key.assign(reinterpret_cast<const char*>(b + p + size),
                        static_cast<std::size_t>(arg));
      } else if (major == 0) {
        top->key = std::to_string(arg);
      } else if (major == 1) {
        top->key = "-" + cbor::detail::decimal_increment(std::to_string(arg));
      } else {
        top->named = false;
      }
    }
    p = end;
    complete();
  }
  std::string out;
  for (std::size_t i = 0; i < st.size(); ++i) {
    const Frame& f = st[i];
    const bool last = i + 1 == st.size();
    if (f.kind == Frame::chunks) break;
    if (f.kind == Frame::array) {
      if (last && cut_short) break;
      out += '/';
      out += std::to_string(f.done);
      continue;
    }
    // A map: its value being read, named by its key.
    if (f.done % 2 == 0 || !f.named || (last && in_key)) break;
    msgpack::detail::append_pointer_token(out, f.key);
  }
  return out;
}

}  // namespace

CborReader::CborReader(Source& in, const ReadOptions& o)
    : in_(in),
      opts_(o),
      split_from_(Worker::useful() ? std::size_t{16} << 20 : SIZE_MAX) {}

CborReader::~CborReader() = default;

void CborReader::set_split(std::size_t from, std::size_t piece) {
  split_from_ = from;
  split_piece_ = piece;
}

bool CborReader::read_document(Handler& out) {
  // From a pipe, the window is filled until it holds the whole item (a
  // pass without events finds its end), so that memory follows the
  // largest item, not the input. At the end of the input, the decode
  // below reports what is cut short.
  const std::string_view w = in_.document_window(
      pos_, [this](std::string_view v) { return complete_item(v); });
  if (w.empty()) return false;
  Decoder d(reinterpret_cast<const std::uint8_t*>(w.data()), w.size(), 0, opts_,
            false);
  try {
    // The common case, conversion to JSON without transforms: devirtualised.
    auto* json = dynamic_cast<JsonWriter*>(&out);
    // The fused features in front of it, called directly too (not when
    // they would be told a top-level array's count, as the other handlers
    // are below).
    auto* fused = json == nullptr ? dynamic_cast<FusedJson*>(&out) : nullptr;
    if (fused != nullptr && fused->takes_array_count()) fused = nullptr;
    const bool apart =
        json != nullptr || (fused != nullptr && fused->items_apart());
    if (apart && w.size() >= split_from_) {
      if (worker_ == nullptr) worker_ = std::make_unique<Worker>();
      // (Pages are not given back behind a split array: on two threads
      // that cost more time than the memory it saves is worth here.)
      Split split{*worker_, split_piece_};
      d.set_split(&split);
      try {
        if (json != nullptr) {
          d.item(json, 0);
        } else {
          d.item(fused, 0);
        }
      } catch (...) {
        pieces_apart_ += split.kept;
        throw;
      }
      pieces_apart_ += split.kept;
    } else if (json != nullptr) {
      d.set_give_back(in_, pos_);
      d.item(json, 0);
    } else if (fused != nullptr) {
      d.set_give_back(in_, pos_);
      d.item(fused, 0);
    } else {
      d.set_counted(out.takes_array_count() ? &out : nullptr);
      d.set_give_back(in_, pos_);
      d.item(&out, 0);
    }
  } catch (Error& e) {
    if (e.offset) {
      if (e.pointer.empty()) {
        e.pointer =
            error_pointer(reinterpret_cast<const std::uint8_t*>(w.data()),
                          w.size(), *e.offset, opts_.max_depth);
      }
      *e.offset += pos_;  // the decoder counts from the window
    }
    throw;
  }
  pos_ += d.pos();
  out.end_document();
  return true;
}

bool CborReader::complete_item(std::string_view w) const {
  Decoder d(reinterpret_cast<const std::uint8_t*>(w.data()), w.size(), 0, opts_,
            false);
  try {
    d.item<Handler>(nullptr, 0);
  } catch (const Error& e) {
    return e.code != Errc::unexpected_end;
  }
  return true;
}

namespace cbor {

bool sniff(std::string_view head) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(head.data());
  if (head.size() >= 3 && p[0] == 0xd9 && p[1] == 0xd9 && p[2] == 0xf7) {
    return true;
  }
  const ReadOptions o;
  if (!head.empty() && p[0] >= 0x60 && p[0] <= 0x7f && p[0] != 't' &&
      p[0] != 'f' && p[0] != 'n' && p[0] != '{') {
    // A text string head (0x60-0x7f) is an ASCII character, so text can
    // look like one. Taken for CBOR: one string that ends exactly where
    // the head does (for a short input, where the input does), and never
    // from a byte that starts JSON text.
    try {
      Decoder d(p, head.size(), 0, o, true);
      d.item<Handler>(nullptr, 0);
      return d.at_end();
    } catch (const Error&) {
      return false;
    }
  }
  // Otherwise only a first byte that JSON text can never start with: an
  // array (0x80-0x9f), map (0xa0-0xbf) or tag (0xc0-0xdb) head. Every
  // ASCII byte, and the UTF-8 BOM (0xef), is outside that range.
  if (head.empty() || p[0] < 0x80 || p[0] > 0xdb) return false;
  // Then the whole peeked head must decode as CBOR items, with the tags'
  // content rules and UTF-8 checked, up to where the head is cut off.
  try {
    Decoder d(p, head.size(), 0, o, true);
    while (!d.at_end()) d.item<Handler>(nullptr, 0);
  } catch (const Error& e) {
    return e.code == Errc::unexpected_end;
  }
  return true;
}

}  // namespace cbor

}  // namespace jbx
