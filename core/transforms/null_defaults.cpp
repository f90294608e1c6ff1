#include "core/transforms/null_defaults.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "core/error.h"

namespace jbx::transforms {

// ---- SchemaTypes
// ------------------------------------------------------------------

namespace {

constexpr int kMaxRefHops = 64;
constexpr int kMaxBranchDepth = 16;

const Value* object_member(const Value* v, std::string_view name) {
  if (v == nullptr || v->type != Value::Type::object) return nullptr;
  return v->find(name);
}

bool is_schema(const Value* v) {
  return v != nullptr && v->type == Value::Type::object;
}

}  // namespace

SchemaTypes::SchemaTypes(Value root) : root_(std::move(root)) {
  check_refs(root_);
}

void SchemaTypes::check_refs(const Value& v) const {
  if (v.type == Value::Type::array) {
    for (const Value& item : v.items) check_refs(item);
    return;
  }
  if (v.type != Value::Type::object) return;
  for (const auto& [name, member] : v.members) {
    if (name == "$ref" && member.type == Value::Type::string &&
        lookup_ref(member.text) == nullptr) {
      throw Error(Errc::usage,
                  fmt::format("--schema: $ref '{}' does not resolve; only "
                              "references within the schema file such as "
                              "#/$defs/name are supported",
                              member.text));
    }
    check_refs(member);
  }
}

const Value* SchemaTypes::lookup_ref(std::string_view ref) const {
  if (ref.empty() || ref[0] != '#') return nullptr;
  ref.remove_prefix(1);
  const Value* v = &root_;
  while (!ref.empty()) {
    if (ref[0] != '/') return nullptr;
    ref.remove_prefix(1);
    const std::size_t end = ref.find('/');
    const std::string_view raw = ref.substr(0, end);
    ref = end == std::string_view::npos ? std::string_view{} : ref.substr(end);
    std::string token;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && raw[i + 1] == '0') {
        token.push_back('~');
        ++i;
      } else if (raw[i] == '~' && i + 1 < raw.size() && raw[i + 1] == '1') {
        token.push_back('/');
        ++i;
      } else {
        token.push_back(raw[i]);
      }
    }
    if (v->type == Value::Type::object) {
      v = v->find(token);
    } else if (v->type == Value::Type::array) {
      std::size_t idx = 0;
      for (const char c : token) {
        if (c < '0' || c > '9') return nullptr;
        idx = idx * 10 + static_cast<std::size_t>(c - '0');
        if (idx > v->items.size()) return nullptr;
      }
      if (token.empty() || idx >= v->items.size()) return nullptr;
      v = &v->items[idx];
    } else {
      return nullptr;
    }
    if (v == nullptr) return nullptr;
  }
  return v;
}

const Value* SchemaTypes::resolve(const Value* node) const {
  for (int hops = 0; hops < kMaxRefHops && is_schema(node); ++hops) {
    const Value* ref = node->find("$ref");
    if (ref == nullptr || ref->type != Value::Type::string) return node;
    node = lookup_ref(ref->text);
  }
  return is_schema(node) ? node : nullptr;  // a $ref cycle says nothing
}

namespace {

// Searches node, then its allOf / anyOf / oneOf branches, for `find`.
template <class F>
const Value* search(const Value* node, const F& find, int depth,
                    const auto& resolve) {
  node = resolve(node);
  if (node == nullptr || depth > kMaxBranchDepth) return nullptr;
  if (const Value* hit = find(node)) return hit;
  for (std::string_view kw : {"allOf", "anyOf", "oneOf"}) {
    const Value* branches = node->find(kw);
    if (branches == nullptr || branches->type != Value::Type::array) continue;
    for (const Value& b : branches->items) {
      if (const Value* hit = search(&b, find, depth + 1, resolve)) return hit;
    }
  }
  return nullptr;
}

}  // namespace

const Value* SchemaTypes::member(const Value* parent,
                                 std::string_view name) const {
  const auto res = [this](const Value* v) { return resolve(v); };
  return search(
      parent,
      [&](const Value* s) -> const Value* {
        if (const Value* p = object_member(s->find("properties"), name)) {
          return p;
        }
        const Value* extra = s->find("additionalProperties");
        return is_schema(extra) ? extra : nullptr;
      },
      0, res);
}

