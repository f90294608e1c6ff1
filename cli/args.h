// What CLI11 parsed, keyed by the flag table's long names. Commands read
// their flags through this and turn them into core option structs; they
// never see CLI11.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/flags.h"

namespace jbx::cli {

class Args {
 public:
  const CommandSpec* command = nullptr;
  std::vector<std::string> positionals;

  /// True when the flag was given at least once (switch or value).
  bool has(std::string_view long_name) const;
  /// How often a switch was given.
  int count(std::string_view long_name) const;
  /// The last value given to an option, if any.
  std::optional<std::string> value(std::string_view long_name) const;
  /// Every value given to a repeatable option, in order.
  const std::vector<std::string>& values(std::string_view long_name) const;

  // Filled by app.cpp.
  std::map<std::string, std::vector<std::string>, std::less<>> options;
  std::map<std::string, int, std::less<>> switches;
};

}  // namespace jbx::cli
