// Helpers shared by the JSONB unit tests: hex, corpus files, decoding to
// value trees, exact tree comparison, and fastjson2-style date rendering
// for comparing with the corpus's expected JSON. Test code only.
#pragma once

#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/value.h"
#include "formats/json/json_reader.h"
#include "formats/jsonb/jsonb_reader.h"
#include "formats/jsonb/jsonb_writer.h"

namespace jbx::jsonb_test {

inline std::string corpus_dir() {
  return std::string(JBX_SHARED_DIR) + "/corpus/jsonb/";
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string unhex(std::string_view h) {
  std::string out;
  int hi = -1;
  for (char c : h) {
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    if (v < 0) continue;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi * 16 + v));
      hi = -1;
    }
  }
  return out;
}

inline std::string hex(std::string_view s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("{:02x}", c);
  return out;
}

struct Case {
  std::string name, kind, description, producer, features, decode;
};

inline std::vector<Case> cases() {
  std::vector<Case> out;
  std::istringstream in(slurp(corpus_dir() + "cases.tsv"));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::size_t a = 0;
    for (;;) {
      const std::size_t b = line.find('\t', a);
      f.push_back(line.substr(a, b - a));
      if (b == std::string::npos) break;
      a = b + 1;
    }
    if (f.size() < 6) continue;
    out.push_back({f[0], f[1], f[2], f[3], f[4], f[5]});
  }
  return out;
}

/// Every document of `bytes` as trees.
inline std::vector<Value> decode_all(std::string_view bytes,
                                     JsonbReadOptions jo = {},
                                     ReadOptions o = {}) {
  JsonbReader r(bytes, o, std::move(jo));
  std::vector<Value> docs;
  for (;;) {
    TreeBuilder tb;
    if (!r.read_document(tb)) break;
    docs.push_back(tb.take());
  }
  return docs;
}

inline Value decode_one(std::string_view bytes, JsonbReadOptions jo = {}) {
  auto docs = decode_all(bytes, std::move(jo));
  if (docs.size() != 1) {
    throw std::runtime_error(fmt::format("{} documents", docs.size()));
  }
  return std::move(docs[0]);
}

inline Value parse_json(const std::string& text) {
  auto src = Source::from_memory("<test>", text);
  JsonReader r(*src, ReadOptions{}, JsonMode::single);
  TreeBuilder tb;
  if (!r.read_document(tb)) throw std::runtime_error("no json document");
  return tb.take();
}

inline std::string encode(const std::vector<Value>& docs, WriteOptions o = {}) {
  StringSink sink;
  JsonbWriter w(sink, o);
  for (const Value& v : docs) {
    replay(v, w);
    w.end_document();
  }
  w.finish();
  return std::string(sink.data());
}

inline std::string encode(const Value& v, WriteOptions o = {}) {
  return encode(std::vector<Value>{v}, o);
}

// ---- exact comparison of two trees (same types, same everything) -------

/// The decimal spelling of an integer value (int64, uint64, or number text
/// without fraction or exponent), else "".
inline std::string integer_text(const Value& v) {
  if (v.type == Value::Type::int64) return std::to_string(v.i);
  if (v.type == Value::Type::uint64) return std::to_string(v.u);
  if (v.type == Value::Type::number &&
      v.text.find_first_of(".eE") == std::string::npos) {
    return v.text;
  }
  return "";
}

