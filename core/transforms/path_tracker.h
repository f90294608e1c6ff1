// Location bookkeeping shared by the transforms that take path rules
// (--null-default, --date-fields): the current location while events stream
// by, and which rule (a simple JSONPath, matched per step with
// path::selects_step) selects it.
// Holds one frame per open container; never buffers values.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/path/path.h"

namespace jbx::transforms {

/// Parses a path rule's JSONPath and checks it can be matched while
/// streaming. Throws Error(usage) naming `flag` and the query for syntax
/// errors, for filters, negative indices and slices, and for more than 63
/// segments.
path::Query parse_rule_path(std::string_view flag, std::string_view query);

/// Whether `s` selects every element of an array: a wildcard, or a slice
/// of them all ([0:], which rules made by the program may hold).
bool selects_every_element(const path::Selector& s);
/// Whether `s` selects all elements of an array alike: every one, or none
/// (a name).
inline bool selects_elements_alike(const path::Selector& s) {
  return s.kind == path::Selector::Kind::name || selects_every_element(s);
}

/// Tracks the location of the current value and the rules selecting it.
/// The owner calls the on_* functions from its event handlers, in event
/// order, for events it passes on (not for skipped ones).
class PathTracker {
 public:
  /// `rules` of at most 63 segments each, as parse_rule_path() gives.
  explicit PathTracker(const std::vector<path::Query>& rules);

  // The calls for every event are inline while nothing can match (below a
  // level no rule reaches): then they only count levels.

  /// An object member begins. `stable`: the name stays valid until the
  /// document ends (as Handler::stable_key() gives it), and the location
  /// keeps it uncopied.
  [[gnu::always_inline]] void on_key(std::string_view name,
                                     bool stable = false) {
    if (dead_from_ != 0) {
      ++depth_;
      return;
    }
    enter_member(name, stable);
  }
  /// A value begins (scalar, or a container before it opens). Inside an
  /// array this enters the next element's location.
  void on_value_begin() {
    if (frames_.empty() || !frames_.back().is_array) return;
    Frame& f = frames_.back();
    const std::uint64_t i = f.next++;
    if (dead_from_ != 0) {
      ++depth_;
      return;
    }
    if (!f.stepped) {
      enter_element(i, f);
      return;
    }
    // What entering the first element did (uniform elements).
    ++depth_;
    if (f.step.dead) {
      dead_from_ = depth_;
    } else {
      copy_masks(f.step.masks.data(), &masks_[depth_ * words_]);
    }
    Entry& e = location_[depth_ - 1];
    e.is_index = true;
    e.index = i;
  }
  /// A scalar ended, or a container was skipped by the consumer.
  [[gnu::always_inline]] void on_value_end() { leave(); }
  /// A container opened (after on_value_begin) / closed.
  void on_open(bool is_array) {
    frames_.emplace_back().is_array = is_array;
    // Room for the level of its items: entering one never grows a vector.
    if (location_.size() < frames_.size()) grow();
  }
  void on_close() {
    frames_.pop_back();
    leave();
  }

  // Replaying a member's step: records repeat their keys, so an owner that
  // recognises a key as the same key of an object in the same context
  // (equal Context) replays what entering it did instead of matching.

  /// Words of rule states the replay functions hold at most: the rules
  /// take one bit per segment and one more each, packed into words
  /// (`words_`), so that rules of up to three segments replay up to 64 of
  /// them. More are matched only.
  static constexpr std::size_t kMaxWords = 4;
  /// The state in which the members of the innermost (just opened) object
  /// are entered. Only when replayable().
  struct Context {
    bool dead = false;
    std::array<std::uint64_t, kMaxWords> masks{};
    bool operator==(const Context&) const = default;
  };
  /// What entering a member did, right after on_key().
  struct KeyStep {
    bool dead = false;
    std::array<std::uint64_t, kMaxWords> masks{};
  };
  bool replayable() const { return words_ <= kMaxWords; }
  /// Whether no rule can select the current value or anything below it.
  bool dead() const { return dead_from_ != 0; }
  Context context() const {
    Context c;
    if (dead_from_ != 0) {
      c.dead = true;
      return c;
    }
    copy_masks(&masks_[depth_ * words_], c.masks.data());
    return c;
  }
  /// context() == c, without building it.
  bool in_context(const Context& c) const {
    if (dead_from_ != 0) return c.dead;
    if (c.dead) return false;
    const std::uint64_t* m = &masks_[depth_ * words_];
    for (std::size_t w = 0; w < words_; ++w) {
      if (c.masks[w] != m[w]) return false;
    }
    return true;
  }
  KeyStep last_key_step() const {
    KeyStep k;
    if (dead_from_ != 0) {
      k.dead = true;  // also when dead above: then the step is not used
      return k;
    }
    copy_masks(&masks_[depth_ * words_], k.masks.data());
    return k;
  }
  /// on_key() for a member whose step in this context is known. `name`
  /// must stay valid while the member is entered (it is not copied).
  [[gnu::always_inline]] void on_key(std::string_view name,
                                     const KeyStep& step) {
    ++depth_;
    if (dead_from_ != 0) return;
    // What enter_member() does when it computes `step`.
    if (step.dead) {
      dead_from_ = depth_;  // no mask below is read until it is left
      return;
    }
    copy_masks(step.masks.data(), &masks_[depth_ * words_]);
    Entry& e = location_[depth_ - 1];
    e.is_index = false;
    e.owned = false;
    e.view = name;
  }

