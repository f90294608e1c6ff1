// Invariants of the flag and command tables (style guide G2): every flag is
// documented well enough for -h, --help, the man pages and completions.
#include "cli/flags.h"

#include <boost/test/unit_test.hpp>

#include <set>
#include <string>

#include "cli/doc/complete.h"
#include "cli/doc/help.h"
#include "cli/doc/man.h"
#include "cli/doc/text.h"

namespace {

using jbx::cli::command_table;
using jbx::cli::CommandSpec;
using jbx::cli::Completion;
using jbx::cli::flag_table;
using jbx::cli::FlagSpec;

std::string name_of(const FlagSpec& f) {
  return "--" + std::string(f.long_name);
}

bool applies(const FlagSpec& f, const CommandSpec& c) {
  return (f.commands & c.bit) != 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(flags)

BOOST_AUTO_TEST_CASE(long_names_are_unique_and_well_formed) {
  std::set<std::string_view> seen;
  for (const FlagSpec& f : flag_table()) {
    BOOST_TEST_CONTEXT(name_of(f)) {
      BOOST_TEST(seen.insert(f.long_name).second);
      BOOST_TEST(f.long_name.size() >= 2u);
      for (const char c : f.long_name) {
        BOOST_TEST(
            ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'));
      }
      BOOST_TEST(f.long_name != "help");  // every command has its own
      BOOST_TEST(f.long_name != "version");
    }
  }
}

BOOST_AUTO_TEST_CASE(no_duplicate_names_within_a_command) {
  for (const CommandSpec& c : command_table()) {
    std::set<std::string> names{"-h", "--help"};
    for (const FlagSpec& f : flag_table()) {
      if (!applies(f, c)) continue;
      BOOST_TEST_CONTEXT(c.name << " " << name_of(f)) {
        BOOST_TEST(names.insert(name_of(f)).second);
        if (f.short_name != 0) {
          BOOST_TEST(names.insert(std::string("-") + f.short_name).second);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(value_flags_and_switches) {
  for (const FlagSpec& f : flag_table()) {
    BOOST_TEST_CONTEXT(name_of(f)) {
      if (f.value_name.empty()) {
        // A switch takes no value, so it has nothing to choose or complete.
        BOOST_TEST(f.choices.empty());
        BOOST_TEST((f.completion == Completion::none));
      } else {
        // "N", "FORMAT", "PATH=JSON": one word, in capitals.
        BOOST_TEST(f.value_name.find(' ') == std::string_view::npos);
        for (const char c : f.value_name) {
          BOOST_TEST(!(c >= 'a' && c <= 'z'));
        }
      }
      // Choices and the choice completion go together.
      BOOST_TEST((f.completion == Completion::choice) == !f.choices.empty());
      std::set<std::string_view> choices(f.choices.begin(), f.choices.end());
      BOOST_TEST(choices.size() == f.choices.size());
    }
  }
}

BOOST_AUTO_TEST_CASE(every_flag_is_documented) {
  for (const FlagSpec& f : flag_table()) {
    BOOST_TEST_CONTEXT(name_of(f)) {
      BOOST_TEST(!f.summary.empty());
      BOOST_TEST(f.summary.size() <= 60u);
      // One line without a final period (an ellipsis is fine).
      BOOST_TEST((f.summary.back() != '.' || f.summary.ends_with("...")));
      BOOST_TEST(f.summary.find('\n') == std::string_view::npos);
      BOOST_TEST(!f.details.empty());
      BOOST_TEST(!f.category.empty());
      // Every flag reaches some command.
      BOOST_TEST(!jbx::cli::doc::commands_of(f).empty());
      // \flag{} references resolve (doc::plain_prose throws otherwise).
      BOOST_CHECK_NO_THROW(jbx::cli::doc::plain_prose(f.details));
    }
  }
}

BOOST_AUTO_TEST_CASE(commands_are_distinct_and_documented) {
  std::uint32_t bits = 0;
  std::set<std::string_view> names;
  for (const CommandSpec& c : command_table()) {
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(names.insert(c.name).second);
      BOOST_TEST(c.name != "help");
      BOOST_TEST((c.bit != 0 && (c.bit & (c.bit - 1)) == 0));  // one bit
      BOOST_TEST((bits & c.bit) == 0u);
      bits |= c.bit;
      BOOST_TEST(!c.summary.empty());
      BOOST_TEST(c.summary.size() <= 60u);
      BOOST_TEST(!c.synopsis.empty());
      BOOST_TEST(!c.description.empty());
      BOOST_TEST(c.run != nullptr);
      BOOST_CHECK_NO_THROW(jbx::cli::doc::plain_prose(c.description));
    }
  }
  for (const FlagSpec& f : flag_table()) {
    BOOST_TEST_CONTEXT(name_of(f)) { BOOST_TEST((f.commands & ~bits) == 0u); }
  }
}

BOOST_AUTO_TEST_CASE(every_command_has_examples) {
  for (const CommandSpec& c : command_table()) {
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(!c.examples.empty());
      for (const jbx::cli::Example& e : c.examples) {
        BOOST_TEST(!e.description.empty());
        BOOST_TEST(e.command.starts_with("jbx "));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(help_fits_79_columns) {
  for (const CommandSpec& c : command_table()) {
    for (const bool long_form : {false, true}) {
      const std::string help = jbx::cli::render_help(&c, long_form);
      std::size_t start = 0;
      while (start < help.size()) {
        auto end = help.find('\n', start);
        if (end == std::string::npos) end = help.size();
        const std::string_view line(help.data() + start, end - start);
        BOOST_TEST_CONTEXT("jbx " << c.name << (long_form ? " --help" : " -h")
                                  << ": " << line) {
          BOOST_TEST(jbx::cli::doc::display_width(line) <= 79u);
        }
        start = end + 1;
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(every_summary_appears_in_short_help) {
  for (const CommandSpec& c : command_table()) {
    const std::string help = jbx::cli::render_help(&c, false);
    for (const FlagSpec& f : flag_table()) {
      if (!applies(f, c) || f.hidden) continue;
      BOOST_TEST_CONTEXT(c.name << " " << name_of(f)) {
        BOOST_TEST(help.find(std::string(f.summary)) != std::string::npos);
        BOOST_TEST(help.find(name_of(f)) != std::string::npos);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(man_pages_render) {
  BOOST_CHECK_NO_THROW(jbx::cli::doc::render_man());
  for (const CommandSpec& c : command_table()) {
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_CHECK_NO_THROW(jbx::cli::doc::render_command_man(c));
    }
  }
}

BOOST_AUTO_TEST_CASE(every_flag_reaches_man_pages_and_completions) {
  namespace doc = jbx::cli::doc;
  const std::string top = doc::render_man();
  const std::string bash = doc::render_bash_completion();
  const std::string zsh = doc::render_zsh_completion();
  const std::string fish = doc::render_fish_completion();
  for (const CommandSpec& c : command_table()) {
    const std::string page = doc::render_command_man(c);
    for (const FlagSpec& f : flag_table()) {
      if (!applies(f, c)) continue;
      BOOST_TEST_CONTEXT(c.name << " " << name_of(f)) {
        const std::string roff = doc::roff_escape(name_of(f));
        BOOST_TEST((page.find(roff) != std::string::npos) == !f.hidden);
        BOOST_TEST((top.find(roff) != std::string::npos) == !f.hidden);
        // In the word list of `jbx COMMAND -<TAB>`, last or not.
        const bool in_bash =
            bash.find(" " + name_of(f) + " ") != std::string::npos ||
            bash.find(" " + name_of(f) + "'") != std::string::npos;
        BOOST_TEST(in_bash == !f.hidden);
        // An _arguments spec: --name[desc] or --name=[desc].
        const bool in_zsh = zsh.find(name_of(f) + "[") != std::string::npos ||
                            zsh.find(name_of(f) + "=[") != std::string::npos;
        BOOST_TEST(in_zsh == !f.hidden);
        BOOST_TEST((fish.find(" -l " + std::string(f.long_name) + " ") !=
                    std::string::npos) == !f.hidden);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
