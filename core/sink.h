// Where output bytes go: a buffered file descriptor (stdout), an atomic
// replacement of a file (write a temporary beside it, rename on commit), or
// memory (tests, per-document buffering). Writers append through the inline
// fast path; flushing happens in large blocks.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace jbx {

class Sink {
 public:
  virtual ~Sink() = default;

  void write(std::string_view s) {
    if (s.size() > static_cast<std::size_t>(end_ - cur_)) {
      write_slow(s);
      return;
    }
    if (!s.empty()) {  // an empty view may carry a null data()
      std::memcpy(cur_, s.data(), s.size());
      cur_ += s.size();
    }
  }
  void put(char c) {
    if (cur_ == end_) make_room(1);
    *cur_++ = c;
  }
  /// Returns a pointer to at least `n` writable bytes; advance with commit.
  [[gnu::always_inline]] char* reserve(std::size_t n) {
    if (static_cast<std::size_t>(end_ - cur_) < n) make_room(n);
    return cur_;
  }
  void commit(char* new_cur) { cur_ = new_cur; }

  /// Marks where the next document starts. A sink that supports it (stdout)
  /// then holds that document's bytes back, up to a few MiB, until the next
  /// mark or flush, so that drop_document() can take a half-written one
  /// back after an error.
  void mark_document() { doc_ = cur_; }
  /// Removes what was written since mark_document(); false when none was
  /// marked or part of it has already gone out.
  bool drop_document() {
    if (doc_ == nullptr) return false;
    cur_ = doc_;
    return true;
  }

  /// Writes buffered bytes out. Throws Error(io), or BrokenPipe on EPIPE.
  virtual void flush() = 0;
  /// Display name for errors: "<stdout>", the target path.
  virtual const std::string& name() const = 0;

 protected:
  /// Ensures room for n more bytes, flushing or growing the buffer.
  virtual void make_room(std::size_t n) = 0;
  /// Writes `s`, which does not fit in the room left, after what is
  /// buffered, without copying it into the buffer; false when the sink
  /// cannot (then write() copies it in, a buffer at a time).
  virtual bool write_through(std::string_view s) {
    static_cast<void>(s);
    return false;
  }
  void write_slow(std::string_view s);

  char* begin_ = nullptr;
  char* cur_ = nullptr;
  char* end_ = nullptr;
  char* doc_ = nullptr;  // start of the current document, if marked
};

/// Frees a sink's buffer: from new[], or a huge_block() of `huge_len`.
struct BufferFree {
  std::size_t huge_len = 0;
  void operator()(char* p) const;
};
using SinkBuffer = std::unique_ptr<char, BufferFree>;

/// Buffered writes to a file descriptor it does not own (stdout).
class FdSink final : public Sink {
 public:
  FdSink(int fd, std::string name);
  ~FdSink() override;
  void flush() override;
  const std::string& name() const override { return name_; }

 protected:
  void make_room(std::size_t n) override;
  bool write_through(std::string_view s) override;

 private:
  /// Moves the `held` bytes at doc_ to a buffer of the hold limit.
  void grow_held(std::size_t held);

  int fd_;
  std::string name_;
  SinkBuffer buf_;
  std::size_t cap_;
};

/// Grows in memory; `data()` is everything written.
class StringSink final : public Sink {
 public:
  StringSink();
  void flush() override {}
  const std::string& name() const override { return name_; }
  std::string_view data() const {
    return {buf_.data(), static_cast<std::size_t>(cur_ - begin_)};
  }
  void clear() {
    cur_ = begin_;
    if (doc_ != nullptr) doc_ = begin_;
  }
  /// Room for `n` bytes in all, so that writing them grows nothing.
  void reserve(std::size_t n) {
    const auto used = static_cast<std::size_t>(cur_ - begin_);
    if (n > used && static_cast<std::size_t>(end_ - cur_) < n - used) {
      make_room(n - used);
    }
  }

 protected:
  void make_room(std::size_t n) override;

 private:
  std::string buf_;
  std::string name_ = "<memory>";
};

/// Replaces `target` atomically: bytes go to a temporary file in the same
/// directory, created with the target's mode (0666 & ~umask for a new file);
/// commit() flushes, fsyncs and renames it over the target. Destroyed
/// without commit(), it removes the temporary and leaves the target as it
/// was. A symbolic link is followed: the file it names is replaced. A target
/// that exists and is not a regular file (/dev/null, a FIFO) is opened and
/// written in place, as a shell redirection would, and a name of one of the
/// process's descriptors (/dev/stdout, /dev/stderr, /dev/fd/N,
/// /proc/self/fd/N) is written through that descriptor, whatever it has
/// open. Throws Error(io) naming the target.
class AtomicFileSink final : public Sink {
 public:
  explicit AtomicFileSink(std::string target);
  ~AtomicFileSink() override;
  void flush() override;
  const std::string& name() const override { return target_; }
  void commit();

 protected:
  void make_room(std::size_t n) override;
  bool write_through(std::string_view s) override;

 private:
  std::string target_;
  std::string temp_;
  std::string replaced_;  // the regular file rename() replaces
  int fd_ = -1;
  bool direct_ = false;  // written in place: a device, FIFO or socket
  bool committed_ = false;
  std::unique_ptr<char[]> buf_;
  std::size_t cap_;
};

}  // namespace jbx
