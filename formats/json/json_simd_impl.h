// The simdjson On-Demand walk, included by one .cpp per CPU kernel. Every
// definition has internal linkage: each kernel's copy is compiled with its
// own instruction set and must not be merged with another's by the linker.
#pragma once

#include <simdjson.h>

#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <string_view>
#include <type_traits>

#include "core/error.h"
#include "formats/cbor/cbor_writer.h"
#include "formats/json/json_fused.h"
#include "formats/json/json_simd.h"
#include "formats/json/json_writer.h"
#include "formats/jsonb/jsonb_writer.h"
#include "formats/msgpack/msgpack_writer.h"

namespace jbx {
namespace {

namespace od = simdjson::ondemand;

// Not produced by the walk: marks "the handler asked to stop".
constexpr simdjson::error_code kStopped = simdjson::UNINITIALIZED;

inline bool is_ws(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

enum class NumberKind { invalid, integer, decimal };

// RFC 8259 number grammar; simdjson's On-Demand token boundaries are looser.
NumberKind number_kind(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  bool decimal = false;
  if (i < n && s[i] == '-') ++i;
  if (i >= n) return NumberKind::invalid;
  if (s[i] == '0') {
    ++i;
  } else if (is_digit(s[i])) {
    while (i < n && is_digit(s[i])) ++i;
  } else {
    return NumberKind::invalid;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (i >= n || !is_digit(s[i])) return NumberKind::invalid;
    while (i < n && is_digit(s[i])) ++i;
    decimal = true;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= n || !is_digit(s[i])) return NumberKind::invalid;
    while (i < n && is_digit(s[i])) ++i;
    decimal = true;
  }
  if (i != n) return NumberKind::invalid;
  return decimal ? NumberKind::decimal : NumberKind::integer;
}

// The binary writers take a decimal with its correctly rounded double
// (decimal_value), so that simdjson's number parser does the conversion.
template <class H>
constexpr bool kTakesDecimals =
    std::is_same_v<H, CborWriter> ||
    std::is_same_v<H, msgpack::MsgpackWriter> || std::is_same_v<H, JsonbWriter>;

// The text of the key starting at `p` (just after its opening quote) when
// it has no escape, else a view with a null data pointer.
inline std::string_view plain_key(const char* p) {
  const char* q = p;
  while (*q != '"') {
    if (*q == '\\') return {};
    ++q;
  }
  return {p, static_cast<std::size_t>(q - p)};
}

// The JSON writer, and the fused features in front of it, copy escape-free
// keys and strings without scanning them (plain_key, plain_string).
template <class H>
constexpr bool kTakesPlainText =
    std::is_same_v<H, JsonWriter> ||
    std::is_same_v<H, transforms::FusedFeatures<JsonWriter>>;

// Sends the events of simdjson values to H. A template so that the JSON
// writer (a final class) is called without virtual dispatch.
template <class H>
class Walker {
 public:
  Walker(H& h, std::uint32_t max_depth) : h_(h), max_depth_(max_depth) {}

  bool emitted = false;  // some event went out
  bool stopped = false;

