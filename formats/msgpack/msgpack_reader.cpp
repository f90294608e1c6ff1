#include "formats/msgpack/msgpack_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "core/error.h"
#include "formats/binary_text.h"
#include "formats/json/json_fused.h"
#include "formats/json/json_writer.h"
#include "formats/msgpack/msgpack_text.h"

namespace jbx::msgpack {

namespace {

// Pipes are read in blocks of this size; the buffer doubles only when a
// single value needs more, so a length field never sizes an allocation.
constexpr std::size_t kBlock = std::size_t{1} << 16;

// A non-string map key is rendered recursively; this bounds that recursion
// independently of --max-depth.
constexpr std::size_t kMaxKeyDepth = 64;

// The JSON text of a non-string key is bounded too: a map used as a key
// inside a map used as a key is escaped once per level, so its text can
// double per level (a 427-byte input rendered hundreds of megabytes).
constexpr std::size_t kMaxKeyText = std::size_t{1} << 20;

std::uint16_t load16(const std::uint8_t* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return __builtin_bswap16(v);
}
std::uint32_t load32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return __builtin_bswap32(v);
}
std::uint64_t load64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

[[noreturn]] void fail(Errc code, std::string msg, std::uint64_t at) {
  Error e(code, std::move(msg), at);
  e.binary = true;
  throw e;
}

}  // namespace

MsgpackReader::MsgpackReader(Source& in, const ReadOptions& options)
    : max_depth_(options.max_depth), keys_error_(options.keys_error) {
  if (in.size_hint() >= 0) {
    // A file, mapped whole: its pages are given back behind each document.
    mapped_ = &in;
    const std::string_view all = in.window(0);
    data_ = cur_ = reinterpret_cast<const std::uint8_t*>(all.data());
    end_ = data_ + all.size();
  } else {
    stream_ = &in;
  }
}

MsgpackReader::MsgpackReader(std::string_view bytes, const ReadOptions& options)
    : max_depth_(options.max_depth), keys_error_(options.keys_error) {
  data_ = cur_ = reinterpret_cast<const std::uint8_t*>(bytes.data());
  end_ = data_ + bytes.size();
}

std::uintptr_t MsgpackReader::step_on(const std::uint8_t* p) const {
  if (mapped_ == nullptr) return UINTPTR_MAX;
  return reinterpret_cast<std::uintptr_t>(p) +
         std::min(kGiveStep, static_cast<std::size_t>(end_ - p));
}

void MsgpackReader::give_back() {
  mapped_->give_back(offset());
  next_give_ = step_on(cur_);
}

bool MsgpackReader::refill(std::size_t n) {
  if (stream_ == nullptr || eof_) return false;
  auto filled = static_cast<std::size_t>(end_ - data_);
  auto pos = static_cast<std::size_t>(cur_ - data_);
  // Bytes before the current document are no longer referenced.
  const auto drop = static_cast<std::size_t>(doc_start_ - base_);
  if (drop > 0) {
    std::memmove(buf_.data(), buf_.data() + drop, filled - drop);
    filled -= drop;
    pos -= drop;
    base_ += drop;
  }
  const std::size_t want = pos + n;
  while (filled < want) {
    if (filled == buf_.size()) buf_.resize(std::max(kBlock, buf_.size() * 2));
    const std::size_t k =
        stream_->read(buf_.data() + filled, buf_.size() - filled);
    if (k == 0) {
      eof_ = true;
      break;
    }
    filled += k;
  }
  data_ = reinterpret_cast<const std::uint8_t*>(buf_.data());
  cur_ = data_ + pos;
  end_ = data_ + filled;
  return filled >= want;
}

void MsgpackReader::truncated(const char* what) const {
  fail(Errc::unexpected_end, fmt::format("unexpected end of input in {}", what),
       input_end());
}

void MsgpackReader::need_payload_slow(std::uint64_t n, const char* what) {
  if (!ensure(n)) {
    fail(Errc::unexpected_end,
         fmt::format("unexpected end of input in {}: {} bytes declared, {} "
                     "left",
                     what, n, end_ - cur_),
         input_end());
  }
}

