#include "core/source.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "core/error.h"
#include "core/huge_block.h"

namespace jbx {

namespace {

[[noreturn]] void io_error(const std::string& name, const char* what) {
  Error e(Errc::io, std::string(what) + ": " + std::strerror(errno));
  e.input = name;
  throw e;
}

std::size_t page_round(std::size_t n) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}

// Files are mapped with their pages populated at once. (Reading a file
// into a block of fresh huge pages instead, tried on a virtual machine,
// lost to the mapping at every size from 1 MB to 180 MB: fresh memory is
// what costs there, and a mapping reuses the page cache.)
// Beyond this a file is mapped and faulted in as it is read, so that an
// input larger than memory still works.
constexpr std::size_t kPopulateLimit = std::size_t{256} << 20;

// window(): pages of a mapped file are given back in steps of this size
// (one madvise per step).
constexpr std::size_t kReleaseStep = std::size_t{4} << 20;
// window() on a pipe: load_more() reads kFirstRead bytes first, then at
// least kWindowChunk at a time, and bytes behind the window are dropped
// once more than this many.
constexpr std::size_t kWindowChunk = std::size_t{1} << 20;
// whole() on a pipe reads kFirstRead bytes first, then kRead at a time. A
// short input then pays for a small buffer only (zeroed and faulted in
// before it is read into), not for a whole step of the larger size.
constexpr std::size_t kFirstRead = std::size_t{64} << 10;
constexpr std::size_t kRead = std::size_t{1} << 20;

}  // namespace

std::unique_ptr<Source> Source::open(const std::string& path) {
  std::unique_ptr<Source> s(new Source());
  if (path == "-") {
    s->name_ = "<stdin>";
    s->fd_ = 0;
  } else {
    s->name_ = path;
    s->path_ = path;
    s->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (s->fd_ < 0) io_error(path, "cannot open");
    s->owns_fd_ = true;
  }
  struct stat st {};
  if (fstat(s->fd_, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      errno = EISDIR;
      io_error(s->name_, "cannot read");
    }
    if (S_ISREG(st.st_mode)) s->size_hint_ = st.st_size;
  }
  return s;
}

std::unique_ptr<Source> Source::from_memory(std::string name,
                                            std::string data) {
  std::unique_ptr<Source> s(new Source());
  s->name_ = std::move(name);
  s->size_hint_ = static_cast<std::int64_t>(data.size());
  s->pending_ = std::move(data);
  s->have_memory_ = true;
  return s;
}

Source::~Source() {
  if (map_ != nullptr) release_mapping(map_, map_len_);
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

void Source::fill_peek(std::size_t n) {
  // A page at a time, straight into pending_: a file is mapped after the
  // peek (whole()), so reading more would copy bytes for nothing and touch
  // fresh pages for them, a fault each, a good part of a small run.
  constexpr std::size_t kStep = 4096;
  while (fd_ >= 0 && pending_.size() - pending_pos_ < n) {
    const std::size_t had = pending_.size();
    pending_.resize(had + kStep);
    const ssize_t got = ::read(fd_, pending_.data() + had, kStep);
    const int err = errno;
    pending_.resize(had + static_cast<std::size_t>(std::max<ssize_t>(got, 0)));
    if (got < 0) {
      if (err == EINTR) continue;
      errno = err;
      io_error(name_, "cannot read");
    }
    if (got == 0) break;
  }
}

std::string_view Source::peek(std::size_t n) {
  if (have_whole_) return whole_.substr(0, n);
  fill_peek(n);
  std::string_view p(pending_);
  p.remove_prefix(pending_pos_);
  return p.substr(0, n);
}

std::size_t Source::read(char* buf, std::size_t n) {
  if (pending_pos_ < pending_.size()) {
    const std::size_t k = std::min(n, pending_.size() - pending_pos_);
    std::memcpy(buf, pending_.data() + pending_pos_, k);
    pending_pos_ += k;
    if (pending_pos_ == pending_.size()) {
      pending_.clear();
      pending_.shrink_to_fit();
      pending_pos_ = 0;
    }
    return k;
  }
  if (fd_ < 0) return 0;
  for (;;) {
    const ssize_t got = ::read(fd_, buf, n);
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno != EINTR) io_error(name_, "cannot read");
  }
}

bool Source::ready() {
  if (pending_pos_ < pending_.size() || fd_ < 0) return true;
  pollfd p{fd_, POLLIN, 0};
  for (;;) {
    const int n = poll(&p, 1, 0);
    if (n >= 0) return n > 0;
    if (errno != EINTR) return true;  // read() will say what is wrong
  }
}

