#include "core/transforms/null_defaults.h"

#include <fmt/format.h>

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
