#include "cli/app.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/cli11.h"
#include "cli/diagnostic.h"
#include "cli/doc/generate.h"
#include "cli/doc/help.h"
#include "cli/exit_code.h"
#include "cli/flags.h"
#include "cli/suggest.h"
#include "core/error.h"

namespace jbx::cli {

namespace {

void write_stdout(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

std::vector<std::string_view> command_names() {
  std::vector<std::string_view> names;
  for (const CommandSpec& c : command_table()) names.push_back(c.name);
  return names;
}

/// Long and short flag spellings valid for `cmd`, for suggestions.
std::vector<std::string> flag_spellings(const CommandSpec& cmd) {
  std::vector<std::string> out{"--help"};
  for (const FlagSpec& f : flag_table()) {
    if ((f.commands & cmd.bit) == 0) continue;
    out.push_back(fmt::format("--{}", f.long_name));
  }
  return out;
}

int usage_error(const std::string& message) {
  print_message("error", message);
  return to_int(ExitCode::error);
}

/// Whether `word` can name `f` to CLI11: as --long or --long=VALUE, or
/// with its letter anywhere in a cluster of short flags (-cS, -tcbor).
/// Values are scanned too, so this may say yes for a flag that is not
/// there, never no for one that is.
bool names_flag(std::string_view word, const FlagSpec& f) {
  if (word.size() < 2 || word[0] != '-') return false;
  if (word[1] == '-') {
    return word.substr(2, word.find('=') - 2) == f.long_name;
  }
  return f.short_name != 0 &&
         word.find(f.short_name, 1) != std::string_view::npos;
}

/// Registers the table's flags for `cmd` on `sub`, storing into `args`:
/// those that `words` names, or all of them when `words` is null. CLI11
/// looks a flag up only by the name in an argument, so leaving out the
/// flags argv does not name parses the same; and adding an option costs
/// CLI11 a pass over those already added, which for the 40-odd flags of
/// `fmt` was a fifth of the instructions of a short run. Flags that are
/// not registered are absent from `args`, which reads as not given.
void register_flags(CLI::App& sub, const CommandSpec& cmd, Args& args,
                    bool& help, const std::vector<std::string>* words) {
  sub.set_help_flag();
  sub.add_flag("-h,--help", help);
  sub.allow_extras();
  for (const FlagSpec& f : flag_table()) {
    if ((f.commands & cmd.bit) == 0) continue;
    if (words != nullptr &&
        std::none_of(words->begin(), words->end(),
                     [&](const std::string& w) { return names_flag(w, f); })) {
      continue;
    }
    std::string names;
    if (f.short_name != 0) names = fmt::format("-{},", f.short_name);
    names += fmt::format("--{}", f.long_name);
    const std::string key(f.long_name);
    if (f.value_name.empty()) {
      args.switches[key] = 0;
      sub.add_flag(names, args.switches[key]);
    } else {
      CLI::Option* opt = sub.add_option(names, args.options[key]);
      opt->expected(1);
      opt->allow_extra_args(false);
      opt->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      opt->type_name(std::string(f.value_name));
    }
  }
  sub.add_option("args", args.positionals)->expected(-1);
}

/// "" when every value of a flag with choices is one of them, else the
/// usage error, with a suggestion (checked here rather than by CLI11 so the
/// message can name the choices and suggest one).
std::string check_choices(const CommandSpec& cmd, const Args& args) {
  for (const FlagSpec& f : flag_table()) {
    if ((f.commands & cmd.bit) == 0 || f.choices.empty()) continue;
    for (const std::string& v : args.values(f.long_name)) {
      if (std::find(f.choices.begin(), f.choices.end(), v) != f.choices.end()) {
        continue;
      }
      const std::string hint = did_you_mean(v, f.choices);
      return fmt::format("invalid value '{}' for '--{}'{}", v, f.long_name,
                         hint.empty() ? fmt::format(" (choose from {})",
                                                    fmt::join(f.choices, ", "))
                                      : hint);
    }
  }
  return {};
}

/// Every option CLI11 holds, one "COMMAND -s --long" line each, so that a
/// test can check CLI11 and the flag table agree (--generate=flag-list).
std::string cli11_flag_list() {
  std::string out;
  for (const CommandSpec& c : command_table()) {
    Args args;
    bool help = false;
    CLI::App app;
    register_flags(app, c, args, help, nullptr);
    for (const CLI::Option* o : app.get_options()) {
      if (o->get_positional()) continue;
      out += c.name;
      for (const std::string& n : o->get_snames()) out += " -" + n;
      for (const std::string& n : o->get_lnames()) out += " --" + n;
      out += '\n';
    }
  }
  return out;
}

}  // namespace

std::optional<int> parse_flags(const CommandSpec& cmd, int argc, char** argv,
                               Args& args) {
  bool help = false;
  CLI::App app(std::string(cmd.summary), "jbx " + std::string(cmd.name));
  // argv[1] is the subcommand; CLI11 parses what follows it up to a "--",
  // after which every word is a positional.
  const int dashes = static_cast<int>(
      std::find(argv + 2, argv + argc, std::string_view("--")) - argv);
  std::vector<std::string> rest;
  for (int i = dashes - 1; i >= 2; --i) rest.emplace_back(argv[i]);
  register_flags(app, cmd, args, help, &rest);
  try {
    app.parse(rest);
  } catch (const CLI::ArgumentMismatch& e) {
    // CLI11 says "--color: 1 required WHEN missing"; say it plainly.
    const std::string msg = e.what();
    const std::string name = msg.substr(0, msg.find(':'));
    const FlagSpec* f =
        name.starts_with("--") ? find_flag(name.substr(2)) : nullptr;
    if (f == nullptr) {
      return usage_error(fmt::format("jbx {}: {}", cmd.name, msg));
    }
    return usage_error(
        fmt::format("option '{}' needs a value ({})", name, f->value_name));
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    return usage_error(fmt::format("jbx {}: {}", cmd.name, msg));
  }
  if (help) {  // -h prints summaries, --help details
    const bool long_form =
        std::find(argv + 2, argv + dashes, std::string_view("--help")) !=
        argv + dashes;
    write_stdout(render_help(&cmd, long_form));
    return to_int(ExitCode::ok);
  }
  if (const std::string bad = check_choices(cmd, args); !bad.empty()) {
    return usage_error(bad);
  }
  for (const std::string& extra : app.remaining()) {
    if (extra.size() > 1 && extra[0] == '-') {
      const auto spellings = flag_spellings(cmd);
      std::vector<std::string_view> views(spellings.begin(), spellings.end());
      std::string word = extra.substr(0, extra.find('='));
      return usage_error(fmt::format("unknown option '{}' for 'jbx {}'{}", word,
                                     cmd.name, did_you_mean(word, views)));
    }
    args.positionals.push_back(extra);
  }
  if (dashes < argc) {
    args.positionals.insert(args.positionals.end(), argv + dashes + 1,
                            argv + argc);
  }
  return std::nullopt;
}

namespace {

/// Whether CLI11 could take `word` for a flag (or for `--`).
bool looks_like_flag(std::string_view word) {
  return word.size() >= 2 && word[0] == '-';
}

/// The flag of `cmd` that `word` names as --long or -s, or null.
const FlagSpec* named_flag(const CommandSpec& cmd, std::string_view word) {
  const bool is_long = word.starts_with("--");
  if (!is_long && word.size() != 2) return nullptr;
  for (const FlagSpec& f : flag_table()) {
    if ((f.commands & cmd.bit) == 0) continue;
    if (is_long ? word.substr(2) == f.long_name : word[1] == f.short_name) {
      return &f;
    }
  }
  return nullptr;
}

}  // namespace

bool parse_common_flags(const CommandSpec& cmd, int argc, char** argv,
                        Args& args) {
  Args out;
  out.command = args.command;
  for (int i = 2; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") {  // the rest are positionals
      out.positionals.insert(out.positionals.end(), argv + i + 1, argv + argc);
      break;
    }
    if (!looks_like_flag(word)) {  // "-" and "" too, as CLI11 takes them
      out.positionals.emplace_back(word);
      continue;
    }
    const std::size_t eq = word.find('=');
    const bool joined = word.starts_with("--") && eq != std::string_view::npos;
    const FlagSpec* f = named_flag(cmd, joined ? word.substr(0, eq) : word);
    if (f == nullptr) return false;  // --help, -cS, unknown: CLI11's
    const std::string key(f->long_name);
    if (f->value_name.empty()) {
      if (joined) return false;  // --switch=VALUE
      ++out.switches[key];
      continue;
    }
    std::string_view value;
    if (joined) {
      value = word.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
      // (CLI11 may take a word with a dash for a flag, not a value.)
      if (value.starts_with('-')) return false;
    }
    if (value.empty()) return false;  // a missing value: CLI11 says so
    out.options[key].emplace_back(value);
  }
  args = std::move(out);
  return true;
}

int main(int argc, char** argv) {
  // A closed pipe is an EPIPE error from write(), handled by the sinks.
  std::signal(SIGPIPE, SIG_IGN);

  if (argc < 2) {
    write_stdout(render_help(nullptr));
    return to_int(ExitCode::error);
  }
  const std::string first = argv[1];
  if (first == "-h" || first == "--help") {
    write_stdout(render_help(nullptr));
    return to_int(ExitCode::ok);
  }
  if (first == "-V" || first == "--version") {
    write_stdout(fmt::format("jbx {}\n", JBX_VERSION));
    return to_int(ExitCode::ok);
  }
  if (first.starts_with("--generate=")) {  // hidden: man pages, completions
    return doc::run_generate(first.substr(11), cli11_flag_list);
  }
  if (first == "help") {
    if (argc < 3) {
      write_stdout(render_help(nullptr));
      return to_int(ExitCode::ok);
    }
    const CommandSpec* c = find_command(argv[2]);
    if (c == nullptr) {
      const auto names = command_names();
      return usage_error(fmt::format("unknown command '{}'{}", argv[2],
                                     did_you_mean(argv[2], names)));
    }
    write_stdout(render_help(c, true));
    return to_int(ExitCode::ok);
  }
  const CommandSpec* cmd = find_command(first);
  if (cmd == nullptr) {
    const auto names = command_names();
    if (!first.empty() && first[0] == '-') {
      return usage_error(fmt::format(
          "unknown option '{}' (a command comes first: jbx COMMAND ...)",
          first));
    }
    return usage_error(fmt::format("unknown command '{}'{}", first,
                                   did_you_mean(first, names)));
  }

  Args args;
  args.command = cmd;
  if (parse_common_flags(*cmd, argc, argv, args)) {
    // The common forms, parsed as CLI11 would parse them. CLI11's App
    // alone (whose constructor builds the classic locale to split
    // "-h,--help") is about 100,000 instructions, and with a few flags
    // registered it is 0.4 ms of a short run.
    if (const std::string bad = check_choices(*cmd, args); !bad.empty()) {
      return usage_error(bad);
    }
  } else if (const std::optional<int> done =
                 parse_flags(*cmd, argc, argv, args)) {
    return *done;
  }
  try {
    return cmd->run(args);
  } catch (const BrokenPipe&) {
    return to_int(ExitCode::ok);
  } catch (const Error& e) {
    print_error(e);
    return to_int(ExitCode::error);
  } catch (const std::bad_alloc&) {
    print_message("error", "out of memory");
    return to_int(ExitCode::error);
  }
}

}  // namespace jbx::cli
