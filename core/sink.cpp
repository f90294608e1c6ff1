#include "core/sink.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "core/error.h"
#include "core/huge_block.h"

namespace jbx {

namespace {

constexpr std::size_t kBlock = 1u << 18;  // 256 KiB: few syscalls, in cache
// The most of one document stdout holds back (Sink::mark_document).
constexpr std::size_t kHoldLimit = std::size_t{4} << 20;
// Writes this large skip the buffer when it is full (Sink::write_through).
constexpr std::size_t kWriteThrough = kBlock / 4;

[[noreturn]] void io_error(const std::string& name, const char* what, int err) {
  Error e(Errc::io, std::string(what) + ": " + std::strerror(err));
  e.input = name;
  throw e;
}

void write_all(int fd, const char* p, std::size_t n, const std::string& name) {
  while (n > 0) {
    const ssize_t k = ::write(fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) throw BrokenPipe();
      io_error(name, "cannot write", errno);
    }
    p += k;
    n -= static_cast<std::size_t>(k);
  }
}

}  // namespace

void Sink::write_slow(std::string_view s) {
  // A binary writer hands over a whole document, or a large part of one,
  // at once: that goes out as it is. Copied into the buffer, it would cost
  // a copy and, in a small run, a page fault for each page of the buffer
  // touched for the first time.
  if (s.size() >= kWriteThrough && write_through(s)) return;
  while (!s.empty()) {
    if (cur_ == end_) make_room(1);
    const std::size_t k =
        std::min(s.size(), static_cast<std::size_t>(end_ - cur_));
    std::memcpy(cur_, s.data(), k);
    cur_ += k;
    s.remove_prefix(k);
  }
}

FdSink::FdSink(int fd, std::string name)
    : fd_(fd), name_(std::move(name)), buf_(new char[kBlock]), cap_(kBlock) {
  begin_ = cur_ = buf_.get();
  end_ = begin_ + cap_;
}

void BufferFree::operator()(char* p) const {
  if (huge_len > 0) {
    release_mapping(p, huge_len);
  } else {
    delete[] p;
  }
}

FdSink::~FdSink() = default;

void FdSink::grow_held(std::size_t held) {
  // Straight to the limit, on huge pages (core/huge_block.h): a document
  // held back is copied once, and its pages fault in 2 MiB at a time.
  // Only the pages it reaches are touched.
  static_assert(kHoldLimit % kHugePage == 0);
  void* block = huge_block(kHoldLimit);
  SinkBuffer bigger = block != nullptr ? SinkBuffer(static_cast<char*>(block),
                                                    BufferFree{kHoldLimit})
                                       : SinkBuffer(new char[kHoldLimit]);
  std::memcpy(bigger.get(), doc_, held);
  buf_ = std::move(bigger);
  cap_ = kHoldLimit;
}

void FdSink::flush() {
  const auto n = static_cast<std::size_t>(cur_ - begin_);
  // A document cut in two by a flush can no longer be dropped.
  doc_ = doc_ == cur_ ? begin_ : nullptr;
  cur_ = begin_;
  write_all(fd_, begin_, n, name_);
}

bool FdSink::write_through(std::string_view s) {
  // A document held back stays in the buffer, where it can be dropped.
  if (doc_ != nullptr) return false;
  flush();
  write_all(fd_, s.data(), s.size(), name_);
  return true;
}

void FdSink::make_room(std::size_t n) {
  if (doc_ != nullptr) {
    // Write what precedes the current document and keep the document, so
    // that an error in it leaves no half document on stdout. A document
    // too large to hold is streamed like any other output.
    const auto held = static_cast<std::size_t>(cur_ - doc_);
    if (held + n <= kHoldLimit) {
      write_all(fd_, begin_, static_cast<std::size_t>(doc_ - begin_), name_);
      if (held + n > cap_) {
        grow_held(held);
      } else {
        std::memmove(buf_.get(), doc_, held);
      }
      begin_ = doc_ = buf_.get();
      cur_ = begin_ + held;
      end_ = begin_ + cap_;
      return;
    }
    doc_ = nullptr;
  }
  flush();
  if (n > cap_) {
    buf_ = SinkBuffer(new char[n]);
    cap_ = n;
    begin_ = cur_ = buf_.get();
    end_ = begin_ + cap_;
  }
}

