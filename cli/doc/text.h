// Shared pieces of the documentation generators (help, man pages, shell
// completions): which flags a command documents and in which order, the
// markup of prose fields (paragraphs, \flag{name} references) and the names
// the registry offers. Not for parsing: CLI11 and app.cpp own that.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/flags.h"

namespace jbx::cli::doc {

/// Flags documented for `cmd` (not hidden), in table order.
std::vector<const FlagSpec*> flags_for(const CommandSpec& cmd);

/// Categories of flags_for(cmd), in order of first appearance.
std::vector<std::string_view> categories_for(const CommandSpec& cmd);

/// "Conversion" for "conversion".
std::string category_title(std::string_view category);

/// Commands a flag applies to, in table order.
std::vector<const CommandSpec*> commands_of(const FlagSpec& flag);

/// The words of CommandSpec::positional ("EXPR FILE" -> {"EXPR", "FILE"});
/// the last one takes the command's positional_completion and repeats.
std::vector<std::string_view> positional_words(const CommandSpec& cmd);

/// Paragraphs of a prose field, split at blank lines, trimmed.
std::vector<std::string_view> paragraphs(std::string_view text);

/// Renders prose: every \flag{name} becomes ref(flag), every other run of
/// text becomes literal(run). Throws Error(Errc::usage) naming the reference
/// when no flag has that long name, so a broken reference fails the
/// generators and the unit tests rather than reaching a user.
std::string render_prose(
    std::string_view text,
    const std::function<std::string(std::string_view)>& literal,
    const std::function<std::string(const FlagSpec&)>& ref);

/// Prose with \flag{name} as "--name", for terminals and completions.
std::string plain_prose(std::string_view text);

/// Display width of UTF-8 text (code points; jbx's prose has no wide
/// characters).
std::size_t display_width(std::string_view text);

/// Greedy word wrap of one paragraph: every line starts with `indent`
/// spaces and ends before column `width` where the words allow; each line
/// ends in a newline.
std::string wrap(std::string_view text, std::size_t width, std::size_t indent);

/// The long spelling of a flag with its value: "--indent N".
std::string flag_label(const FlagSpec& f);

/// An example as a user would type it: the command, preceded by
/// `echo 'INPUT' |` (or `printf '%s\n' 'LINE' ... |` for several lines)
/// when it reads standard input.
std::string example_shell_line(const Example& e);

/// example_shell_line(e) after a "$ " prompt, broken after a " | " into
/// continuation lines indented by two spaces where the whole would be
/// wider than `width` columns.
std::vector<std::string> example_shell_lines(const Example& e,
                                             std::size_t width);

/// Names of the registered formats, in registry order.
std::vector<std::string_view> format_names();

/// File extensions (without the dot) of every registered format, in
/// registry order without duplicates.
std::vector<std::string_view> input_extensions();

}  // namespace jbx::cli::doc
