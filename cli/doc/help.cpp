#include "cli/doc/help.h"

#include <fmt/format.h>

#include <vector>

namespace jbx::cli {

namespace {

std::string flag_label(const FlagSpec& f) {
  std::string s = f.short_name != 0 ? fmt::format("-{}, ", f.short_name)
                                    : std::string("    ");
  s += fmt::format("--{}", f.long_name);
  if (!f.value_name.empty()) s += fmt::format(" {}", f.value_name);
  return s;
}

}  // namespace

std::string render_help(const CommandSpec* cmd) {
  std::string out;
  if (cmd == nullptr) {
    out +=
        "jbx: convert, reformat, query and validate JSON and binary JSON\n\n";
    out += "Usage: jbx COMMAND [OPTIONS] [FILE...]\n\nCommands:\n";
    for (const CommandSpec& c : command_table()) {
      out += fmt::format("  {:<10} {}\n", c.name, c.summary);
    }
    out += "\nOptions:\n";
    out += "  -h, --help     Print help (jbx help COMMAND for a command)\n";
    out += "  -V, --version  Print the version\n";
    out += "\nRun 'jbx COMMAND --help' or 'man jbx-COMMAND' for details.\n";
    return out;
  }
  out += fmt::format("jbx {}: {}\n\nUsage: jbx {} {}\n\n", cmd->name,
                     cmd->summary, cmd->name, cmd->synopsis);
  std::vector<std::string_view> categories;
  for (const FlagSpec& f : flag_table()) {
    if ((f.commands & cmd->bit) == 0 || f.hidden) continue;
    bool seen = false;
    for (auto c : categories) seen = seen || c == f.category;
    if (!seen) categories.push_back(f.category);
  }
  for (std::string_view cat : categories) {
    std::string title(cat);
    if (!title.empty()) title[0] = static_cast<char>(std::toupper(title[0]));
    out += fmt::format("{} options:\n", title);
    for (const FlagSpec& f : flag_table()) {
      if ((f.commands & cmd->bit) == 0 || f.hidden || f.category != cat) {
        continue;
      }
      out += fmt::format("  {:<24} {}\n", flag_label(f), f.summary);
    }
    out += '\n';
  }
  out += "  -h, --help               Print this help\n";
  return out;
}

}  // namespace jbx::cli
