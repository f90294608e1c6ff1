#include "cli/doc/man.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "cli/doc/text.h"
#include "cli/exit_code.h"
#include "core/error.h"
#include "formats/format.h"

namespace jbx::cli::doc {

namespace {

constexpr std::string_view kTopTemplate =
#include "cli/doc/jbx.1.in"
    ;
constexpr std::string_view kCommandTemplate =
#include "cli/doc/jbx-command.1.in"
    ;

// The .TH date: the release date of JBX_VERSION, bumped with it, so that
// regenerating the pages is reproducible.
constexpr std::string_view kDate = "2026-11-30";

// Exit codes as cli/exit_code.h defines them. `commands` says on which
// pages an entry appears (jbx(1) shows them all); the negative answer is
// specific to the commands that give one.
struct ExitDoc {
  ExitCode code;
  std::uint32_t commands;
  std::string_view meaning;
};
constexpr std::uint32_t kEvery = ~0u;
constexpr ExitDoc kExitDocs[] = {
    {ExitCode::ok, kEvery, "Success."},
    {ExitCode::negative, 0,
     "A negative answer: jbx validate found an invalid input, or jbx query "
     "\\flag{exit-status} selected nothing."},
    {ExitCode::negative, kValidate, "An input is not valid."},
    {ExitCode::negative, kQuery,
     "With \\flag{exit-status}: the query selected nothing."},
    {ExitCode::error, kEvery,
     "An error: a usage error, malformed input, or a failed read or write. "
     "A malformed input is reported and the rest of it skipped; in JSON "
     "Lines only the bad line is skipped. A document cut short by an error "
     "is not written (stdout holds back up to 4 MiB of a document). A "
     "closed output pipe is not an error."},
    {ExitCode::interrupted, kEvery, "Interrupted by SIGINT."},
};

/// Decodes one UTF-8 sequence at s[i], advancing i; invalid bytes decode
/// as themselves so that escaping never loses text.
char32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto b = static_cast<unsigned char>(s[i++]);
  int extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0;
  char32_t cp = extra == 3 ? b & 0x07u : extra == 2 ? b & 0x0Fu : b & 0x1Fu;
  if (extra == 0) return b;
  while (extra-- > 0 && i < s.size()) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3Fu);
  }
  return cp;
}

std::string bold(std::string_view s) {
  return "\\fB" + roff_escape(s, false) + "\\fR";
}
std::string italic(std::string_view s) {
  return "\\fI" + roff_escape(s, false) + "\\fR";
}

std::string flag_ref(const FlagSpec& f) {
  return bold("--" + std::string(f.long_name));
}

/// Breaks an escaped text line at spaces into lines of at most 79 bytes
/// (mandoc's style limit is 80), guarding a leading '.' or '\''.
std::string fold(std::string_view text) {
  constexpr std::size_t kMax = 79;
  std::string out;
  while (!text.empty()) {
    std::size_t cut = text.size();
    if (cut > kMax) {
      const auto sp = text.rfind(' ', kMax);
      cut = sp == std::string_view::npos || sp == 0 ? text.find(' ') : sp;
      if (cut == std::string_view::npos) cut = text.size();
    }
    const std::string_view line = text.substr(0, cut);
    if (line.starts_with('.') || line.starts_with('\'')) out += "\\&";
    out += line;
    out += '\n';
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  }
  return out;
}

/// One roff line per sentence ("new sentence, new line", as mandoc's lint
/// asks), with \flag{} references in bold.
std::string prose(std::string_view para) {
  std::vector<std::string_view> sentences;
  std::size_t start = 0;
  for (std::size_t i = 0; i + 1 < para.size(); ++i) {
    const char c = para[i];
    if ((c != '.' && c != '?' && c != '!') || para[i + 1] != ' ') continue;
    const std::string_view before = para.substr(start, i + 1 - start);
    if (before.ends_with("e.g.") || before.ends_with("i.e.")) continue;
    sentences.push_back(before);
    start = i + 2;
  }
  sentences.push_back(para.substr(start));
  std::string out;
  for (std::string_view s : sentences) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    if (s.empty()) continue;
    out += fold(render_prose(
        s, [](std::string_view t) { return roff_escape(t, false); }, flag_ref));
  }
  return out;
}

/// Paragraphs of a prose field, separated by .PP (or .IP inside a .TP).
std::string paragraphs_roff(std::string_view text, std::string_view sep) {
  std::string out;
  for (std::string_view para : paragraphs(text)) {
    if (!out.empty()) out += std::string(sep) + "\n";
    out += prose(para);
  }
  return out;
}

