// The JSONPath Compliance Test Suite (RFC 9535), read in place from
// ../shared/conformance/jsonpath-cts/cts.json: every valid query must give
// the expected nodes (values and normalized paths) in order, or one of the
// allowed orders, both from the tree evaluator and from the streaming
// selector; every invalid query must be rejected by the parser.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/path/eval.h"
#include "core/path/path.h"
#include "core/source.h"
#include "core/value.h"
#include "formats/json/json_reader.h"

namespace jbx::path {
namespace {

Value read_json(const std::string& text) {
  auto src = Source::from_memory("cts.json", text);
  JsonReader reader(*src, ReadOptions{}, JsonMode::single);
  TreeBuilder b;
  BOOST_REQUIRE(reader.read_document(b));
  return b.take();
}

struct Got {
  std::vector<Value> values;
  std::vector<std::string> paths;
};

class Collect final : public NodeSink {
 public:
  explicit Collect(Got& g) : got_(g) {}
  Handler* begin_node(std::span<const Step> location) override {
    got_.paths.push_back(normalized_path(location));
    return &builder_;
  }
  bool end_node() override {
    builder_.end_document();
    got_.values.push_back(builder_.take());
    return true;
  }

 private:
  Got& got_;
  TreeBuilder builder_;
};

bool same(const Got& got, const Value& values, const Value& paths) {
  if (got.values.size() != values.items.size()) return false;
  for (std::size_t i = 0; i < got.values.size(); ++i) {
    if (!values_equal(got.values[i], values.items[i])) return false;
    if (paths.type == Value::Type::array &&
        got.paths[i] != paths.items[i].text) {
      return false;
    }
  }
  return true;
}

bool expected(const Value& t, const Got& got) {
  if (const Value* r = t.find("result")) {
    const Value* p = t.find("result_paths");
    return same(got, *r, p ? *p : Value());
  }
  const Value* rs = t.find("results");
  const Value* ps = t.find("results_paths");
  for (std::size_t k = 0; rs && k < rs->items.size(); ++k) {
    if (same(got, rs->items[k], ps ? ps->items[k] : Value())) return true;
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(path_cts)

BOOST_AUTO_TEST_CASE(every_compliance_case_passes) {
  std::ifstream in(std::string(JBX_SHARED_DIR) +
                   "/conformance/jsonpath-cts/cts.json");
  BOOST_REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const Value suite = read_json(ss.str());
  const Value* tests = suite.find("tests");
  BOOST_REQUIRE(tests != nullptr);

  int passed = 0;
  int failed = 0;
  for (const Value& t : tests->items) {
    const std::string& name = t.find("name")->text;
    const std::string& selector = t.find("selector")->text;
    const Value* invalid = t.find("invalid_selector");
    std::string problem;
    if (invalid != nullptr && invalid->boolean) {
      try {
        (void)parse(selector);
        problem = "accepted an invalid query";
      } catch (const Error& e) {
        if (e.code != Errc::invalid_query || !e.offset ||
            *e.offset > selector.size()) {
          problem = "rejected without an offset: " + e.message;
        }
      }
    } else {
      try {
        const Query q = parse(selector);
        const Value& doc = *t.find("document");
        Got tree;
        Collect tree_sink(tree);
        evaluate(q, doc, tree_sink);
        if (!expected(t, tree)) problem = "tree evaluator: wrong nodes";
        Got streamed;
        Collect stream_sink(streamed);
        StreamSelector sel(q, stream_sink);
        replay(doc, sel);
        sel.end_document();
        if (!expected(t, streamed)) problem += " streaming: wrong nodes";
      } catch (const Error& e) {
        problem = "rejected a valid query: " + e.message;
      }
    }
    if (problem.empty()) {
      ++passed;
    } else {
      ++failed;
      BOOST_ERROR(name << " [" << selector << "]: " << problem);
    }
  }
  BOOST_TEST_MESSAGE("jsonpath-cts: " << passed << " passed, " << failed
                                      << " failed");
  BOOST_TEST(passed == 703);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace jbx::path
