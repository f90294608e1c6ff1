// Shell completion scripts for bash, zsh and fish, rendered from the command,
// flag and format tables (G2). `jbx --generate=complete-bash|complete-zsh|
// complete-fish` prints them; completions/ holds their committed output.
// Each script completes subcommands, flags per subcommand, choice values,
// format names, input files by extension and IANA time zones.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/flags.h"

namespace jbx::cli::doc {

/// completions/jbx.bash: defines _jbx and registers it with `complete`.
std::string render_bash_completion();
/// completions/_jbx: a zsh #compdef function for fpath.
std::string render_zsh_completion();
/// completions/jbx.fish: `complete -c jbx` lines.
std::string render_fish_completion();

/// Where time zone names come from, at completion time.
inline constexpr std::string_view kZoneInfoDir = "/usr/share/zoneinfo";

}  // namespace jbx::cli::doc