const Value* SchemaTypes::item(const Value* parent, std::uint64_t index) const {
  const auto res = [this](const Value* v) { return resolve(v); };
  return search(
      parent,
      [&](const Value* s) -> const Value* {
        const Value* prefix = s->find("prefixItems");
        if (prefix != nullptr && prefix->type == Value::Type::array &&
            index < prefix->items.size()) {
          return &prefix->items[index];
        }
        const Value* items = s->find("items");
        if (items != nullptr && items->type == Value::Type::array) {
          if (index < items->items.size()) return &items->items[index];
          const Value* extra = s->find("additionalItems");
          return is_schema(extra) ? extra : nullptr;
        }
        return is_schema(items) ? items : nullptr;
      },
      0, res);
}

unsigned SchemaTypes::kind(const Value* node) const {
  const auto kind_of = [](std::string_view t) -> unsigned {
    if (t == "array") return kEmptyList;
    if (t == "string") return kEmptyString;
    if (t == "number" || t == "integer") return kEmptyNumber;
    if (t == "boolean") return kEmptyBoolean;
    return 0;
  };
  unsigned found = 0;
  const auto res = [this](const Value* v) { return resolve(v); };
  search(
      node,
      [&](const Value* s) -> const Value* {
        const Value* type = s->find("type");
        if (type == nullptr) return nullptr;
        if (type->type == Value::Type::string && type->text != "null") {
          found = kind_of(type->text);
          return type;
        }
        if (type->type == Value::Type::array) {
          for (const Value& t : type->items) {
            if (t.type == Value::Type::string && t.text != "null") {
              found = kind_of(t.text);
              return type;
            }
          }
        }
        return nullptr;
      },
      0, res);
  return found;
}

void SchemaTypes::listed(const Value* node, int depth,
                         std::vector<std::string>& names,
                         std::size_t& tuple) const {
  // The nodes search() visits, in its order.
  node = resolve(node);
  if (node == nullptr || depth > kMaxBranchDepth) return;
  if (const Value* props = node->find("properties");
      props != nullptr && props->type == Value::Type::object) {
    for (const Value::Member& m : props->members) {
      if (std::find(names.begin(), names.end(), m.first) == names.end()) {
        names.push_back(m.first);
      }
    }
  }
  for (std::string_view kw : {"prefixItems", "items"}) {
    const Value* list = node->find(kw);
    if (list != nullptr && list->type == Value::Type::array) {
      tuple = std::max(tuple, list->items.size());
    }
  }
  for (std::string_view kw : {"allOf", "anyOf", "oneOf"}) {
    const Value* branches = node->find(kw);
    if (branches == nullptr || branches->type != Value::Type::array) continue;
    for (const Value& b : branches->items) listed(&b, depth + 1, names, tuple);
  }
}

namespace {

path::Segment child_segment(path::Selector s, bool descendant = false) {
  path::Segment seg;
  seg.descendant = descendant;
  seg.selectors.push_back(std::move(s));
  return seg;
}

path::Selector name_selector(std::string name) {
  path::Selector s;
  s.kind = path::Selector::Kind::name;
  s.name = std::move(name);
  return s;
}

path::Selector index_selector(std::size_t i) {
  path::Selector s;
  s.kind = path::Selector::Kind::index;
  s.index = static_cast<std::int64_t>(i);
  return s;
}

// [from:]: every element from `from` on, and no member.
path::Selector elements_from(std::size_t from) {
  path::Selector s;
  s.kind = path::Selector::Kind::slice;
  s.slice.start = static_cast<std::int64_t>(from);
  return s;
}

path::Selector wildcard() {
  path::Selector s;
  s.kind = path::Selector::Kind::wildcard;
  return s;
}

// What NullDefaults::null_value() writes for a null of `kind`.
Value default_of(unsigned kind) {
  Value v;
  switch (kind) {
    case kEmptyList:
      v.type = Value::Type::array;
      break;
    case kEmptyString:
      v.type = Value::Type::string;
      break;
    case kEmptyNumber:
      v.type = Value::Type::int64;
      break;
    case kEmptyBoolean:
      v.type = Value::Type::boolean;
      break;
    default:
      break;  // null: a rule that keeps the null
  }
  return v;
}

}  // namespace

