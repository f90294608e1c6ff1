// The fastjson2 writer features most runs ask for (--date-fields,
// --null-default, --nulls, --key-case, --bigint-as-string, --decimal and date
// formatting) as one handler, with the output of the chain ParseDateFields
// -> NullDefaults -> DropNulls -> RenameKeys -> NumberStyle -> FormatDates
// but no virtual call per event and step, and no copy of the keys it holds
// back.
//
// It is a template on the next handler so that, in front of the JSON
// writer, the JSON reader calls it and it calls the writer directly, and
// escape-free keys and strings keep the writer's copy-without-scan path
// (formats/json/json_fused.h). FusedFeatures<Handler> serves every other
// writer. The member definitions (fused_impl.h) are compiled once per Next
// by explicit instantiation, never inline in a reader kernel compiled for
// another instruction set.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/events.h"
#include "core/transforms/dates.h"
#include "core/transforms/key_case.h"
#include "core/transforms/name_table.h"
#include "core/transforms/null_defaults.h"
#include "core/transforms/nulls.h"
#include "core/transforms/numbers.h"
#include "core/transforms/path_tracker.h"

namespace jbx::transforms {

/// The steps of a FusedFeatures; each is off unless set.
struct FusedOptions {
  std::optional<DateFieldOptions> date_fields;  // as ParseDateFields
  // --null-default rules, as NullDefaults without a schema.
  std::shared_ptr<const std::vector<NullDefault>> null_defaults;
  NullPolicy nulls = NullPolicy::keep;         // as DropNulls
  std::optional<KeyCase> key_case;             // as RenameKeys
  std::string key_case_name;                   // for its errors
  std::optional<DateFormat> dates;             // as FormatDates
  bool bigint_as_string = false;               // as NumberStyle
  DecimalStyle decimals = DecimalStyle::keep;  // as NumberStyle
};

namespace detail {

/// A writer that copies escape-free text without scanning it (JsonWriter).
template <class N>
concept TakesPlainText = requires(N& n, std::string_view s) {
  n.plain_string(s);
  n.plain_key(s);
};

/// A writer told how far past a key's start it may read (JsonWriter).
template <class N>
concept TakesDirectKeys = requires(N& n, std::string_view s, std::size_t r) {
  n.direct_key(s, r);
};

/// A writer that keeps the text it writes for a repeated key (JsonWriter).
template <class N>
concept TakesRepeatedKeys = requires(N& n, std::string_view s, std::string& t,
                                     std::size_t& tag) {
  n.repeated_key(s, t, tag);
};

/// A binary writer that takes the numbers the JSON reader has parsed
/// (CborWriter, MsgpackWriter, JsonbWriter): an integer within int64 as
/// its value, a decimal with its text and correctly rounded double.
template <class N>
concept TakesParsedNumbers = requires(N& n, std::string_view t, double d,
                                      std::int64_t v) {
  n.json_integer(v);
  n.decimal_value(t, d);
};

/// A binary writer that copies a short text in whole words when it may read
/// jbx::detail::kWordCopy bytes from the text's start.
template <class N>
concept TakesPaddedText = requires(N& n, std::string_view s) {
  n.padded_key(s);
  n.padded_string(s);
};

/// A number's shortest JSON text, for a date read from a number (out of
/// line: the reader kernels that inline the hot paths do not include fmt).
std::string number_text(std::int64_t v);
std::string number_text(std::uint64_t v);
std::string number_text(double v);

/// --key-case for FusedFeatures: what RenameKeys does, reworked for names
/// that mostly need no renaming and rarely repeat in place.
///
/// A name already in the style (keeps_name) is taken as it is when its
/// view stays valid until the document ends; other names are renamed once
/// and remembered, found by their place among the remembered names of the
/// last object at the same depth (records repeat their keys) or by a hash.
/// Two members collide only if one of them is renamed: each object keeps
/// bit filters of its members' new names so that most members are written
/// without searching the others.
class KeyRenamer {
 public:
  KeyRenamer(KeyCase style, std::string_view style_name);
  KeyRenamer(const KeyRenamer&) = delete;
  KeyRenamer& operator=(const KeyRenamer&) = delete;

  struct Target {
    bool ambiguous = false;  // more than one remembered name becomes it
    bool kept = false;       // a name spelled like it is kept as it is
    std::string text;        // the name, then kPadding zero bytes
  };
  /// Bytes readable past the start of a new name (Renamed::renamed with a
  /// target), for writers that copy short names in whole words.
  static constexpr std::size_t kPadding = 32;
  /// A member name as read and as written; both valid until end_document.
  struct Renamed {
    std::string_view name;
    std::string_view renamed;
    const Target* target = nullptr;  // null: kept as it is, unremembered
  };

