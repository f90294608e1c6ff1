// Fuzzes the JSONPath parser, the I-Regexp translator, the JSON Pointer
// parser and both evaluators. The input is a query, or (as the seeds from
// the compliance suite are) a JSON object whose "tests" hold "selector" and
// "document" pairs. Every accepted query runs on its document (or a fixed
// one) through the tree evaluator and the streaming selector, and the two
// must select the same nodes in the same order.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/path/eval.h"
#include "core/path/path.h"
#include "core/value.h"

#include <simdjson.h>

namespace {

using jbx::Value;

class Collect final : public jbx::path::NodeSink {
 public:
  jbx::Handler* begin_node(std::span<const jbx::path::Step> loc) override {
    paths.push_back(jbx::path::normalized_path(loc));
    return &builder;
  }
  bool end_node() override {
    builder.end_document();
    values.push_back(builder.take());
    return true;
  }
  std::vector<std::string> paths;
  std::vector<Value> values;
  jbx::TreeBuilder builder;
};

// simdjson's DOM keeps the fuzzer independent of jbx's JSON reader (which
// has its own fuzz target).
Value from_dom(simdjson::dom::element e, int depth) {
  Value v;
  if (depth > 64) return v;
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      v.type = Value::Type::array;
      simdjson::dom::array arr;
      if (e.get_array().get(arr) != simdjson::SUCCESS) break;
      for (simdjson::dom::element item : arr) {
        v.items.push_back(from_dom(item, depth + 1));
      }
      break;
    }
    case simdjson::dom::element_type::OBJECT: {
      v.type = Value::Type::object;
      simdjson::dom::object obj;
      if (e.get_object().get(obj) != simdjson::SUCCESS) break;
      for (auto field : obj) {
        v.members.emplace_back(std::string(field.key),
                               from_dom(field.value, depth + 1));
      }
      break;
    }
    case simdjson::dom::element_type::INT64:
      v.type = Value::Type::int64;
      v.i = e.get_int64().value_unsafe();
      break;
    case simdjson::dom::element_type::UINT64:
      v.type = Value::Type::uint64;
      v.u = e.get_uint64().value_unsafe();
      break;
    case simdjson::dom::element_type::DOUBLE:
      v.type = Value::Type::float64;
      v.d = e.get_double().value_unsafe();
      break;
    case simdjson::dom::element_type::STRING:
      v.type = Value::Type::string;
      v.text = std::string(e.get_string().value_unsafe());
      break;
    case simdjson::dom::element_type::BOOL:
      v.type = Value::Type::boolean;
      v.boolean = e.get_bool().value_unsafe();
      break;
    case simdjson::dom::element_type::NULL_VALUE:
      break;
  }
  return v;
}

bool read_json(std::string_view text, Value& out) {
  static simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(text.data(), text.size()).get(root) != simdjson::SUCCESS) {
    return false;
  }
  out = from_dom(root, 0);
  return true;
}

const Value& fixed_document() {
  static const Value doc = [] {
    Value v;
    read_json(R"({"a":[1,2.5,"x",{"b":null,"c":[true,false]}],"o":{"k":"v",)"
              R"("n":12345678901234567890,"e":[]},"s":"\u00e9A","d":-0.0})",
              v);
    return v;
  }();
  return doc;
}

void run_query(std::string_view text, const Value& doc) {
  jbx::path::Query q;
  try {
    q = jbx::path::parse(text);
  } catch (const jbx::Error& e) {
    if (e.code != jbx::Errc::invalid_query || !e.offset ||
        *e.offset > text.size()) {
      std::abort();  // every rejection names an offset inside the query
    }
    return;
  }
  Collect tree;
  jbx::path::evaluate(q, doc, tree);
  Collect streamed;
  jbx::path::StreamSelector sel(q, streamed);
  jbx::replay(doc, sel);
  sel.end_document();
  if (tree.paths != streamed.paths) std::abort();
  for (std::size_t i = 0; i < tree.values.size(); ++i) {
    if (!jbx::path::values_equal(tree.values[i], streamed.values[i]) &&
        jbx::path::values_equal(tree.values[i], tree.values[i])) {
      std::abort();
    }
  }
  if (jbx::path::is_simple(q)) {
    // The location matcher agrees with the evaluator on selected paths.
    jbx::path::Matcher m(q);
    for (const auto& [v, loc] : jbx::path::select(q, doc)) {
      if (!m.selects(loc)) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)jbx::path::parse_pointer(text);
  } catch (const jbx::Error&) {
  }
  try {
    (void)jbx::path::iregexp_to_re2(text);
  } catch (const jbx::Error&) {
  }
  Value suite;
  if (!text.empty() && text[0] == '{' && read_json(text, suite)) {
    if (const Value* tests = suite.find("tests")) {
      for (const Value& t : tests->items) {
        const Value* sel = t.find("selector");
        const Value* doc = t.find("document");
        if (sel == nullptr || sel->type != Value::Type::string) continue;
        run_query(sel->text, doc ? *doc : fixed_document());
      }
    }
    return 0;
  }
  run_query(text, fixed_document());
  return 0;
}