std::string_view MsgpackReader::take_string(std::uint64_t len, const char* what,
                                            bool& plain) {
  need_payload(len, what);
  const jbx::detail::TextScan scan = jbx::detail::scan_text(cur_, len, end_);
  if (scan.invalid_at != jbx::detail::TextScan::npos) {
    fail(Errc::invalid_utf8,
         "invalid UTF-8 in string: " +
             jbx::detail::describe_invalid_utf8(
                 cur_ + scan.invalid_at,
                 static_cast<std::size_t>(len) - scan.invalid_at),
         offset() + scan.invalid_at);
  }
  plain = scan.plain;
  const std::string_view s(reinterpret_cast<const char*>(cur_), len);
  cur_ += len;
  return s;
}

namespace {

using jbx::detail::FusedJson;

// The first byte of the JSON text of the value whose first byte is `b`,
// for the features' plain_key(): '\0' when it depends on options (bin,
// ext, floats that may be NaN) or is not known.
char json_first(std::uint8_t b) {
  if (b <= 0x7f || (b >= 0xcc && b <= 0xd3)) return '0';
  if (b >= 0xe0) return '-';
  if ((b >= 0xa0 && b <= 0xbf) || (b >= 0xd9 && b <= 0xdb)) return '"';
  if ((b >= 0x90 && b <= 0x9f) || b == 0xdc || b == 0xdd) return '[';
  if ((b >= 0x80 && b <= 0x8f) || b == 0xde || b == 0xdf) return '{';
  switch (b) {
    case 0xc0:
      return 'n';
    case 0xc2:
      return 'f';
    case 0xc3:
      return 't';
    default:
      return '\0';
  }
}

}  // namespace

template <class H>
void MsgpackReader::deliver_string(H& out, std::uint64_t len,
                                   const char* what) {
  bool plain = false;
  const std::string_view s = take_string(len, what, plain);
  if constexpr (std::is_same_v<H, FusedJson>) {
    // Strings stay where they are until the document ends when the whole
    // input is in memory (a mapped file, or bytes), not in a stream's
    // buffer.
    jbx::detail::fused_string(out, s, plain, stream_ == nullptr);
  } else {
    jbx::detail::emit_string(out, s, plain,
                             static_cast<std::size_t>(end_ - cur_) + s.size());
  }
}

bool MsgpackReader::read_document(Handler& out) {
  doc_start_ = offset();
  if (mapped_ != nullptr) mapped_->window(doc_start_);
  next_give_ = step_on(cur_);
  if (!ensure(1)) return false;
  depth_ = 0;
  try {
    // The common case, conversion to JSON without transforms: devirtualised.
    if (auto* json = dynamic_cast<JsonWriter*>(&out)) {
      read_events(*json);
    } else if (auto* fused = dynamic_cast<FusedJson*>(&out);
               fused != nullptr && !fused->takes_array_count()) {
      // The features in front of it, called directly too (not when they
      // would be told a top-level array's count, as the others are below).
      counted_ = nullptr;
      read_events(*fused);
    } else {
      counted_ = out.takes_array_count() ? &out : nullptr;
      read_events(out);
    }
  } catch (Error& e) {
    if (!e.offset) {
      // Thrown by the consumer (a writer refusing a value): point at the
      // value in this input.
      e.offset = value_start_;
      e.binary = true;
    }
    if (e.pointer.empty()) e.pointer = pointer();
    throw;
  }
  out.end_document();
  return true;
}

template <class H>
void MsgpackReader::read_events(H& out) {
  value_start_ = offset();
  bool go_on = read_value(out);
  while (go_on && depth_ > 0) {
    if (reinterpret_cast<std::uintptr_t>(cur_) > next_give_) [[unlikely]] {
      give_back();
    }
    Frame& f = stack_[depth_ - 1];
    if (f.is_map) {
      if (f.state == Frame::State::in_value) f.state = Frame::State::key;
      if (f.state == Frame::State::key) {
        if (f.remaining == 0) {
          --depth_;
          out.end_object();
          continue;
        }
        --f.remaining;
        ++f.index;
        const Flow flow = read_key(out, f);
        if (flow == Flow::stop) {
          f.state = Frame::State::value;  // its value is still ahead
          go_on = false;
        } else if (flow == Flow::skip) {
          skip_values(1);
        } else {
          f.state = Frame::State::value;
        }
        continue;
      }
      f.state = Frame::State::in_value;
      if (!ensure(1)) truncated("map");
    } else {
      if (f.remaining == 0) {
        --depth_;
        out.end_array();
        continue;
      }
      if constexpr (!std::is_same_v<H, JsonWriter>) {
        // Between the items of the top-level array, the writer may
        // stream it.
        if (depth_ == 1 && f.index != 0 && counted_ != nullptr) {
          counted_->top_array_items(f.index + f.remaining);
        }
      }
      --f.remaining;
      ++f.index;
      if (!ensure(1)) truncated("array");
    }
    value_start_ = offset();
    go_on = read_value(out);  // may push a frame: `f` is stale after this
  }
  if (!go_on) {
    // The consumer stopped: step over the rest of the document without
    // events, so the next read_document starts at the next value.
    for (std::size_t k = depth_; k-- > 0;) {
      const Frame& f = stack_[k];
      std::uint64_t left = f.remaining;
      if (f.is_map) {
        left *= 2;
        if (f.state == Frame::State::value) ++left;
      }
      skip_values(left);
    }
    depth_ = 0;
  }
}

