// The query evaluators: Engine implements RFC 9535 on a value tree (node
// lists, filters, comparisons, functions); StreamSelector drives it from
// events, matching the leading child segments by path.
#include "core/path/eval.h"

#include <re2/re2.h>

#include <charconv>
#include <cmath>
#include <deque>
#include <unordered_map>

#include <fmt/format.h>

#include "core/error.h"

namespace jbx::path {

namespace {

// ---- exact numbers ----------------------------------------------------------

/// A number as sign, significant digits (no leading or trailing zeros) and
/// a power of ten: value = digits * 10^exp. Zero has no digits.
struct Decimal {
  enum class Kind : std::uint8_t { finite, pos_inf, neg_inf, nan };
  Kind kind = Kind::finite;
  bool neg = false;
  std::string digits;
  std::int64_t exp = 0;
};

constexpr std::int64_t kExpLimit = 1'000'000'000'000'000;

Decimal parse_decimal(std::string_view s) {
  Decimal d;
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) d.neg = s[i++] == '-';
  if (s.substr(i) == "inf") {
    d.kind = d.neg ? Decimal::Kind::neg_inf : Decimal::Kind::pos_inf;
    return d;
  }
  if (s.substr(i) == "nan") {
    d.kind = Decimal::Kind::nan;
    return d;
  }
  std::string digits;
  std::int64_t exp = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') digits += s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      digits += s[i++];
      --exp;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
    std::int64_t e = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (e < kExpLimit) e = e * 10 + (s[i] - '0');
      ++i;
    }
    exp += eneg ? -e : e;
  }
  const std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    d.neg = false;  // -0 == 0
    return d;
  }
  const std::size_t last = digits.find_last_not_of('0');
  exp += static_cast<std::int64_t>(digits.size() - 1 - last);
  d.digits = digits.substr(first, last - first + 1);
  d.exp = exp;
  return d;
}