std::string join_bold(std::span<const std::string_view> words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += ", ";
    out += bold(words[i]);
  }
  return out;
}

/// `.TP` entry of one flag: label, details, choices, where it applies.
/// `top` is true in jbx(1) itself, false in a command's page.
std::string flag_entry(const FlagSpec& f, bool top) {
  std::string out = ".TP\n";
  if (f.short_name != 0) out += bold(std::string("-") + f.short_name) + ", ";
  out += flag_ref(f);
  if (!f.value_name.empty()) out += " " + italic(f.value_name);
  out += "\n";
  out += paragraphs_roff(f.details, ".IP");
  if (!f.choices.empty()) {
    out += ".IP\n" + fold(roff_escape(f.value_name) + " is one of " +
                          join_bold(f.choices) + ".");
  }
  if (f.completion == Completion::format) {
    const auto names = format_names();
    out += ".IP\n" + fold(roff_escape(f.value_name) +
                          " is a format name: " + join_bold(names) +
                          (top ? " (see FORMATS)." : " (see FORMATS in"));
    if (!top) out += ".BR jbx (1)).\n";
  }
  if (f.repeatable) out += ".IP\nMay be given several times.\n";
  if (top) {
    std::vector<std::string_view> names;
    for (const CommandSpec* c : commands_of(f)) names.push_back(c->name);
    out += ".IP\n" + fold("Commands: " + join_bold(names) + ".");
  }
  return out;
}

std::string options_section(const std::vector<const FlagSpec*>& flags,
                            bool top) {
  std::vector<std::string_view> categories;
  for (const FlagSpec* f : flags) {
    if (std::find(categories.begin(), categories.end(), f->category) ==
        categories.end()) {
      categories.push_back(f->category);
    }
  }
  std::string out;
  for (std::string_view cat : categories) {
    out += ".SS " + roff_escape(category_title(cat) + " options") + "\n";
    for (const FlagSpec* f : flags) {
      if (f->category == cat) out += flag_entry(*f, top);
    }
  }
  return out;
}

/// A synopsis such as "[OPTIONS] [FILE...] -t FORMAT": upper-case words in
/// italics, options in bold.
std::string synopsis_roff(const CommandSpec& cmd) {
  std::string out = ".B jbx " + roff_escape(cmd.name) + "\n";
  std::string_view s = cmd.synopsis;
  std::string line;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = i;
    if (s[i] == '-') {
      while (j < s.size() && s[j] != ' ' && s[j] != ']') ++j;
      line += bold(s.substr(i, j - i));
    } else if (s[i] >= 'A' && s[i] <= 'Z') {
      while (j < s.size() && ((s[j] >= 'A' && s[j] <= 'Z') || s[j] == '_')) {
        ++j;
      }
      line += italic(s.substr(i, j - i));
    } else {
      ++j;
      line += roff_escape(s.substr(i, 1), false);
    }
    i = j;
  }
  return out + line + "\n";
}

std::string example_entry(const Example& e) {
  std::string out = prose(e.description) + ".RS 4\n.EX\n";
  // The page indents examples by 7 + 4 columns of an 80-column terminal.
  for (const std::string& line : example_shell_lines(e, 80 - 11)) {
    out += roff_escape(line) + "\n";
  }
  std::string_view output = e.output;
  while (!output.empty()) {
    const auto nl = output.find('\n');
    out += roff_escape(output.substr(0, nl)) + "\n";
    if (nl == std::string_view::npos) break;
    output.remove_prefix(nl + 1);
  }
  return out + ".EE\n.RE\n";
}

/// The EXIT STATUS entries of one command's page, or of jbx(1) when
/// `cmd` is null.
std::string exit_status(const CommandSpec* cmd) {
  std::string out;
  for (const ExitDoc& d : kExitDocs) {
    const bool shown = cmd == nullptr ? d.commands == 0 || d.commands == kEvery
                                      : (d.commands & cmd->bit) != 0;
    if (!shown) continue;
    out += fmt::format(".TP\n.B {}\n", to_int(d.code));
    out += prose(d.meaning);
  }
  return out;
}

std::string see_also(std::string_view except) {
  std::vector<std::string> refs;
  if (except != "jbx") refs.emplace_back("jbx");
  for (const CommandSpec& c : command_table()) {
    if (c.name != except) refs.push_back("jbx-" + std::string(c.name));
  }
  refs.emplace_back("jq");
  std::string out;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    out += ".BR " + roff_escape(refs[i]) + " (1)" +
           (i + 1 < refs.size() ? ",\n" : "\n");
  }
  return out;
}

