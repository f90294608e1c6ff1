// The command line: parses argv with CLI11 from the flag table, dispatches
// to a subcommand, and maps every failure to an exit code.
#pragma once

namespace jbx::cli {

/// The whole program; returns the process exit code.
int main(int argc, char** argv);

}  // namespace jbx::cli
