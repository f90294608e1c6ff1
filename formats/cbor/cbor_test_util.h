// Helpers shared by the CBOR unit tests: hex input, an event recorder that
// turns a document into one comparable line, and exact value comparison
// of value trees. Test-only: never included by the library.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/events.h"
#include "core/sink.h"
#include "core/source.h"
#include "core/value.h"
#include "formats/cbor/cbor_reader.h"
#include "formats/cbor/cbor_writer.h"

namespace jbx::cbor::test {

/// "fa 3f 80" -> the three bytes (spaces ignored).
inline std::string unhex(std::string_view hex) {
  std::string out;
  int hi = -1;
  for (const char c : hex) {
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else {
      continue;
    }
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi * 16 + v));
      hi = -1;
    }
  }
  return out;
}

inline std::string hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

/// Records events as space-separated tokens; documents end with "$".
class Recorder : public Handler {
 public:
  std::string log;

  Flow begin_object() override { return add("{"), Flow::visit; }
  Flow key(std::string_view n) override {
    return add("k:" + std::string(n)), Flow::visit;
  }
  void end_object() override { add("}"); }
  Flow begin_array() override { return add("["), Flow::visit; }
  void end_array() override { add("]"); }
  void null_value() override { add("null"); }
  void bool_value(bool b) override { add(b ? "true" : "false"); }
  void int_value(std::int64_t v) override { add("i:" + std::to_string(v)); }
  void uint_value(std::uint64_t v) override { add("u:" + std::to_string(v)); }
  void double_value(double v) override {
    char buf[40];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    add("d:" + std::string(buf, r.ptr));
  }
  void number_text(std::string_view t) override { add("n:" + std::string(t)); }
  void string_value(std::string_view s) override { add("s:" + std::string(s)); }
  void bytes_value(std::span<const std::uint8_t> b) override {
    add("b:" + hex({reinterpret_cast<const char*>(b.data()), b.size()}));
  }
  void timestamp_value(const Timestamp& t) override {
    add("t:" + std::to_string(static_cast<int>(t.kind)) + "," +
        std::to_string(t.seconds) + "," + std::to_string(t.nanos) +
        (t.has_offset ? "," + std::to_string(t.offset_seconds) : ""));
  }
  void annotation(const Annotation& a) override {
    add(a.kind == Annotation::Kind::cbor_tag ? "@" + std::to_string(a.tag)
                                             : "@type:" + std::string(a.name));
  }
  void end_document() override { add("$"); }

 private:
  void add(const std::string& s) {
    if (!log.empty()) log.push_back(' ');
    log += s;
  }
};

/// Every document of `bytes`, recorded.
inline std::string read_all(const std::string& bytes,
                            const ReadOptions& o = {}) {
  auto src = Source::from_memory("<input>", bytes);
  CborReader r(*src, o);
  Recorder rec;
  while (r.read_document(rec)) {
  }
  return rec.log;
}

/// The error reading `bytes` throws, as "code@offset: message".
inline std::string read_error(const std::string& bytes,
                              const ReadOptions& o = {}) {
  try {
    read_all(bytes, o);
  } catch (const Error& e) {
    return std::string(errc_name(e.code)) + "@" +
           (e.offset ? std::to_string(*e.offset) : "-") + ": " + e.message +
           (e.binary ? "" : " (not binary)");
  }
  return "no error";
}

/// Every document of `bytes` as value trees.
inline std::vector<Value> read_values(const std::string& bytes,
                                      const ReadOptions& o = {}) {
  auto src = Source::from_memory("<input>", bytes);
  CborReader r(*src, o);
  std::vector<Value> out;
  TreeBuilder tb;
  while (r.read_document(tb)) out.push_back(tb.take());
  return out;
}

/// Encodes what `produce(writer)` sends.
template <class F>
std::string write(F produce, const WriteOptions& o = {}) {
  StringSink sink;
  CborWriter w(sink, o);
  produce(static_cast<Handler&>(w));
  w.finish();
  return std::string(sink.data());
}

/// Decodes and re-encodes every document of `bytes`.
inline std::string reencode(const std::string& bytes,
                            const WriteOptions& wo = {}) {
  auto src = Source::from_memory("<input>", bytes);
  const ReadOptions ro;
  CborReader r(*src, ro);
  StringSink sink;
  CborWriter w(sink, wo);
  while (r.read_document(w)) {
  }
  return std::string(sink.data());
}

// ---- exact comparison of value trees ----

