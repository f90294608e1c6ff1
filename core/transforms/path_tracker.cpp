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

bool selects_every_element(const path::Selector& s) {
  return s.kind == path::Selector::Kind::wildcard ||
         (s.kind == path::Selector::Kind::slice && s.slice.step == 1 &&
          s.slice.start.value_or(0) == 0 && !s.slice.end);
}

PathTracker::PathTracker(const std::vector<path::Query>& rules) {
  rules_.reserve(rules.size());
  for (const path::Query& q : rules) rules_.push_back(q.segments);
  n_ = rules_.size();
  // Rules packed in order, none across two words (parse_rule_path() takes
  // at most 63 segments: 64 bits).
  std::size_t bit = 0;
  for (const auto& segs : rules_) {
    const std::size_t width = segs.size() + 1;
    if (bit % 64 + width > 64) bit += 64 - bit % 64;
    offset_.push_back(static_cast<std::uint32_t>(bit));
    bit += width;
  }
  words_ = (bit + 63) / 64;
  accept_.assign(words_, 0);
  descendant_.assign(words_, 0);
  named_.assign(words_, 0);
  last_every_.assign(words_, 0);
  rule_of_.assign(words_ * 64, 0);
  segment_.assign(words_ * 64, nullptr);
  masks_.assign(words_, 0);  // the root: nothing matched yet
  for (std::size_t r = 0; r < n_; ++r) {
    const std::vector<path::Segment>& segs = rules_[r];
    const std::size_t at = offset_[r];
    const std::size_t w = at / 64;
    const auto bit_of = [&](std::size_t j) {
      return std::uint64_t{1} << (at % 64 + j);
    };
    masks_[w] |= bit_of(0);
    accept_[w] |= bit_of(segs.size());
    for (std::size_t j = 0; j <= segs.size(); ++j) {
      rule_of_[at + j] = static_cast<std::uint32_t>(r);
    }
    for (std::size_t j = 0; j < segs.size(); ++j) {
      const path::Segment& seg = segs[j];
      segment_[at + j] = &seg;
      if (seg.descendant) descendant_[w] |= bit_of(j);
      if (seg.selectors.size() == 1 &&
          seg.selectors[0].kind == path::Selector::Kind::name &&
          seg.selectors[0].match == path::NameMatch::exact) {
        named_[w] |= bit_of(j);
      }
    }
    if (!segs.empty()) {
      for (const path::Selector& sel : segs.back().selectors) {
        if (selects_every_element(sel)) {
          last_every_[w] |= bit_of(segs.size() - 1);
        }
      }
    }
  }
  uniform_elements_ = replayable();
  for (const auto& segs : rules_) {
    for (const path::Segment& seg : segs) {
      for (const path::Selector& sel : seg.selectors) {
        if (!selects_elements_alike(sel)) uniform_elements_ = false;
      }
    }
  }
}

void PathTracker::grow() {
  location_.resize(frames_.size());
  masks_.resize((location_.size() + 1) * words_);
}

void PathTracker::enter_member(std::string_view name, bool stable) {
  // What enter() does for a member, with the segments of one plain name
  // compared at once.
  ++depth_;
  const std::uint64_t* from = &masks_[(depth_ - 1) * words_];
  std::uint64_t* to = &masks_[depth_ * words_];
  std::uint64_t alive = 0;
  for (std::size_t w = 0; w < words_; ++w) {
    to[w] = member_word(w, from[w], name);
    alive |= to[w];
  }
  if (alive == 0) {
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

std::uint64_t PathTracker::member_word(std::size_t w, std::uint64_t from,
                                       std::string_view name) const {
  // (The bit of a rule matched above: nothing below it matches.) A state
  // moves to the next bit, which stays in its rule: its accepting bit is
  // above every segment's.
  const std::uint64_t m = from & ~accept_[w];
  std::uint64_t out = m & descendant_[w];
  for (std::uint64_t b = m & named_[w]; b != 0; b &= b - 1) {
    const auto j = static_cast<std::size_t>(__builtin_ctzll(b));
    if (name == segment_[w * 64 + j]->selectors[0].name) {
      out |= std::uint64_t{2} << j;
    }
  }
  for (std::uint64_t b = m & ~named_[w]; b != 0; b &= b - 1) {
    const auto j = static_cast<std::size_t>(__builtin_ctzll(b));
    for (const path::Selector& sel : segment_[w * 64 + j]->selectors) {
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
  const std::uint64_t* m = &masks_[depth_ * words_];
  return first_accepted(
      from, [&](std::size_t w) { return member_word(w, m[w], name); });
}

std::vector<std::uint64_t> PathTracker::waiting_states(std::size_t end) const {
  std::vector<std::uint64_t> states(words_, 0);
  for (std::size_t r = 0; r < end && r < n_; ++r) {
    const std::size_t at = offset_[r];
    // Bits [0, k) of a rule of k segments: the accepting bit k waits for
    // nothing.
    const std::size_t k = rules_[r].size();
    states[at / 64] |= ((std::uint64_t{1} << k) - 1) << (at % 64);
  }
  return states;
}

bool PathTracker::selects_no_element() const {
  if (!uniform_elements_ || dead_from_ != 0 || !in_array() ||
      depth_ + 1 != frames_.size()) {
    return false;
  }
  // With selectors that select elements alike, a rule selects an element
  // where its last segment comes next and selects every element.
  const std::uint64_t* m = &masks_[depth_ * words_];
  for (std::size_t w = 0; w < words_; ++w) {
    if ((m[w] & last_every_[w]) != 0) return false;
  }
  return true;
}

void PathTracker::enter_element(std::uint64_t i, Frame& f) {
  enter(path::Step::element(i));
  if (uniform_elements_) {
    f.stepped = true;
    f.step.dead = dead_from_ != 0;
    if (!f.step.dead) copy_masks(&masks_[depth_ * words_], f.step.masks.data());
  }
  location_[depth_ - 1].is_index = true;
  location_[depth_ - 1].index = i;
}

void PathTracker::enter(const path::Step& s) {
  ++depth_;
  if (dead_from_ != 0) return;
  const std::uint64_t* from = &masks_[(depth_ - 1) * words_];
  std::uint64_t* to = &masks_[depth_ * words_];
  std::uint64_t alive = 0;
  for (std::size_t w = 0; w < words_; ++w) {
    std::uint64_t out = 0;
    // (Selected above: nothing below.)
    for (std::uint64_t m = from[w] & ~accept_[w]; m != 0; m &= m - 1) {
      const auto j = static_cast<std::size_t>(__builtin_ctzll(m));
      const path::Segment& seg = *segment_[w * 64 + j];
      // A descendant segment may skip any number of levels first.
      if (seg.descendant) out |= std::uint64_t{1} << j;
      for (const path::Selector& sel : seg.selectors) {
        // Plain member names, the usual rule, compared here.
        const bool hit = sel.kind == path::Selector::Kind::name &&
                                 sel.match == path::NameMatch::exact
                             ? !s.is_index && s.key == sel.name
                             : path::selects_step(sel, s);
        if (hit) {
          out |= std::uint64_t{2} << j;
          break;
        }
      }
    }
    to[w] = out;
    alive |= out;
  }
  // Nothing at or below this level can match: skip the matching work
  // until we are back above it.
  if (alive == 0) dead_from_ = depth_;
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