std::string_view Source::whole() {
  if (have_whole_) return whole_;
  const bool untouched = pending_pos_ == 0;
  if (!have_memory_ && untouched && size_hint_ > 0) {
    // Map the file and, right after it, anonymous zero pages, so the
    // kPadding bytes past the end are readable without copying the file.
    const auto size = static_cast<std::size_t>(size_hint_);
    map_len_ = page_round(size + kPadding);
    void* area =
        mmap(nullptr, map_len_, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED) io_error(name_, "cannot map");
    // Small and medium files are read in at once (one fault instead of
    // one per few pages); a huge one is left to fault in as it is read,
    // and so is one read through window(), which reads it in by steps.
    const int populate =
        size <= kPopulateLimit && !windowed_ && !in_order_ ? MAP_POPULATE : 0;
    void* file =
        mmap(area, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | populate, fd_, 0);
    if (file == MAP_FAILED) {
      munmap(area, map_len_);
      io_error(name_, "cannot map");
    }
    map_ = area;
    madvise(map_, size, MADV_SEQUENTIAL);
    whole_ = std::string_view(static_cast<const char*>(map_), size);
    pending_.clear();
  } else {
    // A pipe, an in-memory input or an empty file: read it to its end.
    std::string data = pending_.substr(pending_pos_);
    pending_.clear();
    pending_pos_ = 0;
    if (fd_ >= 0) {
      for (std::size_t step = kFirstRead;; step = kRead) {
        const std::size_t old = data.size();
        data.resize(old + step);
        const std::size_t got = read(data.data() + old, step);
        data.resize(old + got);
        if (got == 0) break;
      }
    }
    memory_ = std::move(data);
    const std::size_t len = memory_.size();
    memory_.append(kPadding, '\0');
    whole_ = std::string_view(memory_.data(), len);
  }
  have_whole_ = true;
  return whole_;
}

std::string_view Source::window(std::uint64_t offset) {
  if (!windowed_) {
    windowed_ = true;
    // A regular file is mapped whole: its pages are read in as the reader
    // gets to them and given back behind it.
    if (!have_memory_ && pending_pos_ == 0 && size_hint_ > 0) whole();
    if (have_memory_) {
      whole();
      stream_eof_ = true;
    }
  }
  if (map_ != nullptr) {
    advance_map(static_cast<std::size_t>(offset));
    return whole_.substr(static_cast<std::size_t>(offset));
  }
  if (have_memory_) return whole_.substr(static_cast<std::size_t>(offset));
  // A pipe: memory_ holds the bytes from memory_base_ on, then kPadding
  // zeros. Bytes before `offset` are dropped once they are most of it.
  const auto skip = static_cast<std::size_t>(offset - memory_base_);
  if (skip > kWindowChunk && skip > loaded() / 2) {
    memory_.erase(0, skip);
    memory_base_ = offset;
  }
  if (memory_.empty()) return {};
  const std::size_t from = static_cast<std::size_t>(offset - memory_base_);
  return std::string_view(memory_.data() + from, loaded() - from);
}

void Source::passed(std::uint64_t offset) {
  if (in_order_ && map_ != nullptr) {
    advance_map(static_cast<std::size_t>(
        std::min<std::uint64_t>(offset, whole_.size())));
  }
}

void Source::give_back(std::uint64_t offset) {
  if (windowed_ && map_ != nullptr) {
    advance_map(static_cast<std::size_t>(
                    std::min<std::uint64_t>(offset, whole_.size())),
                false);
  }
}

std::size_t Source::copy_mapped(std::uint64_t offset, char* buf,
                                std::size_t n) const {
  // (map_ and in_order_ are set before the reader reads ahead; pread does
  // not move the file's offset.)
  if (!in_order_ || map_ == nullptr || fd_ < 0) return 0;
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r =
        pread(fd_, buf + got, n - got, static_cast<off_t>(offset + got));
    if (r > 0) {
      got += static_cast<std::size_t>(r);
    } else if (r == 0 || errno != EINTR) {
      break;
    }
  }
  return got;
}

void Source::advance_map(std::size_t offset, bool read_ahead) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t keep = offset / page * page;
  // Read in from where the reader is: it may have read what it passed
  // another way (copy_mapped()).
  populated_ = std::max(populated_, keep);
  if (read_ahead && keep + kReleaseStep > populated_ &&
      populated_ < whole_.size()) {
    // The next steps' pages in one call, not a fault per few pages
    // (Linux 5.14 on; before that they fault in as they are read).
    const std::size_t n =
        std::min(2 * kReleaseStep, page_round(whole_.size()) - populated_);
    madvise(static_cast<char*>(map_) + populated_, n, MADV_POPULATE_READ);
    populated_ += n;
  }
  if (keep >= released_ + kReleaseStep) {
    // Clean file pages: dropped from this process, still in the page
    // cache, read back in should anything touch them again.
    madvise(static_cast<char*>(map_) + released_, keep - released_,
            MADV_DONTNEED);
    released_ = keep;
  }
}

bool Source::load_more() {
  if (!windowed_) window(0);
  if (map_ != nullptr || have_memory_ || stream_eof_) return false;
  const std::size_t before = loaded();
  // The first load is short, as whole()'s first read; then the loaded
  // part at least doubles.
  const std::size_t target =
      before + std::max(before, before == 0 ? kFirstRead : kWindowChunk);
  std::size_t end = before;
  memory_.resize(target + kPadding);
  while (end < target) {
    const std::size_t got = read(memory_.data() + end, target - end);
    if (got == 0) {
      stream_eof_ = true;
      break;
    }
    end += got;
  }
  memory_.resize(end);
  memory_.append(kPadding, '\0');
  return end > before;
}

}  // namespace jbx
