#include "core/transforms/null_defaults.h"

#include <boost/test/unit_test.hpp>

#include "core/error.h"
#include "core/transforms/transform_test_util.h"

namespace tf = jbx::transforms;
using jbx::Handler;
using jbx::Value;
using tf::testing::error_of;
using tf::testing::run;

namespace {

Value json(std::string_view text) {
  auto src = jbx::Source::from_memory("schema", std::string(text));
  jbx::ReadOptions ro;
  auto reader = jbx::kJsonFormat.make_reader(*src, ro);
  jbx::TreeBuilder tree;
  reader->read_document(tree);
  return tree.take();
}

tf::testing::Make with_rules(
    std::vector<std::pair<std::string, std::string>> rules) {
  auto list = std::make_shared<std::vector<tf::NullDefault>>();
  for (const auto& [where, value] : rules) {
    list->push_back({tf::parse_rule_path("null-default", where), json(value)});
  }
  return [list](Handler& next) {
    return std::make_unique<tf::NullDefaults>(next, list, nullptr, 0);
  };
}

tf::testing::Make with_schema(std::string_view schema, unsigned kinds) {
  auto s = std::make_shared<const tf::SchemaTypes>(json(schema));
  return [s, kinds](Handler& next) {
    return std::make_unique<tf::NullDefaults>(next, nullptr, s, kinds);
  };
}

constexpr std::string_view kSchema = R"({
  "type": "object",
  "properties": {
    "tags": {"type": ["null", "array"], "items": {"type": "string"}},
    "name": {"type": "string"},
    "count": {"$ref": "#/$defs/count"},
    "ok": {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
    "pair": {"type": "array", "prefixItems": [{"type": "integer"},
                                              {"type": "boolean"}]},
    "more": {"type": "object", "additionalProperties": {"type": "number"}},
    "obj": {"type": "object"}
  },
  "$defs": {"count": {"type": "integer"}}
})";

}  // namespace

BOOST_AUTO_TEST_SUITE(null_defaults)

BOOST_AUTO_TEST_CASE(path_rules_first_match_wins) {
  BOOST_TEST(run(R"({"tags":null,"a":{"tags":null,"n":null},"n":null,"x":1})",
                 with_rules({{"$..tags", "[]"},
                             {"$.a.n", "0"},
                             {"$..n", "{\"k\":[true]}"}})) ==
             "{\"tags\":[],\"a\":{\"tags\":[],\"n\":0},\"n\":{\"k\":[true]},"
             "\"x\":1}\n");
}

BOOST_AUTO_TEST_CASE(path_rules_with_indices_and_wildcards) {
  BOOST_TEST(run(R"([null,[null,null],{"a":null}] null)",
                 with_rules({{"$[1][0]", "\"first\""}, {"$[2].*", "false"}})) ==
             "[null,[\"first\",null],{\"a\":false}]\nnull\n");
  BOOST_TEST(run("null", with_rules({{"$", "\"root\""}})) == "\"root\"\n");
}

BOOST_AUTO_TEST_CASE(schema_types_fill_nulls) {
  BOOST_TEST(run(R"({"tags":null,"name":null,"count":null,"ok":null,
                     "pair":[null,null,null],"more":{"z":null},"obj":null,
                     "other":null})",
                 with_schema(kSchema, tf::kEmptyAll)) ==
             "{\"tags\":[],\"name\":\"\",\"count\":0,\"ok\":false,"
             "\"pair\":[0,false,null],\"more\":{\"z\":0},\"obj\":null,"
             "\"other\":null}\n");
}

BOOST_AUTO_TEST_CASE(schema_kinds_are_chosen) {
  BOOST_TEST(run(R"({"tags":null,"name":null,"count":null,"ok":null})",
                 with_schema(kSchema, tf::kEmptyList | tf::kEmptyString)) ==
             "{\"tags\":[],\"name\":\"\",\"count\":null,\"ok\":null}\n");
}

BOOST_AUTO_TEST_CASE(schema_items_and_nested_documents) {
  constexpr std::string_view schema =
      R"({"type":"array","items":{"properties":{"v":{"type":"string"}}}})";
  BOOST_TEST(
      run(R"([{"v":null},{"w":{"v":null},"v":null}] [{"v":null}])",
          with_schema(schema, tf::kEmptyAll)) ==
      "[{\"v\":\"\"},{\"w\":{\"v\":null},\"v\":\"\"}]\n[{\"v\":\"\"}]\n");
}

BOOST_AUTO_TEST_CASE(schema_refs_must_resolve_locally) {
  BOOST_CHECK_EXCEPTION(
      tf::SchemaTypes(json(R"({"properties":{"a":{"$ref":"other.json#/x"}}})")),
      jbx::Error, [](const jbx::Error& e) {
        return e.message ==
               "--schema: $ref 'other.json#/x' does not resolve; only "
               "references within the schema file such as #/$defs/name are "
               "supported";
      });
  // A cycle of references declares nothing, and does not hang.
  const auto s = with_schema(
      R"({"properties":{"a":{"$ref":"#/$defs/b"}},"$defs":{"b":{"$ref":"#/$defs/b"}}})",
      tf::kEmptyAll);
  BOOST_TEST(run(R"({"a":null})", s) == "{\"a\":null}\n");
}

BOOST_AUTO_TEST_SUITE_END()
