// "Did you mean" answers for mistyped subcommands, flags and names (G3).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace jbx::cli {

/// Levenshtein distance between a and b.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The closest candidate within a distance that scales with the word's
/// length (at most a third of it, at least 1), or "" when none is close.
std::string closest(std::string_view word,
                    std::span<const std::string_view> candidates);

/// ", did you mean 'X'?" or "" when nothing is close.
std::string did_you_mean(std::string_view word,
                         std::span<const std::string_view> candidates);

}  // namespace jbx::cli
