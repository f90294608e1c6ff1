// Renders errors for people and scripts: `jbx: error: FILE:LINE:COL: msg`
// plus the source line and a caret for text inputs, FILE@OFFSET for binary
// ones, or one JSON object per error (--error-format=json).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"

namespace jbx::cli {

struct LineCol {
  std::uint64_t line = 1;       // 1-based
  std::uint64_t column = 1;     // 1-based, in code points
  std::string_view line_text;   // the whole line, without its newline
  std::size_t line_offset = 0;  // the byte's offset in line_text
};

/// Line and column of byte `offset` in `text` (clamped to its size).
LineCol locate(std::string_view text, std::uint64_t offset);

/// A line of input as a terminal shows it, with the column of one of its
/// bytes, for a caret under it.
struct Excerpt {
  std::string text;
  std::uint64_t caret = 1;  // 1-based, in terminal columns
};

/// `line` made safe to print and cut to at most `max` columns around byte
/// `at`: a tab becomes a space; a control character, a bidirectional
/// override, and a byte that is not part of valid UTF-8 become '?'. Wide
/// characters (CJK, most emoji) count two columns, combining marks none.
Excerpt excerpt(std::string_view line, std::size_t at, std::uint64_t max);

/// The full text block for `e`, ending in a newline. `text` is the input
/// when it is text and still available (for the source line), else empty.
std::string render_error(const Error& e, std::string_view text);

/// One line of JSON for --error-format=json, ending in a newline.
std::string render_error_json(const Error& e, std::string_view text);

/// Prints `jbx: error: ...` to stderr (never throws).
void print_error(const Error& e, std::string_view text = {});
/// Prints `jbx: error: MESSAGE` to stderr.
void print_message(std::string_view severity, std::string_view message);

}  // namespace jbx::cli
