#include "cli/transforms_from_flags.h"

#include <fmt/format.h>

#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/pipeline.h"
#include "core/datetime.h"
#include "core/error.h"
#include "core/transforms/dates.h"
#include "core/transforms/fused.h"
#include "core/transforms/key_case.h"
#include "core/transforms/null_defaults.h"
#include "core/transforms/nulls.h"
#include "core/transforms/numbers.h"
#include "core/transforms/path_tracker.h"
#include "core/value.h"
#include "formats/json/json_format.h"
#include "formats/json/json_fused.h"

namespace jbx::cli {

namespace tf = jbx::transforms;
namespace dt = jbx::datetime;

struct FeatureSettings {
  tf::NullPolicy nulls = tf::NullPolicy::keep;
  std::shared_ptr<const std::vector<tf::NullDefault>> rules;
  std::shared_ptr<const tf::SchemaTypes> schema;
  unsigned empty_kinds = tf::kEmptyAll;
  bool empty_as_null = false;
  std::optional<tf::DateFormat> date_format;  // --date-format given
  bool dates_in_json = false;                 // reformat dates for text output
  tf::DateFormat json_dates;                  // iso8601 in --timezone
  std::optional<tf::DateFieldOptions> date_fields;
  std::optional<tf::KeyCase> key_case;
  std::string key_case_name;
  bool bigint_as_string = false;
  tf::DecimalStyle decimals = tf::DecimalStyle::keep;

