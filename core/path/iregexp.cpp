// I-Regexp (RFC 9485) to RE2: a strict parser of the RFC's ABNF that emits
// the equivalent RE2 pattern, so anything outside I-Regexp (back-references,
// lookaround, \d, lazy quantifiers, ...) is refused rather than silently
// given RE2's meaning. Like the JSONPath compliance suite, '^' and '$'
// outside classes are anchors.
#include <fmt/format.h>

#include "core/error.h"
#include "core/path/path.h"

namespace jbx::path {

namespace {

constexpr int kMaxGroupDepth = 100;

class Translator {
 public:
  explicit Translator(std::string_view p) : s_(p) {}

  std::string run() {
    regexp(0);
    if (p_ < s_.size()) {
      // Only a ')' without a '(' stops the top level early.
      fail(p_, "')' without a matching '('");
    }
    return out_;
  }

 private:
  [[noreturn]] void fail(std::size_t at, std::string msg) const {
    throw Error(Errc::invalid_query, std::move(msg), at);
  }
  bool at_end() const { return p_ >= s_.size(); }
  char peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }

  // i-regexp = branch *( "|" branch )
  void regexp(int depth) {
    if (depth > kMaxGroupDepth) fail(p_, "groups nested too deeply");
    branch(depth);
    while (!at_end() && peek() == '|') {
      out_ += '|';
      ++p_;
      branch(depth);
    }
  }

  // branch = *piece ; piece = atom [ quantifier ]
  void branch(int depth) {
    while (!at_end() && peek() != '|' && peek() != ')') {
      atom(depth);
      quantifier();
    }
  }

  void quantifier() {
    if (at_end()) return;
    const char c = peek();
    if (c == '*' || c == '+' || c == '?') {
      out_ += c;
      ++p_;
    } else if (c == '{') {
      const std::size_t start = p_;
      ++p_;
      out_ += '{';
      digits(start);
      if (peek() == ',') {
        out_ += ',';
        ++p_;
        if (peek() >= '0' && peek() <= '9') digits(start);
      }
      if (peek() != '}') fail(p_, "expected '}' to close the quantifier");
      out_ += '}';
      ++p_;
    } else {
      return;
    }
    const char n = peek();
    if (!at_end() && (n == '*' || n == '+' || n == '?' || n == '{')) {
      fail(p_, "a quantifier cannot follow a quantifier");
    }
  }

  void digits(std::size_t start) {
    if (!(peek() >= '0' && peek() <= '9')) {
      fail(start, "a quantifier needs digits: {n}, {n,} or {n,m}");
    }
    while (peek() >= '0' && peek() <= '9' && !at_end()) {
      out_ += peek();
      ++p_;
    }
  }

  // Length of the UTF-8 sequence starting at p_ (input is valid UTF-8 or
  // bytes are copied one by one).
  std::size_t char_len() const {
    const auto c = static_cast<unsigned char>(peek());
    std::size_t n = 1;
    if (c >= 0xF0) {
      n = 4;
    } else if (c >= 0xE0) {
      n = 3;
    } else if (c >= 0xC0) {
      n = 2;
    }
    return std::min(n, s_.size() - p_);
  }

  void literal_char() {
    const auto c = static_cast<unsigned char>(peek());
    if (c < 0x20 || c == 0x7F) {
      out_ += fmt::format("\\x{{{:02X}}}", static_cast<unsigned>(c));
      ++p_;
      return;
    }
    const std::size_t n = char_len();
    out_.append(s_.substr(p_, n));
    p_ += n;
  }

  void atom(int depth) {
    const char c = peek();
    switch (c) {
      case '(': {
        ++p_;
        out_ += "(?:";
        if (peek() == '?') fail(p_, "'(?' groups are not part of I-Regexp");
        regexp(depth + 1);
        if (peek() != ')' || at_end()) fail(p_, "missing ')'");
        out_ += ')';
        ++p_;
        return;
      }
      case '.':
        // RFC 9485: '.' matches any character but line feed and carriage
        // return.
        out_ += "[^\\n\\r]";
        ++p_;
        return;
      case '[':
        char_class_expr();
        return;
      case '\\':
        escape(false);
        return;
      case '*':
      case '+':
      case '?':
      case '{':
        fail(p_, fmt::format("'{}' without anything to repeat", c));
      case '}':
      case ']':
        fail(p_, fmt::format("unescaped '{}'", c));
      case '^':
      case '$':
        out_ += c;
        ++p_;
        return;
      default:
        literal_char();
    }
  }