template <class H>
bool MsgpackReader::push(H& out, bool is_map, std::uint64_t n,
                         std::uint64_t at) {
  if (depth_ >= max_depth_) {
    fail(Errc::depth_limit,
         fmt::format("nesting deeper than {} levels", max_depth_), at);
  }
  const Flow flow = is_map ? out.begin_object() : out.begin_array();
  if (flow != Flow::visit) {
    skip_values(is_map ? 2 * n : n);
    return flow == Flow::skip;
  }
  if (n == 0) {
    if (is_map) {
      out.end_object();
    } else {
      out.end_array();
    }
    return true;
  }
  if (depth_ == stack_.size()) stack_.emplace_back();
  Frame& f = stack_[depth_++];
  f.remaining = n;
  f.index = 0;
  f.is_map = is_map;
  f.state = Frame::State::key;
  f.key_is_text = false;
  return true;
}

template <class H>
bool MsgpackReader::read_value(H& out) {
  const std::uint64_t at = offset();
  const std::uint8_t b = *cur_++;
  if (b <= 0x7f) {
    jbx::detail::emit_int(out, b);
    return true;
  }
  if (b >= 0xe0) {
    jbx::detail::emit_int(out, static_cast<std::int8_t>(b));
    return true;
  }
  if (b <= 0x8f) return push(out, true, b & 0x0fu, at);
  if (b <= 0x9f) return push(out, false, b & 0x0fu, at);
  if (b <= 0xbf) {
    deliver_string(out, b & 0x1fu, "fixstr");
    return true;
  }
  switch (b) {
    case 0xc0:
      out.null_value();
      return true;
    case 0xc1:
      fail(Errc::syntax, "invalid type byte 0xc1", at);
    case 0xc2:
      out.bool_value(false);
      return true;
    case 0xc3:
      out.bool_value(true);
      return true;
    case 0xc4:
    case 0xc5:
    case 0xc6: {
      static constexpr const char* kNames[] = {"bin8", "bin16", "bin32"};
      const char* what = kNames[b - 0xc4];
      const std::size_t width = std::size_t{1} << (b - 0xc4);  // 1, 2, 4
      need(width, what);
      const std::uint64_t len = width == 1   ? *cur_
                                : width == 2 ? load16(cur_)
                                             : load32(cur_);
      cur_ += width;
      need_payload(len, what);
      out.bytes_value({cur_, static_cast<std::size_t>(len)});
      cur_ += len;
      return true;
    }
    case 0xc7:
    case 0xc8:
    case 0xc9: {
      static constexpr const char* kNames[] = {"ext8", "ext16", "ext32"};
      const char* what = kNames[b - 0xc7];
      const std::size_t width = std::size_t{1} << (b - 0xc7);
      need(width + 1, what);  // length, then the type byte
      const std::uint64_t len = width == 1   ? *cur_
                                : width == 2 ? load16(cur_)
                                             : load32(cur_);
      const auto type = static_cast<std::int8_t>(cur_[width]);
      cur_ += width + 1;
      deliver_ext(out, type, len, what, at);
      return true;
    }
    case 0xca: {
      need(4, "float32");
      out.double_value(std::bit_cast<float>(load32(cur_)));
      cur_ += 4;
      return true;
    }
    case 0xcb: {
      need(8, "float64");
      out.double_value(std::bit_cast<double>(load64(cur_)));
      cur_ += 8;
      return true;
    }
    case 0xcc:
      need(1, "uint8");
      jbx::detail::emit_int(out, *cur_);
      cur_ += 1;
      return true;
    case 0xcd:
      need(2, "uint16");
      jbx::detail::emit_int(out, load16(cur_));
      cur_ += 2;
      return true;
    case 0xce:
      need(4, "uint32");
      jbx::detail::emit_int(out, load32(cur_));
      cur_ += 4;
      return true;
    case 0xcf: {
      need(8, "uint64");
      const std::uint64_t v = load64(cur_);
      cur_ += 8;
      if (v <= static_cast<std::uint64_t>(INT64_MAX)) {
        jbx::detail::emit_int(out, static_cast<std::int64_t>(v));
      } else {
        out.uint_value(v);
      }
      return true;
    }
    case 0xd0:
      need(1, "int8");
      jbx::detail::emit_int(out, static_cast<std::int8_t>(*cur_));
      cur_ += 1;
      return true;
    case 0xd1:
      need(2, "int16");
      jbx::detail::emit_int(out, static_cast<std::int16_t>(load16(cur_)));
      cur_ += 2;
      return true;
    case 0xd2:
      need(4, "int32");
      jbx::detail::emit_int(out, static_cast<std::int32_t>(load32(cur_)));
      cur_ += 4;
      return true;
    case 0xd3:
      need(8, "int64");
      jbx::detail::emit_int(out, static_cast<std::int64_t>(load64(cur_)));
      cur_ += 8;
      return true;
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8: {
      static constexpr const char* kNames[] = {"fixext1", "fixext2", "fixext4",
                                               "fixext8", "fixext16"};
      const char* what = kNames[b - 0xd4];
      need(1, what);
      const auto type = static_cast<std::int8_t>(*cur_);
      cur_ += 1;
      deliver_ext(out, type, std::uint64_t{1} << (b - 0xd4), what, at);
      return true;
    }
    case 0xd9:
      need(1, "str8");
      cur_ += 1;
      deliver_string(out, cur_[-1], "str8");
      return true;
    case 0xda:
      need(2, "str16");
      cur_ += 2;
      deliver_string(out, load16(cur_ - 2), "str16");
      return true;
    case 0xdb:
      need(4, "str32");
      cur_ += 4;
      deliver_string(out, load32(cur_ - 4), "str32");
      return true;
    case 0xdc:
      need(2, "array16");
      cur_ += 2;
      return push(out, false, load16(cur_ - 2), at);
    case 0xdd:
      need(4, "array32");
      cur_ += 4;
      return push(out, false, load32(cur_ - 4), at);
    case 0xde:
      need(2, "map16");
      cur_ += 2;
      return push(out, true, load16(cur_ - 2), at);
    default:  // 0xdf
      need(4, "map32");
      cur_ += 4;
      return push(out, true, load32(cur_ - 4), at);
  }
}

