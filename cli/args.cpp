#include "cli/args.h"

namespace jbx::cli {

bool Args::has(std::string_view long_name) const {
  if (auto it = switches.find(long_name); it != switches.end()) {
    return it->second > 0;
  }
  auto it = options.find(long_name);
  return it != options.end() && !it->second.empty();
}

int Args::count(std::string_view long_name) const {
  auto it = switches.find(long_name);
  return it == switches.end() ? 0 : it->second;
}

std::optional<std::string> Args::value(std::string_view long_name) const {
  auto it = options.find(long_name);
  if (it == options.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

const std::vector<std::string>& Args::values(std::string_view long_name) const {
  static const std::vector<std::string> kNone;
  auto it = options.find(long_name);
  return it == options.end() ? kNone : it->second;
}

}  // namespace jbx::cli
