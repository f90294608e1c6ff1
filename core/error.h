// The one error type of jbx. Readers, writers and transforms throw
// jbx::Error (like fmt's format_error); only cli/ catches and prints it.
// Line and column are not stored: cli/diagnostic.cpp computes them from the
// byte offset when rendering, for text inputs only.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace jbx {

enum class Errc : std::uint8_t {
  io,              // open, read, write or rename failed
  syntax,          // the input is not well-formed in its format
  unexpected_end,  // the input ends inside a value
  invalid_utf8,    // a string is not valid UTF-8
  depth_limit,     // nesting deeper than the documented limit
  type_mismatch,   // a value of the wrong type where another is required
  unsupported,     // well-formed, but a feature jbx does not handle
  lossy,           // the target format cannot hold the value exactly
  invalid_query,   // a JSONPath or JSON Pointer that does not parse
  schema_violation,
  usage,  // a flag value or argument that makes no sense
};

/// Short lowercase name of a code, for --error-format=json.
const char* errc_name(Errc code) noexcept;

class Error : public std::exception {
 public:
  Error(Errc c, std::string msg, std::optional<std::uint64_t> off = {})
      : code(c), message(std::move(msg)), offset(off) {}

  const char* what() const noexcept override { return message.c_str(); }

  Errc code;
  std::string message;                  // lowercase, no final period
  std::string input;                    // "data.cbor", "<stdin>"; set by cli/
  std::optional<std::uint64_t> offset;  // byte offset into that input
  std::string pointer;                  // JSON Pointer of the value, if known
  std::vector<std::string> context;  // outermost first: "converting to msgpack"
  bool binary = false;  // render as FILE@OFFSET instead of FILE:LINE:COL
};

/// Thrown by a Sink when the reader of stdout has gone away (EPIPE): the
/// run ends quietly with exit code 0, as `jbx ... | head -1` expects.
struct BrokenPipe : std::exception {
  const char* what() const noexcept override { return "broken pipe"; }
};

}  // namespace jbx
