// Helpers shared by the MessagePack unit tests: hex input, an event recorder
// that shows every event's type, and error rendering. Test code only.
#pragma once

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "core/error.h"
#include "core/events.h"
#include "core/options.h"
#include "formats/msgpack/msgpack_reader.h"

namespace jbx::msgpack::test {

/// "cd 01 00" -> bytes; spaces and dashes ignored.
inline std::string hex(std::string_view h) {
  std::string out;
  int hi = -1;
  for (const char c : h) {
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    if (v < 0) continue;
    if (hi < 0) {
      hi = v;
    } else {
      out += static_cast<char>(hi * 16 + v);
      hi = -1;
    }
  }
  return out;
}

inline std::string to_hex(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{:02x}", static_cast<unsigned char>(c));
  }
  return out;
}

/// Records events as compact text that names each type: 1 (int), u1
/// (uint), d1.5 (double), n"1.5" (number_text), "s" (string), b'00ff'
/// (bytes), t(s,ns) (timestamp), @name (annotation); documents end in ';'.
class Recorder : public Handler {
 public:
  std::string out;

  Flow begin_object() override {
    sep();
    out += '{';
    first_ = true;
    return Flow::visit;
  }
  Flow key(std::string_view name) override {
    sep();
    out += fmt::format("\"{}\":", name);
    first_ = true;
    return Flow::visit;
  }
  void end_object() override {
    out += '}';
    first_ = false;
  }
  Flow begin_array() override {
    sep();
    out += '[';
    first_ = true;
    return Flow::visit;
  }
  void end_array() override {
    out += ']';
    first_ = false;
  }
  void null_value() override { add("null"); }
  void bool_value(bool b) override { add(b ? "true" : "false"); }
  void int_value(std::int64_t v) override { add(fmt::format("{}", v)); }
  void uint_value(std::uint64_t v) override { add(fmt::format("u{}", v)); }
  void double_value(double v) override { add(fmt::format("d{}", v)); }
  void number_text(std::string_view t) override {
    add(fmt::format("n\"{}\"", t));
  }
  void string_value(std::string_view s) override {
    add(fmt::format("\"{}\"", s));
  }
  void bytes_value(std::span<const std::uint8_t> b) override {
    std::string h;
    for (const std::uint8_t x : b) h += fmt::format("{:02x}", x);
    add("b'" + h + "'");
  }
  void timestamp_value(const Timestamp& t) override {
    add(fmt::format("t({},{})", t.seconds, t.nanos));
  }
  void annotation(const Annotation& a) override {
    sep();
    out += fmt::format("@{} ", a.name);
    first_ = true;
  }
  void end_document() override {
    out += ';';
    first_ = true;
  }

 private:
  void sep() {
    if (!first_) out += ',';
  }
  void add(std::string_view s) {
    sep();
    out += s;
    first_ = false;
  }
  bool first_ = true;
};

/// Every document of `bytes`, recorded.
inline std::string read_all(std::string_view bytes, ReadOptions o = {}) {
  MsgpackReader r(bytes, o);
  Recorder rec;
  while (r.read_document(rec)) {
  }
  return rec.out;
}

/// "code@offset pointer: message" of the error reading `bytes` throws, or
/// "no error".
inline std::string read_error(std::string_view bytes, ReadOptions o = {}) {
  try {
    read_all(bytes, o);
  } catch (const Error& e) {
    std::string s = fmt::format("{}@{}", errc_name(e.code),
                                e.offset ? fmt::format("{}", *e.offset) : "?");
    if (!e.pointer.empty()) s += " " + e.pointer;
    s += ": " + e.message;
    if (!e.binary) s += " (not binary)";
    return s;
  }
  return "no error";
}

}  // namespace jbx::msgpack::test