Decimal decimal_of(const Value& v) {
  char buf[32];
  switch (v.type) {
    case Value::Type::int64: {
      auto r = std::to_chars(buf, buf + sizeof buf, v.i);
      return parse_decimal(
          std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
    }
    case Value::Type::uint64: {
      auto r = std::to_chars(buf, buf + sizeof buf, v.u);
      return parse_decimal(
          std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
    }
    case Value::Type::float64:
      if (std::isnan(v.d)) return parse_decimal("nan");
      if (std::isinf(v.d)) return parse_decimal(v.d < 0 ? "-inf" : "inf");
      return parse_decimal(fmt::format("{}", v.d));
    default:
      return parse_decimal(v.text);
  }
}

int sign_of(const Decimal& d) {
  switch (d.kind) {
    case Decimal::Kind::pos_inf:
      return 2;
    case Decimal::Kind::neg_inf:
      return -2;
    default:
      return d.digits.empty() ? 0 : (d.neg ? -1 : 1);
  }
}

int compare_decimals(const Decimal& a, const Decimal& b) {
  if (a.kind == Decimal::Kind::nan || b.kind == Decimal::Kind::nan) return 2;
  const int sa = sign_of(a);
  const int sb = sign_of(b);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0 || sa == 2 || sa == -2) return 0;
  // Same sign, both non-zero: compare magnitudes, then flip for negatives.
  const std::int64_t ma = static_cast<std::int64_t>(a.digits.size()) + a.exp;
  const std::int64_t mb = static_cast<std::int64_t>(b.digits.size()) + b.exp;
  int r = 0;
  if (ma != mb) {
    r = ma < mb ? -1 : 1;
  } else {
    const int c = a.digits.compare(b.digits);
    r = c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return sa > 0 ? r : -r;
}

// ---- the tree engine --------------------------------------------------------

struct Loc {
  const Loc* parent;
  Step step;
};

struct Node {
  const Value* v;
  const Loc* loc;  // nullptr: the root of the evaluation, or untracked
};

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

class Engine {
 public:
  explicit Engine(const Value& root) : root_(root) {}

  /// Applies segments [from, end) to `nodes` in place.
  void run(const std::vector<Segment>& segs, std::size_t from,
           std::vector<Node>& nodes, bool track) {
    std::vector<Node> next;
    for (std::size_t k = from; k < segs.size(); ++k) {
      next.clear();
      const Segment& seg = segs[k];
      for (const Node& n : nodes) {
        if (seg.descendant) {
          descend(seg, n, next, track);
        } else {
          for (const Selector& sel : seg.selectors) {
            select(sel, n, next, track);
          }
        }
      }
      nodes.swap(next);
      if (nodes.empty()) return;
    }
  }

  bool test(const Expr& e, const Value& cur) {
    switch (e.kind) {
      case Expr::Kind::logical_or:
        for (const Expr& o : e.operands) {
          if (test(o, cur)) return true;
        }
        return false;
      case Expr::Kind::logical_and:
        for (const Expr& o : e.operands) {
          if (!test(o, cur)) return false;
        }
        return true;
      case Expr::Kind::logical_not:
        return !test(e.operands[0], cur);
      case Expr::Kind::compare:
        return compare(e, cur);
      case Expr::Kind::query: {
        std::vector<Node> nodes;
        query_nodes(e.query, cur, nodes);
        return !nodes.empty();
      }
      case Expr::Kind::function:
        return regex_test(e, cur);
      case Expr::Kind::literal:
        return false;  // rejected by the parser
    }
    return false;
  }

  static std::vector<Step> steps(const Loc* l) {
    std::vector<Step> out;
    for (; l != nullptr; l = l->parent) out.push_back(l->step);
    return {out.rbegin(), out.rend()};
  }

 private:
  const Loc* child(const Loc* parent, Step s, bool track) {
    if (!track) return nullptr;
    locs_.push_back(Loc{parent, s});
    return &locs_.back();
  }

  void select(const Selector& sel, const Node& n, std::vector<Node>& out,
              bool track) {
    const Value& v = *n.v;
    switch (sel.kind) {
      case Selector::Kind::name:
        if (v.type != Value::Type::object) return;
        for (const auto& [k, m] : v.members) {
          if (name_matches(sel, k)) {
            out.push_back({&m, child(n.loc, Step::member(k), track)});
          }
        }
        return;
      case Selector::Kind::wildcard:
        all_children(n, out, track);
        return;
      case Selector::Kind::index: {
        if (v.type != Value::Type::array) return;
        const auto len = static_cast<std::int64_t>(v.items.size());
        const std::int64_t i = sel.index < 0 ? len + sel.index : sel.index;
        if (i < 0 || i >= len) return;
        const auto u = static_cast<std::size_t>(i);
        out.push_back({&v.items[u], child(n.loc, Step::element(u), track)});
        return;
      }
      case Selector::Kind::slice:
        slice(sel.slice, n, out, track);
        return;
      case Selector::Kind::filter:
        if (v.type == Value::Type::array) {
          for (std::size_t i = 0; i < v.items.size(); ++i) {
            if (test(*sel.filter, v.items[i])) {
              out.push_back(
                  {&v.items[i], child(n.loc, Step::element(i), track)});
            }
          }
        } else if (v.type == Value::Type::object) {
          for (const auto& [k, m] : v.members) {
            if (test(*sel.filter, m)) {
              out.push_back({&m, child(n.loc, Step::member(k), track)});
            }
          }
        }
        return;
      case Selector::Kind::pointer:
        if (v.type == Value::Type::object) {
          for (auto it = v.members.rbegin(); it != v.members.rend(); ++it) {
            if (name_matches(sel, it->first)) {
              out.push_back(
                  {&it->second, child(n.loc, Step::member(it->first), track)});
              return;
            }
          }
        } else if (v.type == Value::Type::array && sel.index >= 0 &&
                   static_cast<std::uint64_t>(sel.index) < v.items.size()) {
          const auto u = static_cast<std::size_t>(sel.index);
          out.push_back({&v.items[u], child(n.loc, Step::element(u), track)});
        }
        return;
    }
  }

  void all_children(const Node& n, std::vector<Node>& out, bool track) {
    const Value& v = *n.v;
    if (v.type == Value::Type::array) {
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        out.push_back({&v.items[i], child(n.loc, Step::element(i), track)});
      }
    } else if (v.type == Value::Type::object) {
      for (const auto& [k, m] : v.members) {
        out.push_back({&m, child(n.loc, Step::member(k), track)});
      }
    }
  }

  // RFC 9535 2.3.4.2.2.
  void slice(const Slice& s, const Node& n, std::vector<Node>& out,
             bool track) {
    const Value& v = *n.v;
    if (v.type != Value::Type::array || s.step == 0) return;
    const auto len = static_cast<std::int64_t>(v.items.size());
    const auto norm = [len](std::int64_t i) { return i >= 0 ? i : len + i; };
    const auto add = [&](std::int64_t i) {
      const auto u = static_cast<std::size_t>(i);
      out.push_back({&v.items[u], child(n.loc, Step::element(u), track)});
    };
    if (s.step > 0) {
      const std::int64_t start = s.start ? norm(*s.start) : 0;
      const std::int64_t end = s.end ? norm(*s.end) : len;
      const std::int64_t lower =
          std::min(std::max(start, std::int64_t{0}), len);
      const std::int64_t upper = std::min(std::max(end, std::int64_t{0}), len);
      for (std::int64_t i = lower; i < upper; i += s.step) add(i);
    } else {
      const std::int64_t start = s.start ? norm(*s.start) : len - 1;
      const std::int64_t end = s.end ? norm(*s.end) : -len - 1;
      const std::int64_t upper =
          std::min(std::max(start, std::int64_t{-1}), len - 1);
      const std::int64_t lower =
          std::min(std::max(end, std::int64_t{-1}), len - 1);
      for (std::int64_t i = upper; lower < i; i += s.step) add(i);
    }
  }

  // Visits the node and its descendants, parents before children, arrays
  // in order, and applies the segment's selectors to each.
  void descend(const Segment& seg, const Node& n, std::vector<Node>& out,
               bool track) {
    for (const Selector& sel : seg.selectors) select(sel, n, out, track);
    const Value& v = *n.v;
    if (v.type == Value::Type::array) {
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        descend(seg, {&v.items[i], child(n.loc, Step::element(i), track)}, out,
                track);
      }
    } else if (v.type == Value::Type::object) {
      for (const auto& [k, m] : v.members) {
        descend(seg, {&m, child(n.loc, Step::member(k), track)}, out, track);
      }
    }
  }

  void query_nodes(const Query& q, const Value& cur, std::vector<Node>& out) {
    out.clear();
    out.push_back({q.relative ? &cur : &root_, nullptr});
    run(q.segments, 0, out, false);
  }

  /// A comparable or function argument: a value, or Nothing (v null).
  struct Operand {
    const Value* v = nullptr;
    Value tmp;
  };

  void operand(const Expr& e, const Value& cur, Operand& out) {
    switch (e.kind) {
      case Expr::Kind::literal:
        out.v = &e.literal;
        return;
      case Expr::Kind::query: {
        std::vector<Node> nodes;
        query_nodes(e.query, cur, nodes);
        out.v = nodes.size() == 1 ? nodes[0].v : nullptr;
        return;
      }
      case Expr::Kind::function:
        call(e, cur, out);
        return;
      default:
        out.v = nullptr;
    }
  }

  void set_count(Operand& out, std::size_t n) {
    out.tmp = Value();
    out.tmp.type = Value::Type::uint64;
    out.tmp.u = n;
    out.v = &out.tmp;
  }

  void call(const Expr& e, const Value& cur, Operand& out) {
    out.v = nullptr;
    switch (e.function) {
      case Function::length: {
        Operand a;
        operand(e.operands[0], cur, a);
        if (a.v == nullptr) return;
        if (a.v->type == Value::Type::string) {
          set_count(out, code_points(a.v->text));
        } else if (a.v->type == Value::Type::array) {
          set_count(out, a.v->items.size());
        } else if (a.v->type == Value::Type::object) {
          set_count(out, a.v->members.size());
        }
        return;
      }
      case Function::count: {
        std::vector<Node> nodes;
        query_nodes(e.operands[0].query, cur, nodes);
        set_count(out, nodes.size());
        return;
      }
      case Function::value: {
        std::vector<Node> nodes;
        query_nodes(e.operands[0].query, cur, nodes);
        if (nodes.size() == 1) out.v = nodes[0].v;
        return;
      }
      case Function::match:
      case Function::search:
        return;  // logical results are not operands (parser-checked)
    }
  }

  bool compare(const Expr& e, const Value& cur) {
    Operand a;
    Operand b;
    operand(e.operands[0], cur, a);
    operand(e.operands[1], cur, b);
    switch (e.op) {
      case Expr::Op::eq:
        return equal(a, b);
      case Expr::Op::ne:
        return !equal(a, b);
      case Expr::Op::lt:
        return less(a, b);
      case Expr::Op::le:
        return less(a, b) || equal(a, b);
      case Expr::Op::gt:
        return less(b, a);
      case Expr::Op::ge:
        return less(b, a) || equal(a, b);
    }
    return false;
  }

  static bool equal(const Operand& a, const Operand& b) {
    if (a.v == nullptr || b.v == nullptr)
      return a.v == nullptr && b.v == nullptr;
    return values_equal(*a.v, *b.v);
  }

  static bool less(const Operand& a, const Operand& b) {
    if (a.v == nullptr || b.v == nullptr) return false;
    if (is_number(*a.v) && is_number(*b.v)) {
      return compare_numbers(*a.v, *b.v) == -1;
    }
    if (a.v->type == Value::Type::string && b.v->type == Value::Type::string) {
      // UTF-8 byte order is code point order.
      return a.v->text < b.v->text;
    }
    return false;
  }

  bool regex_test(const Expr& e, const Value& cur) {
    if (e.function != Function::match && e.function != Function::search) {
      return false;
    }
    Operand s;
    Operand p;
    operand(e.operands[0], cur, s);
    operand(e.operands[1], cur, p);
    if (s.v == nullptr || p.v == nullptr || s.v->type != Value::Type::string ||
        p.v->type != Value::Type::string) {
      return false;
    }
    const re2::RE2* re = e.regex.get();
    if (re == nullptr) re = dynamic_regex(p.v->text, e.function);
    return re != nullptr && RE2::PartialMatch(s.v->text, *re);
  }

  // A pattern that comes from the document: not I-Regexp means the
  // function's result is false (RFC 9535 2.4.6), never an error.
  const re2::RE2* dynamic_regex(const std::string& pattern, Function f) {
    auto& cache = cache_[f == Function::match ? 0 : 1];
    if (auto it = cache.find(pattern); it != cache.end())
      return it->second.get();
    std::unique_ptr<re2::RE2> re;
    try {
      std::string translated = iregexp_to_re2(pattern);
      if (f == Function::match) translated = "^(?:" + translated + ")$";
      RE2::Options opts;
      opts.set_log_errors(false);
      re = std::make_unique<re2::RE2>(translated, opts);
      if (!re->ok()) re.reset();
    } catch (const Error&) {
      re.reset();
    }
    const re2::RE2* raw = re.get();
    // Patterns that differ per node would grow the cache without bound:
    // start it afresh (no pointer into it outlives this call's caller).
    if (cache.size() >= 256) cache.clear();
    cache.emplace(pattern, std::move(re));
    return raw;
  }

  const Value& root_;
  std::deque<Loc> locs_;
  std::unordered_map<std::string, std::unique_ptr<re2::RE2>> cache_[2];
};

