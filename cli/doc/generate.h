// The hidden `jbx --generate=WHAT` entry point: prints one generated
// artefact (a man page, a completion script) or a list used by the tests
// and scripts/gen-docs. Not documented in --help: it serves packaging.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jbx::cli::doc {

/// An artefact --generate can print, and where its output is committed.
struct Artefact {
  std::string name;  // "man", "man-fmt", "complete-bash"
  std::string path;  // "man/jbx.1", relative to the repository
};

/// Every artefact, one man page per command from command_table().
std::vector<Artefact> artefacts();

/// The text of artefact `name`, or "" when there is none by that name.
/// Throws Error(Errc::usage) when a table reference does not resolve.
std::string generate(std::string_view name);

/// Handles `--generate=WHAT`: prints the artefact to stdout and returns the
/// exit code. For the tests and scripts/gen-docs, WHAT may also be "list"
/// (artefact names and paths, one pair a line), "flag-list" (what CLI11
/// registered, supplied by flag_list() because only app.cpp knows CLI11),
/// "flag-table" (the same from the table) or "examples" (every example as
/// JSON Lines). An unknown WHAT is a usage error (2).
int run_generate(std::string_view what, std::string (*flag_list)());

}  // namespace jbx::cli::doc
