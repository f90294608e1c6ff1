// Typed defaults for nulls, fastjson2's WriteNullListAsEmpty /
// WriteNullStringAsEmpty / WriteNullNumberAsZero / WriteNullBooleanAsFalse
// without Java types: the type of a null comes from a path rule
// (--null-default 'JSONPATH=JSON') or from the `type` a JSON Schema declares
// at its location (--schema with --null-as-empty). Streams: keeps one
// schema node per open container. Not a schema validator (core/schema).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/events.h"
#include "core/path/path.h"
#include "core/transforms/path_tracker.h"
#include "core/value.h"

namespace jbx::transforms {

/// One --null-default rule: nulls selected by `where` become `value`.
struct NullDefault {
  path::Query where;
  Value value;
};

/// Which null kinds --null-as-empty replaces (a bit mask).
enum EmptyKind : unsigned {
  kEmptyList = 1u << 0,     // type "array"   -> []
  kEmptyString = 1u << 1,   // type "string"  -> ""
  kEmptyNumber = 1u << 2,   // type "number" or "integer" -> 0
  kEmptyBoolean = 1u << 3,  // type "boolean" -> false
  kEmptyAll = 15u,
};

/// The declared types of a JSON Schema, looked up per location. Supported
/// keywords: type (a name, or a list whose first non-"null" entry counts),
/// properties, additionalProperties, items (a schema, or a list as in
/// drafts 4 to 2019-09), prefixItems, additionalItems, $ref to the same
/// document ("#", "#/$defs/x", "#/definitions/x"), and allOf / anyOf /
/// oneOf, whose branches are searched in order. Other keywords are ignored.
class SchemaTypes {
 public:
  /// Throws Error(usage) naming a $ref that is not local or does not
  /// resolve.
  explicit SchemaTypes(Value root);

  const Value* root() const { return &root_; }
  /// The schema for member `name` / element `index` of a value described by
  /// `parent`; nullptr when the schema says nothing.
  const Value* member(const Value* parent, std::string_view name) const;
  const Value* item(const Value* parent, std::uint64_t index) const;
  /// The EmptyKind bit of the type declared by `node`, 0 for none.
  unsigned kind(const Value* node) const;

  /// What NullDefaults does with this schema and `empty_kinds`, as path
  /// rules: the nulls each selects, where the first that selects wins, are
  /// the ones the schema types, with their defaults, in every document.
  /// Member names and element indices as the schema lists them, the other
  /// elements as a slice ([n:]), the other members as a wildcard after
  /// rules of null that keep the listed names and the elements from it.
  /// Empty when the schema types nothing; nullopt when its locations are
  /// not a few paths (a recursive schema, or more than `max_rules`).
  std::optional<std::vector<NullDefault>> as_rules(unsigned empty_kinds,
                                                   std::size_t max_rules) const;

 private:
  class RuleWriter;
  /// The member names that `node`, its references and its branches list
  /// (in the order first listed), and the most items a list of theirs
  /// gives (prefixItems, items as a list): as member() and item() search.
  void listed(const Value* node, int depth, std::vector<std::string>& names,
              std::size_t& tuple) const;
  const Value* resolve(const Value* node) const;
  const Value* lookup_ref(std::string_view ref) const;
  void check_refs(const Value& v) const;

  Value root_;
};

class NullDefaults final : public CountKeepingHandler {
 public:
  /// `rules` hold simple queries (parse_rule_path); `schema` may be null;
  /// `empty_kinds` is a mask of EmptyKind.
  NullDefaults(Handler& next,
               std::shared_ptr<const std::vector<NullDefault>> rules,
               std::shared_ptr<const SchemaTypes> schema, unsigned empty_kinds);

  Flow begin_object() override;
  Flow key(std::string_view name) override;
  Flow stable_key(std::string_view name) override;
  void end_object() override;
  Flow begin_array() override;
  void end_array() override;
  void null_value() override;
  void bool_value(bool b) override;
  void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  void double_value(double v) override;
  void number_text(std::string_view text) override;
  void string_value(std::string_view s) override;
  void stable_string(std::string_view s) override;
  void bytes_value(std::span<const std::uint8_t> b) override;
  void timestamp_value(const Timestamp& t) override;

 private:
  struct Frame {
    bool is_array;
    const Value* node;
    std::uint64_t next;
  };
  void value_begin();
  void value_end();
  /// key(), or stable_key() when `stable`: the name is passed on as it
  /// came.
  Flow keyed(std::string_view name, bool stable);
  /// schema_->member(), remembered: records ask for the same names in the
  /// same schemas again and again. At most kRemembered names are kept, so
  /// that a map with ever new names does not grow the memory.
  const Value* member_schema(const Value* parent, std::string_view name);
  Flow opened(Flow f, bool is_array);
  void closed();

  std::shared_ptr<const std::vector<NullDefault>> rules_;
  std::shared_ptr<const SchemaTypes> schema_;
  unsigned empty_kinds_;
  std::optional<PathTracker> tracker_;
  std::vector<Frame> frames_;
  const Value* current_ = nullptr;  // schema of the value about to come
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  using Members =
      std::unordered_map<std::string, const Value*, Hash, std::equal_to<>>;
  static constexpr std::size_t kRemembered = 1 << 14;
  std::unordered_map<const Value*, Members> members_;  // by parent
  const Value* last_parent_ = nullptr;  // and its members, when not null
  Members* last_members_ = nullptr;
  std::size_t remembered_ = 0;
};

}  // namespace jbx::transforms
