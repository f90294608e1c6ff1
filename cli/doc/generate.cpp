#include "cli/doc/generate.h"

#include <fmt/format.h>

#include <cstdio>

#include "cli/diagnostic.h"
#include "cli/doc/complete.h"
#include "cli/doc/man.h"
#include "cli/exit_code.h"
#include "cli/flags.h"
#include "cli/suggest.h"
#include "core/error.h"

namespace jbx::cli::doc {

std::vector<Artefact> artefacts() {
  std::vector<Artefact> out{{"man", "man/jbx.1"}};
  for (const CommandSpec& c : command_table()) {
    out.push_back({"man-" + std::string(c.name),
                   "man/jbx-" + std::string(c.name) + ".1"});
  }
  out.push_back({"complete-bash", "completions/jbx.bash"});
  out.push_back({"complete-zsh", "completions/_jbx"});
  out.push_back({"complete-fish", "completions/jbx.fish"});
  return out;
}

std::string generate(std::string_view name) {
  if (name == "man") return render_man();
  if (name == "complete-bash") return render_bash_completion();
  if (name == "complete-zsh") return render_zsh_completion();
  if (name == "complete-fish") return render_fish_completion();
  if (name.starts_with("man-")) {
    if (const CommandSpec* c = find_command(name.substr(4))) {
      return render_command_man(*c);
    }
  }
  return {};
}

namespace {

/// The table's side of flag-list: "COMMAND -s --long" per flag, hidden ones
/// included, with the -h/--help every command has.
std::string flag_table_list() {
  std::string out;
  for (const CommandSpec& c : command_table()) {
    out += std::string(c.name) + " -h --help\n";
    for (const FlagSpec& f : flag_table()) {
      if ((f.commands & c.bit) == 0) continue;
      out += c.name;
      if (f.short_name != 0) out += std::string(" -") + f.short_name;
      out += " --" + std::string(f.long_name) + "\n";
    }
  }
  return out;
}

/// A JSON string of arbitrary bytes: every byte >= 0x80 as \u00XX, so a
/// reader recovers the bytes by encoding the decoded text as Latin-1.
std::string json_bytes(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c >= 0x7F) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

/// Every command's examples as JSON Lines, for the test that runs them.
std::string examples_list() {
  std::string out;
  for (const CommandSpec& c : command_table()) {
    for (const Example& e : c.examples) {
      out += fmt::format(
          "{{\"command_name\":{},\"description\":{},\"command\":{},"
          "\"input\":{},\"output\":{}}}\n",
          json_bytes(c.name), json_bytes(e.description), json_bytes(e.command),
          json_bytes(e.input), json_bytes(e.output));
    }
  }
  return out;
}

}  // namespace

int run_generate(std::string_view what, std::string (*flag_list)()) {
  std::string text;
  try {
    if (what == "list") {
      for (const Artefact& a : artefacts())
        text += a.name + " " + a.path + "\n";
    } else if (what == "flag-list") {
      text = flag_list();
    } else if (what == "flag-table") {
      text = flag_table_list();
    } else if (what == "examples") {
      text = examples_list();
    } else {
      text = generate(what);
    }
  } catch (const Error& e) {
    print_message("error", e.message);
    return to_int(ExitCode::error);
  }
  if (text.empty()) {
    std::vector<std::string> names{"list", "flag-list", "flag-table",
                                   "examples"};
    for (const Artefact& a : artefacts()) names.push_back(a.name);
    std::vector<std::string_view> views(names.begin(), names.end());
    print_message("error", "unknown artefact '" + std::string(what) + "'" +
                               did_you_mean(what, views));
    return to_int(ExitCode::error);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return std::fflush(stdout) == 0 ? to_int(ExitCode::ok)
                                  : to_int(ExitCode::error);
}

}  // namespace jbx::cli::doc