  simdjson::error_code value(od::value v, std::uint32_t depth) {
    od::json_type t{};
    auto err = v.type().get(t);
    if (err) return err;
    switch (t) {
      case od::json_type::array: {
        if (depth >= max_depth_) return simdjson::DEPTH_ERROR;
        od::array a;
        err = v.get_array().get(a);
        if (err) return err;
        return array(a, depth);
      }
      case od::json_type::object: {
        if (depth >= max_depth_) return simdjson::DEPTH_ERROR;
        od::object o;
        err = v.get_object().get(o);
        if (err) return err;
        return object(o, depth);
      }
      case od::json_type::number: {
        std::string_view raw = v.raw_json_token();
        while (!raw.empty() && is_ws(raw.back())) raw.remove_suffix(1);
        const NumberKind kind = number_kind(raw);
        if (kind == NumberKind::invalid) return simdjson::NUMBER_ERROR;
        if constexpr (kTakesDecimals<H>) {
          // Zero, overflow and simdjson's refusals take the text path: the
          // writer decides what they become.
          double d = 0;
          if (kind == NumberKind::decimal &&
              v.get_double().get(d) == simdjson::SUCCESS && d != 0 &&
              std::isfinite(d)) {
            h_.decimal_value(raw, d);
            return simdjson::SUCCESS;
          }
        }
        h_.number_text(raw);
        return simdjson::SUCCESS;
      }
      case od::json_type::string: {
        // The token is the quoted string and the whitespace after it. Most
        // strings have no escape: pass them without unescaping a copy.
        std::string_view raw = v.raw_json_token();
        while (!raw.empty() && is_ws(raw.back())) raw.remove_suffix(1);
        if (raw.size() >= 2 &&
            std::memchr(raw.data(), '\\', raw.size()) == nullptr) {
          // Consume the value: On-Demand skips an unconsumed one without
          // checking what follows it (`{"a":"b":"c"]}` would pass).
          od::raw_json_string consumed;
          err = v.get_raw_json_string().get(consumed);
          if (err) return err;
          if constexpr (kTakesPlainText<H>) {
            h_.plain_string(raw.substr(1, raw.size() - 2));
          } else {
            h_.string_value(raw.substr(1, raw.size() - 2));
          }
          return simdjson::SUCCESS;
        }
        std::string_view s;
        err = v.get_string().get(s);
        if (err) return err;
        h_.string_value(s);
        return simdjson::SUCCESS;
      }
      case od::json_type::boolean: {
        bool b = false;
        err = v.get_bool().get(b);
        if (err) return err;
        h_.bool_value(b);
        return simdjson::SUCCESS;
      }
      case od::json_type::null: {
        bool is_null = false;
        err = v.is_null().get(is_null);
        if (err) return err;
        if (!is_null) return simdjson::N_ATOM_ERROR;
        h_.null_value();
        return simdjson::SUCCESS;
      }
    }
    return simdjson::TAPE_ERROR;
  }

  simdjson::error_code array(od::array& a, std::uint32_t depth) {
    emitted = true;
    const Flow f = h_.begin_array();
    if (f == Flow::stop) {
      stopped = true;
      return kStopped;
    }
    for (auto elem : a) {
      od::value ev;
      auto err = std::move(elem).get(ev);
      if (err) return err;
      if (f == Flow::skip) continue;
      err = value(ev, depth + 1);
      if (err) return err;
    }
    if (f == Flow::visit) h_.end_array();
    return simdjson::SUCCESS;
  }

  simdjson::error_code object(od::object& o, std::uint32_t depth) {
    emitted = true;
    const Flow f = h_.begin_object();
    if (f == Flow::stop) {
      stopped = true;
      return kStopped;
    }
    for (auto field : o) {
      od::field fl;
      auto err = std::move(field).get(fl);
      if (err) return err;
      // Keys without escapes are passed straight from the input (stage 1
      // has validated their UTF-8 and control characters).
      std::string_view k = plain_key(fl.key().raw());
      const bool plain = k.data() != nullptr;
      if (!plain) {
        err = fl.unescaped_key().get(k);
        if (err) return err;
      }
      if (f == Flow::skip) continue;
      Flow kf = Flow::visit;
      if constexpr (kTakesPlainText<H>) {
        kf = plain ? h_.plain_key(k) : h_.key(k);
      } else {
        kf = h_.key(k);
      }
      if (kf == Flow::stop) {
        stopped = true;
        return kStopped;
      }
      if (kf == Flow::skip) continue;
      err = value(fl.value(), depth + 1);
      if (err) return err;
    }
    if (f == Flow::visit) h_.end_object();
    return simdjson::SUCCESS;
  }

