// The document buffer of the binary writers, which hold a document until it
// ends because container heads carry counts. Appending is one bounds check
// and a copy; the storage is not zero-filled, and is kept across documents.
//
// The appending members are always inlined: the JSON reader's walk, which
// calls the writers' inline events, is compiled once per CPU kernel, and an
// out-of-line copy built for AVX2 must not become the one every caller links
// to. Growth is out of line (byte_buffer.cpp) for the same reason.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

namespace jbx {

namespace detail {

/// Copies n <= 32 bytes without reading or writing past them: two
/// overlapping moves of the largest power of two that fits, as memcpy does
/// for small sizes, but without the call.
[[gnu::always_inline]] inline char* copy_short(char* p, const char* s,
                                               std::size_t n) {
  if (n >= 16) {
    std::memcpy(p, s, 16);
    std::memcpy(p + n - 16, s + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(p, s, 8);
    std::memcpy(p + n - 8, s + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(p, s, 4);
    std::memcpy(p + n - 4, s + n - 4, 4);
  } else if (n > 0) {
    p[0] = s[0];
    p[n / 2] = s[n / 2];
    p[n - 1] = s[n - 1];
  }
  return p + n;
}

/// Whether JSON writes `s` as it is between quotes: it holds no '"', '\\'
/// or control character.
inline bool escape_free(std::string_view s) {
  return std::none_of(s.begin(), s.end(), [](char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
  });
}

/// A text whose storage may be read this many bytes from its start (the
/// JSON reader's padded input) is copied in one block when not longer.
inline constexpr std::size_t kWordCopy = 32;

/// Copies `s` to p, which has room for s.size() + kWordCopy bytes; `padded`
/// says s may be read kWordCopy bytes from its start. Bytes past the text
/// may be overwritten: the caller's next write goes there.
[[gnu::always_inline]] inline char* copy_text(char* p, std::string_view s,
                                              bool padded) {
  if (s.size() > kWordCopy) {
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
  }
  if (padded) {
    std::memcpy(p, s.data(), kWordCopy);
    return p + s.size();
  }
  return copy_short(p, s.data(), s.size());
}

/// Stores v big-endian at p.
[[gnu::always_inline]] inline void store_be16(char* p, std::uint16_t v) {
  v = __builtin_bswap16(v);
  std::memcpy(p, &v, 2);
}
[[gnu::always_inline]] inline void store_be32(char* p, std::uint32_t v) {
  v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}
[[gnu::always_inline]] inline void store_be64(char* p, std::uint64_t v) {
  v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}

}  // namespace detail

class ByteBuffer {
 public:
  std::size_t size() const {
    return static_cast<std::size_t>(cur_ - data_.get());
  }
  bool empty() const { return cur_ == data_.get(); }
  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  std::string_view view() const { return {data_.get(), size()}; }
  char& operator[](std::size_t i) { return data_[i]; }
  char operator[](std::size_t i) const { return data_[i]; }

  /// Appends `n` bytes the caller fills in; returns where they start.
  [[gnu::always_inline]] char* grow(std::size_t n) {
    if (static_cast<std::size_t>(end_ - cur_) < n) grow_slow(n);
    char* p = cur_;
    cur_ += n;
    return p;
  }
  /// Room for `n` more bytes, not yet part of the buffer: the caller may
  /// write past what it keeps (a whole-block copy) and commit() the end.
  [[gnu::always_inline]] char* room(std::size_t n) {
    if (static_cast<std::size_t>(end_ - cur_) < n) grow_slow(n);
    return cur_;
  }
  /// Ends the buffer at `end`, at most n past what room(n) returned.
  [[gnu::always_inline]] void commit(char* end) { cur_ = end; }
  [[gnu::always_inline]] void push_back(char c) { *grow(1) = c; }
  [[gnu::always_inline]] void append(std::string_view s) {
    if (!s.empty()) std::memcpy(grow(s.size()), s.data(), s.size());
  }
  void append(const char* p, std::size_t n) { append(std::string_view(p, n)); }
  /// Drops the bytes from `n` on (n <= size()).
  void truncate(std::size_t n) { cur_ = data_.get() + n; }
  void clear() { cur_ = data_.get(); }
  /// Drops the first `n` bytes (n <= size()), moving the rest to the front.
  void drop_front(std::size_t n) {
    if (n == 0) return;
    const std::size_t rest = size() - n;
    std::memmove(data_.get(), data_.get() + n, rest);
    cur_ = data_.get() + rest;
  }
  /// Makes room for `total` bytes in all, in one allocation: a writer told
  /// the input's size avoids the copies (and, for large documents, the
  /// fresh pages) of growing step by step.
  void reserve(std::size_t total) {
    if (total > static_cast<std::size_t>(end_ - data_.get())) {
      reallocate(total);
    }
  }
  /// Inserts `s` at `pos`, moving what follows.
  void insert(std::size_t pos, std::string_view s) {
    const std::size_t tail = size() - pos;
    grow(s.size());
    char* base = data_.get();
    std::memmove(base + pos + s.size(), base + pos, tail);
    std::memcpy(base + pos, s.data(), s.size());
  }

 private:
  void grow_slow(std::size_t n);
  void reallocate(std::size_t cap);

  // The bytes are [data_, cur_), the storage [data_, end_): pointers rather
  // than sizes, so that an append computes no address.
  std::unique_ptr<char[]> data_;
  char* cur_ = nullptr;
  char* end_ = nullptr;
};

}  // namespace jbx
