#include "core/value.h"

namespace jbx {

const Value* Value::find(std::string_view name) const {
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    if (it->first == name) return &it->second;
  }
  return nullptr;
}

Value& TreeBuilder::slot() {
  Value* v = nullptr;
  if (stack_.empty()) {
    root_ = Value();
    done_ = false;
    v = &root_;
  } else if (Value* top = stack_.back(); top->type == Value::Type::array) {
    v = &top->items.emplace_back();
  } else {
    v = &top->members.emplace_back(std::move(pending_key_), Value()).second;
    pending_key_.clear();
  }
  if (!pending_ann_.empty()) {
    v->annotations = std::move(pending_ann_);
    v->tags = std::move(pending_tags_);
    pending_ann_.clear();
    pending_tags_.clear();
  }
  return *v;
}

Flow TreeBuilder::begin_object() {
  Value& v = slot();
  v.type = Value::Type::object;
  stack_.push_back(&v);
  return Flow::visit;
}

Flow TreeBuilder::key(std::string_view name) {
  pending_key_.assign(name);
  return Flow::visit;
}

void TreeBuilder::end_object() { stack_.pop_back(); }

Flow TreeBuilder::begin_array() {
  Value& v = slot();
  v.type = Value::Type::array;
  stack_.push_back(&v);
  return Flow::visit;
}

void TreeBuilder::end_array() { stack_.pop_back(); }

void TreeBuilder::null_value() { slot().type = Value::Type::null; }

void TreeBuilder::bool_value(bool b) {
  Value& v = slot();
  v.type = Value::Type::boolean;
  v.boolean = b;
}

void TreeBuilder::int_value(std::int64_t x) {
  Value& v = slot();
  v.type = Value::Type::int64;
  v.i = x;
}

void TreeBuilder::uint_value(std::uint64_t x) {
  Value& v = slot();
  v.type = Value::Type::uint64;
  v.u = x;
}

void TreeBuilder::double_value(double x) {
  Value& v = slot();
  v.type = Value::Type::float64;
  v.d = x;
}

void TreeBuilder::number_text(std::string_view text) {
  Value& v = slot();
  v.type = Value::Type::number;
  v.text.assign(text);
}

void TreeBuilder::string_value(std::string_view s) {
  Value& v = slot();
  v.type = Value::Type::string;
  v.text.assign(s);
}

void TreeBuilder::bytes_value(std::span<const std::uint8_t> b) {
  Value& v = slot();
  v.type = Value::Type::bytes;
  v.text.assign(reinterpret_cast<const char*>(b.data()), b.size());
}

void TreeBuilder::timestamp_value(const Timestamp& t) {
  Value& v = slot();
  v.type = Value::Type::timestamp;
  v.ts = t;
  v.text.assign(t.zone);
  v.ts.zone = {};
}

void TreeBuilder::annotation(const Annotation& a) {
  pending_ann_.emplace_back(a.kind, std::string(a.name));
  pending_tags_.push_back(a.tag);
}

Value TreeBuilder::take() {
  done_ = false;
  return std::move(root_);
}

bool replay(const Value& v, Handler& h) {
  for (std::size_t k = 0; k < v.annotations.size(); ++k) {
    Annotation a;
    a.kind = v.annotations[k].first;
    a.name = v.annotations[k].second;
    a.tag = k < v.tags.size() ? v.tags[k] : 0;
    h.annotation(a);
  }
  switch (v.type) {
    case Value::Type::null:
      h.null_value();
      break;
    case Value::Type::boolean:
      h.bool_value(v.boolean);
      break;
    case Value::Type::int64:
      h.int_value(v.i);
      break;
    case Value::Type::uint64:
      h.uint_value(v.u);
      break;
    case Value::Type::float64:
      h.double_value(v.d);
      break;
    case Value::Type::number:
      h.number_text(v.text);
      break;
    case Value::Type::string:
      h.string_value(v.text);
      break;
    case Value::Type::bytes:
      h.bytes_value({reinterpret_cast<const std::uint8_t*>(v.text.data()),
                     v.text.size()});
      break;
    case Value::Type::timestamp: {
      Timestamp t = v.ts;
      t.zone = v.text;
      h.timestamp_value(t);
      break;
    }
    case Value::Type::array: {
      const Flow f = h.begin_array();
      if (f == Flow::stop) return false;
      if (f == Flow::skip) break;
      for (const Value& item : v.items) {
        if (!replay(item, h)) return false;
      }
      h.end_array();
      break;
    }
    case Value::Type::object: {
      const Flow f = h.begin_object();
      if (f == Flow::stop) return false;
      if (f == Flow::skip) break;
      for (const auto& [name, member] : v.members) {
        const Flow kf = h.key(name);
        if (kf == Flow::stop) return false;
        if (kf == Flow::skip) continue;
        if (!replay(member, h)) return false;
      }
      h.end_object();
      break;
    }
  }
  return true;
}

}  // namespace jbx