bool has_absolute(const Query& q);

bool has_absolute(const Expr& e) {
  if (e.kind == Expr::Kind::query) {
    return !e.query.relative || has_absolute(e.query);
  }
  for (const Expr& o : e.operands) {
    if (has_absolute(o)) return true;
  }
  return false;
}

bool has_absolute(const Query& q) {
  for (const Segment& seg : q.segments) {
    for (const Selector& sel : seg.selectors) {
      if (sel.filter && has_absolute(*sel.filter)) return true;
    }
  }
  return false;
}

/// Runs segments [from, end) on `v` and hands each node to `sink`, with
/// `base` (the location of `v`) in front of its location.
bool emit_tree(const std::vector<Segment>& segs, std::size_t from,
               const Value& v, const Value& root, std::span<const Step> base,
               NodeSink& sink) {
  Engine engine(root);
  std::vector<Node> nodes{{&v, nullptr}};
  engine.run(segs, from, nodes, true);
  std::vector<Step> loc;
  for (const Node& n : nodes) {
    loc.assign(base.begin(), base.end());
    const std::vector<Step> rel = Engine::steps(n.loc);
    loc.insert(loc.end(), rel.begin(), rel.end());
    if (Handler* h = sink.begin_node(loc)) replay(*n.v, *h);
    if (!sink.end_node()) return false;
  }
  return true;
}

}  // namespace

