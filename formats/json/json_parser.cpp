#include "formats/json/json_parser.h"

#include <fmt/format.h>

#include "core/error.h"
#include "formats/binary_text.h"

namespace jbx {

namespace {

inline bool is_ws(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string describe(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  if (c > 0x20 && c < 0x7F) return fmt::format("'{}'", ch);
  if (c == ' ') return "' '";
  return fmt::format("byte 0x{:02x}", c);
}

// Bytes that end the fast scan inside a string: '"', '\\', control
// characters and non-ASCII.
constexpr bool string_special(unsigned char c) {
  return c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
}

}  // namespace

int parse_hex4(const char* p) {
  int v = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    int d = 0;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return -1;
    }
    v = v * 16 + d;
  }
  return v;
}

std::size_t token_start(std::string_view text, std::size_t end) {
  if (end == 0 || end > text.size()) return end;
  std::size_t i = end - 1;
  switch (text[i]) {
    case '"':
      // Back to the opening quote: the first one not escaped, that is not
      // after an odd run of backslashes.
      while (i > 0) {
        --i;
        if (text[i] != '"') continue;
        std::size_t k = i;
        while (k > 0 && text[k - 1] == '\\') --k;
        if ((i - k) % 2 == 0) return i;
      }
      return 0;
    case '[':
    case ']':
    case '{':
    case '}':
      return i;
    default:
      // A number or literal runs back to whitespace or punctuation.
      while (i > 0 && !is_ws(text[i - 1]) &&
             std::string_view(",:[]{}").find(text[i - 1]) ==
                 std::string_view::npos) {
        --i;
      }
      return i;
  }
}

JsonScalarParser::JsonScalarParser(std::string_view text, std::uint64_t base,
                                   std::uint32_t max_depth)
    : p_(text.data()), n_(text.size()), base_(base), max_depth_(max_depth) {}

void JsonScalarParser::fail(Errc code, std::size_t at, std::string msg) const {
  throw Error(code, std::move(msg), base_ + at);
}

void JsonScalarParser::unexpected_char(std::size_t at, std::string_view what) {
  if (at == 0 && n_ >= 3 && p_[0] == '\xEF' && p_[1] == '\xBB' &&
      p_[2] == '\xBF') {
    fail(Errc::syntax, 0, "a byte order mark is not allowed in JSON");
  }
  fail(Errc::syntax, at, fmt::format("{}, found {}", what, describe(p_[at])));
}

void JsonScalarParser::skip_ws() {
  while (pos_ < n_ && is_ws(p_[pos_])) ++pos_;
}

bool JsonScalarParser::at_end() {
  skip_ws();
  return pos_ >= n_;
}

void JsonScalarParser::expect_separator() {
  if (pos_ < n_ && !is_ws(p_[pos_])) {
    unexpected_char(pos_,
                    "expected whitespace or end of input after the "
                    "document");
  }
}

void JsonScalarParser::expect_end() {
  skip_ws();
  if (pos_ < n_) {
    unexpected_char(pos_, "unexpected content after the document");
  }
}

void JsonScalarParser::parse_literal(std::string_view word) {
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (pos_ + i >= n_) {
      fail(Errc::unexpected_end, pos_ + i,
           fmt::format("unexpected end of input in '{}'", word));
    }
    if (p_[pos_ + i] != word[i]) {
      fail(Errc::syntax, pos_ + i,
           fmt::format("invalid literal, expected '{}'", word));
    }
  }
  pos_ += word.size();
}

void JsonScalarParser::parse_number() {
  const std::size_t start = pos_;
  if (p_[pos_] == '-') ++pos_;
  if (pos_ >= n_) {
    fail(Errc::unexpected_end, pos_, "unexpected end of input in number");
  }
  if (p_[pos_] == '0') {
    ++pos_;
    if (pos_ < n_ && is_digit(p_[pos_])) {
      fail(Errc::syntax, start, "leading zeros are not allowed in numbers");
    }
  } else if (is_digit(p_[pos_])) {
    while (pos_ < n_ && is_digit(p_[pos_])) ++pos_;
  } else {
    unexpected_char(pos_, "expected a digit after '-'");
  }
  if (pos_ < n_ && p_[pos_] == '.') {
    ++pos_;
    if (pos_ >= n_) {
      fail(Errc::unexpected_end, pos_, "unexpected end of input in number");
    }
    if (!is_digit(p_[pos_])) {
      unexpected_char(pos_, "expected a digit after the decimal point");
    }
    while (pos_ < n_ && is_digit(p_[pos_])) ++pos_;
  }
  if (pos_ < n_ && (p_[pos_] == 'e' || p_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < n_ && (p_[pos_] == '+' || p_[pos_] == '-')) ++pos_;
    if (pos_ >= n_) {
      fail(Errc::unexpected_end, pos_, "unexpected end of input in number");
    }
    if (!is_digit(p_[pos_])) {
      unexpected_char(pos_, "expected a digit in the exponent");
    }
    while (pos_ < n_ && is_digit(p_[pos_])) ++pos_;
  }
}

