#include "cli/suggest.h"

#include <algorithm>
#include <vector>

namespace jbx::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diag + (a[i - 1] == b[j - 1] ? 0u : 1u)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest(std::string_view word,
                    std::span<const std::string_view> candidates) {
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::string best;
  std::size_t best_d = limit + 1;
  for (std::string_view c : candidates) {
    std::size_t d = edit_distance(word, c);
    // A prefix of a long name ("--sort" for "--sort-keys") is close too.
    if (word.size() >= 3 && c.substr(0, word.size()) == word) d = 1;
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word,
                         std::span<const std::string_view> candidates) {
  const std::string c = closest(word, candidates);
  return c.empty() ? std::string() : ", did you mean '" + c + "'?";
}

}  // namespace jbx::cli