bool is_number(const Value& v) {
  return v.type == Value::Type::int64 || v.type == Value::Type::uint64 ||
         v.type == Value::Type::float64 || v.type == Value::Type::number;
}

int compare_numbers(const Value& a, const Value& b) {
  if (a.type == Value::Type::int64 && b.type == Value::Type::int64) {
    return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
  }
  if (a.type == Value::Type::uint64 && b.type == Value::Type::uint64) {
    return a.u < b.u ? -1 : (a.u > b.u ? 1 : 0);
  }
  return compare_decimals(decimal_of(a), decimal_of(b));
}

bool values_equal(const Value& a, const Value& b) {
  if (is_number(a) && is_number(b)) return compare_numbers(a, b) == 0;
  if (a.type != b.type) return false;
  switch (a.type) {
    case Value::Type::null:
      return true;
    case Value::Type::boolean:
      return a.boolean == b.boolean;
    case Value::Type::string:
    case Value::Type::bytes:
      return a.text == b.text;
    case Value::Type::timestamp:
      return a.ts.kind == b.ts.kind && a.ts.seconds == b.ts.seconds &&
             a.ts.nanos == b.ts.nanos && a.ts.has_offset == b.ts.has_offset &&
             a.ts.offset_seconds == b.ts.offset_seconds && a.text == b.text;
    case Value::Type::array:
      if (a.items.size() != b.items.size()) return false;
      for (std::size_t i = 0; i < a.items.size(); ++i) {
        if (!values_equal(a.items[i], b.items[i])) return false;
      }
      return true;
    case Value::Type::object:
      if (a.members.size() != b.members.size()) return false;
      for (const auto& [k, m] : a.members) {
        const Value* other = b.find(k);
        if (other == nullptr || !values_equal(m, *other)) return false;
      }
      return true;
    default:
      return false;
  }
}