  /// on_key() for a member whose step is dead.
  [[gnu::always_inline]] void on_dead_key() {
    ++depth_;
    if (dead_from_ == 0) dead_from_ = depth_;
  }

  /// Index of the first rule from `from` on that selects the current
  /// value, or -1. (An owner with two kinds of rules asks for those of the
  /// second kind from the index of its first.)
  int selected(std::size_t from = 0) const {
    if (dead_from_ != 0) return -1;
    return first_accepted(&masks_[depth_ * words_], from);
  }
  /// The first rule from `from` on that selects the member entered with
  /// `step` itself (not only values below it), wherever it is entered, or
  /// -1.
  int selects(const KeyStep& step, std::size_t from = 0) const {
    if (step.dead) return -1;
    return first_accepted(step.masks.data(), from);
  }
  /// The first rule from `from` on that would select member `name` of
  /// the current value (an object) if it were entered, or -1; nothing is
  /// entered.
  int selects_member(std::string_view name, std::size_t from = 0) const;
  /// The states of the rules before `end` that wait for a segment, a
  /// word for each word of states: what reaches_below() looks for.
  std::vector<std::uint64_t> waiting_states(std::size_t end) const;
  /// Whether one of `states` (waiting_states()) is set at the current
  /// value: one of their rules may select something below it. (When not,
  /// selects_member() finds none of them.)
  bool reaches_below(const std::vector<std::uint64_t>& states) const {
    if (dead_from_ != 0) return false;
    const std::uint64_t* m = &masks_[depth_ * words_];
    for (std::size_t w = 0; w < words_; ++w) {
      if ((m[w] & states[w]) != 0) return true;
    }
    return false;
  }
  bool in_array() const { return !frames_.empty() && frames_.back().is_array; }
  /// Whether no rule can select an element of the innermost array (just
  /// opened) itself, whichever element it is: the elements are entered
  /// alike and none is selected (values below one still may be). An owner
  /// whose rules never show a path may then pass its scalar elements by
  /// uncounted: no rule tells one element from another.
  bool selects_no_element() const;

  // Counting an element instead of entering it: an owner that knows what
  // entering an element of the innermost array does (its elements are
  // entered alike, and one has been) may only count the next one, and
  // enter it later if it needs to (records of an array that pass without
  // the tracker).

  /// Whether the elements of the innermost array may be counted: one has
  /// been entered, each is entered alike, entering one selects nothing
  /// and leaves the tracker in context `c`.
  bool counts_elements(const Context& c) const {
    if (dead_from_ != 0 || c.dead || frames_.empty()) return false;
    const Frame& f = frames_.back();
    if (!f.is_array || !f.stepped || f.step.dead) return false;
    for (std::size_t w = 0; w < words_; ++w) {
      if (f.step.masks[w] != c.masks[w] || (c.masks[w] & accept_[w]) != 0) {
        return false;
      }
    }
    return true;
  }
  /// on_value_begin() for an element of the innermost array when
  /// counts_elements(): the element is counted, not entered.
  void count_element() { ++frames_.back().next; }
  /// The elements of the top-level array entered or counted so far, while
  /// it is the innermost container; else 0.
  std::uint64_t top_elements() const {
    return frames_.size() == 1 && frames_[0].is_array ? frames_[0].next : 0;
  }
  /// `n` elements of the top-level array, the innermost container, went
  /// by unheard (handled apart): the next one is `n` further on.
  void pass_top_elements(std::uint64_t n) {
    if (frames_.size() == 1 && frames_[0].is_array) frames_[0].next += n;
  }
  /// Whether the current value's level is entered (false after
  /// count_element(), until enter_counted()).
  bool entered() const { return depth_ == frames_.size(); }
  /// Enters the element counted last, as on_value_begin() would have.
  void enter_counted() {
    const Frame& f = frames_.back();
    ++depth_;
    copy_masks(f.step.masks.data(), &masks_[depth_ * words_]);
    Entry& e = location_[depth_ - 1];
    e.is_index = true;
    e.index = f.next - 1;
  }
  std::size_t depth() const { return frames_.size(); }
  /// The current location as a normalized path ($['a'][0]) and a pointer.
  std::string normalized_path() const;
  std::string json_pointer() const;