 private:
  H& h_;
  std::uint32_t max_depth_;
};

// Parses the container document at p[0..len) (readable up to p + capacity).
template <class H>
SimdResult run_simd(od::parser& parser, const char* p, std::size_t len,
                    std::size_t capacity, H& h, std::uint32_t max_depth) {
  SimdResult r;
  const auto fail = [&r](simdjson::error_code e) {
    r.ok = false;
    r.message = simdjson::error_message(e);
    return r;
  };
  od::document doc;
  auto err = parser.iterate(p, len, capacity).get(doc);
  if (err) return fail(err);
  // The document-level accessors check that the root is closed where the
  // input ends; value-level ones would walk off the end of a truncated
  // document.
  Walker<H> w(h, max_depth);
  try {
    if (p[0] == '[') {
      od::array a;
      err = doc.get_array().get(a);
      if (err) return fail(err);
      err = w.array(a, 0);
    } else {
      od::object o;
      err = doc.get_object().get(o);
      if (err) return fail(err);
      err = w.object(o, 0);
    }
  } catch (const Error&) {
    // The handler refused a value: the reader works out which one from
    // where the walk stood.
    r.refused = std::current_exception();
    const char* loc = nullptr;
    r.refused_at = doc.current_location().get(loc) == simdjson::SUCCESS
                       ? static_cast<std::size_t>(loc - p)
                       : len;
    return r;
  }
  r.emitted = w.emitted;
  r.stopped = w.stopped;
  if (r.stopped) return r;
  if (err) return fail(err);
  const char* loc = nullptr;
  err = doc.current_location().get(loc);
  if (err == simdjson::OUT_OF_BOUNDS) {
    r.consumed = len;
  } else if (err) {
    return fail(err);
  } else {
    r.consumed = static_cast<std::size_t>(loc - p);
  }
  return r;
}

SimdResult dispatch_simd(od::parser& parser, const char* p, std::size_t len,
                         std::size_t capacity, Handler& out,
                         std::uint32_t max_depth) {
  // The common case, fmt without transforms: devirtualised calls.
  if (auto* w = dynamic_cast<JsonWriter*>(&out)) {
    return run_simd(parser, p, len, capacity, *w, max_depth);
  }
  // fmt with the writer features: the fused handler, called directly.
  if (auto* f = dynamic_cast<transforms::FusedFeatures<JsonWriter>*>(&out)) {
    return run_simd(parser, p, len, capacity, *f, max_depth);
  }
  if (auto* n = dynamic_cast<NullHandler*>(&out)) {
    return run_simd(parser, p, len, capacity, *n, max_depth);
  }
  // convert to a binary format: direct calls, and the output buffer sized
  // once from the input (binary output is rarely larger than its JSON).
  if (auto* c = dynamic_cast<CborWriter*>(&out)) {
    c->size_hint(len);
    return run_simd(parser, p, len, capacity, *c, max_depth);
  }
  if (auto* m = dynamic_cast<msgpack::MsgpackWriter*>(&out)) {
    m->size_hint(len);
    return run_simd(parser, p, len, capacity, *m, max_depth);
  }
  if (auto* j = dynamic_cast<JsonbWriter*>(&out)) {
    j->size_hint(len);
    return run_simd(parser, p, len, capacity, *j, max_depth);
  }
  return run_simd(parser, p, len, capacity, out, max_depth);
}

class Engine final : public SimdEngine {
 public:
  explicit Engine(std::uint32_t max_depth) : max_depth_(max_depth) {
    // simdjson's own depth bound must exceed ours: the walk stops first.
    allocated_ =
        parser_.allocate(4096, std::size_t{max_depth} + 2) == simdjson::SUCCESS;
  }
  SimdResult parse(const char* p, std::size_t len, std::size_t capacity,
                   Handler& out) override {
    if (!allocated_) {
      // The caller falls back to the scalar parser.
      SimdResult r;
      r.ok = false;
      r.message = "out of memory";
      return r;
    }
    return dispatch_simd(parser_, p, len, capacity, out, max_depth_);
  }

 private:
  od::parser parser_;
  std::uint32_t max_depth_;
  bool allocated_ = false;
};

}  // namespace
}  // namespace jbx