  void open_object();
  void close_object();
  /// Sets `out` for `name`. `stable`: `name` stays valid until
  /// end_document. (An out parameter: the caller holds the result in
  /// place, and copying a returned one cost more than the rest.)
  void rename(std::string_view name, bool stable, Renamed& out);
  /// Records a member of the innermost object that is written. Throws
  /// Error(unsupported) when another member was renamed to the same name.
  void add_member(const Renamed& r);
  /// add_member() that answers false instead of throwing (and then records
  /// nothing).
  bool try_add_member(const Renamed& r);
  /// add_member() for a name kept as it is when no member of the object
  /// is renamed yet (then it cannot collide); else false, and nothing is
  /// recorded.
  bool try_add_kept(std::string_view name);
  /// Forgets the last member recorded (its value was dropped).
  void drop_last_member() { --levels_[depth_ - 1].count; }
  /// keeps_name(), faster: inline for the names that need one or two
  /// word tests, else kept_slowly(). kPadded: 16 bytes are readable from
  /// the name's start (a plain key's), so short names load a whole word.
  template <bool kPadded = false>
  bool kept(std::string_view name) const;
  /// kept(), out of line.
  bool keeps(std::string_view name) const;
  /// Forgets the names remembered once there are too many; true when it
  /// did (the views of Renamed results are then invalid).
  bool end_document();

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  struct Known {
    std::string_view renamed;  // in target->text
    Target* target;
  };
  using KnownMap =
      std::unordered_map<std::string, Known, Hash, std::equal_to<>>;
  using Entry = KnownMap::value_type;
  struct Member {
    std::string_view name;
    std::string_view renamed;
  };
  // A 256-bit filter of new names, by length and first and last bytes.
  using Filter = std::array<std::uint64_t, 4>;
  struct Level {
    // The members written so far, for collisions: the first `count` of
    // `members` (grown by push_member(), which stays inline).
    std::vector<Member> members;
    std::size_t count = 0;
    Filter all{};      // every member's new name
    Filter renamed{};  // the new names of renamed members
    // A member kept as it is can only collide with a renamed one: until
    // one is written, kept members are only listed, and their bits in
    // `all` are set when the first renamed one comes.
    bool any_renamed = false;
    std::unordered_map<std::string_view, std::string_view> index;
    bool indexed = false;            // index holds members (large objects)
    std::vector<const Entry*> seen;  // remembered names read so far
    // `seen` of the last objects of a few shapes at this depth (records
    // nest objects of different kinds at one depth), and the one that this
    // object's first remembered name chose, or -1.
    std::array<std::vector<const Entry*>, 4> recent;
    int shape = -1;
    unsigned next_shape = 0;  // the one to replace next
  };

  // The slow paths of rename() and add_member(), which are inline
  // (fused_impl.h) because they run for every member.
  void rename_remembered(std::string_view name, Renamed& out);
  /// Another member of `l` with r's new name, or null.
  const Member* find_collision(Level& l, const Renamed& r) const;
  /// Whether r may collide with a member of `l` (then find_collision()).
  static bool may_collide(const Level& l, const Renamed& r, unsigned bit);
  static void record(Level& l, const Renamed& r, unsigned bit);
  [[gnu::always_inline]] static void push_member(Level& l, Member m) {
    if (l.count == l.members.size()) [[unlikely]] {
      grow_members(l);
    }
    l.members[l.count++] = m;
  }
  static void grow_members(Level& l);
  static std::span<const Member> members_of(const Level& l) {
    return {l.members.data(), l.count};
  }
  /// Sets the bits in l.all of the members listed before any was renamed.
  static void fill_all(Level& l);
  void add_member_checked(Level& l, const Renamed& r);
  [[noreturn]] void throw_collision(const Member& other,
                                    const Renamed& r) const;
  const Entry* find_or_add(std::string_view name);
  static unsigned filter_bit(std::string_view s);
  static bool has(const Filter& f, unsigned bit) {
    return ((f[bit >> 6] >> (bit & 63)) & 1) != 0;
  }
  static void set(Filter& f, unsigned bit) {
    f[bit >> 6] |= std::uint64_t{1} << (bit & 63);
  }
  bool kept_slowly(std::string_view name) const;
  KeyCase style_;
  std::string style_name_;
  // kept() decides by itself (else keeps_name()) for the styles whose kept
  // names are words joined by single joiners: `joiner_` ('_', '-', or 0
  // for none), and the other separators, which are renamed, in each byte
  // of a word.
  bool table_ = false;
  char joiner_ = 0;
  std::uint64_t joiner_word_ = 0;
  std::size_t separators_ = 0;
  std::array<std::uint64_t, 3> separator_words_{};
  std::string buf_;
  // Node-based maps keep the pointers held elsewhere valid.
  std::unordered_map<std::string, Target, Hash, std::equal_to<>> targets_;
  KnownMap known_;
  NameTable<Entry> names_;     // an index over known_
  std::vector<Level> levels_;  // one per open object, reused
  std::size_t depth_ = 0;
};

}  // namespace detail

/// The steps of `FusedOptions` in one handler: dates read at --date-fields
/// paths, nulls dropped, keys renamed, dates formatted, in that order, with
/// the results and errors of the separate transforms.
template <class Next>
class FusedFeatures final : public Handler {
 public:
  FusedFeatures(Next& next, FusedOptions options);
  ~FusedFeatures() override;

