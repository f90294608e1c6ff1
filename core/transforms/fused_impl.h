// The member definitions of FusedFeatures (fused.h), included only where it
// is explicitly instantiated: fused.cpp (Handler) and
// formats/json/json_fused.cpp (JsonWriter).
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/byte_buffer.h"
#include "core/transforms/fused.h"

namespace jbx::transforms {

namespace detail {

inline unsigned KeyRenamer::filter_bit(std::string_view s) {
  if (s.empty()) return 0;
  return (static_cast<unsigned>(s.size()) * 31u +
          static_cast<unsigned char>(s.front()) * 7u +
          static_cast<unsigned char>(s.back())) &
         255u;
}

namespace swar {

constexpr std::uint64_t kOnes = 0x0101010101010101u;
constexpr std::uint64_t kHigh = 0x8080808080808080u;
constexpr std::uint64_t kLow = 0x7f7f7f7f7f7f7f7fu;

/// 0x80 in each zero byte of `v`, exactly (no borrow between bytes).
inline std::uint64_t zero_bytes(std::uint64_t v) {
  return ~(((v & kLow) + kLow) | v) & kHigh;
}

/// 0x80 in each byte of `v` equal to `c`.
inline std::uint64_t bytes_equal(std::uint64_t v, char c) {
  return zero_bytes(v ^ (kOnes * static_cast<unsigned char>(c)));
}

/// 0x80 in each ASCII capital letter of `v`.
inline std::uint64_t capitals(std::uint64_t v) {
  const std::uint64_t low = v & kLow;
  const std::uint64_t from_a = low + kOnes * (0x80 - 'A');
  const std::uint64_t past_z = low + kOnes * (0x80 - 'Z' - 1);
  return from_a & ~past_z & ~v & kHigh;
}

/// The `k` (1 to 8) bytes at `p` as a word, zero above them. Built from
/// whole loads: gathering them through memory byte by byte would stall the
/// word-sized read that follows.
[[gnu::always_inline]] inline std::uint64_t load(const char* p, std::size_t k) {
  if (k == 8) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (k >= 4) {
    std::uint32_t lo = 0, hi = 0;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + k - 4, 4);  // overlaps lo where k < 8: same bytes
    return lo | std::uint64_t{hi} << (8 * (k - 4));
  }
  const auto byte = [p](std::size_t i) {
    return std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  };
  return byte(0) | byte(k / 2) | byte(k - 1);
}

/// a == b, without a library call for names up to 16 bytes.
inline bool same(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  if (n == 0) return true;
  if (n <= 8) return load(a.data(), n) == load(b.data(), n);
  if (n <= 16) {
    return load(a.data(), 8) == load(b.data(), 8) &&
           load(a.data() + n - 8, 8) == load(b.data() + n - 8, 8);
  }
  return a == b;
}

/// 0x80 in each ASCII byte of `v` below '0' or from 'A' to '_': the
/// capitals and the separators ' ', '-' and '_', and a few more.
[[gnu::always_inline]] inline std::uint64_t unusual(std::uint64_t v) {
  const std::uint64_t low = v & kLow;
  const std::uint64_t below_0 = ~(low + kOnes * (0x80 - '0'));
  const std::uint64_t from_a = low + kOnes * (0x80 - 'A');
  const std::uint64_t past = low + kOnes * (0x80 - '_' - 1);
  return (below_0 | (from_a & ~past)) & ~v & kHigh;
}

}  // namespace swar

template <bool kPadded>
[[gnu::always_inline]] inline bool KeyRenamer::kept(
    std::string_view name) const {
  const char* p = name.data();
  const std::size_t n = name.size();
  // Most names have none of the bytes these styles change or join with
  // (capitals, ' ', '-', '_'): each style keeps those. Tested first on a
  // superset of those bytes, in one or two overlapping words.
  if (table_ && n - 1 < 16) {
#if defined(__SSE2__)
    if constexpr (kPadded) {
      // 16 bytes at once: those up to '0' - 1 and from 'A' to '_'.
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i low =
          _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8('0' - 1)), v);
      const __m128i t = _mm_sub_epi8(v, _mm_set1_epi8('A'));
      const __m128i mid =
          _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8('_' - 'A')), t);
      const auto odd =
          static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(low, mid))) &
          ((1u << n) - 1);
      if (odd == 0) return true;
      return kept_slowly(name);
    }
#endif
    std::uint64_t odd = 0;
    if (n < 8) {
      // kPadded: a word is readable from p whatever n is.
      const std::uint64_t w = kPadded ? swar::load(p, 8) : swar::load(p, n);
      odd = swar::unusual(w) &
            ((std::uint64_t{1} << (8 * n)) - 1);  // not the bytes past it
    } else {
      odd = swar::unusual(swar::load(p, 8)) |
            swar::unusual(swar::load(p + n - 8, 8));
    }
    if (odd == 0) return true;
  }
  return kept_slowly(name);
}

inline void KeyRenamer::rename(std::string_view name, bool stable,
                               Renamed& out) {
  if (stable && kept(name)) {
    out = Renamed{name, name, nullptr};
    return;
  }
  rename_remembered(name, out);
}

inline bool KeyRenamer::may_collide(const Level& l, const Renamed& r,
                                    unsigned bit) {
  // A member kept as it is can only collide with a renamed one; a renamed
  // one with any other whose new name is spelled the same: that is, when
  // another remembered name becomes it too, or a name kept as it is has
  // its spelling.
  return r.target == nullptr
             ? has(l.renamed, bit)
             : (r.target->ambiguous || r.target->kept) && has(l.all, bit);
}

inline void KeyRenamer::record(Level& l, const Renamed& r, unsigned bit) {
  if (l.indexed) l.index.emplace(r.renamed, r.name);
  push_member(l, {r.name, r.renamed});
  if (!l.any_renamed && r.target == nullptr) return;  // bits set later
  set(l.all, bit);
  if (r.target != nullptr) {
    set(l.renamed, bit);
    l.any_renamed = true;
  }
}

[[gnu::always_inline]] inline void KeyRenamer::add_member(const Renamed& r) {
  Level& l = levels_[depth_ - 1];
  if (r.target == nullptr && !l.any_renamed) [[likely]] {
    // Nothing to collide with yet (and not indexed: only a renamed member
    // makes find_collision() run).
    push_member(l, {r.name, r.renamed});
    return;
  }
  add_member_checked(l, r);
}

[[gnu::always_inline]] inline bool KeyRenamer::try_add_kept(
    std::string_view name) {
  Level& l = levels_[depth_ - 1];
  if (l.any_renamed) return false;
  push_member(l, {name, name});  // as add_member(): not indexed
  return true;
}

inline bool KeyRenamer::try_add_member(const Renamed& r) {
  Level& l = levels_[depth_ - 1];
  if (r.target != nullptr && !l.any_renamed) fill_all(l);
  const unsigned bit = filter_bit(r.renamed);
  if (may_collide(l, r, bit) && find_collision(l, r) != nullptr) return false;
  record(l, r, bit);
  return true;
}

}  // namespace detail

