// Test helper shared by the fused features' unit test and the JSON fuzz
// target: the features as options, and the separate transforms they fuse,
// chained as the command line chains them.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/transforms/dates.h"
#include "core/transforms/fused.h"
#include "core/transforms/key_case.h"
#include "core/transforms/null_defaults.h"
#include "core/transforms/nulls.h"
#include "core/transforms/numbers.h"
#include "core/transforms/path_tracker.h"
#include "core/transforms/transform_test_util.h"

namespace jbx::transforms::testing {

/// The fused features of one run.
struct Features {
  std::vector<std::string> date_fields;
  // --null-default rules: a path and the default's JSON text.
  std::vector<std::pair<std::string, std::string>> null_defaults;
  NullPolicy nulls = NullPolicy::keep;
  std::optional<KeyCase> key_case;
  std::string date_format;  // "" for none
  bool keep_errors = false;
  bool bigint_as_string = false;
  DecimalStyle decimals = DecimalStyle::keep;
  // --schema's text, "" for none, and --null-as-empty: the chain looks it
  // up (NullDefaults), the fused features take it as rules after the
  // others (SchemaTypes::as_rules(), as the command line does).
  std::string schema;
  unsigned empty_kinds = kEmptyAll;
};

/// The --null-default rules of `f`, without its schema's.
inline std::shared_ptr<std::vector<NullDefault>> given_rules(
    const Features& f) {
  if (f.null_defaults.empty()) return nullptr;
  auto rules = std::make_shared<std::vector<NullDefault>>();
  for (const auto& [where, value] : f.null_defaults) {
    rules->push_back({parse_rule_path("null-default", where), json(value)});
  }
  return rules;
}

inline std::shared_ptr<const SchemaTypes> schema_of(const Features& f) {
  if (f.schema.empty()) return nullptr;
  return std::make_shared<const SchemaTypes>(json(f.schema));
}

inline FusedOptions options(const Features& f) {
  FusedOptions o;
  if (!f.date_fields.empty()) {
    DateFieldOptions d;
    for (const std::string& p : f.date_fields) {
      d.fields.push_back(parse_rule_path("date-fields", p));
    }
    d.keep_errors = f.keep_errors;
    o.date_fields = std::move(d);
  }
  auto rules = given_rules(f);
  if (const auto schema = schema_of(f)) {
    auto made = schema->as_rules(f.empty_kinds, 1000);
    if (!made) throw std::logic_error("the test's schema gives no rules");
    if (!rules) rules = std::make_shared<std::vector<NullDefault>>();
    rules->insert(rules->end(), made->begin(), made->end());
    if (rules->empty()) rules = nullptr;
  }
  o.null_defaults = std::move(rules);
  o.nulls = f.nulls;
  o.key_case = f.key_case;
  o.key_case_name = "case";
  if (!f.date_format.empty()) {
    o.dates = DateFormat::parse(f.date_format, datetime::TimeZone());
  }
  o.bigint_as_string = f.bigint_as_string;
  o.decimals = f.decimals;
  return o;
}

/// The separate transforms, in the order the command line chains them.
inline Make chain(const Features& f) {
  return [f](Handler& next) -> std::unique_ptr<Handler> {
    struct Chain final : ForwardingHandler {
      Chain(Handler& front, std::vector<std::unique_ptr<Handler>> parts)
          : ForwardingHandler(front), parts_(std::move(parts)) {}
      std::vector<std::unique_ptr<Handler>> parts_;
    };
    FusedOptions o = options(f);
    std::vector<std::unique_ptr<Handler>> parts;
    Handler* h = &next;
    if (o.dates) {
      parts.push_back(std::make_unique<FormatDates>(*h, *o.dates));
      h = parts.back().get();
    }
    if (o.bigint_as_string || o.decimals != DecimalStyle::keep) {
      parts.push_back(
          std::make_unique<NumberStyle>(*h, o.bigint_as_string, o.decimals));
      h = parts.back().get();
    }
    if (o.key_case) {
      parts.push_back(std::make_unique<RenameKeys>(*h, *o.key_case, "case"));
      h = parts.back().get();
    }
    if (o.nulls != NullPolicy::keep) {
      parts.push_back(std::make_unique<DropNulls>(*h, o.nulls));
      h = parts.back().get();
    }
    const auto rules = given_rules(f);
    const auto schema = schema_of(f);
    if (rules || schema) {
      parts.push_back(
          std::make_unique<NullDefaults>(*h, rules, schema, f.empty_kinds));
      h = parts.back().get();
    }
    if (o.date_fields) {
      parts.push_back(std::make_unique<ParseDateFields>(*h, *o.date_fields));
      h = parts.back().get();
    }
    Handler& front = *h;
    return std::make_unique<Chain>(front, std::move(parts));
  };
}

/// Features for the records binary readers' tests build (members id,
/// someValue, maybeNull, nestedMap.innerKey, UPPER_key and createdAt, a
/// date text in every other record): dropping nulls (and null elements),
/// renaming, dates kept when they are none or failing, null rules, big
/// integers as strings.
inline std::vector<Features> record_feature_sets() {
  std::vector<Features> sets(5);
  sets[0].nulls = NullPolicy::drop;
  sets[1].nulls = NullPolicy::drop_all;
  sets[1].key_case = KeyCase::snake;
  sets[2].key_case = KeyCase::camel;
  sets[2].date_fields = {"$[*].createdAt"};
  sets[2].keep_errors = true;
  sets[2].date_format = "yyyy-MM-dd HH:mm:ss";
  sets[3].nulls = NullPolicy::drop;
  sets[3].null_defaults = {{"$..maybeNull", "\"\""}, {"$..innerKey", "0"}};
  sets[3].bigint_as_string = true;
  sets[4].date_fields = {"$[*].createdAt"};  // errors: most are no date
  sets[4].key_case = KeyCase::upper_snake;
  return sets;
}

}  // namespace jbx::transforms::testing