inline bool same_tree(const Value& a, const Value& b, std::string& why,
                      const std::string& at = "") {
  const auto bad = [&](const std::string& what) {
    why = (at.empty() ? "/" : at) + ": " + what;
    return false;
  };
  // An integer and the same integer spelled exactly are equal: a
  // BigInteger or scale-0 BigDecimal that fits int64 is written as an int.
  if (integer_text(a) != "" && integer_text(a) == integer_text(b) &&
      a.annotations == b.annotations) {
    return true;
  }
  if (a.type != b.type) {
    return bad(fmt::format("type {} vs {}", static_cast<int>(a.type),
                           static_cast<int>(b.type)));
  }
  if (a.annotations != b.annotations) return bad("annotations differ");
  switch (a.type) {
    case Value::Type::null:
      return true;
    case Value::Type::boolean:
      return a.boolean == b.boolean || bad("bool");
    case Value::Type::int64:
      return a.i == b.i || bad(fmt::format("{} vs {}", a.i, b.i));
    case Value::Type::uint64:
      return a.u == b.u || bad("uint");
    case Value::Type::float64:
      return std::memcmp(&a.d, &b.d, sizeof a.d) == 0 ||
             bad(fmt::format("{} vs {}", a.d, b.d));
    case Value::Type::number:
    case Value::Type::string:
    case Value::Type::bytes:
      return a.text == b.text || bad("'" + a.text + "' vs '" + b.text + "'");
    case Value::Type::timestamp:
      return (a.ts.kind == b.ts.kind && a.ts.seconds == b.ts.seconds &&
              a.ts.nanos == b.ts.nanos && a.ts.has_offset == b.ts.has_offset &&
              a.ts.offset_seconds == b.ts.offset_seconds &&
              a.ts.precision == b.ts.precision && a.text == b.text) ||
             bad("timestamp");
    case Value::Type::array:
      if (a.items.size() != b.items.size()) return bad("array size");
      for (std::size_t i = 0; i < a.items.size(); ++i) {
        if (!same_tree(a.items[i], b.items[i], why,
                       at + "/" + std::to_string(i))) {
          return false;
        }
      }
      return true;
    case Value::Type::object:
      if (a.members.size() != b.members.size()) return bad("object size");
      for (std::size_t i = 0; i < a.members.size(); ++i) {
        if (a.members[i].first != b.members[i].first) {
          return bad("key " + a.members[i].first + " vs " + b.members[i].first);
        }
        if (!same_tree(a.members[i].second, b.members[i].second, why,
                       at + "/" + a.members[i].first)) {
          return false;
        }
      }
      return true;
  }
  return true;
}

// ---- comparison with fastjson2's JSON rendering (corpus .json) ----------

// Java's fraction: none, 3, 6 or 9 digits.
inline std::string java_fraction(std::uint32_t nanos) {
  if (nanos == 0) return "";
  if (nanos % 1000000 == 0) return fmt::format(".{:03}", nanos / 1000000);
  if (nanos % 1000 == 0) return fmt::format(".{:06}", nanos / 1000);
  return fmt::format(".{:09}", nanos);
}

inline std::string civil(std::int64_t seconds, const char* sep,
                         std::uint32_t nanos) {
  std::int64_t days = seconds / 86400;
  std::int64_t sod = seconds % 86400;
  if (sod < 0) {
    sod += 86400;
    --days;
  }
  // civil_from_days (H. Hinnant).
  std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe =
      (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = yoe + era * 400 + (m <= 2);
  std::string out = fmt::format("{:04}-{:02}-{:02}", y, m, d);
  if (sep == nullptr) return out;
  return out +
         fmt::format("{}{:02}:{:02}:{:02}", sep, sod / 3600, sod / 60 % 60,
                     sod % 60) +
         java_fraction(nanos);
}

/// A timestamp as fastjson2 renders it in the corpus (spec 15.2).
inline std::string fastjson2_date(const Value& v) {
  const Timestamp& t = v.ts;
  switch (t.kind) {
    case Timestamp::Kind::local_date:
      return civil(t.seconds, nullptr, 0);
    case Timestamp::Kind::local_time:
      return fmt::format("{:02}:{:02}:{:02}", t.seconds / 3600,
                         t.seconds / 60 % 60, t.seconds % 60) +
             java_fraction(t.nanos);
    case Timestamp::Kind::local_date_time:
      if (!v.text.empty()) {
        return civil(t.seconds, "T", t.nanos) + "[" + v.text + "]";
      }
      return civil(t.seconds, " ", t.nanos);
    case Timestamp::Kind::instant:
      break;
  }
  if (t.has_offset) {
    std::string id = "Z";
    if (t.offset_seconds != 0) {
      const std::int32_t a = std::abs(t.offset_seconds);
      id = fmt::format("{}{:02}:{:02}", t.offset_seconds < 0 ? '-' : '+',
                       a / 3600, a / 60 % 60);
    }
    return civil(t.seconds + t.offset_seconds, "T", t.nanos) + id;
  }
  if (t.precision == 3) {  // java.util.Date: yyyy-MM-dd HH:mm:ss[.SSS]
    std::string s = civil(t.seconds, " ", 0);
    if (t.nanos != 0) s += fmt::format(".{:03}", t.nanos / 1000000);
    return s;
  }
  return civil(t.seconds, "T", t.nanos) + "Z";
}

// Exact decimal value of a JSON number spelling: sign, significant digits
// (no leading or trailing zeros) and the exponent of the last digit.
inline std::string canonical_number(std::string_view s) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  std::string digits;
  long exp = 0;
  std::size_t i = 0;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    digits.push_back(s[i]);
  }
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]));
         ++i) {
      digits.push_back(s[i]);
      --exp;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    long e = 0;
    std::from_chars(s.data() + i + 1 + (s[i + 1] == '+'), s.data() + s.size(),
                    e);
    exp += e;
  }
  const std::size_t nz = digits.find_first_not_of('0');
  if (nz == std::string::npos) return "0";
  digits.erase(0, nz);
  while (digits.size() > 1 && digits.back() == '0') {
    digits.pop_back();
    ++exp;
  }
  return (neg ? "-" : "") + digits + "e" + std::to_string(exp);
}

