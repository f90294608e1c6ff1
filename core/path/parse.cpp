// The RFC 9535 query parser: recursive descent over the ABNF of the RFC,
// with the well-typedness rules of section 2.4.3 checked as each function
// call and comparison is built, so a parsed Query is always evaluable.
#include <re2/re2.h>

#include <fmt/format.h>

#include "core/error.h"
#include "core/path/path.h"

#include <charconv>

namespace jbx::path {

namespace {

constexpr std::int64_t kMaxSafe = (std::int64_t{1} << 53) - 1;  // I-JSON
constexpr int kMaxNesting = 256;

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
// The query is valid UTF-8 by the time these run, so any byte >= 0x80
// belongs to a non-surrogate code point >= U+0080: name-first allows them.
bool is_name_first(char c) {
  return is_alpha(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
bool is_name_char(char c) { return is_name_first(c) || is_digit(c); }
bool is_lc_alpha(char c) { return c >= 'a' && c <= 'z'; }

/// Offset of the first byte that is not part of valid UTF-8 (no
/// surrogates, no overlongs), or npos.
std::size_t invalid_utf8_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int n = 0;
    std::uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
      cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      cp = c & 0x07u;
    } else {
      return i;
    }
    if (i + static_cast<std::size_t>(n) >= s.size()) return i;
    for (int k = 1; k <= n; ++k) {
      const auto d =
          static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((d & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3Fu);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (n == 3 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return i;
    }
    i += static_cast<std::size_t>(n) + 1;
  }
  return std::string_view::npos;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

struct FunctionInfo {
  std::string_view name;
  Function id;
  FunctionType result;
  int arity;
  FunctionType params[2];
};

constexpr FunctionInfo kFunctions[] = {
    {"length",
     Function::length,
     FunctionType::value,
     1,
     {FunctionType::value, FunctionType::value}},
    {"count",
     Function::count,
     FunctionType::value,
     1,
     {FunctionType::nodes, FunctionType::value}},
    {"match",
     Function::match,
     FunctionType::logical,
     2,
     {FunctionType::value, FunctionType::value}},
    {"search",
     Function::search,
     FunctionType::logical,
     2,
     {FunctionType::value, FunctionType::value}},
    {"value",
     Function::value,
     FunctionType::value,
     1,
     {FunctionType::nodes, FunctionType::value}},
};

const FunctionInfo& info(Function f) {
  return kFunctions[static_cast<std::size_t>(f)];
}

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Query parse_root() {
    if (const std::size_t bad = invalid_utf8_at(s_);
        bad != std::string_view::npos) {
      fail(bad, "invalid UTF-8 in the query");
    }
    if (at_end() || s_[p_] != '$') {
      fail(0, "a query starts with '$'");
    }
    ++p_;
    Query q;
    parse_segments(q);
    if (!at_end()) {
      if (is_blank(s_[p_])) fail(p_, "whitespace at the end of the query");
      fail(p_, fmt::format("unexpected {}", describe(p_)));
    }
    return q;
  }

 private:
  [[noreturn]] void fail(std::size_t at, std::string message) const {
    throw Error(Errc::invalid_query, std::move(message), at);
  }

  bool at_end() const { return p_ >= s_.size(); }
  char peek(std::size_t ahead = 0) const {
    return p_ + ahead < s_.size() ? s_[p_ + ahead] : '\0';
  }
  void skip_blanks() {
    while (!at_end() && is_blank(s_[p_])) ++p_;
  }
  std::string describe(std::size_t at) const {
    if (at >= s_.size()) return "end of query";
    const char c = s_[at];
    if (static_cast<unsigned char>(c) < 0x20) {
      return fmt::format("control character U+{:04X}",
                         static_cast<unsigned>(static_cast<unsigned char>(c)));
    }
    if (static_cast<unsigned char>(c) >= 0x80) return "character";
    return fmt::format("'{}'", c);
  }
  void expect(char c, std::string_view what) {
    if (peek() != c || at_end()) {
      fail(p_, fmt::format("expected {}, found {}", what, describe(p_)));
    }
    ++p_;
  }

  struct DepthGuard {
    explicit DepthGuard(Parser& p) : parser(p) {
      if (++parser.depth_ > kMaxNesting) {
        parser.fail(parser.p_, "query nested too deeply");
      }
    }
    ~DepthGuard() { --parser.depth_; }
    Parser& parser;
  };

  // segments = *(S segment); whitespace is only consumed when a segment
  // follows it.
  void parse_segments(Query& q) {
    for (;;) {
      const std::size_t save = p_;
      skip_blanks();
      if (peek() == '[' && !at_end()) {
        Segment seg;
        parse_bracketed(seg);
        q.segments.push_back(std::move(seg));
      } else if (peek() == '.' && !at_end()) {
        q.segments.push_back(parse_dot_segment());
      } else {
        p_ = save;
        return;
      }
    }
  }

  Segment parse_dot_segment() {
    Segment seg;
    ++p_;  // '.'
    if (peek() == '.') {
      ++p_;
      seg.descendant = true;
      if (peek() == '[') {
        parse_bracketed(seg);
        return seg;
      }
    }
    Selector sel;
    sel.offset = static_cast<std::uint32_t>(p_);
    if (peek() == '*') {
      ++p_;
      sel.kind = Selector::Kind::wildcard;
    } else if (!at_end() && is_name_first(peek())) {
      const std::size_t start = p_;
      while (!at_end() && is_name_char(peek())) ++p_;
      sel.kind = Selector::Kind::name;
      sel.name.assign(s_.substr(start, p_ - start));
    } else {
      fail(p_, fmt::format("expected a member name or '*' after '{}', "
                           "found {}",
                           seg.descendant ? ".." : ".", describe(p_)));
    }
    seg.selectors.push_back(std::move(sel));
    return seg;
  }

  void parse_bracketed(Segment& seg) {
    DepthGuard guard(*this);
    ++p_;  // '['
    for (;;) {
      skip_blanks();
      seg.selectors.push_back(parse_selector());
      skip_blanks();
      if (peek() == ',' && !at_end()) {
        ++p_;
        continue;
      }
      if (peek() == ']' && !at_end()) {
        ++p_;
        return;
      }
      fail(p_, fmt::format("expected ',' or ']', found {}", describe(p_)));
    }
  }

  Selector parse_selector() {
    Selector sel;
    sel.offset = static_cast<std::uint32_t>(p_);
    const char c = peek();
    if (at_end()) fail(p_, "expected a selector, found end of query");
    if (c == '\'' || c == '"') {
      sel.kind = Selector::Kind::name;
      sel.name = parse_string();
      return sel;
    }
    if (c == '*') {
      ++p_;
      sel.kind = Selector::Kind::wildcard;
      return sel;
    }
    if (c == '?') {
      ++p_;
      skip_blanks();
      auto e = std::make_shared<Expr>(parse_or());
      check_logical(*e);
      sel.kind = Selector::Kind::filter;
      sel.filter = std::move(e);
      return sel;
    }
    if (c == '-' || is_digit(c) || c == ':') {
      std::optional<std::int64_t> first;
      if (c != ':') first = parse_int();
      const std::size_t save = p_;
      skip_blanks();
      if (peek() != ':' || at_end()) {
        p_ = save;
        sel.kind = Selector::Kind::index;
        sel.index = *first;
        return sel;
      }
      ++p_;
      sel.kind = Selector::Kind::slice;
      sel.slice.start = first;
      skip_blanks();
      if (peek() == '-' || is_digit(peek())) {
        sel.slice.end = parse_int();
        skip_blanks();
      }
      if (peek() == ':' && !at_end()) {
        ++p_;
        skip_blanks();
        if (peek() == '-' || is_digit(peek())) sel.slice.step = parse_int();
      }
      return sel;
    }
    fail(p_, fmt::format("expected a selector, found {}", describe(p_)));
  }

  // int = "0" / (["-"] DIGIT1 *DIGIT), within the I-JSON range.
  std::int64_t parse_int() {
    const std::size_t start = p_;
    bool neg = false;
    if (peek() == '-') {
      neg = true;
      ++p_;
    }
    if (!is_digit(peek())) {
      fail(p_, fmt::format("expected a digit, found {}", describe(p_)));
    }
    if (peek() == '0') {
      if (neg) fail(start, "negative zero is not an index");
      if (is_digit(peek(1))) fail(start, "leading zeros are not allowed");
      ++p_;
      return 0;
    }
    std::int64_t v = 0;
    while (is_digit(peek())) {
      v = v * 10 + (peek() - '0');
      ++p_;
      if (v > kMaxSafe) {
        fail(start, "integer outside the range -(2^53-1) to 2^53-1");
      }
    }
    return neg ? -v : v;
  }

  // string-literal with ' or " quotes and JSON-like escapes.
  std::string parse_string() {
    const char quote = s_[p_];
    const std::size_t start = p_;
    ++p_;
    std::string out;
    for (;;) {
      if (at_end()) fail(start, "unterminated string");
      const char c = s_[p_];
      if (c == quote) {
        ++p_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        fail(p_, fmt::format("{} must be escaped in a string", describe(p_)));
      }
      if (c != '\\') {
        out += c;
        ++p_;
        continue;
      }
      const std::size_t esc = p_;
      ++p_;
      const char e = peek();
      if (at_end()) fail(start, "unterminated string");
      ++p_;
      switch (e) {
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case '/':
          out += '/';
          break;
        case '\\':
          out += '\\';
          break;
        case 'u': {
          std::uint32_t cp = parse_hex4(esc);
          if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail(esc, "lone low surrogate in \\u escape");
          }
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (peek() != '\\' || peek(1) != 'u') {
              fail(esc, "high surrogate not followed by a low surrogate");
            }
            const std::size_t esc2 = p_;
            p_ += 2;
            const std::uint32_t lo = parse_hex4(esc2);
            if (lo < 0xDC00 || lo > 0xDFFF) {
              fail(esc2, "high surrogate not followed by a low surrogate");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          if (e == quote) {
            out += e;
            break;
          }
          fail(esc, fmt::format("invalid escape '\\{}'",
                                static_cast<unsigned char>(e) < 0x80 &&
                                        static_cast<unsigned char>(e) >= 0x20
                                    ? std::string(1, e)
                                    : std::string("?")));
      }
    }
  }

  std::uint32_t parse_hex4(std::size_t esc) {
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = peek();
      std::uint32_t d = 0;
      if (h >= '0' && h <= '9') {
        d = static_cast<std::uint32_t>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        d = static_cast<std::uint32_t>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        d = static_cast<std::uint32_t>(h - 'A' + 10);
      } else {
        fail(esc, "\\u needs four hex digits");
      }
      v = v * 16 + d;
      ++p_;
    }
    return v;
  }

  // ---- filter expressions ------------------------------------------------

  Expr parse_or() {
    DepthGuard guard(*this);
    Expr first = parse_and();
    std::size_t save = p_;
    skip_blanks();
    if (!(peek() == '|' && peek(1) == '|')) {
      p_ = save;
      return first;
    }
    Expr e;
    e.kind = Expr::Kind::logical_or;
    e.offset = first.offset;
    check_logical(first);
    e.operands.push_back(std::move(first));
    while (peek() == '|' && peek(1) == '|') {
      p_ += 2;
      skip_blanks();
      Expr next = parse_and();
      check_logical(next);
      e.operands.push_back(std::move(next));
      save = p_;
      skip_blanks();
    }
    p_ = save;
    return e;
  }

  Expr parse_and() {
    Expr first = parse_basic();
    std::size_t save = p_;
    skip_blanks();
    if (!(peek() == '&' && peek(1) == '&')) {
      p_ = save;
      return first;
    }
    Expr e;
    e.kind = Expr::Kind::logical_and;
    e.offset = first.offset;
    check_logical(first);
    e.operands.push_back(std::move(first));
    while (peek() == '&' && peek(1) == '&') {
      p_ += 2;
      skip_blanks();
      Expr next = parse_basic();
      check_logical(next);
      e.operands.push_back(std::move(next));
      save = p_;
      skip_blanks();
    }
    p_ = save;
    return e;
  }

  std::optional<Expr::Op> peek_comparison(std::size_t& len) const {
    const char a = peek();
    const char b = peek(1);
    len = 2;
    if (a == '=' && b == '=') return Expr::Op::eq;
    if (a == '!' && b == '=') return Expr::Op::ne;
    if (a == '<' && b == '=') return Expr::Op::le;
    if (a == '>' && b == '=') return Expr::Op::ge;
    len = 1;
    if (a == '<') return Expr::Op::lt;
    if (a == '>') return Expr::Op::gt;
    return std::nullopt;
  }

  Expr parse_paren() {
    DepthGuard guard(*this);
    Expr e;
    e.kind = Expr::Kind::logical_or;  // one operand: a parenthesised test
    e.offset = static_cast<std::uint32_t>(p_);
    ++p_;  // '('
    skip_blanks();
    Expr inner = parse_or();
    check_logical(inner);
    e.operands.push_back(std::move(inner));
    skip_blanks();
    expect(')', "')'");
    return e;
  }

  Expr parse_basic() {
    DepthGuard guard(*this);
    if (peek() == '!' && peek(1) != '=') {
      Expr e;
      e.kind = Expr::Kind::logical_not;
      e.offset = static_cast<std::uint32_t>(p_);
      ++p_;
      skip_blanks();
      Expr inner = peek() == '(' ? parse_paren() : parse_primary();
      check_logical(inner);
      const std::size_t save = p_;
      skip_blanks();
      std::size_t len = 0;
      if (inner.kind != Expr::Kind::logical_or && peek_comparison(len)) {
        fail(p_,
             "a negated test cannot be compared; put the comparison in "
             "parentheses: !(a == b)");
      }
      p_ = save;
      e.operands.push_back(std::move(inner));
      return e;
    }
    if (peek() == '(') return parse_paren();
    Expr left = parse_primary();
    const std::size_t save = p_;
    skip_blanks();
    std::size_t len = 0;
    const auto op = peek_comparison(len);
    if (!op) {
      p_ = save;
      return left;
    }
    const std::size_t op_at = p_;
    p_ += len;
    skip_blanks();
    if (peek() == '(' || peek() == '!') {
      fail(p_,
           "only a literal, a singular query or a function can be "
           "compared");
    }
    Expr right = parse_primary();
    check_comparable(left);
    check_comparable(right);
    Expr e;
    e.kind = Expr::Kind::compare;
    e.op = *op;
    e.offset = static_cast<std::uint32_t>(op_at);
    e.operands.push_back(std::move(left));
    e.operands.push_back(std::move(right));
    return e;
  }

  // A query, literal or function call.
  Expr parse_primary() {
    Expr e;
    e.offset = static_cast<std::uint32_t>(p_);
    const char c = peek();
    if (at_end()) fail(p_, "expected an expression, found end of query");
    if (c == '$' || c == '@') {
      ++p_;
      e.kind = Expr::Kind::query;
      e.query.relative = c == '@';
      parse_segments(e.query);
      return e;
    }
    if (c == '\'' || c == '"') {
      e.kind = Expr::Kind::literal;
      e.literal.type = Value::Type::string;
      e.literal.text = parse_string();
      return e;
    }
    if (c == '-' || is_digit(c)) {
      e.kind = Expr::Kind::literal;
      e.literal.type = Value::Type::number;
      e.literal.text = parse_number();
      // An integer literal compares as an integer: once per query, not
      // once per candidate. (-0 keeps its spelling; it equals 0 either way.)
      const std::string& t = e.literal.text;
      std::int64_t v = 0;
      const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      if (r.ec == std::errc() && r.ptr == t.data() + t.size() && t != "-0") {
        e.literal.type = Value::Type::int64;
        e.literal.i = v;
      }
      return e;
    }
    if (is_lc_alpha(c)) {
      const std::size_t start = p_;
      while (!at_end() &&
             (is_lc_alpha(peek()) || is_digit(peek()) || peek() == '_')) {
        ++p_;
      }
      const std::string_view word = s_.substr(start, p_ - start);
      if (peek() == '(') return parse_function(word, start);
      if (is_name_char(peek()) && !at_end()) {
        fail(p_, fmt::format("unexpected {}", describe(p_)));
      }
      e.kind = Expr::Kind::literal;
      if (word == "true" || word == "false") {
        e.literal.type = Value::Type::boolean;
        e.literal.boolean = word == "true";
        return e;
      }
      if (word == "null") {
        e.literal.type = Value::Type::null;
        return e;
      }
      fail(start, fmt::format("unknown word '{}': expected a query, a "
                              "literal or a function call",
                              word));
    }
    fail(p_, fmt::format("expected a query, a literal or a function call, "
                         "found {}",
                         describe(p_)));
  }

  // number = (int / "-0") [ frac ] [ exp ]
  std::string parse_number() {
    const std::size_t start = p_;
    if (peek() == '-') ++p_;
    if (!is_digit(peek())) {
      fail(p_, fmt::format("expected a digit, found {}", describe(p_)));
    }
    if (peek() == '0') {
      ++p_;
      if (is_digit(peek())) fail(start, "leading zeros are not allowed");
    } else {
      while (is_digit(peek())) ++p_;
    }
    if (peek() == '.') {
      ++p_;
      if (!is_digit(peek())) {
        fail(p_,
             fmt::format("expected a digit after '.', found {}", describe(p_)));
      }
      while (is_digit(peek())) ++p_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++p_;
      if (peek() == '+' || peek() == '-') ++p_;
      if (!is_digit(peek())) {
        fail(p_, fmt::format("expected a digit in the exponent, found {}",
                             describe(p_)));
      }
      while (is_digit(peek())) ++p_;
    }
    return std::string(s_.substr(start, p_ - start));
  }

  Expr parse_function(std::string_view name, std::size_t start) {
    DepthGuard guard(*this);
    const FunctionInfo* fn = nullptr;
    for (const FunctionInfo& f : kFunctions) {
      if (f.name == name) fn = &f;
    }
    if (fn == nullptr) fail(start, fmt::format("unknown function '{}'", name));
    Expr e;
    e.kind = Expr::Kind::function;
    e.function = fn->id;
    e.offset = static_cast<std::uint32_t>(start);
    ++p_;  // '('
    skip_blanks();
    if (peek() != ')') {
      for (;;) {
        e.operands.push_back(parse_or());
        skip_blanks();
        if (peek() == ',' && !at_end()) {
          ++p_;
          skip_blanks();
          continue;
        }
        if (peek() == ')' && !at_end()) break;
        fail(p_, fmt::format("expected ',' or ')', found {}", describe(p_)));
      }
    }
    if (static_cast<int>(e.operands.size()) != fn->arity) {
      fail(start, fmt::format("function '{}' takes {} argument{}, not {}", name,
                              fn->arity, fn->arity == 1 ? "" : "s",
                              e.operands.size()));
    }
    ++p_;  // ')'
    for (std::size_t k = 0; k < e.operands.size(); ++k) {
      check_argument(*fn, k, e.operands[k]);
    }
    if ((fn->id == Function::match || fn->id == Function::search) &&
        e.operands[1].kind == Expr::Kind::literal &&
        e.operands[1].literal.type == Value::Type::string) {
      e.regex = compile_literal(fn->id, e.operands[1]);
    }
    return e;
  }

  std::shared_ptr<const re2::RE2> compile_literal(Function f,
                                                  const Expr& arg) const {
    std::string translated;
    try {
      translated = iregexp_to_re2(arg.literal.text);
    } catch (const Error& err) {
      // Offsets inside the pattern map onto the query when the literal has
      // no escapes; otherwise point at the literal.
      const std::size_t raw = arg.offset + 1 + err.offset.value_or(0);
      const std::string_view body =
          s_.substr(arg.offset + 1, arg.literal.text.size());
      fail(body == arg.literal.text ? raw : arg.offset,
           fmt::format("not an I-Regexp (RFC 9485) pattern: {}", err.message));
    }
    std::string anchored =
        f == Function::match ? "^(?:" + translated + ")$" : translated;
    RE2::Options opts;
    opts.set_log_errors(false);
    opts.set_dot_nl(false);
    auto re = std::make_shared<re2::RE2>(anchored, opts);
    if (!re->ok()) {
      fail(arg.offset, fmt::format("pattern rejected by RE2: {}", re->error()));
    }
    return re;
  }

  static FunctionType type_of(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::literal:
        return FunctionType::value;
      case Expr::Kind::query:
        return FunctionType::nodes;
      case Expr::Kind::function:
        return info(e.function).result;
      default:
        return FunctionType::logical;
    }
  }

  void check_argument(const FunctionInfo& fn, std::size_t k, const Expr& arg) {
    const FunctionType want = fn.params[k];
    const std::string which =
        fmt::format("argument {} of '{}'", k + 1, fn.name);
    switch (want) {
      case FunctionType::value:
        if (arg.kind == Expr::Kind::literal) return;
        if (arg.kind == Expr::Kind::query) {
          if (arg.query.singular()) return;
          fail(arg.offset, fmt::format("{} must be a single value: use a "
                                       "singular query (names and indices "
                                       "only)",
                                       which));
        }
        if (type_of(arg) == FunctionType::value) return;
        fail(arg.offset, fmt::format("{} must be a value, not a {}", which,
                                     type_of(arg) == FunctionType::logical
                                         ? "logical expression"
                                         : "node list"));
      case FunctionType::nodes:
        if (type_of(arg) == FunctionType::nodes) return;
        fail(arg.offset, fmt::format("{} must be a query", which));
      case FunctionType::logical:
        if (arg.kind != Expr::Kind::literal) return;
        fail(arg.offset, fmt::format("{} must be a logical expression", which));
    }
  }

  void check_logical(const Expr& e) const {
    switch (e.kind) {
      case Expr::Kind::literal:
        fail(e.offset, "a literal is not a test; compare it with something");
      case Expr::Kind::function:
        if (info(e.function).result == FunctionType::value) {
          fail(e.offset,
               fmt::format("function '{}' returns a value, not a test "
                           "result; compare it with something",
                           info(e.function).name));
        }
        return;
      default:
        return;
    }
  }

  void check_comparable(const Expr& e) const {
    switch (e.kind) {
      case Expr::Kind::literal:
        return;
      case Expr::Kind::query:
        if (e.query.singular()) return;
        fail(e.offset,
             "a compared query must be singular (names and indices only)");
      case Expr::Kind::function:
        if (info(e.function).result == FunctionType::value) return;
        fail(e.offset, fmt::format("function '{}' returns a test result that "
                                   "cannot be compared",
                                   info(e.function).name));
      default:
        fail(e.offset, "a logical expression cannot be compared");
    }
  }

  std::string_view s_;
  std::size_t p_ = 0;
  int depth_ = 0;
};

}  // namespace

bool Query::singular() const {
  for (const Segment& seg : segments) {
    if (seg.descendant || seg.selectors.size() != 1) return false;
    const Selector::Kind k = seg.selectors[0].kind;
    if (k != Selector::Kind::name && k != Selector::Kind::index &&
        k != Selector::Kind::pointer) {
      return false;
    }
  }
  return true;
}

Query parse(std::string_view text) { return Parser(text).parse_root(); }

Query parse_pointer(std::string_view text) {
  Query q;
  if (text.empty()) return q;
  if (text[0] != '/') {
    throw Error(Errc::invalid_query, "a JSON Pointer starts with '/'", 0);
  }
  std::size_t i = 1;
  for (;;) {
    Selector sel;
    sel.kind = Selector::Kind::pointer;
    sel.offset = static_cast<std::uint32_t>(i);
    while (i < text.size() && text[i] != '/') {
      if (text[i] == '~') {
        const char n = i + 1 < text.size() ? text[i + 1] : '\0';
        if (n != '0' && n != '1') {
          throw Error(Errc::invalid_query,
                      "'~' must be followed by '0' or '1' in a JSON Pointer",
                      i);
        }
        sel.name += n == '0' ? '~' : '/';
        i += 2;
      } else {
        sel.name += text[i++];
      }
    }
    // An array index is "0" or digits without a leading zero (RFC 6901 4).
    sel.index = -1;
    const std::string& t = sel.name;
    if (!t.empty() && t.size() <= 15 &&
        t.find_first_not_of("0123456789") == std::string::npos &&
        (t.size() == 1 || t[0] != '0')) {
      sel.index = std::stoll(t);
    }
    Segment seg;
    seg.selectors.push_back(std::move(sel));
    q.segments.push_back(std::move(seg));
    if (i >= text.size()) break;
    ++i;  // '/'
  }
  return q;
}

}  // namespace jbx::path
