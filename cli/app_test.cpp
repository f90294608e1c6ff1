// The command line's two parsers: the common forms, parsed without CLI11,
// give what CLI11 gives; every other form is left to CLI11.
#include "cli/app.h"

#include <boost/test/unit_test.hpp>

#include <random>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/flags.h"

namespace {

using jbx::cli::Args;
using jbx::cli::command_table;
using jbx::cli::CommandSpec;
using jbx::cli::flag_table;
using jbx::cli::FlagSpec;

// An argv of "jbx COMMAND words...".
struct Argv {
  Argv(const CommandSpec& cmd, std::vector<std::string> w)
      : words(std::move(w)) {
    ptrs.push_back(const_cast<char*>("jbx"));
    ptrs.push_back(const_cast<char*>(cmd.name.data()));
    for (std::string& s : words) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(ptrs.size()) - 1; }
  char** argv() { return ptrs.data(); }
  std::string text() const {
    std::string t;
    for (const std::string& s : words) t += " [" + s + "]";
    return t;
  }
  std::vector<std::string> words;
  std::vector<char*> ptrs;
};

std::vector<const FlagSpec*> flags_of(const CommandSpec& cmd) {
  std::vector<const FlagSpec*> out;
  for (const FlagSpec& f : flag_table()) {
    if ((f.commands & cmd.bit) != 0) out.push_back(&f);
  }
  return out;
}

// Whether both parsers take `words` alike; false when the common parser
// declines them.
bool parsed_alike(const CommandSpec& cmd,
                  const std::vector<std::string>& words) {
  Argv a(cmd, words);
  Args common;
  common.command = &cmd;
  if (!jbx::cli::parse_common_flags(cmd, a.argc(), a.argv(), common)) {
    BOOST_TEST(common.positionals.empty());
    BOOST_TEST(common.switches.empty());
    BOOST_TEST(common.options.empty());
    return false;
  }
  Argv b(cmd, words);
  Args cli11;
  cli11.command = &cmd;
  BOOST_TEST_CONTEXT(cmd.name << a.text()) {
    BOOST_TEST(!jbx::cli::parse_flags(cmd, b.argc(), b.argv(), cli11));
    BOOST_TEST(common.positionals == cli11.positionals,
               boost::test_tools::per_element());
    for (const FlagSpec* f : flags_of(cmd)) {
      BOOST_TEST_CONTEXT("--" << f->long_name) {
        BOOST_TEST(common.has(f->long_name) == cli11.has(f->long_name));
        BOOST_TEST(common.count(f->long_name) == cli11.count(f->long_name));
        BOOST_TEST(common.values(f->long_name) == cli11.values(f->long_name),
                   boost::test_tools::per_element());
      }
    }
  }
  return true;
}

// The words of one flag in one of the forms, with a valid value.
std::vector<std::string> flag_words(const FlagSpec& f, std::mt19937& rng) {
  static const char* const kValues[] = {"2", "x.json", "$..tags=[]", "a b",
                                        "yyyy-MM-dd HH:mm:ss"};
  std::string value = !f.choices.empty()
                          ? std::string(f.choices[rng() % f.choices.size()])
                          : std::string(kValues[rng() % std::size(kValues)]);
  const std::string long_name = "--" + std::string(f.long_name);
  const std::string short_name =
      f.short_name != 0 ? std::string("-") + f.short_name : long_name;
  const std::string name = rng() % 2 == 0 ? long_name : short_name;
  if (f.value_name.empty()) return {name};
  if (name == long_name && rng() % 2 == 0) return {long_name + "=" + value};
  return {name, value};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(command_line)

BOOST_AUTO_TEST_CASE(common_forms_parse_as_cli11_parses_them) {
  std::mt19937 rng(5);
  static const char* const kPositionals[] = {"a.json", "-",  "b.cbor",
                                             "$.a",    "--", ""};
  for (const CommandSpec& cmd : command_table()) {
    const auto flags = flags_of(cmd);
    // Each flag alone in each form, then random mixes with positionals
    // and repeats.
    for (const FlagSpec* f : flags) {
      for (int form = 0; form < 6; ++form) {
        BOOST_TEST(parsed_alike(cmd, flag_words(*f, rng)));
      }
    }
    for (int run = 0; run < 300; ++run) {
      std::vector<std::string> words;
      const int n = static_cast<int>(rng() % 7);
      for (int k = 0; k < n; ++k) {
        if (rng() % 3 == 0) {
          words.emplace_back(kPositionals[rng() % std::size(kPositionals)]);
        } else {
          for (std::string& w : flag_words(*flags[rng() % flags.size()], rng)) {
            words.push_back(std::move(w));
          }
        }
      }
      BOOST_TEST(parsed_alike(cmd, words));
    }
  }
}

BOOST_AUTO_TEST_CASE(other_forms_are_left_to_cli11) {
  const CommandSpec& fmt = *jbx::cli::find_command("fmt");
  const std::vector<std::vector<std::string>> others = {
      {"-h"},
      {"--help"},
      {"--help", "--", "a.json"},
      {"a.json", "--help"},
      {"-cS"},             // a cluster of switches
      {"-i4"},             // a short name with more after it
      {"--no-such-flag"},  // unknown, with a suggestion from CLI11's path
      {"--canonical"},     // a flag of another command
      {"--indent"},        // a value missing
      {"--indent="},       // an empty value
      {"--indent", "-1"},  // a value with a dash, or the next flag
      {"--compact=true"},  // a switch given a value
  };
  for (const auto& words : others) {
    BOOST_TEST_CONTEXT(Argv(fmt, words).text()) {
      BOOST_TEST(!parsed_alike(fmt, words));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
