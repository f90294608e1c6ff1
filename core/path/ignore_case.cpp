// Member names compared loosely for `query --ignore-case` and
// `--smart-match`: marks the name selectors of a parsed query, and the
// comparison the matchers use.
#include <memory>

#include "core/path/path.h"

namespace jbx::path {

namespace {

char fold(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// The bytes fastjson2's smart match passes over (Fnv.hashCode64LCase). No
// byte of a multibyte UTF-8 character is one of them.
bool separator(char c) { return c == '-' || c == '_' || c == ' '; }

void mark(Query& q, NameMatch how);

void mark(Expr& e, NameMatch how) {
  mark(e.query, how);
  for (Expr& operand : e.operands) mark(operand, how);
}

void mark(Query& q, NameMatch how) {
  for (Segment& seg : q.segments) {
    for (Selector& sel : seg.selectors) {
      if (sel.kind == Selector::Kind::name ||
          sel.kind == Selector::Kind::pointer) {
        sel.match = how;
      }
      if (sel.filter) {
        // Filters are shared and immutable: mark a copy.
        auto copy = std::make_shared<Expr>(*sel.filter);
        mark(*copy, how);
        sel.filter = std::move(copy);
      }
    }
  }
}

}  // namespace

bool names_match(std::string_view key, std::string_view name, NameMatch how) {
  switch (how) {
    case NameMatch::exact:
      return key == name;
    case NameMatch::ignore_case:
      if (key.size() != name.size()) return false;
      for (std::size_t i = 0; i < key.size(); ++i) {
        if (fold(key[i]) != fold(name[i])) return false;
      }
      return true;
    case NameMatch::smart:
      break;
  }
  std::size_t i = 0;
  std::size_t j = 0;
  for (;;) {
    while (i < key.size() && separator(key[i])) ++i;
    while (j < name.size() && separator(name[j])) ++j;
    if (i == key.size() || j == name.size()) {
      return i == key.size() && j == name.size();
    }
    if (fold(key[i]) != fold(name[j])) return false;
    ++i;
    ++j;
  }
}

bool name_matches(const Selector& s, std::string_view key) {
  return names_match(key, s.name, s.match);
}

void match_names(Query& q, NameMatch how) { mark(q, how); }

}  // namespace jbx::path