  Flow begin_object() override;
  Flow key(std::string_view name) override;
  void end_object() override;
  Flow begin_array() override;
  void end_array() override;
  void null_value() override;
  void bool_value(bool b) override;
  void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  void double_value(double v) override;
  void number_text(std::string_view text) override;
  /// number_text() of a JSON integer within int64 that the reader has
  /// parsed: the writer behind takes it as its value where its text would
  /// pass unchanged (TakesParsedNumbers), as number_text() otherwise.
  [[gnu::always_inline]] void json_integer(std::int64_t v,
                                           std::string_view text);
  /// number_text() of a JSON decimal with its correctly rounded double,
  /// which the reader has parsed: as json_integer().
  [[gnu::always_inline]] void decimal_value(std::string_view text,
                                            double nearest);
  void string_value(std::string_view s) override;
  void bytes_value(std::span<const std::uint8_t> b) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  void end_document() override;
  // No step adds or removes a top-level array's items but
  // --nulls=drop-all (as DropNulls).
  void top_array_items(std::uint64_t count) override {
    if (!drop_all_) next_.top_array_items(count);
  }
  bool takes_array_count() const override {
    return !drop_all_ && next_.takes_array_count();
  }

  /// key() for a name that needs no escaping (no '"', '\\' or control
  /// character) and stays valid until end_document, with 16 bytes
  /// readable from its start and KeyRenamer::kPadding past its end: the
  /// JSON reader's escape-free keys, which point into the document being
  /// read (padded past its end). `first`: the first byte of the member's
  /// value, or '\0' when not known yet. Flow::skip with `first` 'n': the
  /// member is dropped, and the reader is to check that its value is null.
  Flow plain_key(std::string_view name, char first = '\0');
  /// plain_key(), for a reader that calls it through the Handler interface:
  /// a stable name is followed through the shapes as a plain one.
  Flow stable_key(std::string_view name) override { return plain_key(name); }
  /// string_value() for text that needs no escaping and, in front of a
  /// binary writer, may be read jbx::detail::kWordCopy bytes from its start:
  /// the JSON reader's texts.
  void plain_string(std::string_view s);
  /// plain_key() for a name as it is in the JSON text, not yet checked
  /// for escapes. Takes it (sets `f`, answers true) only when it is the
  /// next key of a clean shape in an object whose keys go direct, and no
  /// rule selects in its value: equal to a name without a backslash, it
  /// needs no unescaping. Else answers false and does nothing.
  /// `value()` answers the text of the member's value between its quotes
  /// when it is a closed string (a null data() otherwise): a date string
  /// of a deferred object in the usual form is taken with its key, formatted
  /// and sent, and `f` is Flow::skip, for the reader to pass over the value.
  template <class Value>
  bool raw_key(std::string_view raw, char first, const Value& value, Flow& f);

  /// The handler it sends to.
  Next& next() { return next_; }
  /// The options it was made with.
  const FusedOptions& options() const { return options_; }
  /// Whether it sends the same events for each item of a top-level array
  /// whatever the item's index: no --date-fields or --null-default rule
  /// selects top-level items by index. A reader may then have such an array's
  /// items handled apart, in pieces, each by a handler of its own (made with
  /// options()).
  bool items_apart() const { return items_apart_; }
  /// The items of the top-level array it has had so far, where its rules
  /// count them (they name values by their index); else 0.
  std::uint64_t items_had() const {
    return tracker_ ? tracker_->top_elements() : 0;
  }
  /// `n` items of the top-level array, after the last it had, were handled
  /// apart (items_apart()): the paths it names count them.
  void items_passed(std::uint64_t n) {
    if (tracker_) tracker_->pass_top_elements(n);
  }

 private:
  using Renamed = detail::KeyRenamer::Renamed;

  // selected(), value_end(), release() and send_name() run for every
  // value: always inlined.

