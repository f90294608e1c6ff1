#include "core/path/prune.h"

#include <algorithm>

namespace jbx::path {

namespace {

void add_filter(const NeedPattern& prefix, const Expr& e,
                std::vector<NeedPattern>& out);

void add_need(const NeedPattern& prefix, const std::vector<Segment>& segs,
              std::size_t from, std::vector<NeedPattern>& out) {
  NeedPattern p = prefix;
  for (std::size_t k = from; k < segs.size(); ++k) {
    const Segment& seg = segs[k];
    NeedStep step;
    step.descendant = seg.descendant;
    if (seg.selectors.size() == 1) {
      const Selector& sel = seg.selectors[0];
      if (sel.kind == Selector::Kind::name) {
        step.kind = NeedStep::Kind::name;
        step.name = sel.name;
        step.match = sel.match;
      } else if (sel.kind == Selector::Kind::index && sel.index >= 0) {
        step.kind = NeedStep::Kind::index;
        step.index = static_cast<std::uint64_t>(sel.index);
      }
    }
    for (const Selector& sel : seg.selectors) {
      if (sel.kind != Selector::Kind::filter) continue;
      NeedPattern fp = p;
      NeedStep any;
      any.descendant = seg.descendant;
      fp.push_back(any);
      add_filter(fp, *sel.filter, out);
    }
    p.push_back(std::move(step));
  }
  out.push_back(std::move(p));
}

void add_filter(const NeedPattern& prefix, const Expr& e,
                std::vector<NeedPattern>& out) {
  if (e.kind == Expr::Kind::query) {
    // An absolute query reads from the document root, which is the capture
    // root whenever a query has one (StreamSelector builds it whole).
    add_need(e.query.relative ? prefix : NeedPattern{}, e.query.segments, 0,
             out);
    return;
  }
  for (const Expr& o : e.operands) add_filter(prefix, o, out);
}

bool step_matches(const NeedStep& n, const Step& s) {
  switch (n.kind) {
    case NeedStep::Kind::name: {
      if (s.is_index) return false;
      return names_match(s.key, n.name, n.match);
    }
    case NeedStep::Kind::index:
      return s.is_index && s.index == n.index;
    case NeedStep::Kind::any:
      return true;
  }
  return true;
}

}  // namespace

void add_need_patterns(const std::vector<Segment>& segments,
                       std::vector<NeedPattern>& out) {
  add_need({}, segments, 0, out);
}

void add_need_patterns(const Expr& filter, std::vector<NeedPattern>& out) {
  add_filter({}, filter, out);
}

void PruningBuilder::reset(const std::vector<NeedPattern>* patterns) {
  patterns_ = patterns;
  stack_.clear();
  keep_depth_ = 0;
  root_pending_ = true;
  pending_.clear();
  keep_root_ = false;
  for (const NeedPattern& p : *patterns_) keep_root_ = keep_root_ || p.empty();
}

void PruningBuilder::advance(const States& from, const Step& s,
                             States& to) const {
  to.clear();
  const auto add = [&to](State st) {
    if (std::find(to.begin(), to.end(), st) == to.end()) to.push_back(st);
  };
  for (const State& st : from) {
    const NeedPattern& p = (*patterns_)[st.pattern];
    if (st.pos >= p.size()) continue;
    const NeedStep& n = p[st.pos];
    if (n.descendant) add(st);
    if (step_matches(n, s)) add(State{st.pattern, st.pos + 1});
  }
}

PruningBuilder::Decision PruningBuilder::decide(const States& child,
                                                bool container) const {
  for (const State& st : child) {
    if (st.pos >= (*patterns_)[st.pattern].size()) return Decision::keep_whole;
  }
  if (child.empty() || !container) return Decision::drop;
  return Decision::descend;
}

void PruningBuilder::flush_annotations() {
  for (PendingAnnotation& p : pending_) {
    p.a.name = p.name;
    out_.annotation(p.a);
  }
  pending_.clear();
}

// The caller forwards the begin event when this returns true; for a
// container it has then either entered keep mode or pushed a level.
bool PruningBuilder::begin_value(bool container) {
  if (root_pending_) {
    root_pending_ = false;
    flush_annotations();
    if (container) {
      if (keep_root_) {
        keep_depth_ = 1;
      } else {
        Level root;
        for (std::uint32_t k = 0; k < patterns_->size(); ++k) {
          root.states.push_back(State{k, 0});
        }
        stack_.push_back(std::move(root));
      }
    }
    return true;
  }
  Level& top = stack_.back();
  Decision d = Decision::drop;
  if (top.is_array) {
    advance(top.states, Step::element(top.next_index++), scratch_);
    d = decide(scratch_, container);
    if (d == Decision::drop) {
      // Keep the element's index: a null stands in for it.
      pending_.clear();
      out_.null_value();
      return false;
    }
  } else {
    d = decide(key_states_, container);
    if (d == Decision::drop) {
      pending_.clear();
      return false;
    }
    out_.key(key_);
  }
  flush_annotations();
  if (container) {
    if (d == Decision::keep_whole) {
      keep_depth_ = 1;
    } else {
      Level l;
      l.states = top.is_array ? scratch_ : key_states_;
      stack_.push_back(std::move(l));
    }
  }
  return true;
}

bool PruningBuilder::scalar() {
  if (keep_depth_ > 0) return true;
  return begin_value(false);
}

Flow PruningBuilder::begin_object() {
  if (keep_depth_ > 0) {
    ++keep_depth_;
    return out_.begin_object();
  }
  if (!begin_value(true)) return Flow::skip;
  return out_.begin_object();
}

Flow PruningBuilder::begin_array() {
  if (keep_depth_ > 0) {
    ++keep_depth_;
    return out_.begin_array();
  }
  if (!begin_value(true)) return Flow::skip;
  if (keep_depth_ == 0) stack_.back().is_array = true;
  return out_.begin_array();
}

Flow PruningBuilder::key(std::string_view name) {
  if (keep_depth_ > 0) return out_.key(name);
  advance(stack_.back().states, Step::member(name), key_states_);
  if (key_states_.empty()) return Flow::skip;
  key_.assign(name);
  return Flow::visit;
}

void PruningBuilder::end_object() {
  if (keep_depth_ > 0) {
    --keep_depth_;
  } else {
    stack_.pop_back();
  }
  out_.end_object();
}

void PruningBuilder::end_array() {
  if (keep_depth_ > 0) {
    --keep_depth_;
  } else {
    stack_.pop_back();
  }
  out_.end_array();
}

void PruningBuilder::null_value() {
  if (scalar()) out_.null_value();
}
void PruningBuilder::bool_value(bool b) {
  if (scalar()) out_.bool_value(b);
}
void PruningBuilder::int_value(std::int64_t v) {
  if (scalar()) out_.int_value(v);
}
void PruningBuilder::uint_value(std::uint64_t v) {
  if (scalar()) out_.uint_value(v);
}
void PruningBuilder::double_value(double v) {
  if (scalar()) out_.double_value(v);
}
void PruningBuilder::number_text(std::string_view text) {
  if (scalar()) out_.number_text(text);
}
void PruningBuilder::string_value(std::string_view s) {
  if (scalar()) out_.string_value(s);
}
void PruningBuilder::bytes_value(std::span<const std::uint8_t> b) {
  if (scalar()) out_.bytes_value(b);
}
void PruningBuilder::timestamp_value(const Timestamp& t) {
  if (scalar()) out_.timestamp_value(t);
}

void PruningBuilder::annotation(const Annotation& a) {
  if (keep_depth_ > 0) {
    out_.annotation(a);
    return;
  }
  pending_.push_back({a, std::string(a.name)});
}

}  // namespace jbx::path
