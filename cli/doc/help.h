// -h and --help text, rendered from the flag and command tables (G2): -h
// lists each flag's one-line summary, --help adds its details, choices and
// the command's description and examples. Not for man pages (man.cpp).
#pragma once

#include <string>

#include "cli/flags.h"

namespace jbx::cli {

/// Help for `jbx` itself (cmd == nullptr) or one subcommand; `long_form`
/// selects --help over -h. Throws Error(Errc::usage) when a \flag{name}
/// reference in the table does not resolve.
std::string render_help(const CommandSpec* cmd, bool long_form = false);

}  // namespace jbx::cli
