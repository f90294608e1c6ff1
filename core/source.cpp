#include "core/source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "core/error.h"

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
  if (map_ != nullptr) munmap(map_, map_len_);
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

void Source::fill_peek(std::size_t n) {
  while (fd_ >= 0 && pending_.size() - pending_pos_ < n) {
    char buf[65536];
    const ssize_t got = ::read(fd_, buf, sizeof buf);
    if (got < 0) {
      if (errno == EINTR) continue;
      io_error(name_, "cannot read");
    }
    if (got == 0) break;
    pending_.append(buf, static_cast<std::size_t>(got));
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
    // one per few pages); a huge one is left to fault in as it is read.
    const int populate = size <= kPopulateLimit ? MAP_POPULATE : 0;
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
      for (;;) {
        const std::size_t old = data.size();
        data.resize(old + (1u << 20));
        const std::size_t got = read(data.data() + old, 1u << 20);
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

}  // namespace jbx
