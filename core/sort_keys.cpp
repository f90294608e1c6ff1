#include "core/sort_keys.h"

#include <algorithm>

namespace jbx {

void sort_members(Value& v) {
  // An explicit work list: documents may nest deeper than the stack allows.
  std::vector<Value*> todo{&v};
  while (!todo.empty()) {
    Value* cur = todo.back();
    todo.pop_back();
    if (cur->type == Value::Type::object) {
      std::stable_sort(cur->members.begin(), cur->members.end(),
                       [](const Value::Member& a, const Value::Member& b) {
                         // char_traits<char> compares like memcmp:
                         // unsigned bytes, so UTF-8 code point order.
                         return std::string_view(a.first) <
                                std::string_view(b.first);
                       });
      for (auto& m : cur->members) {
        if (m.second.is_container()) todo.push_back(&m.second);
      }
    } else if (cur->type == Value::Type::array) {
      for (Value& item : cur->items) {
        if (item.is_container()) todo.push_back(&item);
      }
    }
  }
}

Flow SortKeys::begin_object() {
  if (stopped_) return Flow::stop;
  ++held_;
  return tree_.begin_object();
}

void SortKeys::end_object() {
  tree_.end_object();
  if (--held_ > 0) return;
  // The outermost object held: sorted and sent on. Throws what `next`
  // throws.
  tree_.end_document();
  Value v = tree_.take();
  sort_members(v);
  if (!replay(v, next_)) stopped_ = true;
}

Flow SortKeys::begin_array() {
  if (stopped_) return Flow::stop;
  if (held_ > 0) {
    ++held_;
    return tree_.begin_array();
  }
  return next_.begin_array();
}

void SortKeys::end_array() {
  if (held_ > 0) {
    tree_.end_array();
    --held_;
    return;
  }
  next_.end_array();
}

}  // namespace jbx