StringSink::StringSink() {
  buf_.resize(4096);
  begin_ = cur_ = buf_.data();
  end_ = begin_ + buf_.size();
}

void StringSink::make_room(std::size_t n) {
  const auto used = static_cast<std::size_t>(cur_ - begin_);
  const auto doc = doc_ != nullptr ? doc_ - begin_ : -1;
  buf_.resize(std::max(buf_.size() * 2, used + n));
  begin_ = buf_.data();
  cur_ = begin_ + used;
  doc_ = doc >= 0 ? begin_ + doc : nullptr;
  end_ = begin_ + buf_.size();
}

namespace {

// The descriptor that /dev/stdout, /dev/stderr, /dev/fd/N or
// /proc/self/fd/N names, or -1.
int descriptor_named(std::string_view path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string_view dir : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.substr(0, dir.size()) != dir) continue;
    const std::string_view n = path.substr(dir.size());
    int fd = 0;
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), fd);
    if (ec == std::errc() && end == n.data() + n.size() && !n.empty()) {
      return fd;
    }
  }
  return -1;
}

}  // namespace

AtomicFileSink::AtomicFileSink(std::string target)
    : target_(std::move(target)), buf_(new char[kBlock]), cap_(kBlock) {
  begin_ = cur_ = buf_.get();
  end_ = begin_ + cap_;
  // A name of one of this process's descriptors is that descriptor, as it
  // is: whatever file it has open (even a regular one, with its offset and
  // append mode) is written to, not replaced.
  const int own = descriptor_named(target_);
  if (own >= 0) {
    fd_ = fcntl(own, F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0) io_error(target_, "cannot open", errno);
    direct_ = true;
    return;
  }
  mode_t mode = 0;
  struct stat st {};
  if (stat(target_.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      // A device, FIFO or socket (/dev/null, a named pipe) is written to,
      // never replaced.
      fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd_ < 0) io_error(target_, "cannot open", errno);
      direct_ = true;
      return;
    }
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  // Through a symbolic link, the file it names is replaced, not the link.
  std::string path = target_;
  struct stat lst {};
  if (lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    if (char* real = realpath(path.c_str(), nullptr)) {
      path = real;
      std::free(real);
    }
  }
  // The temporary lives beside the file so that rename() is atomic.
  const auto slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base =
      slash == std::string::npos ? path : path.substr(slash + 1);
  std::string templ = dir + "." + base + ".jbx-XXXXXX";
  fd_ = mkstemp(templ.data());
  if (fd_ < 0) io_error(target_, "cannot create temporary file", errno);
  temp_ = templ;
  replaced_ = path;
  if (fchmod(fd_, mode) != 0) {
    const int err = errno;
    ::close(fd_);
    unlink(temp_.c_str());
    io_error(target_, "cannot set mode", err);
  }
}

AtomicFileSink::~AtomicFileSink() {
  if (!committed_) {
    if (fd_ >= 0) ::close(fd_);
    if (!direct_) unlink(temp_.c_str());
  }
}

void AtomicFileSink::flush() {
  const auto n = static_cast<std::size_t>(cur_ - begin_);
  // No hold-back here: a failed run leaves the target as it was anyway.
  doc_ = nullptr;
  cur_ = begin_;
  write_all(fd_, begin_, n, target_);
}

bool AtomicFileSink::write_through(std::string_view s) {
  flush();
  write_all(fd_, s.data(), s.size(), target_);
  return true;
}

void AtomicFileSink::make_room(std::size_t n) {
  flush();
  if (n > cap_) {
    buf_.reset(new char[n]);
    cap_ = n;
    begin_ = cur_ = buf_.get();
    end_ = begin_ + cap_;
  }
}

void AtomicFileSink::commit() {
  flush();
  if (!direct_ && fsync(fd_) != 0) io_error(target_, "cannot write", errno);
  if (::close(fd_) != 0) {
    fd_ = -1;
    io_error(target_, "cannot write", errno);
  }
  fd_ = -1;
  if (!direct_ && rename(temp_.c_str(), replaced_.c_str()) != 0) {
    io_error(target_, "cannot replace", errno);
  }
  committed_ = true;
}

}  // namespace jbx