// Writes the rules of as_rules(), depth first. The rules of a location's
// subtree select only at or below it, so they may go in any order but
// one: those of the other members, whose wildcard also selects the listed
// members and the elements, go last, after rules of null at and below
// those.
class SchemaTypes::RuleWriter {
 public:
  // (Rules stay a few segments short of parse_rule_path()'s limit, with
  // room for the `..*` of a rule of null.)
  static constexpr std::size_t kMaxDepth = 48;
  // Locations visited at most: a schema that refers to itself with two
  // members or more is not cut off by depth only.
  static constexpr std::size_t kMaxVisits = 4096;

  RuleWriter(const SchemaTypes& s, unsigned kinds, std::size_t max_rules)
      : s_(s), kinds_(kinds), max_rules_(max_rules) {}

  // The rules for the value at `at` that `node` describes; false when
  // there would be too many or too deep ones.
  bool write(const Value* node) {
    if (at_.size() > kMaxDepth || ++visits_ > kMaxVisits) return false;
    if (const unsigned k = node != nullptr ? s_.kind(node) & kinds_ : 0) {
      if (!add(default_of(k))) return false;
    }
    if (node == nullptr) return true;
    std::vector<std::string> names;
    std::size_t tuple = 0;
    s_.listed(node, 0, names, tuple);
    for (const std::string& name : names) {
      if (!below(name_selector(name), s_.member(node, name))) return false;
    }
    for (std::size_t i = 0; i < tuple; ++i) {
      if (!below(index_selector(i), s_.item(node, i))) return false;
    }
    if (!below(elements_from(tuple), s_.item(node, tuple))) return false;
    // The other members: those of a name none lists.
    std::string other = "\x7f";
    while (std::find(names.begin(), names.end(), other) != names.end()) {
      other += '\x7f';
    }
    const Value* rest = s_.member(node, other);
    if (rest == nullptr) return true;
    const std::size_t before = rules_.size();
    if (!below(wildcard(), rest)) return false;
    if (rules_.size() == before) return true;
    // Nulls of the listed members and of the elements, and below them,
    // kept from the wildcard's rules.
    std::vector<NullDefault> keep;
    const auto kept = [&](path::Selector sel) {
      for (const bool descendants : {false, true}) {
        NullDefault d;
        d.where.segments = at_;
        d.where.segments.push_back(child_segment(sel));
        if (descendants) {
          d.where.segments.push_back(child_segment(wildcard(), true));
        }
        keep.push_back(std::move(d));
      }
    };
    for (const std::string& name : names) kept(name_selector(name));
    kept(elements_from(0));
    if (rules_.size() + keep.size() > max_rules_) return false;
    rules_.insert(rules_.begin() + static_cast<std::ptrdiff_t>(before),
                  std::make_move_iterator(keep.begin()),
                  std::make_move_iterator(keep.end()));
    return true;
  }

  std::vector<NullDefault> take() { return std::move(rules_); }

 private:
  bool below(path::Selector step, const Value* node) {
    if (node == nullptr) return true;
    at_.push_back(child_segment(std::move(step)));
    const bool ok = write(node);
    at_.pop_back();
    return ok;
  }
  bool add(Value v) {
    if (rules_.size() == max_rules_) return false;
    NullDefault d;
    d.where.segments = at_;
    d.value = std::move(v);
    rules_.push_back(std::move(d));
    return true;
  }

  const SchemaTypes& s_;
  unsigned kinds_;
  std::size_t max_rules_;
  std::size_t visits_ = 0;
  std::vector<path::Segment> at_;
  std::vector<NullDefault> rules_;
};

std::optional<std::vector<NullDefault>> SchemaTypes::as_rules(
    unsigned empty_kinds, std::size_t max_rules) const {
  RuleWriter w(*this, empty_kinds, max_rules);
  if (!w.write(root())) return std::nullopt;
  return w.take();
}

// ---- NullDefaults
// -----------------------------------------------------------------

NullDefaults::NullDefaults(
    Handler& next, std::shared_ptr<const std::vector<NullDefault>> rules,
    std::shared_ptr<const SchemaTypes> schema, unsigned empty_kinds)
    : CountKeepingHandler(next),
      rules_(std::move(rules)),
      schema_(std::move(schema)),
      empty_kinds_(empty_kinds) {
  if (rules_ && !rules_->empty()) {
    std::vector<path::Query> queries;
    for (const NullDefault& r : *rules_) queries.push_back(r.where);
    tracker_.emplace(queries);
  }
  if (schema_) current_ = schema_->root();
}

