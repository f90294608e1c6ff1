// The command line: parses argv with CLI11 from the flag table, dispatches
// to a subcommand, and maps every failure to an exit code.
#pragma once

#include <optional>

namespace jbx::cli {

class Args;
struct CommandSpec;

/// The whole program; returns the process exit code.
int main(int argc, char** argv);

/// The two ways main() parses the words after the subcommand, argv[2] on,
/// into `args`; one test holds them to the same results.
///
/// The common forms, without CLI11: positionals, a switch the command has
/// (--long, -s), an option it has with its value (--long=VALUE, or --long
/// VALUE and -s VALUE where VALUE has no leading dash), and "--", after
/// which every word is a positional. False, with `args` untouched, for any
/// other word: -h, a cluster (-cS), an unknown flag.
bool parse_common_flags(const CommandSpec& cmd, int argc, char** argv,
                        Args& args);
/// Any words, with CLI11. Returns the exit code when the run ends here
/// (help, a usage error, which it prints), nullopt when the command should
/// run.
std::optional<int> parse_flags(const CommandSpec& cmd, int argc, char** argv,
                               Args& args);

}  // namespace jbx::cli