template <class H>
void MsgpackReader::deliver_ext(H& out, std::int8_t type, std::uint64_t len,
                                const char* what, std::uint64_t at) {
  need_payload(len, what);
  const std::uint8_t* p = cur_;
  cur_ += len;
  if (type != -1) {
    char name[24];
    const auto r =
        fmt::format_to_n(name, sizeof name, "{}{}", kExtPrefix, int{type});
    Annotation a;
    a.kind = Annotation::Kind::type_name;
    a.name = std::string_view(name, r.size);
    out.annotation(a);
    out.bytes_value({p, static_cast<std::size_t>(len)});
    return;
  }
  // The timestamp extension: 32-bit seconds; 30-bit nanoseconds and 34-bit
  // seconds in one 64-bit word; or 32-bit nanoseconds and signed 64-bit
  // seconds (12 bytes). All big-endian.
  Timestamp t;
  t.kind = Timestamp::Kind::instant;
  if (len == 4) {
    t.seconds = load32(p);
    t.precision = 0;
  } else if (len == 8) {
    const std::uint64_t v = load64(p);
    t.nanos = static_cast<std::uint32_t>(v >> 34);
    t.seconds = static_cast<std::int64_t>(v & ((std::uint64_t{1} << 34) - 1));
  } else if (len == 12) {
    t.nanos = load32(p);
    t.seconds = static_cast<std::int64_t>(load64(p + 4));
  } else {
    fail(Errc::syntax,
         fmt::format("timestamp extension (type -1) with {} bytes of data, "
                     "expected 4, 8 or 12",
                     len),
         at);
  }
  if (t.nanos > 999'999'999) {
    fail(Errc::syntax,
         fmt::format("timestamp nanoseconds {} out of range (at most "
                     "999999999)",
                     t.nanos),
         at);
  }
  out.timestamp_value(t);
}

