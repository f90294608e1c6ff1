// Test helper: input that arrives through a pipe, as stdin does.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "core/source.h"

namespace jbx::testing {

// `data` written into a pipe by a second thread, in writes of `piece`
// bytes, and the read end opened as a Source (as stdin would be).
class Pipe {
 public:
  Pipe(std::string data, std::size_t piece) : data_(std::move(data)) {
    int fds[2];
    BOOST_REQUIRE(::pipe(fds) == 0);
    read_fd_ = fds[0];
    feeder_ = std::thread([this, fd = fds[1], piece] {
      std::string_view left = data_;
      while (!left.empty()) {
        const ssize_t k =
            ::write(fd, left.data(), std::min(left.size(), piece));
        if (k <= 0) break;
        left.remove_prefix(static_cast<std::size_t>(k));
      }
      ::close(fd);
    });
    source_ = Source::open("/proc/self/fd/" + std::to_string(read_fd_));
  }
  ~Pipe() {
    // What a failed check left unread is drained, so that the feeder ends.
    char buf[65536];
    while (::read(read_fd_, buf, sizeof buf) > 0) {
    }
    source_.reset();
    feeder_.join();
    ::close(read_fd_);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  Source& source() { return *source_; }

 private:
  std::string data_;
  int read_fd_ = -1;
  std::thread feeder_;
  std::unique_ptr<Source> source_;
};

}  // namespace jbx::testing
