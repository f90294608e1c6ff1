// jbx's own strict RFC 8259 + UTF-8 JSON parser, byte at a time. It is the
// authority on errors (simdjson says "something is wrong", this says what
// and where), the reader for documents beyond simdjson's 4 GiB limit and for
// very deep nesting limits, and event-compatible with the simdjson reader.
// Not the fast path: see json_reader.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/events.h"

namespace jbx {

class JsonScalarParser {
 public:
  /// Parses `text`; error offsets are `base` + the position in `text`.
  /// Nesting deeper than `max_depth` is an Errc::depth_limit error. The
  /// parser never recurses, so any limit is safe.
  JsonScalarParser(std::string_view text, std::uint64_t base,
                   std::uint32_t max_depth);

  /// Skips whitespace; true when nothing but whitespace is left.
  bool at_end();

  /// Parses the value at the current position (after whitespace) and sends
  /// its events to `h`, without end_document(). Honours Flow::skip (the
  /// skipped part is still checked). On Flow::stop the rest of the value is
  /// still checked but not delivered, and the result is false. Throws
  /// Error(syntax, unexpected_end, invalid_utf8, depth_limit) with the
  /// offset of the problem. An Error thrown by `h` without an offset is
  /// rethrown with the offset of the token it was given (the key, value or
  /// bracket).
  bool parse_value(Handler& h);

  /// After a document in a stream of documents: the next one must be
  /// separated by whitespace. Throws Error(syntax) if it is not.
  void expect_separator();
  /// After the only document: nothing but whitespace may follow. Throws
  /// Error(syntax) otherwise.
  void expect_end();

  std::size_t position() const { return pos_; }
  void set_position(std::size_t pos) { pos_ = pos; }

 private:
  bool parse_events(Handler& h);
  [[noreturn]] void fail(Errc code, std::size_t at, std::string msg) const;
  [[noreturn]] void unexpected_char(std::size_t at, std::string_view what);
  void skip_ws();
  std::string_view parse_string();
  void parse_number();
  void parse_literal(std::string_view word);

  const char* p_;
  std::size_t n_;
  std::uint64_t base_;
  std::uint32_t max_depth_;
  std::size_t pos_ = 0;
  std::vector<bool> stack_;  // true: object
  std::string buf_;          // unescaped string
};

/// The value of a 4-hex-digit group, or -1.
int parse_hex4(const char* p);

/// Where the token of well-formed JSON `text` that ends just before `end`
/// begins: the opening quote of a string or key, the first byte of a number
/// or literal, or the bracket itself. For locating a handler's error after
/// the token was read.
std::size_t token_start(std::string_view text, std::size_t end);

}  // namespace jbx
