#include "core/transforms/key_case.h"

#include <fmt/format.h>

#include "core/error.h"

namespace jbx::transforms {

namespace {

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_separator(char c) { return c == '_' || c == '-' || c == ' '; }
char to_upper(char c) {
  return is_lower(c) ? static_cast<char>(c - 'a' + 'A') : c;
}
char to_lower(char c) {
  return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

void rename_key(std::string_view name, KeyCase style, std::string& out) {
  if (style == KeyCase::lower) {
    for (const char c : name) out.push_back(to_lower(c));
    return;
  }
  std::size_t i = 0;
  while (i < name.size() && name[i] == '_') out.push_back(name[i++]);
  const char sep = style == KeyCase::kebab ? '-' : '_';
  std::size_t word = 0;
  while (i < name.size()) {
    while (i < name.size() && is_separator(name[i])) ++i;
    if (i == name.size()) break;
    // One word: [A-Z]*[a-z0-9...]* with acronym splitting.
    const std::size_t b = i;
    if (is_upper(name[i])) {
      std::size_t j = i;
      while (j < name.size() && is_upper(name[j])) ++j;
      if (j - i == 1) {  // "Server"
        i = j;
        while (i < name.size() && !is_upper(name[i]) &&
               !is_separator(name[i])) {
          ++i;
        }
      } else if (j < name.size() && is_lower(name[j])) {
        i = j - 1;  // "HTTPServer": HTTP, then Server
      } else {      // "HTTP", "HTTP2": the run and its digits
        i = j;
        while (i < name.size() && !is_upper(name[i]) &&
               !is_separator(name[i]) && !is_lower(name[i])) {
          ++i;
        }
      }
    } else {
      while (i < name.size() && !is_upper(name[i]) && !is_separator(name[i])) {
        ++i;
      }
    }
    const std::string_view w = name.substr(b, i - b);
    switch (style) {
      case KeyCase::camel:
      case KeyCase::pascal:
        for (std::size_t k = 0; k < w.size(); ++k) {
          const bool cap = k == 0 && (word > 0 || style == KeyCase::pascal);
          out.push_back(cap ? to_upper(w[k]) : to_lower(w[k]));
        }
        break;
      case KeyCase::snake:
      case KeyCase::kebab:
      case KeyCase::upper_snake:
        if (word > 0) out.push_back(sep);
        for (const char c : w) {
          out.push_back(style == KeyCase::upper_snake ? to_upper(c)
                                                      : to_lower(c));
        }
        break;
      case KeyCase::lower:
        break;
    }
    ++word;
  }
}

bool keeps_name(std::string_view name, KeyCase style) {
  if (style == KeyCase::lower) {
    for (const char c : name) {
      if (is_upper(c)) return false;
    }
    return true;
  }
  // Words of characters that are neither capitals nor separators are
  // renamed to themselves (lowercasing changes nothing in them), and so
  // are leading underscores. camel and pascal join words without a
  // separator, so only one word keeps its spelling in camel case (pascal
  // capitalises it); snake and kebab keep words joined by one separator.
  char joiner = 0;
  switch (style) {
    case KeyCase::camel:
      break;
    case KeyCase::snake:
      joiner = '_';
      break;
    case KeyCase::kebab:
      joiner = '-';
      break;
    case KeyCase::pascal:
    case KeyCase::upper_snake:
    case KeyCase::lower:
      return false;
  }
  std::size_t i = 0;
  while (i < name.size() && name[i] == '_') ++i;
  if (i == name.size()) return true;
  bool after_joiner = true;  // a word must come first: "_-a" becomes "_a"
  for (; i < name.size(); ++i) {
    const char c = name[i];
    if (c == joiner && joiner != 0) {
      if (after_joiner) return false;  // "a__b" becomes "a_b"
      after_joiner = true;
    } else if (is_upper(c) || is_separator(c)) {
      return false;
    } else {
      after_joiner = false;
    }
  }
  return !after_joiner;  // "a_" becomes "a"
}

namespace {

// Distinct names remembered before the memory is reset at a document end.
constexpr std::size_t kMaxKnown = 1 << 16;

}  // namespace

Flow RenameKeys::begin_object() {
  const Flow f = next_.begin_object();
  if (f != Flow::visit) return f;
  if (members_.size() <= depth_) {
    members_.emplace_back();
    previous_.emplace_back();
  }
  members_[depth_++].clear();
  return f;
}

Flow RenameKeys::key(std::string_view name) { return renamed(name, false); }

Flow RenameKeys::renamed(std::string_view name, bool escape_free) {
  std::vector<const KnownMap::value_type*>& members = members_[depth_ - 1];
  const std::vector<const KnownMap::value_type*>& prev = previous_[depth_ - 1];
  const KnownMap::value_type* entry = nullptr;
  if (members.size() < prev.size() && prev[members.size()]->first == name) {
    entry = prev[members.size()];
  } else {
    const std::uint64_t hash = detail::name_hash(name);
    entry = names_.find(name, hash);
    if (entry == nullptr) {
      buf_.clear();
      rename_key(name, style_, buf_);
      const auto [t, fresh] = targets_.try_emplace(buf_);
      const auto it =
          known_.emplace(std::string(name), Known{&t->first, &t->second}).first;
      if (fresh) {
        t->second.first = &it->first;
      } else {
        t->second.ambiguous = true;  // name is new: it differs from first
      }
      entry = &*it;
      names_.insert(entry, hash);
    }
  }
  const Known& k = entry->second;
  if (k.target->ambiguous) {
    for (const KnownMap::value_type* m : members) {
      if (m->second.target == k.target && m != entry) {
        throw Error(Errc::unsupported,
                    fmt::format("--key-case={}: keys \"{}\" and \"{}\" both "
                                "become \"{}\"",
                                style_name_, m->first, name, *k.renamed));
      }
    }
  }
  members.push_back(entry);
  return escape_free ? next_.escape_free_key(*k.renamed)
                     : next_.key(*k.renamed);
}

void RenameKeys::end_object() {
  --depth_;
  previous_[depth_].swap(members_[depth_]);
  next_.end_object();
}

void RenameKeys::end_document() {
  depth_ = 0;
  if (known_.size() > kMaxKnown) {
    for (auto& p : previous_) p.clear();
    known_.clear();
    targets_.clear();
    names_.clear();
  }
  next_.end_document();
}

}  // namespace jbx::transforms
