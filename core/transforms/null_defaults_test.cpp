#include "core/transforms/null_defaults.h"

#include <boost/test/unit_test.hpp>

#include "core/error.h"
#include "core/transforms/transform_test_util.h"

namespace tf = jbx::transforms;
using jbx::Handler;
using jbx::Value;
using tf::testing::error_of;
using tf::testing::json;
using tf::testing::run;

namespace {

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

BOOST_AUTO_TEST_CASE(schema_names_are_remembered_per_object_schema) {
  // The same name in two object schemas, record after record; and a map
  // of more new names than are remembered, each still looked up.
  constexpr std::string_view schema = R"({"type":"array","items":{
      "properties":{"a":{"type":"string"},
                    "o":{"properties":{"a":{"type":"integer"}}},
                    "m":{"additionalProperties":{"type":"array"}}}}})";
  std::string map = "{";
  std::string filled = "{";
  for (int i = 0; i < 20000; ++i) {
    const std::string sep = i == 0 ? "" : ",";
    map += sep + "\"k" + std::to_string(i) + "\":null";
    filled += sep + "\"k" + std::to_string(i) + "\":[]";
  }
  map += "}";
  filled += "}";
  const std::string record = R"({"a":null,"o":{"a":null,"b":null},"b":null})";
  const std::string written = R"({"a":"","o":{"a":0,"b":null},"b":null})";
  const std::string out =
      run("[" + record + R"(,{"m":)" + map + "}," + record + "]",
          with_schema(schema, tf::kEmptyAll));
  const std::string want =
      "[" + written + R"(,{"m":)" + filled + "}," + written + "]\n";
  // (The records, then the whole: a message of the map would be long.)
  BOOST_TEST(out.substr(0, written.size() + 1) ==
             want.substr(0, written.size() + 1));
  BOOST_TEST(out.substr(out.size() - written.size() - 2) ==
             want.substr(want.size() - written.size() - 2));
  BOOST_TEST((out == want));
}

BOOST_AUTO_TEST_CASE(schema_as_rules_only_for_a_few_paths) {
  const auto rules_of = [](std::string_view schema, std::size_t max = 64) {
    return tf::SchemaTypes(json(schema)).as_rules(tf::kEmptyAll, max);
  };
  // The rules replace the nulls the schema types, and no other: members it
  // lists, its map's, its pair's, and not those of an array where it
  // lists members nor of an object where it lists items.
  const auto made = rules_of(kSchema);
  BOOST_REQUIRE(made.has_value());
  const auto list = std::make_shared<std::vector<tf::NullDefault>>(*made);
  const tf::testing::Make by_rules = [list](Handler& next) {
    return std::make_unique<tf::NullDefaults>(next, list, nullptr, 0);
  };
  for (const char* doc :
       {R"({"tags":null,"name":null,"count":null,"ok":null,"obj":null,
            "pair":[null,null,null],"more":{"z":null,"y":[null]},"x":null})",
        R"({"more":[null,{"z":null}],"pair":{"0":null},"tags":[null]})",
        R"([null,{"name":null}] null {"name":{"name":null}})"}) {
    BOOST_TEST(run(doc, by_rules) == run(doc, with_schema(kSchema, 15)), doc);
  }
  // A schema that types nothing makes none.
  BOOST_TEST(rules_of(R"({"properties":{"a":{}},"items":true})")->empty());
  // Nor do a schema that refers to itself, however it does, and one that
  // would make more than asked for.
  BOOST_TEST(!rules_of(R"({"properties":{"n":{"type":"string"},
                                          "c":{"$ref":"#"}}})"));
  BOOST_TEST(
      !rules_of(R"({"properties":{"l":{"$ref":"#"},"r":{"$ref":"#"}}})"));
  constexpr std::string_view two =
      R"({"properties":{"a":{"type":"string"},"b":{"type":"string"}}})";
  BOOST_TEST(!rules_of(two, 1));
  BOOST_TEST(rules_of(two, 2)->size() == 2u);
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