/// Replaces each @@KEY@@ in `tmpl` by its value; every placeholder must
/// have one, so a typo in a template cannot reach a page. Template comments
/// (.\" lines) document the template, not the page, and are dropped.
std::string fill(
    std::string_view tmpl,
    const std::vector<std::pair<std::string_view, std::string>>& values) {
  std::string body;
  while (!tmpl.empty()) {
    const auto nl = tmpl.find('\n');
    const std::string_view line = tmpl.substr(0, nl + 1);
    if (!line.starts_with(".\\\"")) body += line;
    if (nl == std::string_view::npos) break;
    tmpl.remove_prefix(nl + 1);
  }
  std::string_view rest = body;
  std::string out;
  while (true) {
    const auto at = rest.find("@@");
    if (at == std::string_view::npos) break;
    out += rest.substr(0, at);
    rest.remove_prefix(at + 2);
    const auto end = rest.find("@@");
    const std::string_view key = rest.substr(0, end);
    const auto it =
        std::find_if(values.begin(), values.end(),
                     [&](const auto& kv) { return kv.first == key; });
    if (end == std::string_view::npos || it == values.end()) {
      throw Error(Errc::usage, "man page template has unknown placeholder '" +
                                   std::string(key.substr(0, 40)) + "'");
    }
    std::string value = it->second;
    // Section bodies end in a newline; the template supplies its own.
    if (!value.empty() && value.back() == '\n' && end + 2 < rest.size() &&
        rest[end + 2] == '\n') {
      value.pop_back();
    }
    out += value;
    rest.remove_prefix(end + 2);
  }
  out += rest;
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

}  // namespace

std::string roff_escape(std::string_view text, bool at_line_start) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\\') {
      out += "\\e";
      ++i;
    } else if (c == '-') {
      out += "\\-";
      ++i;
    } else if ((c == '.' || c == '\'') &&
               (out.empty() ? at_line_start : out.back() == '\n')) {
      out += "\\&";
      out += c;
      ++i;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      out += fmt::format("\\[u{:04X}]",
                         static_cast<std::uint32_t>(next_code_point(text, i)));
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

std::string render_man() {
  std::string commands;
  for (const CommandSpec& c : command_table()) {
    commands += ".TP\n" + bold(c.name) + "\n" + prose(c.summary);
  }
  commands += ".TP\n" + bold("help") + "\n" +
              prose("Print help for a command, as its --help does");

  std::vector<const FlagSpec*> flags;
  for (const FlagSpec& f : flag_table()) {
    if (!f.hidden) flags.push_back(&f);
  }

  std::string formats_roff;
  for (const FormatSpec* f : formats()) {
    formats_roff += ".TP\n" + bold(f->name);
    std::string exts;
    for (std::string_view e : f->extensions) {
      exts += (exts.empty() ? "" : ", ") + italic("." + std::string(e));
    }
    if (!exts.empty()) formats_roff += " (" + exts + ")";
    std::string summary(f->summary);
    if (!summary.empty() && summary.back() != '.') summary += '.';
    if (f->binary) summary += " A binary format.";
    formats_roff += "\n" + prose(summary);
  }

  std::string examples;
  for (const CommandSpec& c : command_table()) {
    if (c.examples.empty()) continue;
    if (!examples.empty()) examples += ".PP\n";
    examples += example_entry(c.examples.front());
  }
  return fill(kTopTemplate, {{"DATE", std::string(kDate)},
                             {"VERSION", JBX_VERSION},
                             {"COMMANDS", commands},
                             {"OPTIONS", options_section(flags, true)},
                             {"FORMATS", formats_roff},
                             {"EXIT_STATUS", exit_status(nullptr)},
                             {"EXAMPLES", examples},
                             {"SEE_ALSO", see_also("jbx")}});
}

std::string render_command_man(const CommandSpec& cmd) {
  std::string examples;
  for (const Example& e : cmd.examples) {
    if (!examples.empty()) examples += ".PP\n";
    examples += example_entry(e);
  }
  return fill(kCommandTemplate,
              {{"DATE", std::string(kDate)},
               {"VERSION", JBX_VERSION},
               {"NAME", roff_escape(cmd.name)},
               {"NAME_UPPER", roff_escape(upper(cmd.name))},
               {"SUMMARY", roff_escape(cmd.summary)},
               {"SYNOPSIS", synopsis_roff(cmd)},
               {"DESCRIPTION", paragraphs_roff(cmd.description, ".PP")},
               {"OPTIONS", options_section(flags_for(cmd), false)},
               {"EXIT_STATUS", exit_status(&cmd)},
               {"EXAMPLES", examples},
               {"SEE_ALSO", see_also(cmd.name)}});
}

}  // namespace jbx::cli::doc
