// The registry's names for the generators (help, man pages, completions),
// so that a new format reaches all of them from its one registry line.
#include "cli/doc/text.h"

#include <algorithm>

#include "formats/format.h"

namespace jbx::cli::doc {

std::vector<std::string_view> format_names() {
  std::vector<std::string_view> out;
  for (const FormatSpec* f : formats()) out.push_back(f->name);
  return out;
}

std::vector<std::string_view> input_extensions() {
  std::vector<std::string_view> out;
  for (const FormatSpec* f : formats()) {
    for (std::string_view e : f->extensions) {
      if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
    }
  }
  return out;
}

}  // namespace jbx::cli::doc