bool evaluate(const Query& q, const Value& root, NodeSink& sink) {
  return emit_tree(q.segments, 0, root, root, {}, sink);
}

std::vector<std::pair<const Value*, std::vector<Step>>> select(
    const Query& q, const Value& root) {
  Engine engine(root);
  std::vector<Node> nodes{{&root, nullptr}};
  engine.run(q.segments, 0, nodes, true);
  std::vector<std::pair<const Value*, std::vector<Step>>> out;
  out.reserve(nodes.size());
  for (const Node& n : nodes) out.emplace_back(n.v, Engine::steps(n.loc));
  return out;
}

// ---- StreamSelector ----------------------------------------------------

StreamSelector::StreamSelector(const Query& q, NodeSink& sink)
    : query_(q),
      sink_(sink),
      builder_(std::make_unique<TreeBuilder>()),
      pruner_(std::make_unique<PruningBuilder>(*builder_)) {
  if (!has_absolute(query_)) {
    const auto& segs = query_.segments;
    while (split_ < segs.size() && !segs[split_].descendant &&
           segs[split_].selectors.size() == 1 &&
           is_location_selector(segs[split_].selectors[0])) {
      ++split_;
    }
    filter_at_split_ = split_ < segs.size() && !segs[split_].descendant &&
                       segs[split_].selectors.size() == 1 &&
                       segs[split_].selectors[0].kind == Selector::Kind::filter;
  }
  const std::vector<Segment>& segs = query_.segments;
  const auto from = [&segs](std::size_t k) {
    return std::vector<Segment>(segs.begin() + static_cast<std::ptrdiff_t>(k),
                                segs.end());
  };
  if (filter_at_split_) {
    add_need_patterns(*segs[split_].selectors[0].filter, candidate_needs_);
    add_need_patterns(from(split_ + 1), candidate_needs_);
  }
  add_need_patterns(from(split_), rest_needs_);
}

