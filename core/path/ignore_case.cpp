// Case-insensitive member names for `query --ignore-case`: marks the name
// selectors of a parsed query, and the comparison the matchers use.
#include <memory>

#include "core/path/path.h"

namespace jbx::path {

namespace {

char fold(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

void mark(Query& q);

void mark(Expr& e) {
  mark(e.query);
  for (Expr& operand : e.operands) mark(operand);
}

void mark(Query& q) {
  for (Segment& seg : q.segments) {
    for (Selector& sel : seg.selectors) {
      if (sel.kind == Selector::Kind::name ||
          sel.kind == Selector::Kind::pointer) {
        sel.ignore_case = true;
      }
      if (sel.filter) {
        // Filters are shared and immutable: mark a copy.
        auto copy = std::make_shared<Expr>(*sel.filter);
        mark(*copy);
        sel.filter = std::move(copy);
      }
    }
  }
}

}  // namespace

bool name_matches(const Selector& s, std::string_view key) {
  if (!s.ignore_case) return key == s.name;
  if (key.size() != s.name.size()) return false;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (fold(key[i]) != fold(s.name[i])) return false;
  }
  return true;
}

void ignore_name_case(Query& q) { mark(q); }

}  // namespace jbx::path