  /// Whether none of what the fused features do is asked for (all but
  /// --schema and --empty-as-null).
  bool fused_empty() const {
    return nulls == tf::NullPolicy::keep && !rules && !date_format &&
           !dates_in_json && !date_fields && !key_case && !bigint_as_string &&
           decimals == tf::DecimalStyle::keep;
  }
  bool empty() const { return fused_empty() && !schema && !empty_as_null; }
};

namespace {

[[noreturn]] void usage(std::string msg) {
  throw Error(Errc::usage, std::move(msg));
}

// Rules made of a schema at most: as many as the path tracker replays
// when each has three segments.
constexpr std::size_t kMaxSchemaRules = 64;

/// --schema as null rules after those of --null-default, when the schema
/// types a few paths and the tracker can replay them all with the date
/// fields': the fused features then take them, where NullDefaults would
/// look the schema up at every value. The same nulls are replaced
/// (SchemaTypes::as_rules()).
void schema_as_rules(FeatureSettings& s) {
  if (!s.schema) return;
  auto made = s.schema->as_rules(s.empty_kinds, kMaxSchemaRules);
  if (!made) return;
  auto rules = std::make_shared<std::vector<tf::NullDefault>>();
  if (s.rules) *rules = *s.rules;
  rules->insert(rules->end(), std::make_move_iterator(made->begin()),
                std::make_move_iterator(made->end()));
  std::vector<path::Query> tracked;  // as the fused features track them
  if (s.date_fields) tracked = s.date_fields->fields;
  for (const tf::NullDefault& r : *rules) tracked.push_back(r.where);
  if (!tf::PathTracker(tracked).replayable()) return;
  s.rules = rules->empty() ? nullptr : std::move(rules);
  s.schema.reset();
}

/// Reads one JSON document from `text` (a flag value or a file's bytes).
Value parse_json(std::unique_ptr<Source> src) {
  ReadOptions ro;
  std::unique_ptr<Reader> reader = make_reader(*src, kJsonFormat, ro, true);
  TreeBuilder tree;
  if (!reader->read_document(tree)) {
    throw Error(Errc::unexpected_end, "no JSON value", 0);
  }
  return tree.take();
}

std::string with_offset(const Error& e) {
  return e.offset ? fmt::format("{} at byte {}", e.message, *e.offset)
                  : e.message;
}

tf::NullDefault parse_null_default(const std::string& rule) {
  // The path ends at the first '=' after which the left part is a valid
  // query: names may contain '=' ($['a=b']=1).
  for (std::size_t eq = rule.find('='); eq != std::string::npos;
       eq = rule.find('=', eq + 1)) {
    const std::string_view where(rule.data(), eq);
    try {
      path::parse(where);
    } catch (const Error&) {
      continue;
    }
    tf::NullDefault d;
    d.where = tf::parse_rule_path("null-default", where);
    try {
      d.value = parse_json(
          Source::from_memory("--null-default", rule.substr(eq + 1)));
    } catch (const Error& e) {
      usage(
          fmt::format("--null-default '{}': the value after '=' is not "
                      "JSON: {}",
                      rule, with_offset(e)));
    }
    return d;
  }
  usage(
      fmt::format("--null-default '{}': expected JSONPATH=JSON, such as "
                  "'$..tags=[]'",
                  rule));
}

unsigned parse_empty_kinds(const std::string& list) {
  unsigned kinds = 0;
  std::size_t b = 0;
  while (b <= list.size()) {
    std::size_t e = list.find(',', b);
    if (e == std::string::npos) e = list.size();
    const std::string_view k(list.data() + b, e - b);
    if (k == "list") {
      kinds |= tf::kEmptyList;
    } else if (k == "string") {
      kinds |= tf::kEmptyString;
    } else if (k == "number") {
      kinds |= tf::kEmptyNumber;
    } else if (k == "boolean") {
      kinds |= tf::kEmptyBoolean;
    } else {
      usage(
          fmt::format("--null-as-empty: unknown kind '{}' (expected a "
                      "comma-separated list of list, string, number, "
                      "boolean)",
                      k));
    }
    b = e + 1;
  }
  return kinds;
}

std::shared_ptr<const tf::SchemaTypes> load_schema(const std::string& file) {
  Value root;
  try {
    root = parse_json(Source::open(file));
  } catch (const Error& e) {
    usage(fmt::format("--schema {}: {}", file, with_offset(e)));
  }
  return std::make_shared<const tf::SchemaTypes>(std::move(root));
}

tf::DateFormat date_format_flag(std::string_view flag, std::string_view text,
                                const dt::TimeZone& zone) {
  try {
    return tf::DateFormat::parse(text, zone);
  } catch (const Error& e) {
    usage(fmt::format("--{}: {}", flag, e.message));
  }
}

tf::KeyCase key_case_named(std::string_view name) {
  if (name == "camel") return tf::KeyCase::camel;
  if (name == "snake") return tf::KeyCase::snake;
  if (name == "kebab") return tf::KeyCase::kebab;
  if (name == "pascal") return tf::KeyCase::pascal;
  if (name == "upper-snake") return tf::KeyCase::upper_snake;
  if (name == "lower") return tf::KeyCase::lower;
  usage(fmt::format("--key-case: unknown case '{}'", name));
}

std::string tz_directory() {
  const char* dir = std::getenv("TZDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/usr/share/zoneinfo";
}

FeatureSettings settings_from(const Args& args) {
  FeatureSettings s;
  if (const auto v = args.value("nulls")) {
    if (*v == "drop") {
      s.nulls = tf::NullPolicy::drop;
    } else if (*v == "drop-all") {
      s.nulls = tf::NullPolicy::drop_all;
    } else if (*v != "keep") {
      usage(fmt::format("--nulls: unknown mode '{}'", *v));
    }
  }
  if (args.has("null-default")) {
    auto rules = std::make_shared<std::vector<tf::NullDefault>>();
    for (const std::string& r : args.values("null-default")) {
      rules->push_back(parse_null_default(r));
    }
    s.rules = std::move(rules);
  }
  if (const auto list = args.value("null-as-empty")) {
    if (!args.has("schema")) {
      usage(
          "--null-as-empty needs --schema FILE, which declares where "
          "nulls are lists, strings, numbers or booleans");
    }
    s.empty_kinds = parse_empty_kinds(*list);
  }
  if (const auto file = args.value("schema")) s.schema = load_schema(*file);
  s.empty_as_null = args.has("empty-as-null");

  const std::string tzdir = tz_directory();
  dt::TimeZone zone;
  if (const auto tz = args.value("timezone")) {
    try {
      zone = dt::TimeZone::named(*tz, tzdir);
    } catch (const Error& e) {
      usage(fmt::format("--timezone: {}", e.message));
    }
  }
  if (const auto f = args.value("date-format")) {
    s.date_format = date_format_flag("date-format", *f, zone);
    s.date_format->tzdir = tzdir;
  }
  if (args.has("date-fields")) {
    tf::DateFieldOptions o;
    for (const std::string& p : args.values("date-fields")) {
      o.fields.push_back(tf::parse_rule_path("date-fields", p));
    }
    if (const auto p = args.value("date-input-format")) {
      try {
        o.input_pattern = dt::DatePattern::compile(*p);
      } catch (const Error& e) {
        usage(fmt::format("--date-input-format: {}", e.message));
      }
    }
    o.zone = zone;
    o.tzdir = tzdir;
    if (const auto u = args.value("epoch-unit")) {
      if (*u == "s") {
        o.unit = tf::EpochUnit::seconds;
      } else if (*u != "ms") {
        usage(fmt::format("--epoch-unit: unknown unit '{}'", *u));
      }
    }
    if (const auto m = args.value("date-errors")) {
      if (*m == "keep") {
        o.keep_errors = true;
      } else if (*m != "error") {
        usage(fmt::format("--date-errors: unknown mode '{}'", *m));
      }
    }
    s.date_fields = std::move(o);
  } else {
    for (const char* flag :
         {"date-input-format", "epoch-unit", "date-errors"}) {
      if (args.has(flag)) {
        usage(
            fmt::format("--{} applies to the values --date-fields "
                        "selects; give --date-fields PATH too",
                        flag));
      }
    }
  }
  // Text output shows dates in --timezone: reformat them whenever a date
  // flag is given (otherwise the writer's own ISO 8601 applies).
  s.dates_in_json = s.date_format || s.date_fields || args.has("timezone");
  s.json_dates = s.date_format ? *s.date_format
                               : date_format_flag("timezone", "iso8601", zone);
  s.json_dates.tzdir = tzdir;

  if (const auto k = args.value("key-case")) {
    s.key_case = key_case_named(*k);
    s.key_case_name = *k;
  }
  s.bigint_as_string = args.has("bigint-as-string");
  if (const auto d = args.value("decimal")) {
    if (*d == "plain") {
      s.decimals = tf::DecimalStyle::plain;
    } else if (*d == "exponent") {
      s.decimals = tf::DecimalStyle::exponent;
    } else {
      usage(fmt::format("--decimal: unknown style '{}'", *d));
    }
  }
  schema_as_rules(s);
  return s;
}

/// The fused features typed by the writer `next`, when it is a W: one the
/// JSON reader calls them for directly (formats/json/json_fused.h).
template <class W>
Handler* fused_before(Handler& next, TransformChain& chain,
                      tf::FusedOptions& o) {
  auto* w = dynamic_cast<W*>(&next);
  if (w == nullptr) return nullptr;
  return &chain.make<tf::FusedFeatures<W>>(*w, std::move(o));
}

/// The features of `s` but --schema and --empty-as-null, in one handler
/// in front of `next`: typed by its writer when the readers call it
/// directly.
Handler& fused(Handler& next, TransformChain& chain, const FeatureSettings& s,
               bool format_dates, bool binary_output) {
  tf::FusedOptions o;
  o.date_fields = s.date_fields;
  o.null_defaults = s.rules;
  o.nulls = s.nulls;
  o.key_case = s.key_case;
  o.key_case_name = s.key_case_name;
  o.bigint_as_string = s.bigint_as_string;
  o.decimals = s.decimals;
  if (format_dates) {
    o.dates = binary_output ? *s.date_format : s.json_dates;
  }
  for (auto* make :
       {&fused_before<JsonWriter>, &fused_before<CborWriter>,
        &fused_before<msgpack::MsgpackWriter>, &fused_before<JsonbWriter>}) {
    if (Handler* h = make(next, chain, o)) return *h;
  }
  return chain.make<tf::FusedFeatures<Handler>>(next, std::move(o));
}

}  // namespace

FeatureTransforms::FeatureTransforms(const Args& args)
    : s_(std::make_shared<const FeatureSettings>(settings_from(args))) {}

FeatureTransforms::~FeatureTransforms() = default;

bool FeatureTransforms::empty() const { return s_->empty(); }

Handler& FeatureTransforms::wrap(Handler& next, TransformChain& chain,
                                 bool binary_output) const {
  const FeatureSettings& s = *s_;
  if (s.empty()) return next;
  const bool format_dates =
      binary_output ? s.date_format.has_value() : s.dates_in_json;
  if (!s.schema && !s.empty_as_null) {
    // The usual features, in one handler: the same output as the chain
    // below, at a fraction of its cost (core/transforms/fused.h).
    return fused(next, chain, s, format_dates, binary_output);
  }
  // Built from the writer backwards; events flow: empty-as-null, date
  // fields, null defaults, null dropping, key case, numbers, date format.
  Handler* h = &next;
  if (format_dates) {
    h = &chain.make<tf::FormatDates>(
        *h, binary_output ? *s.date_format : s.json_dates);
  }
  if (s.bigint_as_string || s.decimals != tf::DecimalStyle::keep) {
    h = &chain.make<tf::NumberStyle>(*h, s.bigint_as_string, s.decimals);
  }
  if (s.key_case) {
    h = &chain.make<tf::RenameKeys>(*h, *s.key_case, s.key_case_name);
  }
  if (s.nulls != tf::NullPolicy::keep) {
    h = &chain.make<tf::DropNulls>(*h, s.nulls);
  }
  if (s.rules || s.schema) {
    h = &chain.make<tf::NullDefaults>(*h, s.rules, s.schema, s.empty_kinds);
  }
  if (s.date_fields) h = &chain.make<tf::ParseDateFields>(*h, *s.date_fields);
  if (s.empty_as_null) {
    // The JSON reader turns empty values into nulls itself, in front of
    // the writer or of the fused features doing what the chain after this
    // step does; other readers send their events through the chain.
    Handler* typed = nullptr;
    if (!s.schema) {
      typed = s.fused_empty()
                  ? &next
                  : &fused(next, chain, s, format_dates, binary_output);
    }
    h = &chain.make<tf::EmptyAsNull>(*h, typed);
  }
  return *h;
}

void add_feature_transforms(Pipeline& pipeline, const Args& args) {
  FeatureTransforms features(args);
  if (features.empty()) return;
  pipeline.wrap(
      [features, &pipeline](Handler& next, TransformChain& chain) -> Handler& {
        return features.wrap(next, chain, pipeline.output_format().binary);
      });
}

}  // namespace jbx::cli
