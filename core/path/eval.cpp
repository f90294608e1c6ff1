// The query evaluators: Engine implements RFC 9535 on a value tree (node
// lists, filters, comparisons, functions); StreamSelector drives it from
// events, matching the leading child segments by path.
#include "core/path/eval.h"

#include <re2/re2.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include <fmt/format.h>

#include "core/error.h"

namespace jbx::path {

namespace {

// ---- exact numbers ----------------------------------------------------------

/// A number as sign, significant digits (no leading or trailing zeros) and
/// a power of ten: value = digits * 10^exp. Zero has no digits. The digits
/// live in the object itself unless there are many (a filter compares a
/// number per candidate; it should not allocate), so it is not copied.
struct Decimal {
  enum class Kind : std::uint8_t { finite, pos_inf, neg_inf, nan };
  Decimal() = default;
  Decimal(const Decimal&) = delete;
  Decimal& operator=(const Decimal&) = delete;

  Kind kind = Kind::finite;
  bool neg = false;
  std::string_view digits;
  std::int64_t exp = 0;
  char small[48];
  std::string large;  // digits that do not fit `small`
};

constexpr std::int64_t kExpLimit = 1'000'000'000'000'000;

void parse_decimal(std::string_view s, Decimal& d) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) d.neg = s[i++] == '-';
  if (s.substr(i) == "inf") {
    d.kind = d.neg ? Decimal::Kind::neg_inf : Decimal::Kind::pos_inf;
    return;
  }
  if (s.substr(i) == "nan") {
    d.kind = Decimal::Kind::nan;
    return;
  }
  // The digits before and after the point, without the point.
  const std::size_t int_begin = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  const std::string_view int_part = s.substr(int_begin, i - int_begin);
  std::string_view frac_part;
  if (i < s.size() && s[i] == '.') {
    const std::size_t frac_begin = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    frac_part = s.substr(frac_begin, i - frac_begin);
  }
  std::int64_t exp = -static_cast<std::int64_t>(frac_part.size());
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
  // Copied, so that `s` need not outlive `d`.
  const std::size_t n = int_part.size() + frac_part.size();
  char* out = d.small;
  if (n > sizeof d.small) {
    d.large.resize(n);
    out = d.large.data();
  }
  int_part.copy(out, int_part.size());
  frac_part.copy(out + int_part.size(), frac_part.size());
  const std::string_view digits(out, n);
  const std::size_t first = digits.find_first_not_of('0');
  if (first == std::string_view::npos) {
    d.neg = false;  // -0 == 0
    return;
  }
  const std::size_t last = digits.find_last_not_of('0');
  exp += static_cast<std::int64_t>(digits.size() - 1 - last);
  d.digits = digits.substr(first, last - first + 1);
  d.exp = exp;
}

