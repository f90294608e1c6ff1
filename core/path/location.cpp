// Locations: normalized paths (RFC 9535 2.7), JSON Pointers (RFC 6901), and
// the location matcher for simple queries (an NFA over the segments).
#include <fmt/format.h>

#include "core/error.h"
#include "core/path/path.h"

namespace jbx::path {

namespace {

bool is_location_selector_impl(const Selector& s) {
  switch (s.kind) {
    case Selector::Kind::name:
    case Selector::Kind::wildcard:
    case Selector::Kind::pointer:
      return true;
    case Selector::Kind::index:
      return s.index >= 0;
    case Selector::Kind::slice:
      return s.slice.step > 0 && s.slice.start.value_or(0) >= 0 &&
             s.slice.end.value_or(0) >= 0;
    case Selector::Kind::filter:
      return false;
  }
  return false;
}

bool selects_step_impl(const Selector& s, const Step& step) {
  switch (s.kind) {
    case Selector::Kind::name:
      return !step.is_index && name_matches(s, step.key);
    case Selector::Kind::wildcard:
      return true;
    case Selector::Kind::index:
      return step.is_index && s.index >= 0 &&
             step.index == static_cast<std::uint64_t>(s.index);
    case Selector::Kind::pointer:
      return step.is_index
                 ? s.index >= 0 &&
                       step.index == static_cast<std::uint64_t>(s.index)
                 : name_matches(s, step.key);
    case Selector::Kind::slice: {
      if (!step.is_index || s.slice.step <= 0) return false;
      const auto start = static_cast<std::uint64_t>(s.slice.start.value_or(0));
      if (step.index < start) return false;
      if (s.slice.end &&
          step.index >= static_cast<std::uint64_t>(*s.slice.end)) {
        return false;
      }
      return (step.index - start) % static_cast<std::uint64_t>(s.slice.step) ==
             0;
    }
    case Selector::Kind::filter:
      return false;
  }
  return false;
}

}  // namespace

std::string normalized_path(std::span<const Step> location) {
  std::string out = "$";
  for (const Step& s : location) {
    if (s.is_index) {
      out += fmt::format("[{}]", s.index);
      continue;
    }
    out += "['";
    for (const char ch : s.key) {
      const auto c = static_cast<unsigned char>(ch);
      switch (c) {
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\'':
          out += "\\'";
          break;
        case '\\':
          out += "\\\\";
          break;
        default:
          if (c < 0x20) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
          } else {
            out += ch;
          }
      }
    }
    out += "']";
  }
  return out;
}

std::string json_pointer(std::span<const Step> location) {
  std::string out;
  for (const Step& s : location) {
    out += '/';
    if (s.is_index) {
      out += fmt::format("{}", s.index);
      continue;
    }
    for (const char c : s.key) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
  }
  return out;
}

bool is_location_selector(const Selector& s) {
  return is_location_selector_impl(s);
}

bool selects_step(const Selector& s, const Step& step) {
  return selects_step_impl(s, step);
}

bool is_simple(const Query& q) {
  for (const Segment& seg : q.segments) {
    for (const Selector& s : seg.selectors) {
      if (!is_location_selector_impl(s)) return false;
    }
  }
  return true;
}

Matcher::Matcher(const Query& q) : segments_(q.segments) {
  if (!is_simple(q)) {
    throw Error(Errc::invalid_query,
                "this query needs the document (filters, negative indices "
                "or slices); only names, wildcards, indices and '..' apply "
                "here",
                0);
  }
  States start(segments_.size() + 1, false);
  start[0] = true;
  stack_.push_back(std::move(start));
}

Matcher::States Matcher::advance(const States& from, const Step& s) const {
  States to(from.size(), false);
  const std::size_t n = segments_.size();
  for (std::size_t j = 0; j < n; ++j) {
    if (!from[j]) continue;
    const Segment& seg = segments_[j];
    // A descendant segment may skip any number of levels before selecting.
    if (seg.descendant) to[j] = true;
    for (const Selector& sel : seg.selectors) {
      if (selects_step_impl(sel, s)) {
        to[j + 1] = true;
        break;
      }
    }
  }
  return to;
}

bool Matcher::selects(std::span<const Step> location) const {
  States cur = stack_.front();
  for (const Step& s : location) cur = advance(cur, s);
  return cur.back();
}

void Matcher::push(const Step& s) {
  stack_.push_back(advance(stack_.back(), s));
}

void Matcher::pop() {
  if (stack_.size() > 1) stack_.pop_back();
}

bool Matcher::selected() const { return stack_.back().back(); }

bool Matcher::alive() const {
  const States& cur = stack_.back();
  for (std::size_t j = 0; j + 1 < cur.size(); ++j) {
    if (cur[j]) return true;
  }
  return cur.back();
}

}  // namespace jbx::path