  /// Enters the location of a value; the first rule that selects it
  /// (the date rules come first, then the null rules), or -1. A scalar
  /// element of an array whose elements are counted (kCountedElements) is
  /// counted instead: no rule selects it.
  template <bool kScalar = true>
  [[gnu::always_inline]] int selected_rule();
  /// Enters the location of a value; true when a date rule selects it.
  template <bool kScalar = true>
  [[gnu::always_inline]] bool selected() {
    return is_date_rule(selected_rule<kScalar>());
  }
  bool is_date_rule(int rule) const {
    return static_cast<unsigned>(rule) < date_rules_;
  }
  /// For a null whose location selected_rule() answered `rule` for: sends
  /// the default of the first null rule that selects it, and answers true,
  /// or answers false when the null stays a null (no null rule selects it,
  /// or its default is null).
  bool null_default(int rule);
  [[gnu::always_inline]] void value_end();
  Flow on_key(std::string_view name, bool plain);
  void on_string(std::string_view s, bool plain);
  void on_number(std::string_view text);
  /// A number sent on, as NumberRules write it (numbers_on_).
  [[gnu::noinline]] void styled_number(std::string_view text);
  template <class V>
  void styled_value(V v);
  /// int_value(), uint_value() and double_value().
  template <class V>
  [[gnu::always_inline]] void number_value(V v);
  // The general ways of values outside the direct containers: inline
  // where every value takes them (no kDirect), else out of line
  // (*_slowly()), so that the reader's kernel, which inlines the direct
  // ways at each of its call sites, stays compact. (Containers keep theirs
  // inline: out of line, the kernel's registers were spent worse, and it
  // ran 5% more instructions.)
  [[gnu::always_inline]] void string_general(std::string_view s, bool plain);
  [[gnu::noinline]] void string_slowly(std::string_view s, bool plain);
  [[gnu::always_inline]] void null_general();
  [[gnu::noinline]] void null_slowly();
  [[gnu::always_inline]] void bool_general(bool b);
  [[gnu::noinline]] void bool_slowly(bool b);
  [[gnu::always_inline]] void number_general(std::string_view text);
  /// json_integer() and decimal_value() in front of a binary writer:
  /// send() passes the parsed number on.
  template <class Send>
  [[gnu::always_inline]] void parsed_number(std::string_view text,
                                            const Send& send);
  [[gnu::noinline]] void number_slowly(std::string_view text);
  /// json_integer() and decimal_value() outside the direct containers, or
  /// restyled (--bigint-as-string, --decimal).
  [[gnu::noinline]] void integer_slowly(std::int64_t v, std::string_view text);
  [[gnu::noinline]] void decimal_slowly(std::string_view text, double nearest);
  /// What a scalar that goes straight to the writer sends.
  [[gnu::always_inline]] void send_string(std::string_view s, bool plain);
  [[gnu::always_inline]] void send_number(std::string_view text);
  /// In an array whose scalars are counted (kCountedElements): counts the
  /// scalar, which then goes straight to the writer.
  bool counted_scalar() {
    if (direct_ != kCountedElements) return false;
    live_->count_element();
    return true;
  }
  /// begin_object() and begin_array() outside the direct containers.
  [[gnu::always_inline]] Flow open_general(bool is_array);
  [[gnu::noinline]] Flow plain_key_slowly(std::string_view name);
  /// Sends the held key, if any. False when the consumer skipped or
  /// stopped: then the value must not be sent. Sets `flow`.
  [[gnu::always_inline]] bool release(Flow& flow);
  /// release() for a key held other than as the next key of a shape.
  [[gnu::noinline]] bool release_other(Flow& flow);
  bool release() {
    Flow f;
    return release(f);
  }
  /// Whether the innermost container is an array (for drop-all; out of
  /// line, as only drop-all asks).
  bool in_array() const;
  /// The consumer said stop.
  void stop() {
    stopped_ = true;
    fast_keys_ = false;
    direct_ = kOff;
    resume_direct_ = kOff;
  }
  /// Whether the innermost container takes members directly (direct_).
  [[gnu::always_inline]] void update_direct();
  /// update_direct() after a container closed: what it set when the
  /// container now innermost opened, unless the consumer has said stop.
  [[gnu::always_inline]] void restore_direct() {
    if constexpr (kDirect) {
      direct_ =
          fast_keys_ && top_ != nullptr ? top_->direct : std::uint8_t{kOff};
    }
  }
  /// begin_object() or begin_array() in a container whose values go
  /// direct (kDirectValues, kUnshaped): no key is held, the tracker is
  /// quiet or absent, nothing is muted or stopped.
  [[gnu::always_inline]] Flow open_direct(Flow f, bool is_array);
  /// plain_key() while direct_.
  [[gnu::always_inline]] Flow direct_key(std::string_view name, char first);
  /// direct_key() for a key that goes the general way.
  Flow indirect_key(std::string_view name);
  /// direct_unshaped() in an object without a shape where the tracker is
  /// live (kLiveUnshaped), for a scalar value that no date rule selects: a
  /// null that a null rule selects takes its default.
  [[gnu::noinline]] bool live_unshaped(std::string_view name, char first,
                                       Flow& f);
  /// direct_key() for a member of an object without a shape: false when
  /// the key goes the general way instead.
  [[gnu::always_inline]] bool direct_unshaped(std::string_view name, char first,
                                              Flow& f);
  /// The tracker is not told of the member being read (its step is dead)
  /// until its value, if a container, opens (opened()).
  void mute() {
    live_ = nullptr;
    muted_ = true;
  }
  /// The member being read goes the general way; direct_ again after its
  /// value.
  void leave_direct() {
    resume_direct_ = direct_;
    direct_ = kOff;
  }
  Flow sent(Flow f) {
    if (f == Flow::stop) [[unlikely]] {
      stop();
    }
    return f;
  }
  Flow send_key(const Renamed& k, bool plain);
  void send_timestamp(const Timestamp& t);
  /// A string at a date path: sends it as a date, or answers false when
  /// it is to pass unchanged (--date-errors=keep).
  bool string_date(std::string_view s);
  /// Sends a formatted date (the key is released).
  void send_date(const DateFormatter::Result& r);
  Flow opened(Flow f, bool is_array);
  /// The tracker's part of closing a container.
  [[gnu::always_inline]] void closed();