/// Compares a decoded tree with the tree of fastjson2's JSON rendering.
inline bool matches_fastjson2(const Value& got, const Value& want,
                              std::string& why, const std::string& at = "") {
  const auto bad = [&](const std::string& what) {
    why = (at.empty() ? "/" : at) + ": " + what;
    return false;
  };
  switch (got.type) {
    case Value::Type::int64:
      return (want.type == Value::Type::number &&
              canonical_number(want.text) ==
                  canonical_number(std::to_string(got.i))) ||
             bad(fmt::format("int {} vs {}", got.i, want.text));
    case Value::Type::number:
      // Exact text: BigDecimal keeps its scale and spelling.
      return (want.type == Value::Type::number && want.text == got.text) ||
             bad("number '" + got.text + "' vs '" + want.text + "'");
    case Value::Type::float64: {
      if (!std::isfinite(got.d)) {
        return want.type == Value::Type::null || bad("non-finite vs value");
      }
      if (want.type != Value::Type::number) return bad("double vs non-number");
      double d = 0;
      float f = 0;
      const char* b = want.text.data();
      const char* e = b + want.text.size();
      std::from_chars(b, e, d);
      std::from_chars(b, e, f);
      // A float prints as Float.toString, shorter than the double's digits.
      return d == got.d || static_cast<double>(f) == got.d ||
             bad(fmt::format("double {} vs {}", got.d, want.text));
    }
    case Value::Type::bytes: {
      if (want.type != Value::Type::array ||
          want.items.size() != got.text.size()) {
        return bad("bytes");
      }
      for (std::size_t i = 0; i < got.text.size(); ++i) {
        if (std::to_string(static_cast<signed char>(got.text[i])) !=
            want.items[i].text) {
          return bad("byte " + std::to_string(i));
        }
      }
      return true;
    }
    case Value::Type::timestamp: {
      const std::string s = fastjson2_date(got);
      return (want.type == Value::Type::string && want.text == s) ||
             bad("date '" + s + "' vs '" + want.text + "'");
    }
    case Value::Type::array:
      if (want.type != Value::Type::array ||
          want.items.size() != got.items.size()) {
        return bad("array");
      }
      for (std::size_t i = 0; i < got.items.size(); ++i) {
        if (!matches_fastjson2(got.items[i], want.items[i], why,
                               at + "/" + std::to_string(i))) {
          return false;
        }
      }
      return true;
    case Value::Type::object:
      if (want.type != Value::Type::object ||
          want.members.size() != got.members.size()) {
        return bad("object");
      }
      for (std::size_t i = 0; i < got.members.size(); ++i) {
        if (got.members[i].first != want.members[i].first) {
          return bad("key '" + got.members[i].first + "' vs '" +
                     want.members[i].first + "'");
        }
        if (!matches_fastjson2(got.members[i].second, want.members[i].second,
                               why, at + "/" + got.members[i].first)) {
          return false;
        }
      }
      return true;
    case Value::Type::string:
      return (want.type == Value::Type::string && want.text == got.text) ||
             bad("string '" + got.text + "' vs '" + want.text + "'");
    case Value::Type::null:
      return want.type == Value::Type::null || bad("null");
    case Value::Type::boolean:
      return (want.type == Value::Type::boolean &&
              want.boolean == got.boolean) ||
             bad("bool");
    case Value::Type::uint64:
      return bad("unexpected uint64");
  }
  return false;
}

/// The reading options a corpus case needs (its `decode` column).
inline JsonbReadOptions options_for(const Case& c) {
  JsonbReadOptions jo;
  if (c.decode == "symtab") {
    jo.symbol_table = {"com.example.Point", "id", "list", "name"};
  }
  if (c.decode.ends_with("+refs")) jo.refs = JsonbRefs::keep;
  return jo;
}

}  // namespace jbx::jsonb_test
