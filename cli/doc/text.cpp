#include "cli/doc/text.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"

namespace jbx::cli::doc {

std::vector<const FlagSpec*> flags_for(const CommandSpec& cmd) {
  std::vector<const FlagSpec*> out;
  for (const FlagSpec& f : flag_table()) {
    if ((f.commands & cmd.bit) != 0 && !f.hidden) out.push_back(&f);
  }
  return out;
}

std::vector<std::string_view> categories_for(const CommandSpec& cmd) {
  std::vector<std::string_view> out;
  for (const FlagSpec* f : flags_for(cmd)) {
    if (std::find(out.begin(), out.end(), f->category) == out.end()) {
      out.push_back(f->category);
    }
  }
  return out;
}

std::string category_title(std::string_view category) {
  std::string title(category);
  if (!title.empty()) {
    title[0] =
        static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  }
  return title;
}

std::vector<const CommandSpec*> commands_of(const FlagSpec& flag) {
  std::vector<const CommandSpec*> out;
  for (const CommandSpec& c : command_table()) {
    if ((flag.commands & c.bit) != 0) out.push_back(&c);
  }
  return out;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::vector<std::string_view> positional_words(const CommandSpec& cmd) {
  std::vector<std::string_view> out;
  std::string_view s = cmd.positional;
  while (!s.empty()) {
    const auto sp = s.find(' ');
    if (sp != 0) out.push_back(s.substr(0, sp));
    if (sp == std::string_view::npos) break;
    s.remove_prefix(sp + 1);
  }
  return out;
}

std::vector<std::string_view> paragraphs(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto end = text.find("\n\n");
    const std::string_view para = trim(text.substr(0, end));
    if (!para.empty()) out.push_back(para);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 2);
  }
  return out;
}

std::string render_prose(
    std::string_view text,
    const std::function<std::string(std::string_view)>& literal,
    const std::function<std::string(const FlagSpec&)>& ref) {
  static constexpr std::string_view kOpen = "\\flag{";
  std::string out;
  while (true) {
    const auto at = text.find(kOpen);
    if (at == std::string_view::npos) {
      out += literal(text);
      return out;
    }
    out += literal(text.substr(0, at));
    text.remove_prefix(at + kOpen.size());
    const auto close = text.find('}');
    const std::string_view name = text.substr(0, close);
    const FlagSpec* f =
        close == std::string_view::npos ? nullptr : find_flag(name);
    if (f == nullptr) {
      throw Error(Errc::usage, "documentation refers to unknown flag '\\flag{" +
                                   std::string(name) + "}'");
    }
    out += ref(*f);
    text.remove_prefix(close + 1);
  }
}

std::string plain_prose(std::string_view text) {
  return render_prose(
      text, [](std::string_view s) { return std::string(s); },
      [](const FlagSpec& f) { return "--" + std::string(f.long_name); });
}

std::size_t display_width(std::string_view text) {
  std::size_t n = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string wrap(std::string_view text, std::size_t width, std::size_t indent) {
  std::string out;
  std::string line;
  std::size_t line_width = 0;
  auto flush = [&] {
    out.append(indent, ' ');
    out += line;
    out += '\n';
    line.clear();
    line_width = 0;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n')) ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\n') ++j;
    if (j == i) break;
    const std::string_view word = text.substr(i, j - i);
    const std::size_t w = display_width(word);
    if (line_width > 0 && indent + line_width + 1 + w > width) flush();
    if (line_width > 0) {
      line += ' ';
      ++line_width;
    }
    line += word;
    line_width += w;
    i = j;
  }
  if (line_width > 0) flush();
  return out;
}

std::string flag_label(const FlagSpec& f) {
  std::string s = "--" + std::string(f.long_name);
  if (!f.value_name.empty()) s += " " + std::string(f.value_name);
  return s;
}

namespace {

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

}  // namespace

std::string example_shell_line(const Example& e) {
  std::string_view input = e.input;
  while (!input.empty() && input.back() == '\n') input.remove_suffix(1);
  if (input.empty()) return std::string(e.command);
  std::vector<std::string_view> lines;
  while (true) {
    const auto nl = input.find('\n');
    lines.push_back(input.substr(0, nl));
    if (nl == std::string_view::npos) break;
    input.remove_prefix(nl + 1);
  }
  std::string out;
  // dash's echo expands backslashes, which JSON strings are full of.
  if (lines.size() == 1 && e.input.find('\\') == std::string_view::npos) {
    out = "echo " + shell_quote(lines[0]);
  } else {
    out = "printf '%s\\n'";
    for (std::string_view l : lines) out += " " + shell_quote(l);
  }
  return out + " | " + std::string(e.command);
}

std::vector<std::string> example_shell_lines(const Example& e,
                                             std::size_t width) {
  std::string line = "$ " + example_shell_line(e);
  std::vector<std::string> out;
  while (display_width(line) > width) {
    // The last pipe that leaves a first line within the width, else the
    // first pipe at all.
    std::size_t cut = std::string::npos;
    for (auto at = line.find(" | "); at != std::string::npos;
         at = line.find(" | ", at + 1)) {
      if (cut == std::string::npos || at + 2 <= width) cut = at;
      if (at + 2 > width) break;
    }
    if (cut == std::string::npos) break;
    out.push_back(line.substr(0, cut + 2));
    line = "  " + line.substr(cut + 3);
  }
  out.push_back(line);
  return out;
}

}  // namespace jbx::cli::doc
