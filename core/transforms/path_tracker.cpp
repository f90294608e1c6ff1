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
  return q;
}

PathTracker::PathTracker(const std::vector<path::Query>& rules) {
  matchers_.reserve(rules.size());
  for (const path::Query& q : rules) matchers_.emplace_back(q);
}

void PathTracker::on_key(std::string_view name) {
  enter(path::Step::member(name));
  location_[depth_ - 1].is_index = false;
  location_[depth_ - 1].key.assign(name);
}

void PathTracker::on_value_begin() {
  if (frames_.empty() || !frames_.back().is_array) return;
  const std::uint64_t i = frames_.back().next++;
  enter(path::Step::element(i));
  location_[depth_ - 1].is_index = true;
  location_[depth_ - 1].index = i;
}

void PathTracker::enter(const path::Step& s) {
  ++depth_;
  if (location_.size() < depth_) location_.resize(depth_);
  if (dead_from_ != 0) return;
  bool alive = false;
  for (path::Matcher& m : matchers_) {
    m.push(s);
    alive = alive || m.alive();
  }
  if (!alive) {
    // Nothing below can match: stop feeding the matchers until we are
    // back above this level, so dead subtrees cost no matcher work.
    for (path::Matcher& m : matchers_) m.pop();
    dead_from_ = depth_;
  }
}

void PathTracker::leave() {
  // Only a child of the innermost open container has a level to leave; the
  // root value has no step.
  if (depth_ == 0 || depth_ != frames_.size()) return;
  if (dead_from_ != 0) {
    if (depth_ == dead_from_) dead_from_ = 0;
  } else {
    for (path::Matcher& m : matchers_) m.pop();
  }
  --depth_;
}

int PathTracker::selected() const {
  if (dead_from_ != 0) return -1;
  for (std::size_t i = 0; i < matchers_.size(); ++i) {
    if (matchers_[i].selected()) return static_cast<int>(i);
  }
  return -1;
}

std::vector<path::Step> PathTracker::steps() const {
  std::vector<path::Step> out;
  out.reserve(depth_);
  for (std::size_t i = 0; i < depth_; ++i) {
    const Entry& e = location_[i];
    out.push_back(e.is_index ? path::Step::element(e.index)
                             : path::Step::member(e.key));
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
