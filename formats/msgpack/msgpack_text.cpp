#include "formats/msgpack/msgpack_text.h"

#include <simdjson.h>

#include "core/datetime.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace jbx::msgpack::detail {

void append_base64(std::string& out, std::span<const std::uint8_t> bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::size_t i = 0;
  const std::size_t n = bytes.size();
  for (; i + 3 <= n; i += 3) {
    const std::uint32_t v = (std::uint32_t{bytes[i]} << 16) |
                            (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (n - i == 1) {
    const std::uint32_t v = std::uint32_t{bytes[i]} << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (n - i == 2) {
    const std::uint32_t v =
        (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
}

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c >= 0x20) {
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\b') {
      out += "\\b";
    } else if (c == '\f') {
      out += "\\f";
    } else {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  out += '"';
}

void append_double(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "NaN";
    return;
  }
  if (std::isinf(d)) {
    out += d < 0 ? "-Infinity" : "Infinity";
    return;
  }
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  const std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
  out += text;
  // Keep it a JSON double: "1" would read back as an integer.
  if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
}

void append_iso8601(std::string& out, const Timestamp& t) {
  const bool offset = t.kind == Timestamp::Kind::instant && t.has_offset;
  datetime::Fields f = datetime::fields_from_local(
      offset ? t.seconds + t.offset_seconds : t.seconds, t.nanos);
  f.offset = offset ? t.offset_seconds : 0;
  switch (t.kind) {
    case Timestamp::Kind::local_date:
      datetime::format_iso_date(f, out);
      return;
    case Timestamp::Kind::local_time:
      datetime::format_iso_time(f, out);
      return;
    case Timestamp::Kind::local_date_time:
      datetime::format_iso_local(f, out);
      return;
    case Timestamp::Kind::instant:
      datetime::format_iso_instant(f, out);
      return;
  }
}

void append_pointer_token(std::string& out, std::string_view token) {
  out += '/';
  for (const char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
}

std::size_t find_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned lo = 0x80;
    unsigned hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + 1 >= n || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      if (i + k >= n || (p[i + k] & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return n;
}

bool is_valid_utf8(std::string_view s) {
  if (s.size() < 32) {
    for (const char c : s) {
      if (static_cast<unsigned char>(c) >= 0x80) {
        return find_invalid_utf8(s) == s.size();
      }
    }
    return true;
  }
  return simdjson::validate_utf8(s.data(), s.size());
}

}  // namespace jbx::msgpack::detail
