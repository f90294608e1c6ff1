// The stopwatch of bench/run: runs one command and reports its wall time and
// peak RSS. Peak RSS is ru_maxrss from wait4(), the figure GNU time prints
// for %M; this helper exists because time's clock has 10 ms steps and
// because a child forked from the (large) Python runner would inherit the
// runner's RSS high-water mark. Not part of jbx.
//
//   measure REPORT_FILE CMD [ARG...]
//
// Writes "WALL_SECONDS MAXRSS_KIB CPU_SECONDS SYSTEM_SECONDS" to REPORT_FILE
// (CPU is user + system time) and exits with the command's status (128 +
// signal if it was killed).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace {

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fputs("usage: measure REPORT_FILE CMD [ARG...]\n", stderr);
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("measure: fork");
    return 2;
  }
  if (pid == 0) {
    ::execvp(argv[2], argv + 2);
    std::fprintf(stderr, "measure: cannot run %s: %s\n", argv[2],
                 std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  rusage ru{};
  while (::wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) {
      std::perror("measure: wait4");
      return 2;
    }
  }
  std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  std::FILE* report = std::fopen(argv[1], "w");
  if (report == nullptr) {
    std::perror("measure: report file");
    return 2;
  }
  std::fprintf(report, "%.9f %ld %.6f %.6f\n", wall.count(), ru.ru_maxrss,
               seconds(ru.ru_utime) + seconds(ru.ru_stime),
               seconds(ru.ru_stime));
  std::fclose(report);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}
