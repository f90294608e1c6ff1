#include "core/worker.h"

#include <sched.h>

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

// Returns once `a` is no longer `old`.
void await_change(const std::atomic<std::uint32_t>& a, std::uint32_t old,
                  int spins) {
  for (int i = 0; i < spins; ++i) {
    if (a.load(std::memory_order_acquire) != old) return;
    relax();
  }
  a.wait(old, std::memory_order_acquire);
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
    posted.notify_one();
  }
  void loop() {
    std::uint32_t seen = 0;
    for (;;) {
      await_change(posted, seen, kThreadSpins);
      seen = posted.load(std::memory_order_acquire);
      if (quit) return;
      task(arg);
      done.store(seen, std::memory_order_release);
      done.notify_one();
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

bool Worker::finished() const {
  return s_ == nullptr ||
         s_->done.load(std::memory_order_acquire) == s_->target;
}

}  // namespace jbx