void decimal_of(const Value& v, Decimal& d) {
  char buf[32];
  switch (v.type) {
    case Value::Type::int64: {
      const auto r = std::to_chars(buf, buf + sizeof buf, v.i);
      return parse_decimal(
          std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)), d);
    }
    case Value::Type::uint64: {
      const auto r = std::to_chars(buf, buf + sizeof buf, v.u);
      return parse_decimal(
          std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)), d);
    }
    case Value::Type::float64: {
      if (std::isnan(v.d)) return parse_decimal("nan", d);
      if (std::isinf(v.d)) return parse_decimal(v.d < 0 ? "-inf" : "inf", d);
      // The shortest round-trip spelling, at most 24 characters.
      const auto r = fmt::format_to_n(buf, sizeof buf, "{}", v.d);
      return parse_decimal(std::string_view(buf, r.size), d);
    }
    default:
      return parse_decimal(v.text, d);
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
    if (!locs_) locs_.emplace();  // a deque allocates when it is made
    locs_->push_back(Loc{parent, s});
    return &locs_->back();
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

  /// The node of a query of names and indices (`@.price`, `$.a[0]`), found
  /// without node lists, as the comparisons of a filter need it per
  /// candidate. False when the query has other segments, or a name matches
  /// twice in one object (node lists then decide what is selected).
  bool singular_node(const Query& q, const Value& cur, const Value*& out) {
    const Value* v = q.relative ? &cur : &root_;
    for (const Segment& seg : q.segments) {
      if (seg.descendant || seg.selectors.size() != 1) return false;
      const Selector& sel = seg.selectors[0];
      if (sel.kind == Selector::Kind::name) {
        if (v == nullptr || v->type != Value::Type::object) {
          v = nullptr;
          continue;
        }
        const Value* found = nullptr;
        for (const auto& [k, m] : v->members) {
          if (!name_matches(sel, k)) continue;
          if (found != nullptr) return false;
          found = &m;
        }
        v = found;
      } else if (sel.kind == Selector::Kind::index) {
        if (v == nullptr || v->type != Value::Type::array) {
          v = nullptr;
          continue;
        }
        const auto len = static_cast<std::int64_t>(v->items.size());
        const std::int64_t i = sel.index < 0 ? len + sel.index : sel.index;
        v = i < 0 || i >= len ? nullptr
                              : &v->items[static_cast<std::size_t>(i)];
      } else {
        return false;
      }
    }
    out = v;
    return true;
  }

  /// A comparable or function argument: a value, or Nothing (v null).
  struct Operand {
    const Value* v = nullptr;
    std::optional<Value> tmp;  // a Value is large: made only when needed
  };

  void operand(const Expr& e, const Value& cur, Operand& out) {
    switch (e.kind) {
      case Expr::Kind::literal:
        out.v = &e.literal;
        return;
      case Expr::Kind::query: {
        if (singular_node(e.query, cur, out.v)) return;
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
    out.tmp.emplace();
    out.tmp->type = Value::Type::uint64;
    out.tmp->u = n;
    out.v = &*out.tmp;
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
    if (!cache_) cache_ = std::make_unique<RegexCache>();
    auto& cache = cache_->maps[f == Function::match ? 0 : 1];
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
  std::optional<std::deque<Loc>> locs_;
  // Made on first use: most engines test a filter without a regex.
  struct RegexCache {
    std::unordered_map<std::string, std::unique_ptr<re2::RE2>> maps[2];
  };
  std::unique_ptr<RegexCache> cache_;
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

namespace {

// An integer against a double, by the double's shortest round-trip
// spelling as compare_decimals() would, without building decimals.
// Rounding to double is monotonic, so a strict order of the rounded integer
// and the double is the order of the integer and any number that rounds to
// the double, its spelling included. When they round alike, an integer of
// at most 2^53 is the double's value and its spelling; a larger one needs
// the digits (2 when it does).
template <typename Int>
int compare_int_double(Int i, double d) {
  if (std::isnan(d)) return 2;
  const auto r = static_cast<double>(i);
  if (r < d) return -1;
  if (r > d) return 1;
  constexpr Int kExact = Int{1} << 53;
  if constexpr (std::is_signed_v<Int>) {
    if (i >= -kExact && i <= kExact) return 0;
  } else {
    if (i <= kExact) return 0;
  }
  return 3;
}

int flip(int c) { return c == 2 || c == 3 ? c : -c; }

__extension__ using Int128 = __int128;

// Reads the digits at p into m (m = m * 10^n + digits), eight at a time
// where eight are left, and returns where they end. Past 19 digits m is
// meaningless; the caller counts them.
const char* read_digits(const char* p, const char* end, std::uint64_t& m) {
  while (end - p >= 8) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    // All eight bytes in '0'..'9' (fast_float's test).
    if ((((v & 0xF0F0F0F0F0F0F0F0) |
          (((v + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) >> 4)) !=
         0x3333333333333333)) {
      break;
    }
    v -= 0x3030303030303030;
    v = (v * 10) + (v >> 8);
    v = (((v & 0x000000FF000000FF) * 0x000F424000000064) +
         (((v >> 16) & 0x000000FF000000FF) * 0x0000271000000001)) >>
        32;
    m = m * 100000000 + v;
    p += 8;
  }
  for (; p != end && *p >= '0' && *p <= '9'; ++p) {
    m = m * 10 + static_cast<std::uint64_t>(*p - '0');
  }
  return p;
}

// A number spelled -?DIGITS(.DIGITS)? with at most 19 digits, 18 of them
// after the point, as mantissa / 10^scale: the spelling of most decimals in
// data, read exactly without building digits.
bool short_decimal(std::string_view t, Int128& mantissa, int& scale) {
  const char* p = t.data();
  const char* const end = p + t.size();
  const bool neg = p != end && *p == '-';
  if (neg) ++p;
  std::uint64_t m = 0;
  const char* const int_begin = p;
  p = read_digits(p, end, m);
  int digits = static_cast<int>(p - int_begin);
  int after = 0;
  if (p != end && *p == '.') {
    const char* const frac_begin = ++p;
    p = read_digits(p, end, m);
    after = static_cast<int>(p - frac_begin);
    if (after == 0) return false;
    digits += after;
  }
  if (p != end || digits == 0 || digits > 19 || after > 18) return false;
  mantissa = neg ? -static_cast<Int128>(m) : static_cast<Int128>(m);
  scale = after;
  return true;
}

// An integer or a short exact spelling as mantissa / 10^scale.
bool small_exact(const Value& v, Int128& mantissa, int& scale) {
  scale = 0;
  switch (v.type) {
    case Value::Type::int64:
      mantissa = v.i;
      return true;
    case Value::Type::uint64:
      mantissa = v.u;
      return true;
    case Value::Type::number:
      return short_decimal(v.text, mantissa, scale);
    default:
      return false;
  }
}

// Numbers small_exact() reads, compared exactly; 3 when it cannot read one.
int compare_small_exact(const Value& a, const Value& b) {
  Int128 x = 0;
  Int128 y = 0;
  int sx = 0;
  int sy = 0;
  if (!small_exact(a, x, sx) || !small_exact(b, y, sy)) return 3;
  // |mantissa| < 2^64 and scales differ by at most 18: no overflow.
  for (; sx < sy; ++sx) x *= 10;
  for (; sy < sx; ++sy) y *= 10;
  return x < y ? -1 : (x > y ? 1 : 0);
}

// The nearest double of a number, if it has a finite one.
bool nearest_double(const Value& v, double& out) {
  switch (v.type) {
    case Value::Type::int64:
      out = static_cast<double>(v.i);
      return true;
    case Value::Type::uint64:
      out = static_cast<double>(v.u);
      return true;
    case Value::Type::float64:
      out = v.d;
      return std::isfinite(out);
    default: {
      const char* end = v.text.data() + v.text.size();
      const auto r = std::from_chars(v.text.data(), end, out);
      return r.ec == std::errc() && r.ptr == end && std::isfinite(out);
    }
  }
}

}  // namespace

int compare_numbers(const Value& a, const Value& b) {
  using T = Value::Type;
  int c = 3;  // 3: not decided without the digits
  if (a.type == T::int64) {
    if (b.type == T::int64) return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
    if (b.type == T::uint64) {
      if (a.i < 0) return -1;
      const auto u = static_cast<std::uint64_t>(a.i);
      return u < b.u ? -1 : (u > b.u ? 1 : 0);
    }
    if (b.type == T::float64) c = compare_int_double(a.i, b.d);
  } else if (a.type == T::uint64) {
    if (b.type == T::uint64) return a.u < b.u ? -1 : (a.u > b.u ? 1 : 0);
    if (b.type == T::int64) {
      if (b.i < 0) return 1;
      const auto u = static_cast<std::uint64_t>(b.i);
      return a.u < u ? -1 : (a.u > u ? 1 : 0);
    }
    if (b.type == T::float64) c = compare_int_double(a.u, b.d);
  } else if (a.type == T::float64) {
    if (b.type == T::float64) {
      // Distinct doubles have spellings in the same order.
      if (std::isnan(a.d) || std::isnan(b.d)) return 2;
      return a.d < b.d ? -1 : (a.d > b.d ? 1 : 0);
    }
    if (b.type == T::int64) c = flip(compare_int_double(b.i, a.d));
    if (b.type == T::uint64) c = flip(compare_int_double(b.u, a.d));
  }
  if (a.type == T::number || b.type == T::number) {
    c = compare_small_exact(a, b);
  }
  if (c != 3) return c;
  // Exact spellings: rounding is monotonic, so nearest doubles in strict
  // order are the numbers' order (as for compare_int_double); only numbers
  // that round alike need their digits.
  if (a.type == T::number || b.type == T::number) {
    double x = 0;
    double y = 0;
    if (nearest_double(a, x) && nearest_double(b, y) && x != y) {
      return x < y ? -1 : 1;
    }
  }
  return detail::compare_by_digits(a, b);
}

int detail::compare_by_digits(const Value& a, const Value& b) {
  Decimal da;
  Decimal db;
  decimal_of(a, da);
  decimal_of(b, db);
  return compare_decimals(da, db);
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

/// Where a captured scalar goes: one Value reused from capture to capture,
/// as a filter over scalars (`$.prices[?@ > 10]`) captures one per member
/// and a tree per scalar costs more than the test. Annotated scalars take
/// the tree builder (they are rare and carry vectors).
class StreamSelector::ScalarCapture final : public Handler {
 public:
  const Value& value() const { return v_; }

  Flow begin_object() override { return Flow::skip; }  // never sent
  Flow key(std::string_view) override { return Flow::skip; }
  void end_object() override {}
  Flow begin_array() override { return Flow::skip; }
  void end_array() override {}
  void null_value() override { v_.type = Value::Type::null; }
  void bool_value(bool b) override {
    v_.type = Value::Type::boolean;
    v_.boolean = b;
  }
  void int_value(std::int64_t x) override {
    v_.type = Value::Type::int64;
    v_.i = x;
  }
  void uint_value(std::uint64_t x) override {
    v_.type = Value::Type::uint64;
    v_.u = x;
  }
  void double_value(double x) override {
    v_.type = Value::Type::float64;
    v_.d = x;
  }
  void number_text(std::string_view text) override {
    v_.type = Value::Type::number;
    v_.text.assign(text);
  }
  void string_value(std::string_view s) override {
    v_.type = Value::Type::string;
    v_.text.assign(s);
  }
  void bytes_value(std::span<const std::uint8_t> b) override {
    v_.type = Value::Type::bytes;
    v_.text.assign(reinterpret_cast<const char*>(b.data()), b.size());
  }
  void timestamp_value(const Timestamp& t) override {
    v_.type = Value::Type::timestamp;
    v_.ts = t;
    v_.text.assign(t.zone);
    v_.ts.zone = {};
  }
  void annotation(const Annotation&) override {}  // never sent
  void end_document() override {}

 private:
  Value v_;
};

StreamSelector::StreamSelector(const Query& q, NodeSink& sink)
    : query_(q),
      sink_(sink),
      builder_(std::make_unique<TreeBuilder>()),
      pruner_(std::make_unique<PruningBuilder>(*builder_)),
      scalar_(std::make_unique<ScalarCapture>()) {
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
  return capture_to_;
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
    if (!container && pending_.empty()) {
      capture_to_ = scalar_.get();
    } else {
      capture_to_ = pruner_.get();
      pruner_->reset(candidate_capture_ ? &candidate_needs_ : &rest_needs_);
    }
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
  std::optional<Value> tree;
  if (capture_to_ != scalar_.get()) {
    builder_->end_document();
    tree.emplace(builder_->take());
  }
  const Value& v = tree ? *tree : scalar_->value();
  const auto& segs = query_.segments;
  bool go_on = true;
  if (candidate_capture_) {
    candidate_capture_ = false;
    Engine engine(v);
    if (engine.test(*segs[split_].selectors[0].filter, v)) {
      go_on = emit_tree(segs, split_ + 1, v, v, location(), sink_);
    }
  } else {
    go_on = emit_tree(segs, split_, v, v, location(), sink_);
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
  if (!f.candidates) {
    // Most members are passed over by a plain name: compared here.
    const Selector& sel = query_.segments[frames_.size() - 1].selectors[0];
    const bool selected =
        sel.kind == Selector::Kind::name && sel.match == NameMatch::exact
            ? name == sel.name
            : selects_step(sel, Step::member(name));
    if (!selected) return Flow::skip;
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
