#include "core/transforms/path_tracker.h"

#include <fmt/format.h>

#include "core/error.h"

namespace jbx::transforms {

path::Query parse_rule_path(std::string_view flag, std::string_view query) {
  path::Query q;
  try {
    q = path::parse(query);
  } catch (const Error& e) {
    throw Error(
        Errc::usage,
        fmt::format("--{}: invalid JSONPath '{}': {}{}", flag, query, e.message,
                    e.offset ? fmt::format(" at character {}", *e.offset + 1)
                             : std::string()));
  }
  if (!path::is_simple(q)) {
    throw Error(Errc::usage,
                fmt::format("--{}: JSONPath '{}' cannot be matched while "
                            "streaming; use names, wildcards, non-negative "
                            "indices and '..' (no filters, slices or "
                            "negative indices)",
                            flag, query));
  }
  if (q.segments.size() > 63) {
    throw Error(Errc::usage,
                fmt::format("--{}: JSONPath '{}' has more than 63 segments",
                            flag, query));
  }
  return q;
}

PathTracker::PathTracker(const std::vector<path::Query>& rules) {
  rules_.reserve(rules.size());
  for (const path::Query& q : rules) {
    rules_.push_back(q.segments);
    accept_.push_back(std::uint64_t{1} << q.segments.size());
    std::uint64_t descendant = 0;
    std::uint64_t named = 0;
    std::vector<std::string>& names = names_.emplace_back(q.segments.size());
    for (std::size_t j = 0; j < q.segments.size(); ++j) {
      const path::Segment& seg = q.segments[j];
      if (seg.descendant) descendant |= std::uint64_t{1} << j;
      if (seg.selectors.size() == 1 &&
          seg.selectors[0].kind == path::Selector::Kind::name &&
          !seg.selectors[0].ignore_case) {
        named |= std::uint64_t{1} << j;
        names[j] = seg.selectors[0].name;
      }
    }
    descendant_.push_back(descendant);
    named_.push_back(named);
  }
  n_ = rules_.size();
  masks_.assign(n_, 1);  // the root: nothing matched yet
  uniform_elements_ = n_ <= kMaxReplayed;
  for (const auto& segs : rules_) {
    for (const path::Segment& seg : segs) {
      for (const path::Selector& sel : seg.selectors) {
        if (sel.kind != path::Selector::Kind::name &&
            sel.kind != path::Selector::Kind::wildcard) {
          uniform_elements_ = false;
        }
      }
    }
  }
}

void PathTracker::grow() {
  location_.resize(frames_.size());
  masks_.resize((location_.size() + 1) * rules_.size());
}

void PathTracker::enter_member(std::string_view name, bool stable) {
  // What enter() does for a member, with the segments of one plain name
  // compared at once.
  ++depth_;
  const std::uint64_t* from = &masks_[(depth_ - 1) * n_];
  std::uint64_t* to = &masks_[depth_ * n_];
  bool alive = false;
  for (std::size_t r = 0; r < n_; ++r) {
    const std::uint64_t out = member_mask(r, from[r], name);
    to[r] = out;
    alive = alive || out != 0;
  }
  if (!alive) {
    dead_from_ = depth_;
    return;  // paths are only shown for selected values, all alive above
  }
  Entry& e = location_[depth_ - 1];
  e.is_index = false;
  e.owned = !stable;
  if (stable) {
    e.view = name;
  } else {
    e.key.assign(name);
  }
}

std::uint64_t PathTracker::member_mask(std::size_t r, std::uint64_t from,
                                       std::string_view name) const {
  // (The bit of a rule matched above: nothing below it matches.)
  const std::uint64_t m = from & ~accept_[r];
  std::uint64_t out = m & descendant_[r];
  for (std::uint64_t b = m & named_[r]; b != 0; b &= b - 1) {
    const auto j = static_cast<std::size_t>(__builtin_ctzll(b));
    if (name == names_[r][j]) out |= std::uint64_t{2} << j;
  }
  for (std::uint64_t b = m & ~named_[r]; b != 0; b &= b - 1) {
    const auto j = static_cast<std::size_t>(__builtin_ctzll(b));
    for (const path::Selector& sel : rules_[r][j].selectors) {
      if (path::selects_step(sel, path::Step::member(name))) {
        out |= std::uint64_t{2} << j;
        break;
      }
    }
  }
  return out;
}

int PathTracker::selects_member(std::string_view name, std::size_t from) const {
  if (dead_from_ != 0) return -1;
  const std::uint64_t* m = &masks_[depth_ * n_];
  for (std::size_t r = from; r < n_; ++r) {
    if ((member_mask(r, m[r], name) & accept_[r]) != 0) {
      return static_cast<int>(r);
    }
  }
  return -1;
}

bool PathTracker::selects_no_element() const {
  if (!uniform_elements_ || dead_from_ != 0 || !in_array() ||
      depth_ + 1 != frames_.size()) {
    return false;
  }
  // With names and wildcards only, a rule selects an element where its
  // last segment comes next and has a wildcard.
  const std::uint64_t* m = &masks_[depth_ * n_];
  for (std::size_t r = 0; r < n_; ++r) {
    const std::vector<path::Segment>& segs = rules_[r];
    if (segs.empty() || ((m[r] >> (segs.size() - 1)) & 1) == 0) continue;
    for (const path::Selector& sel : segs.back().selectors) {
      if (sel.kind == path::Selector::Kind::wildcard) return false;
    }
  }
  return true;
}

void PathTracker::enter_element(std::uint64_t i, Frame& f) {
  enter(path::Step::element(i));
  if (uniform_elements_) {
    f.stepped = true;
    f.step.dead = dead_from_ != 0;
    const std::uint64_t* m = &masks_[depth_ * n_];
    for (std::size_t r = 0; r < n_; ++r) f.step.masks[r] = m[r];
  }
  location_[depth_ - 1].is_index = true;
  location_[depth_ - 1].index = i;
}

void PathTracker::enter(const path::Step& s) {
  ++depth_;
  if (dead_from_ != 0) return;
  const std::size_t n = rules_.size();
  const std::uint64_t* from = &masks_[(depth_ - 1) * n];
  std::uint64_t* to = &masks_[depth_ * n];
  bool alive = false;
  for (std::size_t r = 0; r < n; ++r) {
    const std::vector<path::Segment>& segs = rules_[r];
    std::uint64_t out = 0;
    for (std::uint64_t m = from[r]; m != 0; m &= m - 1) {
      const auto j = static_cast<std::size_t>(__builtin_ctzll(m));
      if (j == segs.size()) continue;  // selected above; nothing below
      const path::Segment& seg = segs[j];
      // A descendant segment may skip any number of levels first.
      if (seg.descendant) out |= std::uint64_t{1} << j;
      for (const path::Selector& sel : seg.selectors) {
        // Plain member names, the usual rule, compared here.
        const bool hit =
            sel.kind == path::Selector::Kind::name && !sel.ignore_case
                ? !s.is_index && s.key == sel.name
                : path::selects_step(sel, s);
        if (hit) {
          out |= std::uint64_t{2} << j;
          break;
        }
      }
    }
    to[r] = out;
    alive = alive || out != 0;
  }
  // Nothing at or below this level can match: skip the matching work
  // until we are back above it.
  if (!alive) dead_from_ = depth_;
}

std::vector<path::Step> PathTracker::steps() const {
  std::vector<path::Step> out;
  out.reserve(depth_);
  for (std::size_t i = 0; i < depth_; ++i) {
    const Entry& e = location_[i];
    out.push_back(e.is_index ? path::Step::element(e.index)
                             : path::Step::member(e.owned ? e.key : e.view));
  }
  return out;
}

std::string PathTracker::normalized_path() const {
  return path::normalized_path(steps());
}

std::string PathTracker::json_pointer() const {
  return path::json_pointer(steps());
}

}  // namespace jbx::transforms
