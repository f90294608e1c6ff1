#include "core/sort_keys.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>

namespace jbx {

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);
constexpr std::size_t kWord = sizeof(std::uint64_t);
// Objects of up to this many members are sorted in place.
constexpr std::size_t kInsertionSort = 32;

static_assert(std::is_trivially_copyable_v<Timestamp>);

}  // namespace

// -- recording

void SortKeys::grow(std::size_t n) {
  const std::size_t cap = std::max(2 * cap_, used_ + n + 4096);
  std::unique_ptr<char[]> bigger(new char[cap]);
  if (used_ != 0) std::memcpy(bigger.get(), tape_.get(), used_);
  tape_ = std::move(bigger);
  cap_ = cap;
}

void SortKeys::put_op(Op op) { *room(1) = static_cast<char>(op); }

void SortKeys::put_word(std::uint64_t w) {
  std::memcpy(room(kWord), &w, kWord);
}

void SortKeys::put_text(std::string_view s) {
  char* p = room(kWord + s.size());
  const std::uint64_t n = s.size();
  std::memcpy(p, &n, kWord);
  if (!s.empty()) std::memcpy(p + kWord, s.data(), s.size());
}

void SortKeys::put_text(Op op, std::string_view s) {
  char* p = room(1 + kWord + s.size());
  *p = static_cast<char>(op);
  const std::uint64_t n = s.size();
  std::memcpy(p + 1, &n, kWord);
  if (!s.empty()) std::memcpy(p + 1 + kWord, s.data(), s.size());
}

Flow SortKeys::open(Op op) {
  put_op(op);
  open_.push_back(used_);
  put_word(0);  // the end, set by close()
  return Flow::visit;
}

void SortKeys::close() {
  const std::uint64_t end = used_;
  std::memcpy(tape_.get() + open_.back(), &end, kWord);
  open_.pop_back();
}

Flow SortKeys::begin_object() {
  if (stopped_) return Flow::stop;
  if (open_.empty()) used_ = 0;
  return open(kObject);
}

Flow SortKeys::record_key(std::string_view name, Op op) {
  put_text(op, name);
  return Flow::visit;
}

Flow SortKeys::key(std::string_view name) { return record_key(name, kKey); }

Flow SortKeys::stable_key(std::string_view name) {
  return record_key(name, kFreeKey);
}

Flow SortKeys::escape_free_key(std::string_view name) {
  return record_key(name, kFreeKey);
}

void SortKeys::end_object() {
  close();
  if (!open_.empty()) return;
  // The outermost object: sorted and sent on. Throws what `next` throws.
  if (!send()) stopped_ = true;
}

Flow SortKeys::begin_array() {
  if (stopped_) return Flow::stop;
  if (open_.empty()) return next_.begin_array();
  return open(kArray);
}

void SortKeys::end_array() {
  if (open_.empty()) {
    next_.end_array();
    return;
  }
  close();
}

void SortKeys::null_value() {
  if (open_.empty()) return next_.null_value();
  put_op(kNull);
}

void SortKeys::bool_value(bool b) {
  if (open_.empty()) return next_.bool_value(b);
  put_op(b ? kTrue : kFalse);
}

void SortKeys::int_value(std::int64_t v) {
  if (open_.empty()) return next_.int_value(v);
  put_op(kInt);
  put_word(static_cast<std::uint64_t>(v));
}

void SortKeys::uint_value(std::uint64_t v) {
  if (open_.empty()) return next_.uint_value(v);
  put_op(kUint);
  put_word(v);
}

void SortKeys::double_value(double v) {
  if (open_.empty()) return next_.double_value(v);
  std::uint64_t w = 0;
  std::memcpy(&w, &v, kWord);
  put_op(kDouble);
  put_word(w);
}

void SortKeys::number_text(std::string_view t) {
  if (open_.empty()) return next_.number_text(t);
  put_text(kNumber, t);
}

void SortKeys::string_value(std::string_view s) {
  if (open_.empty()) return next_.string_value(s);
  put_text(kString, s);
}

void SortKeys::bytes_value(std::span<const std::uint8_t> b) {
  if (open_.empty()) return next_.bytes_value(b);
  put_text(kBytes, {reinterpret_cast<const char*>(b.data()), b.size()});
}

void SortKeys::timestamp_value(const Timestamp& t) {
  if (open_.empty()) return next_.timestamp_value(t);
  put_op(kTimestamp);
  Timestamp fixed = t;
  fixed.zone = {};
  std::memcpy(room(sizeof fixed), &fixed, sizeof fixed);
  put_text(t.zone);
}

void SortKeys::annotation(const Annotation& a) {
  if (open_.empty()) return next_.annotation(a);
  put_op(kAnnotation);
  *room(1) = static_cast<char>(a.kind);
  put_word(a.tag);
  put_text(a.name);
}

// -- sending

std::uint64_t SortKeys::word_at(std::size_t at) const {
  std::uint64_t w = 0;
  std::memcpy(&w, tape_.get() + at, kWord);
  return w;
}

std::string_view SortKeys::text_at(std::size_t& at) const {
  const auto n = static_cast<std::size_t>(word_at(at));
  const std::string_view s(tape_.get() + at + kWord, n);
  at += kWord + n;
  return s;
}