StreamSelector::~StreamSelector() = default;

std::vector<Step> StreamSelector::location() const {
  std::vector<Step> out;
  out.reserve(frames_.size());
  for (const Frame& f : frames_) {
    out.push_back(f.is_array ? Step::element(f.next_index - 1)
                             : Step::member(f.key));
  }
  return out;
}

StreamSelector::Admit StreamSelector::admit_value(bool container) {
  const std::size_t d = frames_.size();
  if (d > 0) {
    Frame& f = frames_.back();
    if (f.is_array) {
      const std::uint64_t index = f.next_index++;
      if (f.candidates) return Admit::capture;
      if (!selects_step(query_.segments[d - 1].selectors[0],
                        Step::element(index))) {
        return Admit::skip;
      }
    } else if (f.candidates) {
      return Admit::capture;
    }
  }
  if (d == split_) {
    if (split_ == query_.segments.size()) return Admit::emit;
    if (filter_at_split_) return container ? Admit::descend : Admit::skip;
    return Admit::capture;
  }
  return container ? Admit::descend : Admit::skip;
}

Handler* StreamSelector::target() {
  if (mode_ == Mode::emit) return emit_to_;
  return pruner_.get();
}

void StreamSelector::flush_annotations(Handler& h) {
  for (PendingAnnotation& p : pending_) {
    p.a.name = p.name;
    h.annotation(p.a);
  }
  pending_.clear();
}

void StreamSelector::start(Admit a, bool container) {
  if (a == Admit::emit) {
    emit_to_ = sink_.begin_node(location());
    if (emit_to_ == nullptr) {
      pending_.clear();
      mode_ = Mode::skip_value;
      return;
    }
    mode_ = Mode::emit;
  } else {
    const std::size_t d = frames_.size();
    candidate_capture_ = d > 0 && frames_.back().candidates;
    mode_ = Mode::capture;
    pruner_->reset(candidate_capture_ ? &candidate_needs_ : &rest_needs_);
  }
  inner_depth_ = container ? 1 : 0;
  flush_annotations(*target());
}

void StreamSelector::value_done() {
  if (mode_ == Mode::emit || mode_ == Mode::skip_value) {
    mode_ = Mode::path;
    emit_to_ = nullptr;
    if (!sink_.end_node()) stopped_ = true;
    return;
  }
  finish_capture();
}

void StreamSelector::finish_capture() {
  mode_ = Mode::path;
  builder_->end_document();
  const Value v = builder_->take();
  const std::vector<Step> base = location();
  const auto& segs = query_.segments;
  bool go_on = true;
  if (candidate_capture_) {
    candidate_capture_ = false;
    Engine engine(v);
    if (engine.test(*segs[split_].selectors[0].filter, v)) {
      go_on = emit_tree(segs, split_ + 1, v, v, base, sink_);
    }
  } else {
    go_on = emit_tree(segs, split_, v, v, base, sink_);
  }
  if (!go_on) stopped_ = true;
}

bool StreamSelector::scalar_begin() {
  if (stopped_) return false;
  if (mode_ != Mode::path) return mode_ != Mode::skip_value;
  const Admit a = admit_value(false);
  if (a == Admit::skip || a == Admit::descend) {
    pending_.clear();
    return false;
  }
  start(a, false);
  if (mode_ == Mode::skip_value) {
    value_done();
    return false;
  }
  return true;
}

Flow StreamSelector::begin_object() {
  if (stopped_) return Flow::stop;
  if (mode_ != Mode::path) {
    const Flow f = target()->begin_object();
    if (f == Flow::visit) ++inner_depth_;
    return f;
  }
  const Admit a = admit_value(true);
  switch (a) {
    case Admit::skip:
      pending_.clear();
      return Flow::skip;
    case Admit::descend: {
      pending_.clear();
      Frame f;
      f.candidates = frames_.size() == split_ && filter_at_split_;
      frames_.push_back(std::move(f));
      return Flow::visit;
    }
    default:
      start(a, true);
      if (mode_ == Mode::skip_value) {
        value_done();
        return stopped_ ? Flow::stop : Flow::skip;
      }
      target()->begin_object();
      return Flow::visit;
  }
}

