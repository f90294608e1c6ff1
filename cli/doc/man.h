// Man pages in roff (man(7) macros), rendered from the command, flag and
// format tables into the templates jbx.1.in and jbx-command.1.in (G2).
// `jbx --generate=man` prints jbx(1), `--generate=man-NAME` jbx-NAME(1);
// man/ holds their committed output. Not for terminal help (help.cpp).
#pragma once

#include <string>
#include <string_view>

#include "cli/flags.h"

namespace jbx::cli::doc {

/// jbx(1): overview, every option, formats, exit status, examples.
/// Throws Error(Errc::usage) when a \flag{name} reference does not resolve.
std::string render_man();

/// jbx-NAME(1) for one command. Throws like render_man().
std::string render_command_man(const CommandSpec& cmd);

/// Escapes text for a roff text line: backslashes, hyphens as \-, non-ASCII
/// as \[uXXXX], and a '.' or '\'' that starts a line guarded by \&
/// (`at_line_start` false: the text continues a line, so its first
/// character is not guarded).
std::string roff_escape(std::string_view text, bool at_line_start = true);

}  // namespace jbx::cli::doc
