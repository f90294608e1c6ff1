#include "cli/doc/help.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "cli/doc/text.h"

namespace jbx::cli {

namespace {

constexpr std::size_t kWidth = 79;
// Summaries start at most this far in; longer labels push them right.
constexpr std::size_t kMaxLabelColumn = 26;

std::string short_label(const FlagSpec& f) {
  std::string s = f.short_name != 0 ? fmt::format("-{}, ", f.short_name)
                                    : std::string("    ");
  return s + doc::flag_label(f);
}

/// One "  LABEL  SUMMARY" line, the summary at `column`.
std::string summary_line(std::string_view label, std::string_view summary,
                         std::size_t column) {
  std::string out = "  ";
  out += label;
  const std::size_t used = 2 + doc::display_width(label);
  // A label too long for the column puts its summary on the next line.
  if (used + 2 <= column) {
    out.append(column - used, ' ');
  } else {
    out += '\n';
    out.append(column, ' ');
  }
  out += summary;
  out += '\n';
  return out;
}

std::string top_help() {
  std::string out =
      "jbx: convert, reformat, query and validate JSON and binary JSON\n\n"
      "Usage: jbx COMMAND [OPTIONS] [FILE...]\n\nCommands:\n";
  for (const CommandSpec& c : command_table()) {
    out += summary_line(c.name, c.summary, 14);
  }
  out += summary_line("help", "Print help for a command", 14);
  std::string formats;
  for (std::string_view n : doc::format_names()) {
    formats += (formats.empty() ? "" : ", ") + std::string(n);
  }
  out += "\n" + doc::wrap("Formats: " + formats, kWidth, 0);
  out += "\nOptions:\n";
  out += summary_line("-h, --help", "Print help", 17);
  out += summary_line("-V, --version", "Print the version", 17);
  out += "\nRun 'jbx COMMAND --help' or 'man jbx-COMMAND' for details.\n";
  return out;
}

std::string flag_details(const FlagSpec& f) {
  std::string out;
  for (std::string_view para : doc::paragraphs(f.details)) {
    if (!out.empty()) out += '\n';
    out += doc::wrap(doc::plain_prose(para), kWidth, 8);
  }
  if (!f.choices.empty()) {
    std::string choices = "Choices: ";
    for (std::size_t i = 0; i < f.choices.size(); ++i) {
      if (i > 0) choices += ", ";
      choices += f.choices[i];
    }
    out += doc::wrap(choices + ".", kWidth, 8);
  }
  if (f.completion == Completion::format) {
    std::string names;
    for (std::string_view n : doc::format_names()) {
      names += (names.empty() ? "" : ", ") + std::string(n);
    }
    out += doc::wrap("Formats: " + names + ".", kWidth, 8);
  }
  if (f.repeatable) out += doc::wrap("May be given several times.", kWidth, 8);
  return out;
}

}  // namespace

std::string render_help(const CommandSpec* cmd, bool long_form) {
  if (cmd == nullptr) return top_help();
  std::string out = fmt::format("jbx {}: {}\n\nUsage: jbx {} {}\n", cmd->name,
                                cmd->summary, cmd->name, cmd->synopsis);
  if (long_form) {
    for (std::string_view para : doc::paragraphs(cmd->description)) {
      out += '\n';
      out += doc::wrap(doc::plain_prose(para), kWidth, 0);
    }
  }
  const std::vector<const FlagSpec*> flags = doc::flags_for(*cmd);
  std::size_t column = 0;
  for (const FlagSpec* f : flags) {
    column = std::max(column, 2 + doc::display_width(short_label(*f)) + 2);
  }
  column = std::min(column, kMaxLabelColumn);
  for (std::string_view cat : doc::categories_for(*cmd)) {
    out += fmt::format("\n{} options:\n", doc::category_title(cat));
    bool first = true;
    for (const FlagSpec* f : flags) {
      if (f->category != cat) continue;
      if (!long_form) {
        out += summary_line(short_label(*f), f->summary, column);
        continue;
      }
      if (!first) out += '\n';
      first = false;
      out += "  " + short_label(*f) + "\n" + flag_details(*f);
    }
  }
  out += "\nHelp:\n";
  out += long_form ? "  -h, --help\n" +
                         doc::wrap(
                             "-h prints a summary of each option, --help "
                             "their details.",
                             kWidth, 8)
                   : summary_line("-h, --help",
                                  "Print help (--help for details)", column);
  if (long_form && !cmd->examples.empty()) {
    out += "\nExamples:\n";
    for (const Example& e : cmd->examples) {
      out += doc::wrap(e.description, kWidth, 2);
      for (const std::string& line : doc::example_shell_lines(e, kWidth - 4)) {
        out += "    " + line + "\n";
      }
    }
  }
  out += fmt::format("\nSee 'man jbx-{}' for more.\n", cmd->name);
  return out;
}

}  // namespace jbx::cli