  // Records repeat their keys. Each place in a document where objects
  // occur (the root, a member's value, the elements of an array) keeps the
  // keys of the last object read there, its Shape; a key read where the
  // same key was read last time reuses what renaming and path matching
  // did with it, and the members of an object whose keys follow a shape in
  // which no two keys get the same new name need no collision check.
  struct Shape;
  struct CachedKey {
    std::uint32_t at = 0;  // the name, in Shape::names
    std::uint32_t size = 0;
    // The name's first 16 bytes, zeros past it, and which bytes of the
    // word that holds its last byte (up to the 16th) are the name's: a
    // name read is compared in one or two words.
    std::array<std::uint64_t, 2> words{};
    std::uint64_t last_mask = 0;
    // In a shape: the name's size if raw_key() may take it (as dead_key()
    // does), else SIZE_MAX.
    // It may when the name has no backslash (so it is the same in JSON
    // text), and no rule selects in its value where the shape is followed
    // or (with null rules) no date rule selects the member itself: then
    // dead_key() tells its values apart. A name without a backslash that
    // goes the general way in a live object (`general`) has its size with
    // kLiveName: raw_key() takes it with a null and, when raw_dates_, with
    // a date (raw_date()). A name longer than kShortName has kLongName
    // too: raw_key() compares it out of line.
    std::size_t raw_size = SIZE_MAX;
    // The bits of the bytes past the name among its first 16.
    std::uint32_t past_name = 0;
    const detail::KeyRenamer::Target* target = nullptr;  // as Renamed
    std::string_view renamed;  // with a target: the new name
    // In a shape: the name as written, with KeyRenamer::kPadding zero
    // bytes after it (`renamed`, or a copy in Shape::written).
    std::string_view out;
    // `out` needs no escaping in JSON (no '"', '\\' or control character):
    // the JSON writer may copy it as it is. (A binary reader's names, and
    // unescaped JSON ones, may need it.)
    bool escape_free = true;
    PathTracker::KeyStep step;
    // In a shape, for a live step: whether a date rule selects the member
    // itself (not only values below it, as `$..createdAt` does for a
    // record's member), and the first null rule that does (an index into
    // null_rules_), or -1. A scalar value that neither changes goes as one
    // of a dead step.
    bool date_selects = false;
    int null_rule = -1;
    // In a shape: the step is live (a rule may select in the value).
    bool live = false;
    // In a shape: shaped_key() sends the key to live_member() in a live
    // object (kLive, kDeferred): a date rule selects it or, without null
    // rules, it is live (with them, dead_key() takes it as dead_holds_
    // tells).
    bool general = false;
    Shape* child = nullptr;     // the place of objects in its value
    std::uint64_t dropped = 0;  // the serial of the object that dropped it
    // In a shape, what the writer keeps to write `out` again
    // (TakesRepeatedKeys).
    std::string text;
    std::size_t text_tag = SIZE_MAX;
  };
  struct Shape {
    std::vector<CachedKey> keys;
    std::string names;
    std::string written;  // the names kept as they are, padded
    bool clean = false;   // no two of `keys` collide
    // Where Open::stop starts: the end of `keys` when clean, else their
    // start.
    CachedKey* fast_stop = nullptr;
    PathTracker::Context context;  // the tracker's, for `keys[i].step`
                                   // (dead inside a quiet container)
    // Objects whose keys differ each time (maps keyed by ids) are not
    // cached for a while after each one that differs, longer each time.
    unsigned misses = 0;
    unsigned skip = 0;
  };
  struct Open {
    bool is_array = false;
    Shape** place = nullptr;  // an array's: the place of its elements
    // An object's shape (null: not cached), the next of its keys while
    // the keys read follow it, and, once one does not, this object's keys
    // so far. While it follows a clean shape, keys up to `stop` (its end)
    // take the fast path of on_key(); else `stop` is `next`.
    Shape* shape = nullptr;
    CachedKey* next = nullptr;
    CachedKey* stop = nullptr;
    bool following = true;
    // The renamer has a level for this object. Opened when first needed:
    // an object that follows a clean shape needs none.
    bool renaming = false;
    // Opened by open_direct(): quiet_ does not count it, and closed() is
    // not called when it closes.
    bool direct_child = false;
    // direct_ for its members or elements (kDirect), as update_direct()
    // set it when it opened: what it is again when a child closes.
    std::uint8_t direct = 0;
    // An array whose elements the tracker may count (kDirect): an object
    // that follows the shape of its place opens deferred (open_record()).
    bool records = false;
    std::uint64_t serial = 0;
    std::vector<CachedKey> keys;
    std::string names;
  };
  static std::string_view name_of(const std::string& names,
                                  const CachedKey& c) {
    return {names.data() + c.at, c.size};
  }
  /// on_key() for a key that is not the next one of a clean shape.
  Flow general_key(std::string_view name, bool plain);
  /// Sends `c`, a key of a clean shape or loose_, as written (`out`).
  Flow send_cached(const CachedKey& c);
  /// send_cached() for a key of a shape, which the writer may keep.
  Flow send_repeated(CachedKey& c);
  /// Whether `raw`, a name as it is in JSON text with 16 bytes readable,
  /// is the name of `c`, a key of `s` without a backslash, of `size` bytes.
  static bool raw_name(const Shape& s, const CachedKey& c, std::string_view raw,
                       std::size_t size);
  /// raw_name() for the size c.raw_size: never true for a name with
  /// kLongName (or kLiveName), so the first 16 bytes are all it compares.
  static bool raw_short_name(const CachedKey& c, std::string_view raw);
  /// Whether the first 16 bytes of `raw` (readable), a name as long as
  /// c's, are c's, the bytes past the name left out.
  static bool raw_head(const CachedKey& c, std::string_view raw);
  /// raw_key() for `c`, a key of o's clean shape just read (the next one),
  /// which has no backslash and a step that may be live: in a deferred
  /// object, taken with its string value (`value()`) when a rule selects
  /// it and the text is a date in the usual form.
  template <class Value>
  [[gnu::always_inline]] bool raw_date(Open& o, CachedKey& c, char first,
                                       Value value, Flow& f);
  /// raw_key() for `c`, a key of o's clean shape just read, which has no
  /// backslash and which a date rule selects: live_null(), else
  /// raw_date().
  template <class Value>
  [[gnu::always_inline]] bool raw_live_key(Open& o, CachedKey& c, char first,
                                           const Value& value, Flow& f);
  /// raw_key() for a name it does not take as the next key of o's clean
  /// shape: a long name, raw_live_key(), or raw_later_key().
  template <class Value>
  [[gnu::noinline]] bool raw_other_key(Open& o, std::string_view raw,
                                       char first, const Value& value, Flow& f);
  /// raw_key() for a name that is not the next key of o's clean shape:
  /// taken when it is a later key, the ones between being absent from the
  /// object, which goes on following the shape. False, with the later key
  /// next or nothing changed, for the general way.
  template <class Value>
  bool raw_later_key(Open& o, std::string_view raw, char first,
                     const Value& value, Flow& f);
  /// Whether `raw`, with 16 bytes readable, has a backslash.
  [[gnu::always_inline]] static bool has_backslash(std::string_view raw);
  /// Whether `name` (plain) is the name of `c`, a key of `s`.
  static bool same_name(const Shape& s, const CachedKey& c,
                        std::string_view name);
  /// Sets `c`'s words for comparing with names read.
  static void set_words(CachedKey& c, std::string_view name);
  /// Takes `c`, the next key of the clean shape `o` follows, read as
  /// `name`: the tracker hears it (or is muted for its dead step), and it
  /// is held until its value shows whether the member stays.
  [[gnu::always_inline]] Flow hold_next(Open& o, CachedKey& c,
                                        std::string_view name);
  /// direct_key() for `c`, the next key of o's clean shape, read as
  /// `name`.
  [[gnu::always_inline]] Flow shaped_key(Open& o, CachedKey& c,
                                         std::string_view name, char first);
  /// shaped_key() for a key whose step is dead, or in a quiet object, or
  /// (with null rules) live but no date rule selects it: sent at once
  /// unless its value's first byte is among dead_holds_; then a null is
  /// dropped or takes its null rule's default, a container of a live key
  /// or a value not seen yet goes the general way.
  [[gnu::always_inline]] Flow dead_key(Open& o, CachedKey& c,
                                       std::string_view name, char first);
  /// For `c`, the next key of o's clean shape, read as `name`, which a date
  /// rule selects, and its value's first byte: takes the member (sets `f`,
  /// answers true) with a null, as dead_key(). Else answers false, and
  /// nothing is done.
  [[gnu::always_inline]] bool live_null(Open& o, CachedKey& c,
                                        std::string_view name, char first,
                                        Flow& f);
  /// dead_key() for a null that a null rule selects: the member with the
  /// rule's default as its value, for a null the reader passes over
  /// (Flow::skip when sent).
  [[gnu::noinline]] Flow default_member(Open& o, CachedKey& c);
  /// Sends `d`, a null rule's default, after the steps that follow
  /// NullDefaults in the chain.
  void send_default(const Value& d);
  /// direct_key() for a key of the shape that a date rule selects (kLive,
  /// kDeferred): live_null(), or a date of a deferred object held for
  /// string_date(); else the tracker hears the key, and the value goes the
  /// general way.
  [[gnu::noinline]] Flow live_member(Open& o, CachedKey& c,
                                     std::string_view name, char first);
  /// The tracker hears that the deferred object (the innermost) opened: it
  /// becomes a live one (kLive), for a key or value that needs the tracker.
  [[gnu::noinline]] void catch_up();
  /// begin_object() for an element of a records array (Open::records):
  /// when it follows the clean shape of the array's elements, in the
  /// context they are entered in, the tracker only counts it and it opens
  /// deferred, `f` set. Else false, and nothing is done.
  [[gnu::noinline]] bool open_record(Flow& f);
  /// on_key() for a plain name in an object without a shape, shorter for
  /// one that needs no renaming.
  Flow unshaped_key(std::string_view name);
  /// Sends a name as renamed (`renamed`: with KeyRenamer::kPadding).
  [[gnu::always_inline]] Flow send_name(std::string_view name, bool plain,
                                        bool renamed);
  /// Renames `name` and enters it in the tracker, through the cache.
  void find_key(std::string_view name, bool plain, Renamed& out);
  /// Whether `name` is that of `c`, a key of `s` (same_name() for a plain
  /// one).
  [[gnu::always_inline]] static bool is_key(const Shape& s, const CachedKey& c,
                                            std::string_view name, bool plain);
  /// For find_key(), a key of o's clean shape a little past the next one,
  /// named `name`: the members between are absent. Else null.
  [[gnu::noinline]] CachedKey* later_key(Open& o, std::string_view name,
                                         bool plain);
  /// find_key() for a key that is not the shape's next one.
  void find_new_key(Open& o, std::string_view name, bool plain, Renamed& out);
  /// The object stops following its shape at its current key.
  void diverge(Open& o);
  /// The object, which does not follow its shape, has too many keys to
  /// record: its keys go on as those of an object without a shape
  /// (unshaped_key()), and its members' values have no places.
  void abandon(Open& o);
  /// Opens the renamer's level for the innermost object (with the cache;
  /// without, every object has one).
  void renamer_level() {
    if (cache_ && !top_->renaming) open_renamer_level();
  }
  void open_renamer_level();
  // push_open() and pop_open() run for every container: inline, with
  // the rare work out of line.
  /// kInDirect: in open_direct(), where a container is open and the
  /// tracker is not live.
  template <bool kInDirect = false>
  [[gnu::always_inline]] void push_open(bool is_array);
  [[gnu::always_inline]] void pop_open();
  /// What closing a container does before the consumer hears of it (the
  /// close of drop-all, the cache and eager renamer levels): answers
  /// whether it was opened directly.
  [[gnu::always_inline]] bool close_open(bool is_array);
  /// The Open above top_ becomes the innermost, for a container (its
  /// fields but these are set by the caller). kInner: top_ is not null.
  template <bool kInner>
  [[gnu::always_inline]] Open& push_slot(bool is_array, bool direct_child);
  /// One more Open: the new one.
  Open* grow_open();
  /// push_open() for an object whose shape was recorded in another
  /// context of the tracker: it does not follow it (out of line, rare).
  [[gnu::noinline]] void unfollow(Open& o);
  /// The shape for an object at `place`, where *place is null or skipped
  /// for now: a new shape, or null.
  Shape* new_shape(Shape** place);
  /// pop_open() for an object that did not follow its shape: its keys
  /// become the shape.
  void reshape(Open& o);
  /// The tracker's context for the innermost object's members.
  PathTracker::Context context() const {
    return live_ != nullptr ? live_->context()
                            : PathTracker::Context{.dead = true, .masks = {}};
  }