std::string_view JsonScalarParser::parse_string() {
  // pos_ is at the opening quote.
  const std::size_t open = pos_;
  std::size_t i = pos_ + 1;
  const std::size_t start = i;
  bool copying = false;
  std::size_t run = start;  // start of bytes not yet copied into buf_
  for (;;) {
    while (i < n_ && !string_special(static_cast<unsigned char>(p_[i]))) ++i;
    if (i >= n_) {
      fail(Errc::unexpected_end, n_, "unexpected end of input in string");
    }
    const auto c = static_cast<unsigned char>(p_[i]);
    if (c == '"') {
      pos_ = i + 1;
      if (!copying) return {p_ + start, i - start};
      buf_.append(p_ + run, i - run);
      return buf_;
    }
    if (c < 0x20) {
      fail(Errc::syntax, i,
           fmt::format("unescaped control character 0x{:02x} in string", c));
    }
    if (c >= 0x80) {
      // Strict UTF-8: no overlong forms, no surrogates, nothing above
      // U+10FFFF.
      const auto [len, lo, hi] =
          detail::text_scan::lead(static_cast<std::uint8_t>(c));
      if (len == 0) {
        fail(Errc::invalid_utf8, i,
             fmt::format("invalid UTF-8 byte 0x{:02x} in string", c));
      }
      for (std::size_t k = 1; k < len; ++k) {
        const std::size_t at = i + k;
        if (at >= n_) {
          fail(Errc::unexpected_end, n_, "unexpected end of input in string");
        }
        const auto cc = static_cast<unsigned char>(p_[at]);
        const std::uint8_t l = k == 1 ? lo : 0x80;
        const std::uint8_t h = k == 1 ? hi : 0xBF;
        if (cc < l || cc > h) {
          // Reported at the sequence's first byte, with the bytes that
          // cannot go together: the one read last may be good text itself.
          fail(Errc::invalid_utf8, i,
               "invalid UTF-8 in string: " +
                   detail::describe_invalid_utf8(
                       reinterpret_cast<const std::uint8_t*>(p_ + i), n_ - i));
        }
      }
      i += len;
      continue;
    }
    // A backslash escape.
    if (!copying) {
      buf_.clear();
      copying = true;
    }
    buf_.append(p_ + run, i - run);
    if (i + 1 >= n_) {
      fail(Errc::unexpected_end, n_, "unexpected end of input in string");
    }
    const char e = p_[i + 1];
    switch (e) {
      case '"':
      case '\\':
      case '/':
        buf_ += e;
        break;
      case 'b':
        buf_ += '\b';
        break;
      case 'f':
        buf_ += '\f';
        break;
      case 'n':
        buf_ += '\n';
        break;
      case 'r':
        buf_ += '\r';
        break;
      case 't':
        buf_ += '\t';
        break;
      case 'u': {
        if (i + 6 > n_) {
          fail(Errc::unexpected_end, n_, "unexpected end of input in string");
        }
        int cp = parse_hex4(p_ + i + 2);
        if (cp < 0) {
          fail(Errc::syntax, i,
               "invalid \\u escape in string: expected 4 hex digits");
        }
        std::size_t used = 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          int lo = -1;
          if (i + 12 <= n_ && p_[i + 6] == '\\' && p_[i + 7] == 'u') {
            lo = parse_hex4(p_ + i + 8);
          }
          if (lo < 0xDC00 || lo > 0xDFFF) {
            fail(Errc::invalid_utf8, i,
                 fmt::format("lone surrogate \\u{:04x} in string", cp));
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          used = 12;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          fail(Errc::invalid_utf8, i,
               fmt::format("lone surrogate \\u{:04x} in string", cp));
        }
        const auto u = static_cast<unsigned>(cp);
        if (u < 0x80) {
          buf_ += static_cast<char>(u);
        } else if (u < 0x800) {
          buf_ += static_cast<char>(0xC0 | (u >> 6));
          buf_ += static_cast<char>(0x80 | (u & 0x3F));
        } else if (u < 0x10000) {
          buf_ += static_cast<char>(0xE0 | (u >> 12));
          buf_ += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
          buf_ += static_cast<char>(0x80 | (u & 0x3F));
        } else {
          buf_ += static_cast<char>(0xF0 | (u >> 18));
          buf_ += static_cast<char>(0x80 | ((u >> 12) & 0x3F));
          buf_ += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
          buf_ += static_cast<char>(0x80 | (u & 0x3F));
        }
        i += used;
        run = i;
        continue;
      }
      default:
        if (static_cast<unsigned char>(e) > 0x20 &&
            static_cast<unsigned char>(e) < 0x7F) {
          fail(Errc::syntax, i,
               fmt::format("invalid escape '\\{}' in string", e));
        }
        fail(Errc::syntax, i,
             fmt::format("invalid escape in string: backslash followed by "
                         "byte 0x{:02x}",
                         static_cast<unsigned char>(e)));
    }
    i += 2;
    run = i;
  }
  (void)open;
}