  // SingleCharEsc / catEsc / complEsc. In a class, '\p' cannot open
  // another class, so it is written as is.
  void escape(bool in_class) {
    const std::size_t start = p_;
    ++p_;
    if (at_end()) fail(start, "'\\' at the end of the pattern");
    const char c = peek();
    switch (c) {
      case 'n':
        out_ += "\\n";
        ++p_;
        return;
      case 'r':
        out_ += "\\r";
        ++p_;
        return;
      case 't':
        out_ += "\\t";
        ++p_;
        return;
      case '(':
      case ')':
      case '*':
      case '+':
      case '-':
      case '.':
      case '?':
      case '[':
      case '\\':
      case ']':
      case '^':
      case '{':
      case '|':
      case '}':
        out_ += '\\';
        out_ += c;
        ++p_;
        return;
      case 'p':
      case 'P':
        category(start, c == 'P', in_class);
        return;
      default:
        fail(start, fmt::format("'\\{}' is not an I-Regexp escape",
                                static_cast<unsigned char>(c) >= 0x20 &&
                                        static_cast<unsigned char>(c) < 0x7F
                                    ? std::string(1, c)
                                    : std::string("?")));
    }
  }

  void category(std::size_t start, bool complement, bool in_class) {
    ++p_;  // p or P
    if (peek() != '{') fail(start, "expected '{' after '\\p'");
    ++p_;
    const std::size_t name_start = p_;
    while (!at_end() && peek() != '}') ++p_;
    if (at_end()) fail(start, "missing '}' after '\\p{'");
    const std::string_view name = s_.substr(name_start, p_ - name_start);
    ++p_;
    static constexpr std::string_view kCategories[] = {
        "L",  "Ll", "Lm", "Lo", "Lt", "Lu", "M",  "Mc", "Me", "Mn", "N",  "Nd",
        "Nl", "No", "P",  "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "Z",  "Zl",
        "Zp", "Zs", "S",  "Sc", "Sk", "Sm", "So", "C",  "Cc", "Cf", "Cn", "Co"};
    bool known = false;
    for (std::string_view k : kCategories) known = known || k == name;
    if (!known) {
      fail(name_start,
           fmt::format("'{}' is not a Unicode general category", name));
    }
    if (name == "Cn") {
      // RE2 has no Cn (unassigned): it is what no other category holds.
      if (in_class) fail(start, "\\p{Cn} is not supported inside a class");
      constexpr std::string_view kAssigned =
          "\\p{L}\\p{M}\\p{N}\\p{P}\\p{S}\\p{Z}\\p{Cc}\\p{Cf}\\p{Co}\\p{Cs}";
      out_ += complement ? "[" : "[^";
      out_ += kAssigned;
      out_ += ']';
      return;
    }
    out_ += complement ? "\\P{" : "\\p{";
    out_ += name;
    out_ += '}';
  }

  // charClassExpr = "[" [ "^" ] ( "-" / CCE1 ) *CCE1 [ "-" ] "]"
  void char_class_expr() {
    const std::size_t start = p_;
    ++p_;
    out_ += '[';
    if (peek() == '^') {
      out_ += '^';
      ++p_;
    }
    bool first = true;
    for (;;) {
      if (at_end()) fail(start, "missing ']'");
      const char c = peek();
      if (c == ']') {
        if (first) fail(p_, "empty character class");
        out_ += ']';
        ++p_;
        return;
      }
      if (c == '-') {
        // Only first, or last before ']'.
        ++p_;
        if (!first && peek() != ']') {
          fail(p_ - 1, "'-' inside a class must be first, last or a range");
        }
        out_ += "\\-";
        first = false;
        continue;
      }
      if (c == '\\' &&
          (s_.substr(p_, 2) == "\\p" || s_.substr(p_, 2) == "\\P")) {
        escape(true);
        first = false;
        continue;
      }
      cc_char();
      if (peek() == '-' && p_ + 1 < s_.size() && s_[p_ + 1] != ']') {
        out_ += '-';
        ++p_;
        if (peek() == '\\' &&
            (s_.substr(p_, 2) == "\\p" || s_.substr(p_, 2) == "\\P")) {
          fail(p_, "a range cannot end in a category");
        }
        cc_char();
      }
      first = false;
    }
  }

  // CCchar = ( %x00-2C / %x2E-5A / %x5E-D7FF / %xE000-10FFFF ) /
  //          SingleCharEsc
  void cc_char() {
    const char c = peek();
    if (c == '\\') {
      escape(true);
      return;
    }
    if (c == '[') fail(p_, "unescaped '[' inside a class");
    if (c == '-') fail(p_, "'-' inside a class must be first, last or a range");
    if (c == '^' || c == '.') {
      out_ += '\\';
      out_ += c;
      ++p_;
      return;
    }
    literal_char();
  }

  std::string_view s_;
  std::size_t p_ = 0;
  std::string out_;
};

}  // namespace

std::string iregexp_to_re2(std::string_view pattern) {
  return Translator(pattern).run();
}

}  // namespace jbx::path
