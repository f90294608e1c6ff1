// libFuzzer target for the JSONB reader: decode every document, then write
// it back with the JSONB writer and check that jbx's own JSONB decodes to
// the same tree (exact decimals, so numbers survive as read).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/value.h"
#include "formats/jsonb/jsonb_reader.h"
#include "formats/jsonb/jsonb_writer.h"

namespace {

// The decimal spelling of an integer value, else "".
std::string integer_text(const jbx::Value& v) {
  using T = jbx::Value::Type;
  if (v.type == T::int64) return std::to_string(v.i);
  if (v.type == T::uint64) return std::to_string(v.u);
  if (v.type == T::number && v.text.find_first_of(".eE") == std::string::npos) {
    return v.text;
  }
  return "";
}

// Equal trees; an integer equals the same integer spelled as number text.
bool same(const jbx::Value& a, const jbx::Value& b) {
  using T = jbx::Value::Type;
  const std::string ia = integer_text(a);
  if (!ia.empty() && ia == integer_text(b)) {
    return a.annotations == b.annotations;
  }
  if (a.type != b.type || a.annotations != b.annotations) return false;
  switch (a.type) {
    case T::null:
      return true;
    case T::boolean:
      return a.boolean == b.boolean;
    case T::int64:
      return a.i == b.i;
    case T::uint64:
      return a.u == b.u;
    case T::float64:
      return std::memcmp(&a.d, &b.d, sizeof a.d) == 0;
    case T::number:
    case T::string:
    case T::bytes:
      return a.text == b.text;
    case T::timestamp:
      return a.ts.kind == b.ts.kind && a.ts.seconds == b.ts.seconds &&
             a.ts.nanos == b.ts.nanos && a.ts.has_offset == b.ts.has_offset &&
             a.ts.offset_seconds == b.ts.offset_seconds &&
             a.ts.precision == b.ts.precision && a.text == b.text;
    case T::array:
      if (a.items.size() != b.items.size()) return false;
      for (std::size_t i = 0; i < a.items.size(); ++i) {
        if (!same(a.items[i], b.items[i])) return false;
      }
      return true;
    case T::object:
      if (a.members.size() != b.members.size()) return false;
      for (std::size_t i = 0; i < a.members.size(); ++i) {
        if (a.members[i].first != b.members[i].first ||
            !same(a.members[i].second, b.members[i].second)) {
          return false;
        }
      }
      return true;
  }
  return false;
}

std::vector<jbx::Value> decode(std::string_view bytes) {
  jbx::ReadOptions o;
  o.max_depth = 256;
  jbx::JsonbReader r(bytes, o);
  std::vector<jbx::Value> docs;
  for (;;) {
    jbx::TreeBuilder tb;
    if (!r.read_document(tb)) break;
    docs.push_back(tb.take());
  }
  return docs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)jbx::sniff_jsonb(in);
  std::vector<jbx::Value> docs;
  try {
    docs = decode(in);
  } catch (const jbx::Error& e) {
    if (!e.binary || !e.offset || *e.offset > size) std::abort();
    return 0;
  }
  jbx::WriteOptions w;
  w.exact_decimals = true;
  jbx::StringSink sink;
  jbx::JsonbWriter writer(sink, w);
  try {
    for (const jbx::Value& v : docs) {
      jbx::replay(v, writer);
      writer.end_document();
    }
  } catch (const jbx::Error&) {
    return 0;  // a value JSONB output refuses (year out of range, ...)
  }
  const std::string out(sink.data());
  std::vector<jbx::Value> again;
  try {
    again = decode(out);
  } catch (const jbx::Error&) {
    std::abort();  // jbx's own JSONB must read back
  }
  if (again.size() != docs.size()) std::abort();
  for (std::size_t i = 0; i < docs.size(); ++i) {
    if (!same(docs[i], again[i])) std::abort();
  }
  return 0;
}