/// A number as (negative, significant digits, power of ten of the last
/// digit), trailing zeros removed; "0" for zero. Doubles use their
/// shortest round-trip spelling.
struct Decimal {
  bool negative = false;
  std::string digits;
  long long exp = 0;
  bool operator==(const Decimal&) const = default;
};

inline Decimal decimal_of_text(std::string_view t) {
  Decimal d;
  if (!t.empty() && t[0] == '-') {
    d.negative = true;
    t.remove_prefix(1);
  }
  long long frac = 0;
  bool in_frac = false;
  std::size_t i = 0;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '.') {
      in_frac = true;
    } else if (c >= '0' && c <= '9') {
      d.digits.push_back(c);
      if (in_frac) ++frac;
    } else {
      break;
    }
  }
  long long e = 0;
  if (i < t.size()) {
    std::string_view ex = t.substr(i + 1);
    if (!ex.empty() && ex[0] == '+') ex.remove_prefix(1);
    std::from_chars(ex.data(), ex.data() + ex.size(), e);
  }
  d.exp = e - frac;
  const std::size_t nz = d.digits.find_first_not_of('0');
  if (nz == std::string::npos) return Decimal{false, "0", 0};
  d.digits.erase(0, nz);
  while (d.digits.size() > 1 && d.digits.back() == '0') {
    d.digits.pop_back();
    ++d.exp;
  }
  return d;
}

inline bool is_number(const Value& v) {
  return v.type == Value::Type::int64 || v.type == Value::Type::uint64 ||
         v.type == Value::Type::float64 || v.type == Value::Type::number;
}

inline std::string number_spelling(const Value& v) {
  switch (v.type) {
    case Value::Type::int64:
      return std::to_string(v.i);
    case Value::Type::uint64:
      return std::to_string(v.u);
    case Value::Type::float64: {
      char buf[40];
      const auto r = std::to_chars(buf, buf + sizeof buf, v.d);
      return std::string(buf, r.ptr);
    }
    default:
      return v.text;
  }
}

inline double number_double(const Value& v) {
  if (v.type == Value::Type::float64) return v.d;
  const std::string s = number_spelling(v);
  double d = 0;
  std::from_chars(s.data(), s.data() + s.size(), d);
  return d;
}

/// Equal as JSON values: objects unordered (as multisets of members),
/// numbers by value (as doubles when either side is a double, exactly
/// otherwise). On a mismatch `where` names the path.
inline bool same_value(const Value& a, const Value& b, std::string& where,
                       const std::string& path = "") {
  if (is_number(a) && is_number(b)) {
    bool eq;
    if (a.type == Value::Type::float64 || b.type == Value::Type::float64) {
      const double x = number_double(a), y = number_double(b);
      eq = x == y || (std::isnan(x) && std::isnan(y));
    } else {
      eq = decimal_of_text(number_spelling(a)) ==
           decimal_of_text(number_spelling(b));
    }
    if (!eq) {
      where = path + ": " + number_spelling(a) + " != " + number_spelling(b);
    }
    return eq;
  }
  if (a.type != b.type) {
    where = path + ": types differ";
    return false;
  }
  switch (a.type) {
    case Value::Type::null:
      return true;
    case Value::Type::boolean:
      if (a.boolean != b.boolean) where = path + ": booleans differ";
      return a.boolean == b.boolean;
    case Value::Type::string:
    case Value::Type::bytes:
      if (a.text != b.text)
        where = path + ": '" + a.text + "' != '" + b.text + "'";
      return a.text == b.text;
    case Value::Type::array:
      if (a.items.size() != b.items.size()) {
        where = path + ": lengths differ";
        return false;
      }
      for (std::size_t i = 0; i < a.items.size(); ++i) {
        if (!same_value(a.items[i], b.items[i], where,
                        path + "/" + std::to_string(i))) {
          return false;
        }
      }
      return true;
    case Value::Type::object: {
      if (a.members.size() != b.members.size()) {
        where = path + ": member counts differ";
        return false;
      }
      std::vector<bool> used(b.members.size(), false);
      for (const auto& [k, v] : a.members) {
        bool found = false;
        std::string ignored;
        for (std::size_t j = 0; j < b.members.size() && !found; ++j) {
          if (!used[j] && b.members[j].first == k &&
              same_value(v, b.members[j].second, ignored)) {
            used[j] = found = true;
          }
        }
        if (!found) {
          where = path + "/" + k + ": no equal member";
          return false;
        }
      }
      return true;
    }
    default:
      where = path + ": unexpected type";
      return false;
  }
}

}  // namespace jbx::cbor::test
