// The one table of subcommands and flags (style guide G2). CLI11
// registration (app.cpp), --help, the man pages and the bash/zsh/fish
// completions are all generated from these two tables; no flag is declared
// anywhere else.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace jbx::cli {

class Args;

/// One bit per subcommand; FlagSpec::commands is a mask of these.
enum Cmd : std::uint32_t {
  kFmt = 1u << 0,
  kValidate = 1u << 1,
  kConvert = 1u << 2,
  kQuery = 1u << 3,
  kAllCmds = kFmt | kValidate | kConvert | kQuery,
  kOutputCmds = kFmt | kConvert | kQuery,  // commands that write documents
};

/// What the shells should offer for a flag's value or a positional.
enum class Completion : std::uint8_t {
  none,
  file,      // any file name
  input,     // input files: .json .jsonl .ndjson .jsonb .cbor .msgpack ...
  format,    // a format name from the registry
  choice,    // one of FlagSpec::choices
  timezone,  // an IANA zone name
};

struct FlagSpec {
  std::string_view long_name;   // "indent", without dashes
  char short_name;              // 'c', or 0
  std::string_view value_name;  // "N"; empty for a switch
  std::string_view category;    // "input", "output", "conversion", ...
  std::string_view summary;     // one line, <= 60 characters, for -h
  std::string_view details;     // paragraphs for --help and the man page
  std::span<const std::string_view> choices;
  Completion completion;
  std::uint32_t commands;   // mask of Cmd
  bool repeatable = false;  // may be given several times
  bool hidden = false;      // parsed, but not documented (--generate)
};

/// A documented example: run as a test (G11) and rendered in the man page.
struct Example {
  std::string_view description;
  std::string_view command;  // a shell line starting with "jbx "
  std::string_view input;    // standard input, may be empty
  std::string_view output;   // expected standard output
};

struct CommandSpec {
  std::string_view name;
  std::uint32_t bit;
  std::string_view summary;      // one line
  std::string_view synopsis;     // "[OPTIONS] [FILE...]"
  std::string_view description;  // paragraphs for --help and the man page
  std::string_view positional;   // "FILE", "EXPR FILE"
  Completion positional_completion;
  std::span<const Example> examples;
  int (*run)(const Args& args);
};

std::span<const FlagSpec> flag_table();
std::span<const CommandSpec> command_table();
const FlagSpec* find_flag(std::string_view long_name);
const CommandSpec* find_command(std::string_view name);

}  // namespace jbx::cli
