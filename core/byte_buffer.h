// The document buffer of the binary writers, which hold a document until it
// ends because container heads carry counts. Appending is one bounds check
// and a copy; the storage is not zero-filled, and is kept across documents.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace jbx {

class ByteBuffer {
 public:
  std::size_t size() const { return len_; }
  bool empty() const { return len_ == 0; }
  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  std::string_view view() const { return {data_.get(), len_}; }
  char& operator[](std::size_t i) { return data_[i]; }
  char operator[](std::size_t i) const { return data_[i]; }

  /// Appends `n` bytes the caller fills in; returns where they start.
  char* grow(std::size_t n) {
    if (cap_ - len_ < n) grow_slow(n);
    char* p = data_.get() + len_;
    len_ += n;
    return p;
  }
  void push_back(char c) { *grow(1) = c; }
  void append(std::string_view s) {
    if (!s.empty()) std::memcpy(grow(s.size()), s.data(), s.size());
  }
  void append(const char* p, std::size_t n) { append(std::string_view(p, n)); }
  /// Drops the bytes from `n` on (n <= size()).
  void truncate(std::size_t n) { len_ = n; }
  void clear() { len_ = 0; }
  /// Makes room for `total` bytes in all, in one allocation: a writer told
  /// the input's size avoids the copies (and, for large documents, the
  /// fresh pages) of growing step by step.
  void reserve(std::size_t total) {
    if (total > cap_) reallocate(total);
  }
  /// Inserts `s` at `pos`, moving what follows.
  void insert(std::size_t pos, std::string_view s) {
    const std::size_t tail = len_ - pos;
    grow(s.size());
    char* base = data_.get();
    std::memmove(base + pos + s.size(), base + pos, tail);
    std::memcpy(base + pos, s.data(), s.size());
  }

 private:
  void grow_slow(std::size_t n) {
    reallocate(std::max(cap_ == 0 ? std::size_t{4096} : cap_ * 2, len_ + n));
  }
  void reallocate(std::size_t cap) {
    // Large buffers in whole 2 MiB units, which the allocator can place on
    // transparent huge pages: one page fault per 2 MiB written instead of
    // one per 4 KiB. Untouched capacity costs address space only.
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    if (cap >= kHuge / 2) cap = (cap + kHuge - 1) & ~(kHuge - 1);
    // Default-initialised: new bytes are written before they are read.
    std::unique_ptr<char[]> bigger(new char[cap]);
    if (len_ > 0) std::memcpy(bigger.get(), data_.get(), len_);
    data_ = std::move(bigger);
    cap_ = cap;
  }

  std::unique_ptr<char[]> data_;
  std::size_t len_ = 0;
  std::size_t cap_ = 0;
};

}  // namespace jbx