std::size_t SortKeys::skip_value(std::size_t at) const {
  for (;;) {
    const auto op = static_cast<Op>(tape_[at++]);
    switch (op) {
      case kObject:
      case kArray:
        return static_cast<std::size_t>(word_at(at));
      case kNull:
      case kFalse:
      case kTrue:
        return at;
      case kInt:
      case kUint:
      case kDouble:
        return at + kWord;
      case kNumber:
      case kString:
      case kBytes:
      case kKey:
      case kFreeKey:
        text_at(at);
        return at;
      case kTimestamp:
        at += sizeof(Timestamp);
        text_at(at);
        return at;
      case kAnnotation:
        at += 1 + kWord;
        text_at(at);
        break;  // then the value it annotates
    }
  }
}

void SortKeys::sort_members(std::size_t first) {
  const auto begin = members_.begin() + static_cast<std::ptrdiff_t>(first);
  const auto less = [](const Member& a, const Member& b) {
    return a.key < b.key;
  };
  const std::size_t n = members_.size() - first;
  if (n < 2) return;
  if (n > kInsertionSort) {
    std::stable_sort(begin, members_.end(), less);
    return;
  }
  // Most objects are small: insertion sort (stable too) needs no buffer.
  for (auto i = begin + 1; i < members_.end(); ++i) {
    if (!less(*i, *(i - 1))) continue;
    const Member m = *i;
    auto j = i;
    do {
      *j = *(j - 1);
      --j;
    } while (j != begin && less(m, *(j - 1)));
    *j = m;
  }
}

std::size_t SortKeys::send_value(std::size_t at) {
  for (;;) {
    const auto op = static_cast<Op>(tape_[at++]);
    switch (op) {
      case kObject: {
        const auto end = static_cast<std::size_t>(word_at(at));
        at += kWord;
        const Flow f = next_.begin_object();
        if (f == Flow::stop) return kNone;
        if (f == Flow::skip) return end;
        // Its members, sorted by key (stably: duplicates keep their
        // order), are sent as send() comes to them.
        const std::size_t first = members_.size();
        while (at < end) {
          const bool free = tape_[at] == kFreeKey;
          ++at;
          const std::string_view k = text_at(at);
          members_.push_back(Member{k, at, free});
          at = skip_value(at);
        }
        sort_members(first);
        frames_.push_back(Frame{end, first, first, members_.size(), true});
        return end;
      }
      case kArray: {
        const auto end = static_cast<std::size_t>(word_at(at));
        at += kWord;
        const Flow f = next_.begin_array();
        if (f == Flow::stop) return kNone;
        if (f == Flow::skip) return end;
        frames_.push_back(Frame{end, at, 0, 0, false});
        return end;
      }
      case kNull:
        next_.null_value();
        return at;
      case kFalse:
      case kTrue:
        next_.bool_value(op == kTrue);
        return at;
      case kInt:
        next_.int_value(static_cast<std::int64_t>(word_at(at)));
        return at + kWord;
      case kUint:
        next_.uint_value(word_at(at));
        return at + kWord;
      case kDouble: {
        const std::uint64_t w = word_at(at);
        double d = 0;
        std::memcpy(&d, &w, kWord);
        next_.double_value(d);
        return at + kWord;
      }
      case kNumber:
        next_.number_text(text_at(at));
        return at;
      case kString:
        next_.string_value(text_at(at));
        return at;
      case kBytes: {
        const std::string_view b = text_at(at);
        next_.bytes_value(
            {reinterpret_cast<const std::uint8_t*>(b.data()), b.size()});
        return at;
      }
      case kTimestamp: {
        Timestamp t;
        std::memcpy(&t, tape_.get() + at, sizeof t);
        at += sizeof t;
        t.zone = text_at(at);
        next_.timestamp_value(t);
        return at;
      }
      case kAnnotation: {
        Annotation a;
        a.kind = static_cast<Annotation::Kind>(tape_[at]);
        a.tag = word_at(at + 1);
        at += 1 + kWord;
        a.name = text_at(at);
        next_.annotation(a);
        break;  // then the value it annotates
      }
      case kKey:
      case kFreeKey:
        break;  // (never a value: send() reads keys)
    }
  }
}

bool SortKeys::send() {
  // An explicit stack of open containers: documents may nest deeper than
  // the machine's stack allows.
  frames_.clear();
  members_.clear();
  if (send_value(0) == kNone) return false;
  while (!frames_.empty()) {
    const std::size_t index = frames_.size() - 1;
    Frame& top = frames_.back();
    std::size_t at = kNone;
    if (top.object) {
      if (top.next == top.last) {
        // Its members were the last on members_ (an inner object's are
        // dropped as it ends).
        members_.resize(top.first);
        frames_.pop_back();
        next_.end_object();
        continue;
      }
      const Member m = members_[top.next++];
      const Flow kf =
          m.escape_free ? next_.escape_free_key(m.key) : next_.key(m.key);
      if (kf == Flow::stop) return false;
      if (kf == Flow::skip) continue;
      at = m.value;
    } else {
      if (top.next == top.end) {
        next_.end_array();
        frames_.pop_back();
        continue;
      }
      at = top.next;
    }
    // (send_value() may push a frame: `top` is not used after it.)
    const std::size_t end = send_value(at);
    if (end == kNone) return false;
    // An element's end is where the next element starts.
    if (!frames_[index].object) frames_[index].next = end;
  }
  return true;
}

}  // namespace jbx