bool JsonScalarParser::parse_value(Handler& h) {
  try {
    return parse_events(h);
  } catch (Error& e) {
    // The parser's own errors have their offset. A handler refusing what it
    // was given (a writer, a transform) is called right after the token was
    // read, so the token ends at pos_.
    if (!e.offset) e.offset = base_ + token_start({p_, n_}, pos_);
    throw;
  }
}

bool JsonScalarParser::parse_events(Handler& h) {
  stack_.clear();
  // Events are suppressed while stack_.size() >= skip_level (a skipped
  // container) and for the one value after a key that returned skip.
  std::size_t skip_level = 0;
  bool skip_next = false;
  bool stopped = false;
  bool after_comma = false;

  enum class St { value, member, after };
  St st = St::value;
  for (;;) {
    if (st == St::value) {
      skip_ws();
      if (pos_ >= n_) {
        fail(Errc::unexpected_end, pos_,
             stack_.empty()  ? "unexpected end of input, expected a value"
             : stack_.back() ? "unexpected end of input in object"
                             : "unexpected end of input in array");
      }
      const bool live = skip_level == 0 && !skip_next;
      const char c = p_[pos_];
      switch (c) {
        case '{':
        case '[': {
          const bool object = c == '{';
          if (stack_.size() >= max_depth_) {
            fail(Errc::depth_limit, pos_,
                 fmt::format("nesting deeper than {} levels", max_depth_));
          }
          ++pos_;
          Flow f = Flow::visit;
          if (live) {
            f = object ? h.begin_object() : h.begin_array();
          } else if (skip_next) {
            f = Flow::skip;
          }
          stack_.push_back(object);
          if (skip_level == 0 && f == Flow::skip) skip_level = stack_.size();
          if (f == Flow::stop) {
            stopped = true;
            skip_level = 1;
          }
          skip_next = false;
          skip_ws();
          if (pos_ < n_ && p_[pos_] == (object ? '}' : ']')) {
            ++pos_;
            if (skip_level == 0) {
              object ? h.end_object() : h.end_array();
            }
            stack_.pop_back();
            if (skip_level > stack_.size()) skip_level = 0;
            st = St::after;
          } else {
            after_comma = false;
            st = object ? St::member : St::value;
          }
          continue;
        }
        case '"': {
          const std::string_view s = parse_string();
          if (live) h.string_value(s);
          break;
        }
        case 't':
          parse_literal("true");
          if (live) h.bool_value(true);
          break;
        case 'f':
          parse_literal("false");
          if (live) h.bool_value(false);
          break;
        case 'n':
          parse_literal("null");
          if (live) h.null_value();
          break;
        default:
          if (c == '-' || is_digit(c)) {
            const std::size_t start = pos_;
            parse_number();
            if (live) h.number_text({p_ + start, pos_ - start});
            break;
          }
          if (after_comma && (c == ']' || c == '}')) {
            fail(Errc::syntax, pos_,
                 fmt::format("trailing comma before '{}'", c));
          }
          unexpected_char(pos_, "expected a value");
      }
      skip_next = false;
      st = St::after;
      continue;
    }
    if (st == St::member) {
      skip_ws();
      if (pos_ >= n_) {
        fail(Errc::unexpected_end, pos_, "unexpected end of input in object");
      }
      if (p_[pos_] != '"') {
        if (after_comma && p_[pos_] == '}') {
          fail(Errc::syntax, pos_, "trailing comma before '}'");
        }
        unexpected_char(pos_, after_comma ? "expected a string key"
                                          : "expected a string key or '}'");
      }
      const std::string_view k = parse_string();
      if (skip_level == 0) {
        const Flow f = h.key(k);
        if (f == Flow::skip) skip_next = true;
        if (f == Flow::stop) {
          stopped = true;
          skip_level = 1;
        }
      }
      skip_ws();
      if (pos_ >= n_) {
        fail(Errc::unexpected_end, pos_, "unexpected end of input in object");
      }
      if (p_[pos_] != ':') unexpected_char(pos_, "expected ':' after key");
      ++pos_;
      after_comma = false;
      st = St::value;
      continue;
    }
    // St::after: a value is complete.
    if (stack_.empty()) return !stopped;
    skip_ws();
    const bool object = stack_.back();
    if (pos_ >= n_) {
      fail(Errc::unexpected_end, pos_,
           object ? "unexpected end of input in object"
                  : "unexpected end of input in array");
    }
    const char c = p_[pos_];
    if (c == ',') {
      ++pos_;
      after_comma = true;
      st = object ? St::member : St::value;
      continue;
    }
    if (c == (object ? '}' : ']')) {
      ++pos_;
      if (skip_level == 0) object ? h.end_object() : h.end_array();
      stack_.pop_back();
      if (skip_level > stack_.size()) skip_level = 0;
      continue;
    }
    unexpected_char(pos_, object ? "expected ',' or '}' after object member"
                                 : "expected ',' or ']' after array element");
  }
}

}  // namespace jbx
