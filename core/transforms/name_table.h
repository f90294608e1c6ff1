// An open-addressing index of names (FNV-1a, linear probing) over entries
// that live in a node-based map, for the key renamers: cheaper than the
// map's own lookup for the short names of records. It holds pointers only
// and never owns or frees an entry.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace jbx::transforms::detail {

/// FNV-1a of `name`: the hash NameTable is given.
inline std::uint64_t name_hash(std::string_view name) {
  std::uint64_t h = 14695981039346656037u;
  for (const char c : name) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211u;
  }
  return h;
}

/// `Entry` is a map's value_type: its name is `entry->first`. Entries must
/// stay where they are while indexed (node-based maps keep them in place).
template <class Entry>
class NameTable {
 public:
  /// The entry named `name` (whose name_hash() is `h`), or nullptr.
  const Entry* find(std::string_view name, std::uint64_t h) const {
    if (slots_.empty()) return nullptr;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.entry == nullptr) return nullptr;
      if (s.hash == h && s.entry->first == name) return s.entry;
    }
  }

  /// Indexes `entry`, not indexed yet, under its name's hash `h`.
  void insert(const Entry* entry, std::uint64_t h) {
    if ((size_ + 1) * 2 > slots_.size()) {
      // Grow to keep the load at most one half; re-insert everything.
      std::vector<Slot> old(std::max<std::size_t>(64, slots_.size() * 2));
      old.swap(slots_);
      for (const Slot& s : old) {
        if (s.entry != nullptr) place(s);
      }
    }
    place(Slot{h, entry});
    ++size_;
  }

  void clear() {
    slots_.clear();
    size_ = 0;
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    const Entry* entry = nullptr;
  };

  void place(const Slot& s) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = s.hash & mask;
    while (slots_[i].entry != nullptr) i = (i + 1) & mask;
    slots_[i] = s;
  }

  std::vector<Slot> slots_;  // a power of two in size, or empty
  std::size_t size_ = 0;     // entries indexed
};

}  // namespace jbx::transforms::detail
