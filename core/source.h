// Where input bytes come from: a file (mapped, or read whole) or stdin. A
// Source knows its display name so every error can say FILE:LINE:COL or
// FILE@OFFSET. Not for output (see sink.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace jbx {

class Source {
 public:
  /// Zeroed bytes readable after the end of whole(): simdjson needs 64.
  static constexpr std::size_t kPadding = 64;

  /// Opens `path`; "-" means stdin. Throws Error(io) naming the file.
  static std::unique_ptr<Source> open(const std::string& path);
  /// An in-memory input, for tests and for decoded sub-documents.
  static std::unique_ptr<Source> from_memory(std::string name,
                                             std::string data);

  ~Source();
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;

  /// "<stdin>" or the path as the user wrote it.
  const std::string& name() const { return name_; }
  /// The path as given, "" for stdin and memory.
  const std::string& path() const { return path_; }
  bool is_stdin() const { return fd_ == 0 && path_.empty(); }
  /// Size when known up front (regular files, memory), else -1.
  std::int64_t size_hint() const { return size_hint_; }

  /// Up to `n` first bytes without consuming them (content sniffing).
  std::string_view peek(std::size_t n);

  /// The whole input, followed by kPadding readable zero bytes. A regular
  /// file is mapped; a pipe is read to its end. Stays valid as long as the
  /// Source. Throws Error(io).
  std::string_view whole();

  /// Streaming access: reads up to `n` bytes, returns 0 at the end. Bytes
  /// seen by peek() are delivered first. Do not mix with whole().
  std::size_t read(char* buf, std::size_t n);

 private:
  Source() = default;
  void fill_peek(std::size_t n);

  std::string name_;
  std::string path_;
  int fd_ = -1;
  bool owns_fd_ = false;
  std::int64_t size_hint_ = -1;
  std::string pending_;  // peeked, not yet consumed by read()
  std::size_t pending_pos_ = 0;
  std::string memory_;  // in-memory data or pipe contents, padded
  bool have_memory_ = false;
  void* map_ = nullptr;
  std::size_t map_len_ = 0;
  std::string_view whole_;
  bool have_whole_ = false;
};

}  // namespace jbx