template <class H>
Flow MsgpackReader::read_key(H& out, Frame& f) {
  if (!ensure(1)) truncated("map");
  value_start_ = offset();
  const std::uint8_t b = *cur_;
  std::uint64_t len = 0;
  const char* what = "fixstr";
  if (b >= 0xa0 && b <= 0xbf) {
    cur_ += 1;
    len = b & 0x1fu;
  } else if (b == 0xd9) {
    what = "str8";
    need(2, what);
    len = cur_[1];
    cur_ += 2;
  } else if (b == 0xda) {
    what = "str16";
    need(3, what);
    len = load16(cur_ + 1);
    cur_ += 3;
  } else if (b == 0xdb) {
    what = "str32";
    need(5, what);
    len = load32(cur_ + 1);
    cur_ += 5;
  } else {
    f.key_text.clear();
    key_start_ = value_start_;
    render_key(f.key_text, 0, true);
    if (keys_error_) {
      std::string shown = f.key_text;
      if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
      fail(Errc::type_mismatch,
           fmt::format("map key {} is not a string", shown), value_start_);
    }
    f.key_is_text = true;
    return out.key(f.key_text);
  }
  f.key_at = offset();
  f.key_len = static_cast<std::uint32_t>(len);
  f.key_is_text = false;
  bool plain = false;
  const std::string_view k = take_string(len, what, plain);
  const auto readable = static_cast<std::size_t>(end_ - cur_) + k.size();
  if constexpr (std::is_same_v<H, FusedJson>) {
    return jbx::detail::fused_key(out, k, plain, stream_ == nullptr, readable,
                                  cur_ < end_ ? json_first(*cur_) : '\0');
  } else {
    return jbx::detail::emit_key(out, k, plain, readable);
  }
}

namespace {

// Renders one scalar as JSON text; string-like values (str, bin as base64,
// timestamps as ISO 8601) are quoted unless `bare`.
class ScalarText final : public Handler {
 public:
  ScalarText(std::string& out, bool bare) : out_(out), bare_(bare) {}
  Flow begin_object() override { return Flow::skip; }
  Flow key(std::string_view) override { return Flow::skip; }
  void end_object() override {}
  Flow begin_array() override { return Flow::skip; }
  void end_array() override {}
  void null_value() override { out_ += "null"; }
  void bool_value(bool b) override { out_ += b ? "true" : "false"; }
  void int_value(std::int64_t v) override { fmt::format_to(it(), "{}", v); }
  void uint_value(std::uint64_t v) override { fmt::format_to(it(), "{}", v); }
  void double_value(double v) override { detail::append_double(out_, v); }
  void number_text(std::string_view t) override { out_ += t; }
  void string_value(std::string_view s) override { text(s); }
  void bytes_value(std::span<const std::uint8_t> b) override {
    std::string s;
    detail::append_base64(s, b);
    text(s);
  }
  void timestamp_value(const Timestamp& t) override {
    std::string s;
    detail::append_iso8601(s, t);
    text(s);
  }
  void annotation(const Annotation&) override {}
  void end_document() override {}

 private:
  std::back_insert_iterator<std::string> it() {
    return std::back_inserter(out_);
  }
  void text(std::string_view s) {
    if (bare_) {
      out_ += s;
    } else {
      detail::append_json_string(out_, s);
    }
  }
  std::string& out_;
  bool bare_;
};

}  // namespace

void MsgpackReader::render_key(std::string& out, std::size_t depth, bool top) {
  if (depth_ + depth >= max_depth_ || depth >= kMaxKeyDepth) {
    fail(Errc::depth_limit,
         fmt::format("nesting deeper than {} levels",
                     depth >= kMaxKeyDepth ? kMaxKeyDepth : max_depth_),
         offset());
  }
  if (!ensure(1)) truncated("map key");
  const std::uint8_t b = *cur_;
  bool is_map = false;
  std::uint64_t n = 0;
  if (b >= 0x80 && b <= 0x9f) {
    is_map = b <= 0x8f;
    n = b & 0x0fu;
    cur_ += 1;
  } else if (b == 0xdc || b == 0xde) {
    need(3, b == 0xdc ? "array16" : "map16");
    is_map = b == 0xde;
    n = load16(cur_ + 1);
    cur_ += 3;
  } else if (b == 0xdd || b == 0xdf) {
    need(5, b == 0xdd ? "array32" : "map32");
    is_map = b == 0xdf;
    n = load32(cur_ + 1);
    cur_ += 5;
  } else {
    // A scalar: read_value only pushes frames for containers.
    ScalarText text(out, top);
    read_value(text);
    return;
  }
  out += is_map ? '{' : '[';
  for (std::uint64_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    if (is_map) {
      if (!ensure(1)) truncated("map key");
      std::string inner;
      render_key(inner, depth + 1, true);
      detail::append_json_string(out, inner);
      out += ':';
      check_key_text(out);
    }
    render_key(out, depth + 1, false);
    check_key_text(out);
  }
  out += is_map ? '}' : ']';
}