template <class Next>
FusedFeatures<Next>::FusedFeatures(Next& next, FusedOptions o)
    : next_(next),
      options_(o),
      drop_(o.nulls != NullPolicy::keep),
      drop_all_(o.nulls == NullPolicy::drop_all),
      numbers_(o.bigint_as_string, o.decimals),
      numbers_on_(numbers_.active()) {
  if (drop_) hold_firsts_ = std::uint64_t{1} << ('n' & 63) | 1;
  dead_holds_ = hold_firsts_;
  if (o.null_defaults && !o.null_defaults->empty()) {
    for (const char first : {'n', '\0', '{', '['}) {
      dead_holds_ |= std::uint64_t{1}
                     << (static_cast<unsigned char>(first) & 63);
    }
  }
  std::vector<path::Query> rules;
  if (o.date_fields) {
    date_reader_.emplace(std::move(*o.date_fields));
    rules = date_reader_->options().fields;
    date_rules_ = static_cast<unsigned>(rules.size());
  }
  if (o.null_defaults && !o.null_defaults->empty()) {
    null_rules_ = o.null_defaults;
    for (const NullDefault& d : *null_rules_) rules.push_back(d.where);
    FusedOptions after = options_;
    after.date_fields.reset();
    after.null_defaults.reset();
    defaults_ = std::make_unique<FusedFeatures<Handler>>(next_, after);
  }
  for (const path::Query& q : rules) {
    // (A rule's first segment is what selects among top-level items.)
    if (q.segments.empty()) continue;
    for (const path::Selector& s : q.segments.front().selectors) {
      if (!selects_elements_alike(s)) items_apart_ = false;
    }
  }
  if (!rules.empty()) {
    tracker_.emplace(rules);
    live_ = &*tracker_;
    date_waiting_ = tracker_->waiting_states(date_rules_);
  }
  if (o.key_case) keys_.emplace(*o.key_case, o.key_case_name);
  if (o.dates) date_writer_.emplace(std::move(*o.dates));
  fast_dates_ = date_reader_ && date_reader_->reads_iso() && date_writer_ &&
                date_writer_->instants_fixed();
  // (A deferred object takes the nulls its null rules select without the
  // tracker, as it takes the dates in the usual form.)
  defer_ = kDirect && (fast_dates_ || (null_rules_ && !date_reader_));
  raw_dates_ = kDirect && fast_dates_ && date_writer_->formats_iso_text();
  scalar_elements_ = kDirect && !drop_all_;
  cache_ = (keys_ || tracker_ || drop_ || numbers_on_) &&
           (!tracker_ || tracker_->replayable());
  fast_keys_ = cache_;
  eager_levels_ = keys_ && !cache_;
  close_simple_ = cache_ && !drop_all_ && !eager_levels_;
}

template <class Next>
FusedFeatures<Next>::~FusedFeatures() = default;

template <class Next>
template <bool kScalar>
[[gnu::always_inline]] inline int FusedFeatures<Next>::selected_rule() {
  // (In a deferred object, the value of date_key_, a date.)
  if (live_ == nullptr) return date_key_ != nullptr ? 0 : -1;
  if constexpr (kDirect && kScalar) {
    if (direct_ == kCountedElements) {
      live_->count_element();  // value_end() then leaves nothing
      return -1;
    }
  }
  live_->on_value_begin();
  return live_->selected();
}