Flow StreamSelector::begin_array() {
  if (stopped_) return Flow::stop;
  if (mode_ != Mode::path) {
    const Flow f = target()->begin_array();
    if (f == Flow::visit) ++inner_depth_;
    return f;
  }
  const Admit a = admit_value(true);
  switch (a) {
    case Admit::skip:
      pending_.clear();
      return Flow::skip;
    case Admit::descend: {
      pending_.clear();
      Frame f;
      f.is_array = true;
      f.candidates = frames_.size() == split_ && filter_at_split_;
      frames_.push_back(std::move(f));
      return Flow::visit;
    }
    default:
      start(a, true);
      if (mode_ == Mode::skip_value) {
        value_done();
        return stopped_ ? Flow::stop : Flow::skip;
      }
      target()->begin_array();
      return Flow::visit;
  }
}

Flow StreamSelector::key(std::string_view name) {
  if (stopped_) return Flow::stop;
  if (mode_ != Mode::path) return target()->key(name);
  Frame& f = frames_.back();
  if (!f.candidates &&
      !selects_step(query_.segments[frames_.size() - 1].selectors[0],
                    Step::member(name))) {
    return Flow::skip;
  }
  f.key.assign(name);
  return Flow::visit;
}

void StreamSelector::end_object() {
  if (mode_ == Mode::path) {
    frames_.pop_back();
    return;
  }
  target()->end_object();
  if (--inner_depth_ == 0) value_done();
}

void StreamSelector::end_array() {
  if (mode_ == Mode::path) {
    frames_.pop_back();
    return;
  }
  target()->end_array();
  if (--inner_depth_ == 0) value_done();
}

void StreamSelector::null_value() {
  if (!scalar_begin()) return;
  target()->null_value();
  if (inner_depth_ == 0) value_done();
}

void StreamSelector::bool_value(bool b) {
  if (!scalar_begin()) return;
  target()->bool_value(b);
  if (inner_depth_ == 0) value_done();
}

void StreamSelector::int_value(std::int64_t v) {
  if (!scalar_begin()) return;
  target()->int_value(v);
  if (inner_depth_ == 0) value_done();
}

void StreamSelector::uint_value(std::uint64_t v) {
  if (!scalar_begin()) return;
  target()->uint_value(v);
  if (inner_depth_ == 0) value_done();
}

void StreamSelector::double_value(double v) {
  if (!scalar_begin()) return;
  target()->double_value(v);
  if (inner_depth_ == 0) value_done();
}

void StreamSelector::number_text(std::string_view text) {
  if (!scalar_begin()) return;
  target()->number_text(text);
  if (inner_depth_ == 0) value_done();
}

void StreamSelector::string_value(std::string_view s) {
  if (!scalar_begin()) return;
  target()->string_value(s);
  if (inner_depth_ == 0) value_done();
}

void StreamSelector::bytes_value(std::span<const std::uint8_t> b) {
  if (!scalar_begin()) return;
  target()->bytes_value(b);
  if (inner_depth_ == 0) value_done();
}

void StreamSelector::timestamp_value(const Timestamp& t) {
  if (!scalar_begin()) return;
  target()->timestamp_value(t);
  if (inner_depth_ == 0) value_done();
}

void StreamSelector::annotation(const Annotation& a) {
  if (stopped_) return;
  if (mode_ == Mode::emit || mode_ == Mode::capture) {
    target()->annotation(a);
    return;
  }
  if (mode_ == Mode::skip_value) return;
  pending_.push_back({a, std::string(a.name)});
}

void StreamSelector::end_document() {
  frames_.clear();
  pending_.clear();
  mode_ = Mode::path;
  inner_depth_ = 0;
  candidate_capture_ = false;
  emit_to_ = nullptr;
}

}  // namespace jbx::path