 private:
  struct Frame {
    bool is_array = false;
    // With uniform_elements_: `step` holds what entering the first
    // element did, which entering any other does too.
    bool stepped = false;
    std::uint64_t next = 0;
    struct {
      bool dead = false;
      std::array<std::uint64_t, kMaxWords> masks{};
    } step;
  };
  struct Entry {
    bool is_index = false;
    bool owned = false;  // the name is `key`, else `view`
    std::uint64_t index = 0;
    std::string key;
    std::string_view view;
  };
  // Enter a level where some rule may still match (dead_from_ == 0); the
  // location keeps `name` as a view when `stable`, else a copy.
  void enter_member(std::string_view name, bool stable);
  /// Enters element i of an array the first time, or each time when its
  /// elements are not entered alike (on_value_begin() replays the step).
  void enter_element(std::uint64_t i, Frame& f);
  void enter(const path::Step& s);
  /// The states of the rules of word w at a member `name` of a level
  /// whose states there are `from`.
  std::uint64_t member_word(std::size_t w, std::uint64_t from,
                            std::string_view name) const;
  /// The first rule from `from` on whose accepting bit is set in the
  /// states that word_of(w) gives for each word w (from `from`'s on), or
  /// -1.
  template <class WordOf>
  int first_accepted(std::size_t from, const WordOf& word_of) const {
    if (from >= n_) return -1;
    const std::size_t at = offset_[from];
    // The bits of the rules before `from` in its word are below its own.
    std::uint64_t before = (std::uint64_t{1} << at % 64) - 1;
    for (std::size_t w = at / 64; w < words_; ++w, before = 0) {
      const std::uint64_t a = word_of(w) & accept_[w] & ~before;
      if (a != 0) {
        return rule_of_[w * 64 + static_cast<std::size_t>(__builtin_ctzll(a))];
      }
    }
    return -1;
  }
  int first_accepted(const std::uint64_t* m, std::size_t from) const {
    return first_accepted(from, [m](std::size_t w) { return m[w]; });
  }
  void copy_masks(const std::uint64_t* from, std::uint64_t* to) const {
    for (std::size_t w = 0; w < words_; ++w) to[w] = from[w];
  }
  void grow();
  [[gnu::always_inline]] void leave() {
    // Only a child of the innermost open container has a level to leave;
    // the root value has no step.
    if (depth_ == 0 || depth_ != frames_.size()) return;
    if (dead_from_ == depth_) dead_from_ = 0;
    --depth_;
  }
  std::vector<path::Step> steps() const;

  // An NFA per rule over its segments, as path::Matcher does, with the
  // state set of each level as bits (bit j of a rule: its segments [0, j)
  // matched) so that entering a level allocates nothing. A rule of k
  // segments takes k + 1 bits, in one word; the rules are packed into
  // words_ words in their order, so that the states of all of them are a
  // few words however many rules there are, and a level is entered by
  // visiting the states set, not every rule.
  std::vector<std::vector<path::Segment>> rules_;
  std::size_t n_ = 0;                  // rules_.size()
  std::size_t words_ = 0;              // words of states per level
  std::vector<std::uint32_t> offset_;  // per rule: its first bit
  // No rule tells one element of an array from another (its selectors
  // select elements alike), and the tracker is replayable(): the elements
  // of an array are entered alike.
  bool uniform_elements_ = false;
  // Per word: the bits of all segments matched (one per rule), of the
  // descendant segments, of the segments whose one selector is a member
  // name matched exactly (the usual rule: `$..tags`, `$[*].createdAt`),
  // and of the last segments that select every element
  // (selects_no_element()).
  std::vector<std::uint64_t> accept_;
  std::vector<std::uint64_t> descendant_;
  std::vector<std::uint64_t> named_;
  std::vector<std::uint64_t> last_every_;
  // Per bit (words_ * 64): its rule, and the segment it stands before
  // (null for an accepting or unused bit).
  std::vector<std::uint32_t> rule_of_;
  std::vector<const path::Segment*> segment_;
  // words_ per level, the root's first; as many levels as location_ has
  // entries, + 1.
  std::vector<std::uint64_t> masks_;
  std::vector<Frame> frames_;
  std::vector<Entry> location_;  // one per level that may be entered
  std::size_t depth_ = 0;        // entered levels (location_ may be longer)
  std::size_t dead_from_ = 0;    // 0, or the level where nothing can match
};

}  // namespace jbx::transforms