template <class Next>
bool FusedFeatures<Next>::null_default(int rule) {
  // A null selected by a date rule stays a null for ParseDateFields; a
  // null rule after it may still select it.
  if (!null_rules_ || rule < 0) return false;
  if (is_date_rule(rule)) {
    if (live_ == nullptr) return false;
    rule = live_->selected(date_rules_);
    if (rule < 0) return false;
  }
  const Value& d =
      (*null_rules_)[static_cast<std::size_t>(rule) - date_rules_].value;
  if (d.type == Value::Type::null) return false;
  // The member stays, with the default as its value.
  if (release()) send_default(d);
  value_end();
  return true;
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::value_end() {
  if (live_ != nullptr) {
    live_->on_value_end();
  } else if (muted_) {
    muted_ = false;  // the tracker heard nothing of the member
    live_ = &*tracker_;
  }
  if constexpr (kDirect) {
    if (resume_direct_ != kOff) [[unlikely]] {
      if (fast_keys_) direct_ = resume_direct_;
      resume_direct_ = kOff;
    }
  }
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::update_direct() {
  if constexpr (kDirect) {
    // (In an array, a null element is sent unless --nulls=drop-all.)
    direct_ = kOff;
    if (fast_keys_ && top_ != nullptr && !muted_) {
      if (live_ != nullptr) {
        // An object in which a rule may select something (a record whose
        // member is a --date-fields path): the keys of its shape that no
        // rule selects in go direct, unheard by the tracker.
        if (!top_->is_array) {
          direct_ = top_->shape != nullptr ? kLive : kLiveUnshaped;
        } else if (scalar_elements_ && live_->selects_no_element()) {
          // An array whose elements no rule selects (under `$..tags`, the
          // other arrays of a record): its scalars go direct, uncounted,
          // or only counted on the way (kCountedElements).
          direct_ = date_reader_ ? kCountedElements : kLiveUnshaped;
        }
      } else if (!top_->is_array) {
        direct_ = top_->shape == nullptr ? kUnshaped : kDirectValues;
      } else if (!drop_all_) {
        direct_ = kDirectValues;
      }
    }
  }
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::direct_key(
    std::string_view name, char first) {
  // (raw_key() has taken most keys of shapes.)
  if (direct_ <= kUnshaped) {
    Flow f;
    if (direct_ == kUnshaped ? direct_unshaped(name, first, f)
                             : live_unshaped(name, first, f)) {
      return f;
    }
    return indirect_key(name);
  }
  Open& o = *top_;
  if (o.next != o.stop) [[likely]] {
    // The next key of a clean shape: renamed and checked already.
    CachedKey& c = *o.next;
    if (same_name(*o.shape, c, name)) return shaped_key(o, c, name, first);
  }
  return indirect_key(name);
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::shaped_key(
    Open& o, CachedKey& c, std::string_view name, char first) {
  if (direct_ >= kDeferred && c.general) [[unlikely]] {
    // A member a rule may select in: its value goes the general way, but
    // for a null.
    return live_member(o, c, name, first);
  }
  return dead_key(o, c, name, first);
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::dead_key(
    Open& o, CachedKey& c, std::string_view name, char first) {
  // A null, or a value not seen yet ('\0'), matters only when nulls are
  // dropped or a null rule selects the member; a container, only when the
  // step is live.
  if (!holds(dead_holds_, first)) [[likely]] {
    ++o.next;
    key_slot_ = &c;
    return sent(send_repeated(c));
  }
  if (first == 'n') {
    if (c.null_rule >= 0) [[unlikely]] {
      return default_member(o, c);
    }
    if (drop_) {
      ++o.next;
      key_slot_ = &c;
      c.dropped = o.serial;
      return Flow::skip;
    }
  } else if (first == '\0' || c.live) {
    // Without the value's first byte, a key that may be dropped is held;
    // a live key's container goes the general way, where the tracker
    // hears it.
    return indirect_key(name);
  }
  ++o.next;
  key_slot_ = &c;
  return sent(send_repeated(c));
}

template <class Next>
Flow FusedFeatures<Next>::indirect_key(std::string_view name) {
  if (direct_ == kDeferred) [[unlikely]] {
    catch_up();
  }
  leave_direct();
  return on_key(name, true);
}

template <class Next>
template <class Value>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::raw_key(
    std::string_view raw, char first, const Value& value, Flow& f) {
  if constexpr (kDirect) {
    // Objects with a shape whose keys may go direct (not kUnshaped, where
    // a name is sent as it is, so its escapes must be known).
    if (direct_ <= kUnshaped) return false;
    Open& o = *top_;
    if (o.next == o.stop) return false;
    // Bytes equal to a name without a backslash have none either.
    CachedKey& c = *o.next;
    if (!raw_short_name(c, raw)) [[unlikely]] {
      return raw_other_key(o, raw, first, value, f);
    }
    f = dead_key(o, c, raw, first);
    return true;
  } else {
    static_cast<void>(raw);
    static_cast<void>(first);
    static_cast<void>(value);
    static_cast<void>(f);
    return false;
  }
}

template <class Next>
template <class Value>
bool FusedFeatures<Next>::raw_other_key(Open& o, std::string_view raw,
                                        char first, const Value& value,
                                        Flow& f) {
  // Out of raw_key(), which every key goes through, so that the keys it
  // takes pay nothing for these: a name longer than it compares, a date's
  // key, or a key further on (the members between are absent from this
  // object).
  CachedKey& c = *o.next;
  if ((c.raw_size & ~(kLiveName | kLongName)) == raw.size() &&
      raw_name(*o.shape, c, raw, raw.size())) {
    if ((c.raw_size & kLiveName) != 0) {
      return raw_live_key(o, c, first, value, f);
    }
    f = dead_key(o, c, raw, first);  // a long name
    return true;
  }
  return raw_later_key(o, raw, first, value, f);
}

template <class Next>
template <class Value>
bool FusedFeatures<Next>::raw_later_key(Open& o, std::string_view raw,
                                        char first, const Value& value,
                                        Flow& f) {
  // Records often leave out optional members. Rather than leave the shape
  // (and take every later key the general way), the object follows it on
  // from the key read, when that is a later key of the shape: keys are
  // unique in a clean shape, so this is the only place it can be. Only a
  // name without a backslash, which is the same in JSON text, is looked
  // for: bytes equal to a key's name are then that key, and the keys
  // passed over are truly absent.
  if (has_backslash(raw)) return false;
  // A few members at most: an object whose keys are other ones (a map)
  // leaves the shape soon anyway.
  CachedKey* const end =
      o.stop - o.next > kAbsentRun + 1 ? o.next + kAbsentRun + 1 : o.stop;
  CachedKey* q = o.next + 1;
  while (q != end && !raw_name(*o.shape, *q, raw, q->size)) ++q;
  if (q == end) return false;
  // The members passed over count as dropped ones: reshape() checks them
  // for collisions only if this object leaves the shape later on.
  for (CachedKey* absent = o.next; absent != q; ++absent) {
    absent->dropped = o.serial;
  }
  o.next = q;
  if ((q->raw_size & ~kLongName) == q->size) {
    f = dead_key(o, *q, raw, first);
    return true;
  }
  // A date's key, or a key whose value a rule may select in: as when it
  // comes next (else the general way finds it next).
  return q->raw_size != SIZE_MAX && raw_live_key(o, *q, first, value, f);
}

template <class Next>
template <class Value>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::raw_live_key(
    Open& o, CachedKey& c, char first, const Value& value, Flow& f) {
  if (live_null(o, c, name_of(o.shape->names, c), first, f)) return true;
  return raw_dates_ && raw_date(o, c, first, value, f);
}

template <class Next>
template <class Value>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::raw_date(
    Open& o, CachedKey& c, char first, Value value, Flow& f) {
  // What live_member() and string_date() do for a date in the usual form,
  // without holding the key: a string is never dropped. (A text with a
  // backslash is no date in that form: it goes the general way, which
  // also reports what is wrong.)
  if (direct_ != kDeferred || first != '"') return false;
  const std::string_view text = value();
  if (text.data() == nullptr || !c.date_selects) {
    return false;
  }
  if constexpr (detail::TakesRepeatedKeys<Next>) {
    // Formatted where the writer puts it, after the key.
    if (date_writer_->iso_in_place()) {
      char* p = next_.repeated_member(c.text, c.text_tag,
                                      DateFormatter::kIsoTextRoom);
      if (p != nullptr) {
        char* end = date_writer_->format_iso_to(text, p);
        if (end == nullptr) return false;
        ++o.next;
        key_slot_ = &c;
        next_.commit_string(end);
        f = Flow::skip;  // sent: the reader passes over the value
        return true;
      }
    }
  }
  DateFormatter::Result r;
  if (!date_writer_->format_iso_text(text, r)) return false;
  ++o.next;
  key_slot_ = &c;
  f = sent(send_repeated(c));
  if (f == Flow::visit) {
    send_date(r);
    f = Flow::skip;  // sent: the reader passes over the value
  }
  return true;
}

template <class Next>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::live_null(
    Open& o, CachedKey& c, std::string_view name, char first, Flow& f) {
  // (A null at a date path stays null.)
  if (first != 'n') return false;
  f = dead_key(o, c, name, first);
  return true;
}

template <class Next>
Flow FusedFeatures<Next>::default_member(Open& o, CachedKey& c) {
  const Value& d = (*null_rules_)[static_cast<std::size_t>(c.null_rule)].value;
  ++o.next;
  key_slot_ = &c;
  if (d.type == Value::Type::null) {
    // Dropped, or sent as a null (which the reader then sends).
    if (!drop_) return sent(send_repeated(c));
    c.dropped = o.serial;
    return Flow::skip;
  }
  Flow f = sent(send_repeated(c));
  if (f == Flow::visit) {
    send_default(d);
    f = Flow::skip;  // sent: the reader passes over the null
  }
  return f;
}

template <class Next>
void FusedFeatures<Next>::send_default(const Value& d) {
  // Strings and booleans pass the later steps unchanged, a number only
  // as they style it; in a container, names and nulls may change.
  switch (d.type) {
    case Value::Type::string:
      next_.string_value(d.text);
      break;
    case Value::Type::boolean:
      next_.bool_value(d.boolean);
      break;
    case Value::Type::number:
      styled_number(d.text);
      break;
    default:
      replay(d, *defaults_);
      break;
  }
}

template <class Next>
Flow FusedFeatures<Next>::live_member(Open& o, CachedKey& c,
                                      std::string_view name, char first) {
  if (Flow f; live_null(o, c, name, first, f)) return f;
  if (direct_ == kDeferred) {
    if (first == '"' && c.date_selects) {
      // A date string: written without the tracker unless it is not in
      // the usual form (string_date()).
      ++o.next;
      key_slot_ = &c;
      held_ = &c;
      date_key_ = &c;
      leave_direct();
      return Flow::visit;
    }
    catch_up();
  }
  leave_direct();
  return hold_next(o, c, name);
}

template <class Next>
void FusedFeatures<Next>::catch_up() {
  quiet_ = 0;
  live_ = &*tracker_;
  // A record counted by open_record() is entered first.
  if (!live_->entered()) live_->enter_counted();
  live_->on_open(false);
  direct_ = kLive;
  top_->direct = kLive;
}

template <class Next>
bool FusedFeatures<Next>::open_record(Flow& f) {
  // What selected(), release(), opened() and push_open() do for such an
  // object, knowing that the tracker is live at the array, nothing is
  // held or muted, and the object is deferred.
  Open& a = *top_;
  if (!fast_keys_ || muted_ || live_ == nullptr || a.place == nullptr) {
    return false;
  }
  Shape* const s = *a.place;
  if (s == nullptr || s->skip > 0 || s->fast_stop == s->keys.data() ||
      !live_->counts_elements(s->context)) {
    return false;
  }
  live_->count_element();
  f = next_.begin_object();
  if (f != Flow::visit) [[unlikely]] {
    // (Leaving an element counted but not entered is nothing.)
    if (f == Flow::stop && drop_) stop();
    return true;
  }
  if (drop_all_) in_array_.push_back(false);
  Open& o = push_slot<true>(false, false);
  o.shape = s;
  o.serial = ++serial_;
  o.following = true;
  o.next = s->keys.data();
  o.stop = s->fast_stop;
  live_ = nullptr;  // quiet, as one value, until catch_up()
  quiet_ = 1;
  resume_direct_ = kOff;
  direct_ = kDeferred;
  o.direct = kDeferred;
  return true;
}

template <class Next>
bool FusedFeatures<Next>::live_unshaped(std::string_view name, char first,
                                        Flow& f) {
  // A container goes the general way, where the tracker hears it.
  if (first == '{' || first == '[' || first == '\0') return false;
  if (first == 'n') {
    const int rule =
        null_rules_ ? live_->selects_member(name, date_rules_) : -1;
    if (rule >= 0) {
      const Value& d =
          (*null_rules_)[static_cast<std::size_t>(rule) - date_rules_].value;
      if (d.type != Value::Type::null) {
        // The member stays, with the default as its value.
        if (keys_ && (!keys_->kept<true>(name) || !keys_->try_add_kept(name))) {
          return false;
        }
        f = sent(send_name(name, true, true));
        if (f == Flow::visit) {
          send_default(d);
          f = Flow::skip;  // sent: the reader passes over the null
        }
        return true;
      }
    }
  } else if (date_rules_ != 0 && live_->reaches_below(date_waiting_) &&
             is_date_rule(live_->selects_member(name))) {
    return false;
  }
  return direct_unshaped(name, first, f);
}

template <class Next>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::direct_unshaped(
    std::string_view name, char first, Flow& f) {
  if (holds(hold_firsts_, first)) [[unlikely]] {
    // Nothing is recorded of a member dropped: it cannot collide. (Other
    // bytes with these bits are no values: the general way reports them.)
    f = Flow::skip;
    return first == 'n';
  }
  // A name to rename, or one to check against a renamed member, goes the
  // general way, which holds it while nulls are dropped, so that a
  // collision is reported where it always is.
  if (keys_ && (!keys_->kept<true>(name) || !keys_->try_add_kept(name)))
      [[unlikely]] {
    return false;
  }
  f = sent(send_name(name, true, true));
  return true;
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::send_name(
    std::string_view name, bool plain, bool renamed) {
  if constexpr (detail::TakesPlainText<Next>) {
    // Renaming only recases ASCII letters and drops or inserts '_' and
    // '-': an escape-free name stays escape-free.
    if (plain) {
      if constexpr (detail::TakesDirectKeys<Next>) {
        if (renamed) {
          return next_.direct_key(name,
                                  name.size() + detail::KeyRenamer::kPadding);
        }
      }
      return next_.plain_key(name);
    }
  } else if constexpr (detail::TakesPaddedText<Next>) {
    // (KeyRenamer::kPadding bytes past its end, at least as many as the
    // writer reads from its start.)
    static_assert(detail::KeyRenamer::kPadding >= jbx::detail::kWordCopy);
    if (renamed) return next_.padded_key(name);
  }
  return next_.key(name);
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::send_key(
    const Renamed& k, bool plain) {
  if (keys_ && !key_checked_) {
    renamer_level();
    keys_->add_member(k);
  }
  return send_name(k.renamed, plain, k.target != nullptr);
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::send_cached(
    const CachedKey& c) {
  return send_name(c.out, c.escape_free, true);
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::send_repeated(
    CachedKey& c) {
  if constexpr (detail::TakesRepeatedKeys<Next>) {
    // (The writer escapes a name that needs it.)
    return next_.repeated_key(c.out, c.text, c.text_tag);
  } else {
    return send_cached(c);
  }
}

template <class Next>
void FusedFeatures<Next>::set_words(CachedKey& c, std::string_view name) {
  // Built with memcpy, as same_name() loads them: any byte order.
  std::array<char, 16> bytes{};
  std::array<char, 8> mask{};
  const std::size_t n = std::min<std::size_t>(name.size(), 16);
  std::memcpy(bytes.data(), name.data(), n);
  std::memset(mask.data(), 0xff, n == 0 ? 0 : (n - 1) % 8 + 1);
  std::memcpy(c.words.data(), bytes.data(), 16);
  std::memcpy(&c.last_mask, mask.data(), 8);
  c.past_name = 0xFFFFu & ~((1u << n) - 1);
}

template <class Next>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::has_backslash(
    std::string_view raw) {
#if defined(__SSE2__)
  // A short name in one comparison (16 bytes are readable).
  if (raw.size() <= 16) {
    const __m128i v =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(raw.data()));
    const auto m = static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
    return (m & ((std::uint32_t{1} << raw.size()) - 1)) != 0;
  }
#endif
  return std::memchr(raw.data(), '\\', raw.size()) != nullptr;
}

template <class Next>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::raw_head(
    const CachedKey& c, std::string_view raw) {
#if defined(__SSE2__)
  // In one comparison.
  const __m128i v =
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(raw.data()));
  const __m128i w =
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(c.words.data()));
  const auto equal =
      static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, w)));
  return (equal | c.past_name) == 0xFFFF;
#else
  std::uint64_t w0 = 0;
  std::uint64_t w1 = 0;
  std::memcpy(&w0, raw.data(), 8);
  std::memcpy(&w1, raw.data() + 8, 8);
  const std::size_t n = raw.size();
  if (n <= 8) return (w0 & c.last_mask) == c.words[0];
  if (n <= 16) return w0 == c.words[0] && (w1 & c.last_mask) == c.words[1];
  return w0 == c.words[0] && w1 == c.words[1];
#endif
}

template <class Next>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::raw_name(
    const Shape& s, const CachedKey& c, std::string_view raw,
    std::size_t size) {
  const std::size_t n = raw.size();
  if (n != size || !raw_head(c, raw)) return false;
  return n <= 16 ||
         std::memcmp(raw.data() + 16, s.names.data() + c.at + 16, n - 16) == 0;
}

template <class Next>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::raw_short_name(
    const CachedKey& c, std::string_view raw) {
  return raw.size() == c.raw_size && raw_head(c, raw);
}

template <class Next>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::same_name(
    const Shape& s, const CachedKey& c, std::string_view name) {
  // Plain names have 16 bytes readable: whole words, masked.
  const std::size_t n = name.size();
  if (n != c.size) return false;
  std::uint64_t w0 = 0;
  std::memcpy(&w0, name.data(), 8);
  if (n <= 8) return (w0 & c.last_mask) == c.words[0];
  std::uint64_t w1 = 0;
  std::memcpy(&w1, name.data() + 8, 8);
  if (n <= 16) return w0 == c.words[0] && (w1 & c.last_mask) == c.words[1];
  return w0 == c.words[0] && w1 == c.words[1] &&
         std::memcmp(name.data() + 16, s.names.data() + c.at + 16, n - 16) == 0;
}

template <class Next>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::release(Flow& flow) {
  if (held_ != nullptr) [[likely]] {
    const CachedKey& c = *held_;
    held_ = nullptr;
    flow = send_cached(c);
    if (flow == Flow::stop) stop();
    return flow == Flow::visit;
  }
  if (!has_key_) [[likely]] {
    flow = stopped_ ? Flow::stop : Flow::visit;
    return !stopped_;
  }
  return release_other(flow);
}

template <class Next>
bool FusedFeatures<Next>::release_other(Flow& flow) {
  has_key_ = false;
  flow = send_key(key_, key_plain_);
  if (flow == Flow::stop) stop();
  return flow == Flow::visit;
}

template <class Next>
void FusedFeatures<Next>::send_timestamp(const Timestamp& t) {
  if (!release()) return;
  if (!date_writer_) {
    next_.timestamp_value(t);
    return;
  }
  send_date(date_writer_->format(t));
}

template <class Next>
bool FusedFeatures<Next>::string_date(std::string_view s) {
  const CachedKey* deferred = date_key_;
  date_key_ = nullptr;
  if (fast_dates_) {
    // What text() and format() do with the usual text, without the
    // Timestamp between them (and at the format's offset, without
    // converting its digits).
    DateFormatter::Result r;
    if (date_writer_->format_iso_text(s, r)) {
      if (release()) send_date(r);
      return true;
    }
    datetime::Fields f;
    std::int32_t offset = 0;
    if (datetime::parse_iso_fast_fields(s, f, offset)) {
      if (release()) send_date(date_writer_->format_wall_clock(f, offset));
      return true;
    }
  }
  if (deferred != nullptr) {
    // The member of a deferred object: the tracker hears the object and
    // the key now, for the general way and its errors.
    catch_up();
    direct_ = kOff;
    resume_direct_ = kLive;
    live_->on_key(name_of(top_->shape->names, *deferred), deferred->step);
    live_->on_value_begin();
  }
  Timestamp t;
  if (!date_reader_->text(s, *tracker_, t)) return false;
  send_timestamp(t);
  return true;
}

template <class Next>
void FusedFeatures<Next>::send_date(const DateFormatter::Result& r) {
  if (r.is_number) {
    next_.int_value(r.number);
    return;
  }
  if constexpr (detail::TakesPlainText<Next>) {
    if (r.escape_free) {
      next_.plain_string(r.text);
      return;
    }
  }
  next_.string_value(r.text);
}

template <class Next>
inline void FusedFeatures<Next>::find_key(std::string_view name, bool plain,
                                          Renamed& out) {
  Open& o = *top_;
  if (o.following) {
    std::vector<CachedKey>& keys = o.shape->keys;
    if (o.next != keys.data() + keys.size()) {
      CachedKey* q = o.next;
      if (!is_key(*o.shape, *q, name, plain)) q = later_key(o, name, plain);
      if (q != nullptr) {
        CachedKey& c = *q;
        // The result must outlive the call: for a name valid for the call
        // only, the shape's copy of it stands for it.
        if (!plain) name = name_of(o.shape->names, c);
        o.next = q + 1;
        if (!o.shape->clean) o.stop = o.next;
        if (live_ != nullptr) live_->on_key(name, c.step);
        out.name = name;
        out.renamed = c.target != nullptr ? c.renamed : name;
        out.target = c.target;
        key_slot_ = &c;
        key_checked_ = o.shape->clean;
        return;
      }
    }
  }
  find_new_key(o, name, plain, out);
}

template <class Next>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::is_key(
    const Shape& s, const CachedKey& c, std::string_view name, bool plain) {
  // A name valid for the call only (a binary reader's) has no bytes
  // readable past it for same_name().
  return plain ? same_name(s, c, name)
               : name.size() == c.size &&
                     std::memcmp(name.data(), s.names.data() + c.at,
                                 name.size()) == 0;
}

template <class Next>
typename FusedFeatures<Next>::CachedKey* FusedFeatures<Next>::later_key(
    Open& o, std::string_view name, bool plain) {
  // As raw_later_key(): an object that leaves out members of its clean
  // shape follows it on from the key read, when that is one of the next
  // kAbsentRun after the one expected (keys are unique in a clean shape,
  // so this is the only place it can be); the members passed over count as
  // dropped ones.
  if (!o.shape->clean) return nullptr;
  CachedKey* const stop = o.shape->keys.data() + o.shape->keys.size();
  CachedKey* const end =
      stop - o.next > kAbsentRun + 1 ? o.next + kAbsentRun + 1 : stop;
  for (CachedKey* q = o.next + 1; q != end; ++q) {
    if (is_key(*o.shape, *q, name, plain)) {
      for (CachedKey* absent = o.next; absent != q; ++absent) {
        absent->dropped = o.serial;
      }
      return q;
    }
  }
  return nullptr;
}

template <class Next>
void FusedFeatures<Next>::find_new_key(Open& o, std::string_view name,
                                       bool plain, Renamed& out) {
  key_slot_ = nullptr;
  key_checked_ = false;
  if (live_ != nullptr) live_->on_key(name);
  if (keys_) {
    renamer_level();
    keys_->rename(name, plain, out);
  }
  if (o.shape == nullptr) return;
  if (o.following) diverge(o);
  if (o.keys.size() == kMaxShapeKeys) [[unlikely]] {
    abandon(o);
    return;
  }
  CachedKey c;
  c.at = static_cast<std::uint32_t>(o.names.size());
  c.size = static_cast<std::uint32_t>(name.size());
  set_words(c, name);
  c.target = out.target;
  if (out.target != nullptr) c.renamed = out.renamed;
  // Quiet: the step is never replayed (the shape's context is dead).
  if (live_ != nullptr) c.step = live_->last_key_step();
  o.names.append(name);
  o.keys.push_back(std::move(c));
  key_slot_ = &o.keys.back();
}

template <class Next>
void FusedFeatures<Next>::diverge(Open& o) {
  o.following = false;
  const Shape& s = *o.shape;
  const auto pos = o.next - s.keys.data();
  o.stop = o.next;
  o.keys.assign(s.keys.begin(), s.keys.begin() + pos);
  o.names.assign(s.names, 0,
                 pos == 0 ? 0 : o.keys.back().at + o.keys.back().size);
  if (!keys_ || !s.clean) return;
  // The members written so far were not recorded (they could not collide);
  // find_new_key() has opened the renamer's level.
  for (const CachedKey& c : o.keys) {
    if (c.dropped == o.serial) continue;
    const std::string_view name = name_of(s.names, c);
    keys_->add_member(
        Renamed{name, c.target != nullptr ? c.renamed : name, c.target});
  }
}

template <class Next>
void FusedFeatures<Next>::abandon(Open& o) {
  // As reshape() when a place misses again and again: the next objects
  // there are not cached for a while.
  Shape& s = *o.shape;
  if (s.misses < 8) ++s.misses;
  s.skip = 1u << s.misses;
  o.shape = nullptr;
  o.keys.clear();
  o.names.clear();
  if constexpr (kDirect) {
    // The member being read left the direct way of a shaped object; the
    // ones after it take that of an object without a shape.
    if (resume_direct_ == kDirectValues) resume_direct_ = kUnshaped;
    if (o.direct == kDirectValues) o.direct = kUnshaped;
  }
}

template <class Next>
void FusedFeatures<Next>::open_renamer_level() {
  keys_->open_object();
  top_->renaming = true;
}

template <class Next>
typename FusedFeatures<Next>::Open* FusedFeatures<Next>::grow_open() {
  open_.emplace_back();
  opens_ = open_.data();
  opens_end_ = opens_ + open_.size();
  return opens_end_ - 1;
}

template <class Next>
typename FusedFeatures<Next>::Shape* FusedFeatures<Next>::new_shape(
    Shape** place) {
  if (place == nullptr) return nullptr;
  if (*place == nullptr) {
    if (shapes_.size() >= kMaxShapes) return nullptr;
    *place = &shapes_.emplace_back();
  }
  Shape* s = *place;
  if (s->skip > 0) {
    --s->skip;
    return nullptr;
  }
  return s;
}

template <class Next>
template <bool kInner>
[[gnu::always_inline]] inline typename FusedFeatures<Next>::Open&
FusedFeatures<Next>::push_slot(bool is_array, bool direct_child) {
  Open* at = kInner || top_ != nullptr ? top_ + 1 : opens_;
  if (at == opens_end_) [[unlikely]] {
    at = grow_open();
  }
  Open& o = *at;
  top_ = &o;
  o.is_array = is_array;
  o.renaming = false;
  o.direct_child = direct_child;
  key_slot_ = nullptr;
  return o;
}

template <class Next>
template <bool kInDirect>
[[gnu::always_inline]] inline void FusedFeatures<Next>::push_open(
    bool is_array) {
  // The place of this container's objects: the root, the value of the key
  // just read, or the elements of the array it is in.
  Shape** place = &root_;
  if (kInDirect || top_ != nullptr) {
    place = top_->is_array
                ? top_->place
                : (key_slot_ != nullptr ? &key_slot_->child : nullptr);
  }
  Open& o = push_slot<kInDirect>(is_array, kInDirect);
  if (is_array) {
    o.place = place;
    o.records = false;  // (opened() decides)
    return;
  }
  Shape* s = place != nullptr ? *place : nullptr;
  if (s == nullptr || s->skip > 0) [[unlikely]] {
    s = new_shape(place);
  }
  o.shape = s;
  o.serial = ++serial_;
  o.following = s != nullptr;
  if (s == nullptr) {
    o.next = o.stop = nullptr;
    // Each key of the object will be recorded (or renamed).
    if (keys_) open_renamer_level();
    return;
  }
  o.next = s->keys.data();
  o.stop = s->fast_stop;
  if (tracker_ &&
      !(!kInDirect && live_ != nullptr ? live_->in_context(s->context)
                                       : s->context.dead)) [[unlikely]] {
    unfollow(o);
  }
}

template <class Next>
void FusedFeatures<Next>::unfollow(Open& o) {
  o.following = false;  // the keys' steps differ here
  o.stop = o.next;
  o.keys.clear();
  o.names.clear();
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::pop_open() {
  Open& o = *top_;
  key_slot_ = nullptr;
  if (!o.is_array) {
    if (o.shape != nullptr) {
      if (o.following) {
        o.shape->misses = 0;
      } else {
        reshape(o);
      }
    }
    if (o.renaming) keys_->close_object();
  }
  top_ = top_ != opens_ ? top_ - 1 : nullptr;
}

template <class Next>
void FusedFeatures<Next>::reshape(Open& o) {
  if (o.shape->misses < 8) ++o.shape->misses;
  if (o.shape->misses >= 2) o.shape->skip = 1u << o.shape->misses;
  // This object's keys become the shape. It is clean if no two of its
  // keys collide: the written ones did not (else add_member() threw), so
  // the dropped ones are checked against them and each other.
  bool clean = true;
  if (keys_) {
    for (const CachedKey& c : o.keys) {
      if (c.dropped != o.serial) continue;  // written
      renamer_level();
      const std::string_view name = name_of(o.names, c);
      if (!keys_->try_add_member(Renamed{
              name, c.target != nullptr ? c.renamed : name, c.target})) {
        clean = false;
        break;
      }
    }
  }
  Shape& s = *o.shape;
  s.keys.swap(o.keys);
  s.names.swap(o.names);
  s.clean = clean;
  s.fast_stop = clean ? s.keys.data() + s.keys.size() : s.keys.data();
  // The names written: renamed ones are padded already; the others are
  // copied, padded, for the writer's copy in whole words.
  s.written.clear();
  for (const CachedKey& c : s.keys) {
    if (c.target == nullptr) {
      s.written.append(name_of(s.names, c));
      s.written.append(detail::KeyRenamer::kPadding, '\0');
    }
  }
  std::size_t at = 0;
  for (CachedKey& c : s.keys) {
    if (c.target != nullptr) {
      c.out = c.renamed;
    } else {
      c.out = std::string_view(s.written.data() + at, c.size);
      at += c.size + detail::KeyRenamer::kPadding;
    }
    c.escape_free = jbx::detail::escape_free(c.out);
  }
  // The same as when the object opened: its members' levels are left.
  if (tracker_) s.context = context();
  // The keys raw_key() may take: followed while the tracker is live (the
  // object's direct_ is kLive or kDeferred) only in this context.
  for (CachedKey& c : s.keys) {
    const bool plain = name_of(s.names, c).find('\\') == std::string_view::npos;
    const bool dead = !tracker_ || s.context.dead || c.step.dead;
    c.date_selects = !dead && is_date_rule(tracker_->selects(c.step));
    const int r =
        !dead && null_rules_ ? tracker_->selects(c.step, date_rules_) : -1;
    c.null_rule = r < 0 ? -1 : r - static_cast<int>(date_rules_);
    c.live = !dead;
    c.general = c.live && (c.date_selects || !null_rules_);
    c.raw_size = !plain ? SIZE_MAX : c.general ? c.size | kLiveName : c.size;
    if (plain && c.size > kShortName) c.raw_size |= kLongName;
  }
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::on_key(
    std::string_view name, bool plain) {
  // The next key of a clean shape: renamed, matched and checked for
  // collisions when the shape was recorded. The rest is out of line, so
  // that this test costs little for the keys it does not take.
  // (A name valid for the call only is compared without reading past
  // it, and the shape's copy of it stands for it.)
  if (fast_keys_) {
    Open& o = *top_;
    if (o.next != o.stop) [[likely]] {
      CachedKey& c = *o.next;
      if (is_key(*o.shape, c, name, plain)) {
        return hold_next(o, c, plain ? name : name_of(o.shape->names, c));
      }
    } else if (o.shape == nullptr && plain) {
      return unshaped_key(name);
    }
  }
  return general_key(name, plain);
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::hold_next(
    Open& o, CachedKey& c, std::string_view name) {
  ++o.next;
  if (live_ != nullptr) {
    if (c.step.dead) {
      // Nothing in the member can be selected: unless its value is a
      // container, the tracker need not hear of it.
      mute();
    } else {
      live_->on_key(name, c.step);
    }
  }
  key_slot_ = &c;
  held_ = &c;
  return Flow::visit;
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::unshaped_key(
    std::string_view name) {
  // general_key() for a plain name kept as it is in an object that is not
  // cached: nothing to rename, remember or replay. Out of on_key(), which
  // every key goes through, so that the keys of shapes pay nothing for it.
  if (keys_) {
    if (!keys_->kept<true>(name)) return general_key(name, true);
    if (!keys_->try_add_kept(name)) [[unlikely]] {
      // Another member was renamed: add_member() checks this one, at once
      // unless nulls are dropped (then when its value shows that it stays,
      // where the separate transforms report a collision too).
      if (!drop_) return general_key(name, true);
      key_slot_ = nullptr;
      if (live_ != nullptr) live_->on_key(name);
      key_checked_ = false;
      key_ = Renamed{name, name, nullptr};
      key_plain_ = true;
      has_key_ = true;
      return Flow::visit;
    }
    // Recorded now (it cannot collide), and taken back if its value is a
    // null that is dropped.
  }
  // Held like the next key of a shape, as written.
  key_slot_ = nullptr;
  if (live_ != nullptr) live_->on_key(name);
  loose_.out = name;
  held_ = &loose_;
  return Flow::visit;
}

template <class Next>
Flow FusedFeatures<Next>::general_key(std::string_view name, bool plain) {
  if (stopped_) {
    if (live_ != nullptr) live_->on_key(name);
    key_slot_ = nullptr;  // (the object is not recorded)
    value_end();
    return Flow::stop;
  }
  Renamed k{name, name, nullptr};
  if (cache_) {
    find_key(name, plain, k);
  } else {
    if (live_ != nullptr) live_->on_key(name);
    if (keys_) keys_->rename(name, plain, k);
  }
  if (!drop_) {
    const Flow f = send_key(k, plain);
    if (f != Flow::visit) value_end();
    return f;
  }
  // Hold the key until its value shows whether the member is dropped.
  // Names that outlive this call (plain ones, renamed ones, a shape's) are
  // held as views; others are copied.
  if (!keys_ && !plain && k.name.data() == name.data()) {
    key_copy_.assign(name);
    k = Renamed{key_copy_, key_copy_, nullptr};
  }
  key_ = k;
  key_plain_ = plain;
  has_key_ = true;
  return Flow::visit;
}

template <class Next>
Flow FusedFeatures<Next>::key(std::string_view name) {
  if (direct_ != kOff) {
    if (direct_ == kDeferred) catch_up();
    leave_direct();
  }
  return on_key(name, false);
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::plain_key(
    std::string_view name, char first) {
  if constexpr (kDirect) {
    if (direct_ != kOff) return direct_key(name, first);
    return plain_key_slowly(name);
  }
  return on_key(name, true);
}

template <class Next>
Flow FusedFeatures<Next>::plain_key_slowly(std::string_view name) {
  return on_key(name, true);
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::opened(Flow f,
                                                               bool is_array) {
  if (muted_) [[unlikely]] {
    // A container as the value of a muted member: the tracker hears the
    // key now, and then the container is quiet (or skipped).
    muted_ = false;
    live_ = &*tracker_;
    live_->on_dead_key();
  }
  if (f == Flow::visit) {
    if (drop_all_) in_array_.push_back(is_array);
    // With the cache, objects open their renamer levels when needed.
    if (eager_levels_ && !is_array) keys_->open_object();
  } else if (f == Flow::stop && drop_) {
    stop();
  }
  bool live = false;  // the tracker is to hear it open
  if (live_ != nullptr) {
    if (f != Flow::visit) {
      live_->on_value_end();
    } else if (live_->dead()) {
      live_ = nullptr;  // a quiet container: one value to the tracker
      quiet_ = 1;
    } else {
      live = true;
    }
  } else if (quiet_ != 0 && f == Flow::visit) {
    ++quiet_;
  }
  if (cache_ && f == Flow::visit) push_open(is_array);
  bool deferred = false;
  if (live) {
    // An object that follows a clean shape (its keys' steps are known) is
    // deferred: quiet until something needs the tracker (catch_up()).
    deferred = defer_ && !is_array && fast_keys_ && top_->following &&
               top_->next != top_->stop;
    if (deferred) {
      live_ = nullptr;
      quiet_ = 1;
    } else {
      live_->on_open(is_array);
    }
  }
  if constexpr (kDirect) {
    if (f == Flow::visit) {
      resume_direct_ = kOff;
      update_direct();
      if (deferred) direct_ = kDeferred;
      if (cache_) {
        top_->direct = direct_;
        // A live array: its records may open deferred without the
        // tracker entering them. (With the cache, the tracker replays.)
        if (is_array) top_->records = live && defer_;
      }
    }
  }
  return f;
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::open_direct(
    Flow f, bool is_array) {
  if (f != Flow::visit) [[unlikely]] {
    return opened(f, is_array);
  }
  if (drop_all_) in_array_.push_back(is_array);
  // (Not counted in quiet_: closed() is not called for it, and the
  // container it is in is still open when it closes.)
  push_open<true>(is_array);
  // update_direct(), knowing what a direct container's child is: the
  // tracker is not live (quiet, or a deferred object's) and nothing is
  // muted.
  Open& o = *top_;
  if (!is_array) {
    direct_ = o.shape == nullptr ? kUnshaped : kDirectValues;
  } else {
    direct_ = drop_all_ ? kOff : kDirectValues;
  }
  o.direct = direct_;
  return f;
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::closed() {
  if (live_ != nullptr) {
    live_->on_close();
  } else if (quiet_ != 0 && --quiet_ == 0) {
    live_ = &*tracker_;
    live_->on_value_end();  // the quiet container, as a value
  }
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::begin_object() {
  if constexpr (kDirect) {
    if (opens_direct()) {
      return open_direct(next_.begin_object(), false);
    }
  }
  return open_general(false);
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::open_general(
    bool is_array) {
  if constexpr (kDirect) {
    if (!is_array && top_ != nullptr && top_->is_array && top_->records) {
      Flow f;
      if (open_record(f)) return f;
    }
    if (direct_ == kLive) [[unlikely]] {
      mute();
    }
  }
  if (selected<false>()) {
    date_reader_->not_a_date(is_array ? "an array" : "an object", *tracker_);
  }
  Flow f;
  if (!release(f)) {
    value_end();
    return f;
  }
  return opened(is_array ? next_.begin_array() : next_.begin_object(),
                is_array);
}

template <class Next>
[[gnu::always_inline]] inline bool FusedFeatures<Next>::close_open(
    bool is_array) {
  if (close_simple_) [[likely]] {
    const bool direct_child = top_->direct_child;
    pop_open();
    return direct_child;
  }
  bool direct_child = false;
  if (drop_all_) in_array_.pop_back();
  if (cache_) {
    direct_child = top_->direct_child;
    pop_open();
  }
  if (eager_levels_ && !is_array) keys_->close_object();
  return direct_child;
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::end_object() {
  // The tracker was not told of a container opened directly.
  const bool direct_child = close_open(false);
  next_.end_object();
  if (!direct_child) closed();
  restore_direct();
}

template <class Next>
[[gnu::always_inline]] inline Flow FusedFeatures<Next>::begin_array() {
  if constexpr (kDirect) {
    if (opens_direct()) {
      return open_direct(next_.begin_array(), true);
    }
  }
  return open_general(true);
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::end_array() {
  const bool direct_child = close_open(true);  // as in end_object()
  next_.end_array();
  if (!direct_child) closed();
  restore_direct();
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::null_value() {
  // (A direct member's null is not sent when nulls are dropped.)
  if (kDirect && direct_scalar()) {
    next_.null_value();
    return;
  }
  if constexpr (kDirect) {
    null_slowly();
  } else {
    null_general();
  }
}

template <class Next>
void FusedFeatures<Next>::null_slowly() {
  if (counted_scalar()) {
    next_.null_value();
    return;
  }
  null_general();
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::null_general() {
  // (A null at a date path stays null.)
  if (const int rule = selected_rule(); rule >= 0) [[unlikely]] {
    if (null_default(rule)) return;
  }
  if (drop_ && (held_ != nullptr || has_key_)) {
    // The member disappears with its key.
    if (key_slot_ != nullptr) key_slot_->dropped = top_->serial;
    if (held_ == &loose_ && keys_) keys_->drop_last_member();
    held_ = nullptr;
    has_key_ = false;
  } else if (release() && !(drop_all_ && in_array())) {
    next_.null_value();
  }
  value_end();
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::bool_value(bool b) {
  if (kDirect && direct_scalar()) {
    next_.bool_value(b);
    return;
  }
  if constexpr (kDirect) {
    bool_slowly(b);
  } else {
    bool_general(b);
  }
}

template <class Next>
void FusedFeatures<Next>::bool_slowly(bool b) {
  if (counted_scalar()) {
    next_.bool_value(b);
    return;
  }
  bool_general(b);
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::bool_general(bool b) {
  if (selected()) date_reader_->not_a_date(b ? "true" : "false", *tracker_);
  if (release()) next_.bool_value(b);
  value_end();
}

template <class Next>
void FusedFeatures<Next>::on_number(std::string_view text) {
  Timestamp t;
  if (date_reader_->number(text, *tracker_, t)) {
    send_timestamp(t);
  } else if (release()) {
    styled_number(text);
  }
}

template <class Next>
void FusedFeatures<Next>::styled_number(std::string_view text) {
  if (numbers_on_) {
    numbers_.number_text(text, next_);
  } else {
    next_.number_text(text);
  }
}

template <class Next>
template <class V>
void FusedFeatures<Next>::styled_value(V v) {
  if constexpr (std::is_same_v<V, double>) {
    if (numbers_on_) {
      numbers_.double_value(v, next_);
    } else {
      next_.double_value(v);
    }
  } else if constexpr (std::is_signed_v<V>) {
    if (numbers_on_) {
      numbers_.int_value(v, next_);
    } else {
      next_.int_value(v);
    }
  } else {
    if (numbers_on_) {
      numbers_.uint_value(v, next_);
    } else {
      next_.uint_value(v);
    }
  }
}

template <class Next>
template <class V>
[[gnu::always_inline]] inline void FusedFeatures<Next>::number_value(V v) {
  if (kDirect && direct_scalar()) {
    styled_value(v);
    return;
  }
  if (selected()) {
    on_number(detail::number_text(v));
  } else if (release()) {
    styled_value(v);
  }
  value_end();
}

template <class Next>
void FusedFeatures<Next>::int_value(std::int64_t v) {
  number_value(v);
}

template <class Next>
void FusedFeatures<Next>::uint_value(std::uint64_t v) {
  number_value(v);
}

template <class Next>
void FusedFeatures<Next>::double_value(double v) {
  number_value(v);
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::number_text(
    std::string_view text) {
  if (kDirect && direct_scalar()) {
    send_number(text);
    return;
  }
  if constexpr (kDirect) {
    number_slowly(text);
  } else {
    number_general(text);
  }
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::send_number(
    std::string_view text) {
  if (numbers_on_) [[unlikely]] {
    styled_number(text);
  } else {
    next_.number_text(text);
  }
}

template <class Next>
template <class Send>
[[gnu::always_inline]] inline void FusedFeatures<Next>::parsed_number(
    std::string_view text, const Send& send) {
  // As number_text(), but a number left as it is goes on as parsed.
  if (direct_scalar()) {
    if (numbers_on_) [[unlikely]] {
      styled_number(text);
    } else {
      send();
    }
    return;
  }
  if (selected()) {
    on_number(text);
  } else if (release()) {
    if (numbers_on_) [[unlikely]] {
      styled_number(text);
    } else {
      send();
    }
  }
  value_end();
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::json_integer(
    std::int64_t v, std::string_view text) {
  if constexpr (detail::TakesParsedNumbers<Next>) {
    if (direct_scalar() && !numbers_on_) [[likely]] {
      next_.json_integer(v);
      return;
    }
    integer_slowly(v, text);
  } else {
    static_cast<void>(v);
    number_text(text);
  }
}

template <class Next>
void FusedFeatures<Next>::integer_slowly(std::int64_t v,
                                         std::string_view text) {
  if constexpr (detail::TakesParsedNumbers<Next>) {
    parsed_number(text, [this, v] { next_.json_integer(v); });
  } else {
    static_cast<void>(v);
    number_text(text);
  }
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::decimal_value(
    std::string_view text, double nearest) {
  if constexpr (detail::TakesParsedNumbers<Next>) {
    if (direct_scalar() && !numbers_on_) [[likely]] {
      next_.decimal_value(text, nearest);
      return;
    }
    decimal_slowly(text, nearest);
  } else {
    static_cast<void>(nearest);
    number_text(text);
  }
}

template <class Next>
void FusedFeatures<Next>::decimal_slowly(std::string_view text,
                                         double nearest) {
  if constexpr (detail::TakesParsedNumbers<Next>) {
    parsed_number(
        text, [this, text, nearest] { next_.decimal_value(text, nearest); });
  } else {
    static_cast<void>(nearest);
    number_text(text);
  }
}

template <class Next>
void FusedFeatures<Next>::number_slowly(std::string_view text) {
  if (counted_scalar()) {
    send_number(text);
    return;
  }
  number_general(text);
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::number_general(
    std::string_view text) {
  if (selected()) {
    on_number(text);
  } else if (release()) {
    styled_number(text);
  }
  value_end();
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::on_string(
    std::string_view s, bool plain) {
  if (kDirect && direct_scalar()) {
    send_string(s, plain);
    return;
  }
  if constexpr (kDirect) {
    string_slowly(s, plain);
  } else {
    string_general(s, plain);
  }
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::send_string(
    std::string_view s, bool plain) {
  if constexpr (detail::TakesPlainText<Next>) {
    if (plain) {
      next_.plain_string(s);
      return;
    }
  } else if constexpr (detail::TakesPaddedText<Next>) {
    if (plain) {
      next_.padded_string(s);
      return;
    }
  }
  next_.string_value(s);
}

template <class Next>
void FusedFeatures<Next>::string_slowly(std::string_view s, bool plain) {
  if (counted_scalar()) {
    send_string(s, plain);
    return;
  }
  string_general(s, plain);
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::string_general(
    std::string_view s, bool plain) {
  if (selected()) [[unlikely]] {
    if (string_date(s)) {
      value_end();
      return;
    }
  }
  if (release()) {
    if constexpr (detail::TakesPlainText<Next>) {
      if (plain) {
        next_.plain_string(s);
      } else {
        next_.string_value(s);
      }
    } else if constexpr (detail::TakesPaddedText<Next>) {
      if (plain) {
        next_.padded_string(s);
      } else {
        next_.string_value(s);
      }
    } else {
      next_.string_value(s);
    }
  }
  value_end();
}

template <class Next>
void FusedFeatures<Next>::string_value(std::string_view s) {
  on_string(s, false);
}

template <class Next>
[[gnu::always_inline]] inline void FusedFeatures<Next>::plain_string(
    std::string_view s) {
  on_string(s, true);
}

template <class Next>
void FusedFeatures<Next>::bytes_value(std::span<const std::uint8_t> b) {
  if (selected()) date_reader_->not_a_date("a byte string", *tracker_);
  if (release()) next_.bytes_value(b);
  value_end();
}

template <class Next>
void FusedFeatures<Next>::timestamp_value(const Timestamp& t) {
  selected();  // already a date
  send_timestamp(t);
  value_end();
}

template <class Next>
void FusedFeatures<Next>::annotation(const Annotation& a) {
  // An annotated null is a typed value, so its member is kept.
  if (release()) next_.annotation(a);
}

template <class Next>
bool FusedFeatures<Next>::in_array() const {
  return !in_array_.empty() && in_array_.back();
}

template <class Next>
void FusedFeatures<Next>::end_document() {
  held_ = nullptr;
  has_key_ = false;
  stopped_ = false;
  fast_keys_ = cache_;
  direct_ = kOff;
  resume_direct_ = kOff;
  in_array_.clear();
  top_ = nullptr;
  quiet_ = 0;
  muted_ = false;
  date_key_ = nullptr;
  live_ = tracker_ ? &*tracker_ : nullptr;
  key_slot_ = nullptr;
  // The shapes point at names the renamer forgets with its memory; a
  // document with many shapes starts the next one afresh.
  const bool forgot = keys_ && keys_->end_document();
  if (forgot || shapes_.size() >= kMaxShapes) {
    shapes_.clear();
    root_ = nullptr;
  }
  next_.end_document();
}

}  // namespace jbx::transforms
