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
  std::uint64_t line = 1;          // 1-based
  std::uint64_t column = 1;        // 1-based, in code points
  std::string_view line_text;      // the whole line, without its newline
  std::uint64_t caret_column = 1;  // display column for the caret
};

/// Line and column of byte `offset` in `text` (clamped to its size).
LineCol locate(std::string_view text, std::uint64_t offset);

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
