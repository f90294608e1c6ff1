// --help and -h text, rendered from the flag and command tables.
#pragma once

#include <string>

#include "cli/flags.h"

namespace jbx::cli {

/// Help for `jbx` itself (cmd == nullptr) or one subcommand.
std::string render_help(const CommandSpec* cmd);

}  // namespace jbx::cli
