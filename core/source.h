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

  /// Declares, before whole(), that the whole input will be read front to
  /// back with passed() calls: a mapped file is not read in at once but
  /// ahead of the reader, and given back behind it.
  void read_in_order() { in_order_ = true; }
  /// For whole() after read_in_order(): the reader is at byte `offset` and
  /// needs nothing before it. Pages before it go back to the page cache
  /// (read back in should anything touch them again), the next ones are
  /// read in. `offset` must not decrease. Nothing for other inputs.
  void passed(std::uint64_t offset);
  /// For window() of a mapped file, in the middle of a document: the pages
  /// before `offset` go back to the page cache (read back in should
  /// anything touch them again), as window(offset) would, while every
  /// view into the file stays valid; the next ones are left to fault in
  /// where they are read (a second thread may read them). Nothing for
  /// other inputs.
  void give_back(std::uint64_t offset);
  /// For whole() after read_in_order(), from any thread: copies bytes
  /// [offset, offset + n) of the mapped file to buf by reading the file,
  /// which costs less than a first touch of each page of the mapping and
  /// maps nothing ahead of the reader. Returns how many it copied: fewer
  /// at the end or on a read error, 0 for other inputs.
  std::size_t copy_mapped(std::uint64_t offset, char* buf, std::size_t n) const;

  /// Streaming access: reads up to `n` bytes, returns 0 at the end. Bytes
  /// seen by peek() are delivered first. Do not mix with whole().
  std::size_t read(char* buf, std::size_t n);
  /// Whether read() would return at once: bytes are waiting, or the input
  /// has ended. (For a pipe: what a writer has written and not yet been
  /// read.)
  bool ready();

  /// Sequential access for readers of document sequences, in memory that
  /// does not grow with the input: the input from byte `offset` on, as far
  /// as it is loaded, followed by kPadding readable zero bytes. A regular
  /// file is mapped and loaded whole; a pipe is loaded by load_more().
  /// Bytes before `offset` are given up: a mapped file's pages go back to
  /// the page cache, a pipe's buffer drops them. `offset` must not
  /// decrease from one call to the next, and nothing may still point into
  /// the given-up bytes. The view is valid until the next call of window()
  /// or load_more(). Do not mix with whole() or read(). Throws Error(io).
  std::string_view window(std::uint64_t offset);
  /// Reads more of a pipe after the window, at least doubling what it
  /// holds; false at the end of the input (at once for a file or memory,
  /// which window() loads whole).
  bool load_more();
  /// True when window() reaches the end of the input.
  bool all_loaded() const { return map_ != nullptr || stream_eof_; }
  /// window(offset), loaded until `is_whole(view)` says the view starts with
  /// a whole document, or to the end of the input.
  template <class IsWhole>
  std::string_view document_window(std::uint64_t offset, IsWhole is_whole) {
    std::string_view w = window(offset);
    while (!all_loaded() && (w.empty() || !is_whole(w))) {
      load_more();
      w = window(offset);
    }
    return w;
  }

 private:
  Source() = default;
  void fill_peek(std::size_t n);
  // A mapped file's pages: given back behind `offset`, and with
  // read_ahead read in ahead of it.
  void advance_map(std::size_t offset, bool read_ahead = true);
  // A pipe's bytes in memory_, without the padding after them.
  std::size_t loaded() const {
    return memory_.empty() ? 0 : memory_.size() - kPadding;
  }

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
  // window(): what a mapped file has given back; for a pipe, the offset of
  // memory_'s first byte and whether the pipe is read to its end.
  std::size_t released_ = 0;
  std::size_t populated_ = 0;
  std::uint64_t memory_base_ = 0;
  bool windowed_ = false;
  bool in_order_ = false;
  bool stream_eof_ = false;
};

}  // namespace jbx