  // Shapes kept at most; beyond, new places are not cached until the
  // document ends.
  static constexpr std::size_t kMaxShapes = 4096;
  // Keys of a shape at most: a larger object (a map keyed by ids, most
  // often) is not recorded beyond them (abandon()).
  static constexpr std::size_t kMaxShapeKeys = 1024;
  // In CachedKey::raw_size: a name raw_key() takes only with some values.
  static constexpr std::size_t kLiveName = std::size_t{1} << 40;
  // In CachedKey::raw_size: a name longer than raw_key() compares inline
  // (kShortName bytes), which raw_other_key() compares.
  static constexpr std::size_t kLongName = std::size_t{1} << 41;
  static constexpr std::size_t kShortName = 16;
  // raw_later_key(): the most members in a row an object may leave out
  // and still follow its shape.
  static constexpr std::ptrdiff_t kAbsentRun = 16;
  // keys_, tracker_, drop_ or numbers_on_, with a replayable tracker:
  // objects have shapes. (Dropping nulls or styling numbers alone needs no
  // renaming or replayed steps, but a key taken as the next one of a shape,
  // its written form copied, costs less than one scanned for escapes and
  // sent as read: kUnshaped.)
  bool cache_ = false;
  // Without the cache, each object opens its renamer level as it opens.
  bool eager_levels_ = false;
  std::deque<Shape> shapes_;  // stable addresses
  Shape* root_ = nullptr;
  std::vector<Open> open_;  // per open container, reused
  Open* opens_ = nullptr;   // open_.data() and its end
  Open* opens_end_ = nullptr;
  Open* top_ = nullptr;  // the innermost, or null
  std::uint64_t serial_ = 0;
  CachedKey* key_slot_ = nullptr;  // the last key's entry, or null
  bool key_checked_ = false;       // it needs no add_member()

