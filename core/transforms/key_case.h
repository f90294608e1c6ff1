// Key naming transform, fastjson2's naming strategies (--key-case): member
// names are split into words and rejoined in the chosen case, recursively.
// Keeps one set of renamed keys per open object to report collisions; not a
// general renaming facility (no per-key maps).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/events.h"
#include "core/transforms/name_table.h"

namespace jbx::transforms {

enum class KeyCase : std::uint8_t {
  camel,        // userId
  snake,        // user_id
  kebab,        // user-id
  pascal,       // UserId
  upper_snake,  // USER_ID
  lower,        // userid: the name lowercased, separators kept
};

/// Appends `name` in `style` to `out`. Words split at '_', '-', ' ', a
/// lower-to-upper change ("userId") and before the last capital of a run
/// ("HTTPServer" -> HTTP, Server); digits stay with the word before them.
/// Leading underscores and non-ASCII letters are kept as they are.
void rename_key(std::string_view name, KeyCase style, std::string& out);

/// True when `name` is already in `style`, so rename_key() would append it
/// unchanged: a check of its characters, cheaper than renaming or looking
/// the name up. It may answer false for some such names (never true for
/// others): "user_id" and "total" are snake case, "userId" is not.
bool keeps_name(std::string_view name, KeyCase style);

/// Renames every member. Throws Error(unsupported) when two members of one
/// object get the same new name: "--key-case=camel: keys "user_id" and
/// "userId" both become "userId"" (members duplicated in the input are not
/// renamed collisions).
class RenameKeys final : public CountKeepingHandler {
 public:
  RenameKeys(Handler& next, KeyCase style, std::string_view style_name)
      : CountKeepingHandler(next), style_(style), style_name_(style_name) {}

  Flow begin_object() override;
  Flow key(std::string_view name) override;
  /// Renaming only recases ASCII letters and drops or inserts '_' and '-':
  /// the new name of a name without escapes has none either.
  Flow stable_key(std::string_view name) override {
    return renamed(name, true);
  }
  Flow escape_free_key(std::string_view name) override {
    return renamed(name, true);
  }
  void end_object() override;
  void end_document() override;
  // Strings pass as they are.
  void stable_string(std::string_view s) override { next_.stable_string(s); }

 private:
  /// key(); `escape_free`: the name needs no escaping in JSON.
  Flow renamed(std::string_view name, bool escape_free);

  // Names repeat from record to record, so each distinct name is renamed
  // once and remembered. A collision needs two names with one new name:
  // such new names are "ambiguous", and only for them is the current
  // object's list of members searched. Node-based maps keep the pointers
  // below valid; the memory is bounded by resetting between documents.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  struct Target {
    const std::string* first = nullptr;  // the first name renamed to it
    bool ambiguous = false;              // another name also is
  };
  struct Known {
    const std::string* renamed;
    Target* target;
  };
  using KnownMap =
      std::unordered_map<std::string, Known, Hash, std::equal_to<>>;

  KeyCase style_;
  std::string style_name_;
  std::string buf_;
  std::unordered_map<std::string, Target, Hash, std::equal_to<>> targets_;
  KnownMap known_;
  // The members of each open object so far (reused between objects).
  std::vector<std::vector<const KnownMap::value_type*>> members_;
  // The members of the last closed object at each depth: records repeat
  // their keys in the same order, so most names are found here without
  // hashing.
  std::vector<std::vector<const KnownMap::value_type*>> previous_;
  detail::NameTable<KnownMap::value_type> names_;  // an index over known_
  std::size_t depth_ = 0;
};

}  // namespace jbx::transforms