const Value* NullDefaults::member_schema(const Value* parent,
                                         std::string_view name) {
  if (parent == nullptr) return nullptr;  // no schema for the object
  if (parent != last_parent_) {
    last_parent_ = parent;
    last_members_ = &members_[parent];
  }
  Members& m = *last_members_;
  const auto it = m.find(name);
  if (it != m.end()) return it->second;
  const Value* s = schema_->member(parent, name);
  if (remembered_ < kRemembered) {
    m.emplace(name, s);
    ++remembered_;
  }
  return s;
}

void NullDefaults::value_begin() {
  if (tracker_) tracker_->on_value_begin();
  if (schema_ && !frames_.empty() && frames_.back().is_array) {
    Frame& f = frames_.back();
    current_ = schema_->item(f.node, f.next++);
  }
}

void NullDefaults::value_end() {
  if (tracker_) tracker_->on_value_end();
  if (schema_ && frames_.empty()) current_ = schema_->root();
}

Flow NullDefaults::opened(Flow f, bool is_array) {
  if (f == Flow::visit) {
    if (tracker_) tracker_->on_open(is_array);
    if (schema_) frames_.push_back({is_array, current_, 0});
  } else {
    value_end();
  }
  return f;
}

void NullDefaults::closed() {
  if (tracker_) tracker_->on_close();
  if (schema_) {
    frames_.pop_back();
    if (frames_.empty()) current_ = schema_->root();
  }
}

Flow NullDefaults::begin_object() {
  value_begin();
  return opened(next_.begin_object(), false);
}

Flow NullDefaults::key(std::string_view name) { return keyed(name, false); }

Flow NullDefaults::stable_key(std::string_view name) {
  return keyed(name, true);
}

Flow NullDefaults::keyed(std::string_view name, bool stable) {
  if (tracker_) tracker_->on_key(name, stable);
  if (schema_) current_ = member_schema(frames_.back().node, name);
  const Flow f = key_to_next(name, stable);
  if (f != Flow::visit) value_end();
  return f;
}

void NullDefaults::end_object() {
  next_.end_object();
  closed();
}

Flow NullDefaults::begin_array() {
  value_begin();
  return opened(next_.begin_array(), true);
}

void NullDefaults::end_array() {
  next_.end_array();
  closed();
}

void NullDefaults::null_value() {
  value_begin();
  const int rule = tracker_ ? tracker_->selected() : -1;
  const unsigned kind = schema_ ? schema_->kind(current_) & empty_kinds_ : 0;
  if (rule >= 0) {
    replay((*rules_)[static_cast<std::size_t>(rule)].value, next_);
  } else if (kind == kEmptyList) {
    if (next_.begin_array() == Flow::visit) next_.end_array();
  } else if (kind == kEmptyString) {
    next_.string_value("");
  } else if (kind == kEmptyNumber) {
    next_.int_value(0);
  } else if (kind == kEmptyBoolean) {
    next_.bool_value(false);
  } else {
    next_.null_value();
  }
  value_end();
}

void NullDefaults::bool_value(bool b) {
  value_begin();
  next_.bool_value(b);
  value_end();
}
void NullDefaults::int_value(std::int64_t v) {
  value_begin();
  next_.int_value(v);
  value_end();
}
void NullDefaults::uint_value(std::uint64_t v) {
  value_begin();
  next_.uint_value(v);
  value_end();
}
void NullDefaults::double_value(double v) {
  value_begin();
  next_.double_value(v);
  value_end();
}
void NullDefaults::number_text(std::string_view t) {
  value_begin();
  next_.number_text(t);
  value_end();
}
void NullDefaults::string_value(std::string_view s) {
  value_begin();
  next_.string_value(s);
  value_end();
}
void NullDefaults::stable_string(std::string_view s) {
  value_begin();
  next_.stable_string(s);
  value_end();
}
void NullDefaults::bytes_value(std::span<const std::uint8_t> b) {
  value_begin();
  next_.bytes_value(b);
  value_end();
}
void NullDefaults::timestamp_value(const Timestamp& t) {
  value_begin();
  next_.timestamp_value(t);
  value_end();
}

}  // namespace jbx::transforms