  Next& next_;
  FusedOptions options_;
  bool items_apart_ = true;
  std::optional<DateFieldReader> date_reader_;
  // The tracker of the date rules (date_reader_'s), then the null rules.
  std::optional<PathTracker> tracker_;
  unsigned date_rules_ = 0;  // how many of its rules are date rules
  // The date rules' states that wait for a segment: where none is set, no
  // date rule selects a member.
  std::vector<std::uint64_t> date_waiting_;
  std::shared_ptr<const std::vector<NullDefault>> null_rules_;
  // What a null rule's default goes through: the steps after NullDefaults
  // in the chain, the date and null rules aside (they do not select in a
  // default).
  std::unique_ptr<FusedFeatures<Handler>> defaults_;
  // The tracker while a rule may select something, else null. A container
  // that opens where no rule can select anything below (most of the
  // nested objects of records) is quiet: the tracker takes it as one
  // value and hears nothing of what is inside; `quiet_` counts the
  // containers open from the outermost quiet one, except those opened
  // directly (which close before it).
  PathTracker* live_ = nullptr;
  std::size_t quiet_ = 0;
  // The tracker was not told of the member being read, the next key of
  // a shape where that key's step is dead; live_ is null until its value
  // ends.
  bool muted_ = false;
  std::optional<detail::KeyRenamer> keys_;
  std::optional<DateFormatter> date_writer_;
  // ISO texts at date paths are written at a fixed offset as a pattern
  // or ISO 8601: string_date() goes from the text to the formatted date.
  bool fast_dates_ = false;
  bool drop_ = false;      // --nulls=drop or drop-all
  bool drop_all_ = false;  // also null array elements
  NumberRules numbers_;
  bool numbers_on_ = false;  // numbers_.active()
  // Closing a container is pop_open() alone (cache_, no drop-all, no eager
  // levels).
  bool close_simple_ = false;
  // While dropping nulls, bits ('n' & 63) and ('\0' & 63): the first bytes
  // of the values for which direct_unshaped() holds or drops the key (other
  // bytes that set these bits are not values, and go that way too).
  std::uint64_t hold_firsts_ = 0;
  // Those for which dead_key() does not send the key at once: with null
  // rules, also a null, and a container, whose key may be live (then the
  // tracker must hear it).
  std::uint64_t dead_holds_ = 0;
  /// Whether a member whose value starts with `first` is held or dropped
  /// (hold_firsts_, or dead_holds_).
  [[gnu::always_inline]] static bool holds(std::uint64_t firsts, char first) {
    return ((firsts >> (static_cast<unsigned char>(first) & 63)) & 1) != 0;
  }
  bool stopped_ = false;    // the consumer said stop to a held key
  bool fast_keys_ = false;  // cache_ and not stopped_: on_key()'s fast path
  // The key held back until its value comes (and shows whether the
  // member stays): the next key of a clean shape, loose_, or key_
  // (general_key() holds one only while dropping nulls). release() then
  // writes it inline with the value.
  const CachedKey* held_ = nullptr;
  // A plain name kept as it is in an object without a shape, held: only
  // `out`, the name read, is set.
  CachedKey loose_;
  bool has_key_ = false;
  bool key_plain_ = false;
  // Direct values: in a container where no rule can select anything (the
  // tracker is not live), scalars go straight to the writer. In an object
  // there, a plain key whose value's first byte the JSON reader tells is
  // decided at once: dropped with its null value (the reader skips it), or
  // renamed, recorded and sent; keys that follow a clean shape or have no
  // shape take the short way. In an object where a rule may select
  // something, the keys of its clean shape that no rule selects in take
  // that way too, and the values after them. Only in front of the writers
  // the JSON reader calls the fused handler for directly, telling it those
  // first bytes: the JSON writer and the binary writers.
  static constexpr bool kDirect =
      detail::TakesDirectKeys<Next> || detail::TakesParsedNumbers<Next>;
  // direct_: off, on (an array, or an object with a shape), on in an
  // object without a shape, or on for some keys of a live object or the
  // scalars of a live array.
  // kLive: in an object with a shape where the tracker is live, for the
  // keys whose steps are dead; a container as such a member's value
  // mutes the tracker as on_key() does (then it is quiet).
  // kDeferred: kLive, but the tracker has not heard the object open. A
  // live object that follows a clean shape is deferred (when ISO dates are
  // formatted at a fixed offset): it is quiet for the tracker, as one
  // value, while its keys follow the shape and the members its rules
  // select are date strings, which the shape's steps tell; anything else
  // (another key, another value there) first catches the tracker up.
  // (In this order: raw_key() takes keys past kUnshaped, the three from
  // kUnshaped open their children directly, the last two are live, and so
  // is kLiveUnshaped, which does neither; scalars go direct from
  // kLiveUnshaped on.)
  // kLiveUnshaped: in an object without a shape where the tracker is
  // live, for a plain key with a scalar value that no date rule selects
  // (live_unshaped()); in a live array whose elements no rule selects
  // (scalar_elements_), for its scalars. It opens no container directly.
  // kCountedElements: such an array when there are date rules, whose
  // errors show paths with the elements' indices: its scalars leave the
  // direct way only to be counted, then go straight to the writer
  // (counted_scalar(); selected_rule() counts the parsed numbers and the
  // binary readers' scalars, which then take the general way).
  enum : std::uint8_t {
    kOff,
    kCountedElements,
    kLiveUnshaped,
    kUnshaped,
    kDirectValues,
    kDeferred,
    kLive
  };
  /// Whether a scalar goes straight to the writer.
  bool direct_scalar() const { return direct_ > kCountedElements; }
  /// Whether a container in the innermost one opens directly
  /// (open_direct()).
  bool opens_direct() const {
    return static_cast<unsigned>(direct_ - kUnshaped) <
           unsigned{kDeferred - kUnshaped + 1};
  }
  std::uint8_t direct_ = kOff;
  // A member left the direct way (leave_direct()): its value ends back in
  // the direct object, in this state.
  std::uint8_t resume_direct_ = kOff;
  // Objects may be deferred (kDirect, and fast_dates_ or only null rules).
  bool defer_ = false;
  // raw_key() may take a date with its key (raw_date()): objects are
  // deferred and their dates' texts formatted by format_iso_text().
  bool raw_dates_ = false;
  // The scalars of a live array whose elements no rule selects go direct
  // (kLiveUnshaped), uncounted by the tracker, or only counted
  // (kCountedElements) with date rules: without --nulls=drop-all, which
  // drops nulls from arrays.
  bool scalar_elements_ = false;
  // The held key of a deferred object whose value is a date: selected()
  // answers true for the string that comes next (then string_date()).
  const CachedKey* date_key_ = nullptr;
  Renamed key_;
  std::string key_copy_;        // the held key when it is not stable
  std::vector<bool> in_array_;  // per open container, for drop-all
};

extern template class FusedFeatures<Handler>;

}  // namespace jbx::transforms