void MsgpackReader::check_key_text(const std::string& text) const {
  if (text.size() > kMaxKeyText) {
    fail(Errc::unsupported,
         fmt::format("map key longer than {} bytes as JSON text", kMaxKeyText),
         key_start_);
  }
}

void MsgpackReader::skip_values(std::uint64_t count) {
  while (count > 0) {
    --count;
    if (!ensure(1)) truncated("skipped value");
    const std::uint8_t b = *cur_++;
    if (b <= 0x7f || b >= 0xe0) continue;
    if (b <= 0x8f) {
      count += 2 * (b & 0x0fu);
      continue;
    }
    if (b <= 0x9f) {
      count += b & 0x0fu;
      continue;
    }
    std::uint64_t skip = 0;
    const char* what = "fixstr";
    if (b <= 0xbf) {
      skip = b & 0x1fu;
    } else {
      switch (b) {
        case 0xc0:
        case 0xc2:
        case 0xc3:
          continue;
        case 0xc1:
          fail(Errc::syntax, "invalid type byte 0xc1", offset() - 1);
        case 0xc4:
        case 0xd9:
          what = b == 0xc4 ? "bin8" : "str8";
          need(1, what);
          skip = 1 + *cur_;
          break;
        case 0xc5:
        case 0xda:
          what = b == 0xc5 ? "bin16" : "str16";
          need(2, what);
          skip = 2 + std::uint64_t{load16(cur_)};
          break;
        case 0xc6:
        case 0xdb:
          what = b == 0xc6 ? "bin32" : "str32";
          need(4, what);
          skip = 4 + std::uint64_t{load32(cur_)};
          break;
        case 0xc7:
          what = "ext8";
          need(1, what);
          skip = 2 + *cur_;
          break;
        case 0xc8:
          what = "ext16";
          need(2, what);
          skip = 3 + std::uint64_t{load16(cur_)};
          break;
        case 0xc9:
          what = "ext32";
          need(4, what);
          skip = 5 + std::uint64_t{load32(cur_)};
          break;
        case 0xca:
          skip = 4;
          what = "float32";
          break;
        case 0xcb:
          skip = 8;
          what = "float64";
          break;
        case 0xcc:
        case 0xd0:
          skip = 1;
          what = "int8";
          break;
        case 0xcd:
        case 0xd1:
          skip = 2;
          what = "int16";
          break;
        case 0xce:
        case 0xd2:
          skip = 4;
          what = "int32";
          break;
        case 0xcf:
        case 0xd3:
          skip = 8;
          what = "int64";
          break;
        case 0xd4:
        case 0xd5:
        case 0xd6:
        case 0xd7:
        case 0xd8:
          skip = 1 + (std::uint64_t{1} << (b - 0xd4));
          what = "fixext";
          break;
        case 0xdc:
          need(2, "array16");
          count += load16(cur_);
          cur_ += 2;
          continue;
        case 0xdd:
          need(4, "array32");
          count += load32(cur_);
          cur_ += 4;
          continue;
        case 0xde:
          need(2, "map16");
          count += 2 * std::uint64_t{load16(cur_)};
          cur_ += 2;
          continue;
        default:  // 0xdf
          need(4, "map32");
          count += 2 * std::uint64_t{load32(cur_)};
          cur_ += 4;
          continue;
      }
    }
    need_payload(skip, what);
    cur_ += skip;
  }
}

std::string MsgpackReader::pointer() const {
  std::string p;
  for (std::size_t k = 0; k < depth_; ++k) {
    const Frame& f = stack_[k];
    if (!f.is_map) {
      if (f.index > 0) p += fmt::format("/{}", f.index - 1);
    } else if (f.state != Frame::State::key) {
      if (f.key_is_text) {
        detail::append_pointer_token(p, f.key_text);
      } else {
        const auto* k0 = data_ + (f.key_at - base_);
        detail::append_pointer_token(
            p, std::string_view(reinterpret_cast<const char*>(k0), f.key_len));
      }
    }
  }
  return p;
}

}  // namespace jbx::msgpack
