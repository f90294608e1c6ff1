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

void SortKeys::end_document() {
  tree_.end_document();
  Value doc = tree_.take();
  sort_members(doc);
  replay(doc, next_);
  next_.end_document();
}

}  // namespace jbx
