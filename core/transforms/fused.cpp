#include "core/transforms/fused.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "core/transforms/fused_impl.h"

namespace jbx::transforms {

namespace detail {

namespace {

// Distinct names remembered before the memory is reset at a document end.
constexpr std::size_t kMaxKnown = 1 << 16;

// Members searched one by one, beyond which an object's new names are
// indexed in a hash map (built when first needed).
constexpr std::size_t kScanLimit = 64;

}  // namespace

std::string number_text(std::int64_t v) { return fmt::format("{}", v); }
std::string number_text(std::uint64_t v) { return fmt::format("{}", v); }
std::string number_text(double v) { return fmt::format("{}", v); }

KeyRenamer::KeyRenamer(KeyCase style, std::string_view style_name)
    : style_(style), style_name_(style_name) {
  switch (style) {
    case KeyCase::snake:
      joiner_ = '_';
      break;
    case KeyCase::kebab:
      joiner_ = '-';
      break;
    case KeyCase::camel:
    case KeyCase::lower:
      break;
    case KeyCase::pascal:
    case KeyCase::upper_snake:
      return;
  }
  table_ = true;
  joiner_word_ = swar::kOnes * static_cast<unsigned char>(joiner_);
  if (style == KeyCase::lower) return;  // lower keeps separators
  for (const char c : {'_', '-', ' '}) {
    if (c != joiner_) {
      separator_words_[separators_++] =
          swar::kOnes * static_cast<unsigned char>(c);
    }
  }
}

void KeyRenamer::open_object() {
  if (levels_.size() <= depth_) levels_.emplace_back();
  Level& l = levels_[depth_++];
  l.count = 0;
  l.shape = -1;
  l.all = {};
  l.renamed = {};
  l.any_renamed = false;
  if (l.indexed) {
    l.index.clear();
    l.indexed = false;
  }
  l.seen.clear();
}

void KeyRenamer::close_object() {
  Level& l = levels_[--depth_];
  if (l.seen.empty()) return;  // no shape to remember
  unsigned k = 0;
  if (l.shape >= 0) {
    k = static_cast<unsigned>(l.shape);
  } else {
    k = l.next_shape;
    l.next_shape = (k + 1) % l.recent.size();
  }
  l.recent[k].swap(l.seen);
}

void KeyRenamer::rename_remembered(std::string_view name, Renamed& out) {
  Level& l = levels_[depth_ - 1];
  const std::size_t i = l.seen.size();
  if (i == 0) {
    // The first remembered name picks the shape this object follows.
    for (std::size_t k = 0; k < l.recent.size(); ++k) {
      if (!l.recent[k].empty() && swar::same(l.recent[k][0]->first, name)) {
        l.shape = static_cast<int>(k);
        break;
      }
    }
  }
  const Entry* e = nullptr;
  if (l.shape >= 0) {
    const std::vector<const Entry*>& prev =
        l.recent[static_cast<std::size_t>(l.shape)];
    if (i < prev.size() && swar::same(prev[i]->first, name)) e = prev[i];
  }
  if (e == nullptr) e = find_or_add(name);
  l.seen.push_back(e);
  out = Renamed{e->first, e->second.renamed, e->second.target};
}

const KeyRenamer::Entry* KeyRenamer::find_or_add(std::string_view name) {
  const std::uint64_t hash = name_hash(name);
  if (const Entry* e = names_.find(name, hash)) return e;
  buf_.clear();
  rename_key(name, style_, buf_);
  const auto [t, fresh] = targets_.try_emplace(buf_);
  Target& target = t->second;
  if (fresh) {
    target.kept = keeps_name(t->first, style_);
    target.text.assign(buf_.size() + kPadding, '\0');
    buf_.copy(target.text.data(), buf_.size());
  } else {
    target.ambiguous = true;  // name is new: it differs from the other
  }
  const std::string_view renamed(target.text.data(), buf_.size());
  const Entry* e =
      &*known_.emplace(std::string(name), Known{renamed, &target}).first;
  names_.insert(e, hash);
  return e;
}

bool KeyRenamer::keeps(std::string_view name) const { return kept(name); }

bool KeyRenamer::kept_slowly(std::string_view name) const {
  if (!table_) return keeps_name(name, style_);
  const char* p = name.data();
  const std::size_t n = name.size();
  // keeps_name() for snake, kebab, camel and lower, eight bytes at a time:
  // no capital, no separator other than the joiner, and joiners only
  // single and between words.
  std::size_t i = 0;
  while (i < n && p[i] == '_') ++i;
  if (i == n) return true;
  if (joiner_ != 0 && p[n - 1] == joiner_) return false;  // "a_" is "a"
  std::uint64_t before = 1;  // a word must come first: "_-a" is "_a"
  while (i < n) {
    const std::size_t k = std::min<std::size_t>(8, n - i);
    const std::uint64_t v = swar::load(p + i, k);  // zeros past the name
    i += k;
    std::uint64_t bad = swar::capitals(v);
    for (std::size_t s = 0; s < separators_; ++s) {
      bad |= swar::zero_bytes(v ^ separator_words_[s]);
    }
    std::uint64_t joins = 0;
    if (joiner_ != 0) {
      joins = swar::zero_bytes(v ^ joiner_word_);
      bad |= joins & ((joins << 8) | (before << 7));  // "a__b" is "a_b"
    }
    if (bad != 0) return false;
    before = joins >> 63;
  }
  return true;
}

void KeyRenamer::grow_members(Level& l) {
  l.members.resize(std::max<std::size_t>(16, 2 * l.members.size()));
}

void KeyRenamer::fill_all(Level& l) {
  for (const Member& m : members_of(l)) set(l.all, filter_bit(m.renamed));
}

void KeyRenamer::add_member_checked(Level& l, const Renamed& r) {
  if (r.target != nullptr && !l.any_renamed) fill_all(l);
  const unsigned bit = filter_bit(r.renamed);
  if (may_collide(l, r, bit)) {
    if (const Member* other = find_collision(l, r)) throw_collision(*other, r);
  }
  record(l, r, bit);
}

const KeyRenamer::Member* KeyRenamer::find_collision(Level& l,
                                                     const Renamed& r) const {
  if (l.count > kScanLimit) {
    if (!l.indexed) {
      for (const Member& m : members_of(l)) l.index.emplace(m.renamed, m.name);
      l.indexed = true;
    }
    const auto it = l.index.find(r.renamed);
    if (it == l.index.end() || it->second == r.name) return nullptr;
    for (const Member& m : members_of(l)) {
      if (m.renamed == r.renamed && m.name == it->second) return &m;
    }
    return nullptr;
  }
  for (const Member& m : members_of(l)) {
    if (m.renamed == r.renamed && m.name != r.name) return &m;
  }
  return nullptr;
}

void KeyRenamer::throw_collision(const Member& other, const Renamed& r) const {
  throw Error(Errc::unsupported,
              fmt::format("--key-case={}: keys \"{}\" and \"{}\" both "
                          "become \"{}\"",
                          style_name_, other.name, r.name, r.renamed));
}

bool KeyRenamer::end_document() {
  depth_ = 0;
  if (known_.size() <= kMaxKnown) return false;
  for (Level& l : levels_) {
    l.count = 0;
    l.seen.clear();
    for (auto& r : l.recent) r.clear();
    l.shape = -1;
  }
  known_.clear();
  targets_.clear();
  names_.clear();
  return true;
}

}  // namespace detail

template class FusedFeatures<Handler>;

}  // namespace jbx::transforms
