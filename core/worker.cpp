#include "core/worker.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <atomic>
#include <cstdint>
#include <system_error>
#include <thread>

namespace jbx {

namespace {

// How many times a wait spins before it sleeps: waking a sleeping thread
// can take a tenth of a millisecond (in a virtual machine especially),
// about what a task takes. The owner, which waits for the task's result,
// spins longer than the thread, idle while its owner works; spinning
// longer still made neither faster, and cost CPU time.
constexpr int kOwnerSpins = 1 << 12;
constexpr int kThreadSpins = 1 << 10;

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Sleeping and waking are futex calls of their own, not std::atomic's
// wait() and notify_one(): with GCC 12's library, a wait here was seen
// never to wake, one run of a test in ten, both threads asleep.
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));

std::uint32_t* word(const std::atomic<std::uint32_t>& a) {
  return reinterpret_cast<std::uint32_t*>(
      const_cast<std::atomic<std::uint32_t>*>(&a));
}

// Wakes the thread asleep on `a`, if any (after the store to it).
void wake(const std::atomic<std::uint32_t>& a) {
  syscall(SYS_futex, word(a), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

// Returns once `a` is no longer `old`. The kernel compares the word with
// `old` before it sleeps, so a store and wake() between the load and the
// sleep are not missed.
void await_change(const std::atomic<std::uint32_t>& a, std::uint32_t old,
                  int spins) {
  for (int i = 0; i < spins; ++i) {
    if (a.load(std::memory_order_acquire) != old) return;
    relax();
  }
  while (a.load(std::memory_order_acquire) == old) {
    syscall(SYS_futex, word(a), FUTEX_WAIT_PRIVATE, old, nullptr, nullptr, 0);
  }
}

}  // namespace

// The owner posts a task (or quit) and bumps `posted`; the thread runs it
// and sets `done` to the count it has run. The plain fields are written
// before a post and read after it.
struct Worker::State {
  std::atomic<std::uint32_t> posted{0};
  std::atomic<std::uint32_t> done{0};
  std::uint32_t target = 0;  // the owner's count of posts
  void (*task)(void*) = nullptr;
  void* arg = nullptr;
  bool quit = false;
  std::thread thread;

  void post() {
    posted.store(++target, std::memory_order_release);
    wake(posted);
  }
  void loop() {
    std::uint32_t seen = 0;
    for (;;) {
      await_change(posted, seen, kThreadSpins);
      seen = posted.load(std::memory_order_acquire);
      if (quit) return;
      task(arg);
      done.store(seen, std::memory_order_release);
      wake(done);
    }
  }
};

Worker::Worker() = default;

Worker::~Worker() {
  if (s_ == nullptr || !s_->thread.joinable()) return;
  wait();
  s_->quit = true;
  s_->post();
  s_->thread.join();
}

bool Worker::useful() {
  static const bool more_than_one = [] {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return false;
    return CPU_COUNT(&set) > 1;
  }();
  return more_than_one;
}

void Worker::evict(const void* p, std::size_t n) {
#if defined(__x86_64__) || defined(__i386__)
  constexpr std::uintptr_t kLine = 64;
  const auto begin = reinterpret_cast<std::uintptr_t>(p) & ~(kLine - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(p) + n;
  for (std::uintptr_t a = begin; a < end; a += kLine) {
    _mm_clflush(reinterpret_cast<const void*>(a));
  }
#else
  static_cast<void>(p);
  static_cast<void>(n);
#endif
}

void Worker::start(void (*task)(void*), void* arg) {
  if (s_ == nullptr) s_ = std::make_unique<State>();
  if (!s_->thread.joinable()) {
    try {
      s_->thread = std::thread([s = s_.get()] { s->loop(); });
    } catch (const std::system_error&) {
      task(arg);  // no thread to be had: the caller waits for nothing
      return;
    }
  }
  s_->task = task;
  s_->arg = arg;
  s_->post();
}

void Worker::wait() {
  if (s_ == nullptr) return;
  for (;;) {
    const std::uint32_t d = s_->done.load(std::memory_order_acquire);
    if (d == s_->target) return;
    await_change(s_->done, d, kOwnerSpins);
  }
}

}  // namespace jbx
