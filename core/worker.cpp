#include "core/worker.h"

#include <sched.h>

#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>

namespace jbx {

struct Worker::State {
  std::mutex m;
  std::condition_variable cv;  // a task was posted, one ended, or quit
  void (*task)(void*) = nullptr;
  void* arg = nullptr;
  bool busy = false;  // a task is posted or running
  bool quit = false;
  std::thread thread;

  void loop() {
    std::unique_lock lock(m);
    for (;;) {
      cv.wait(lock, [this] { return task != nullptr || quit; });
      if (task == nullptr) return;
      void (*t)(void*) = task;
      task = nullptr;
      lock.unlock();
      t(arg);
      lock.lock();
      busy = false;
      cv.notify_all();
    }
  }
};

Worker::Worker() = default;

Worker::~Worker() {
  if (s_ == nullptr || !s_->thread.joinable()) return;
  {
    const std::lock_guard lock(s_->m);
    s_->quit = true;
  }
  s_->cv.notify_all();
  s_->thread.join();  // after the task, which the loop ends first
}

bool Worker::useful() {
  static const bool more_than_one = [] {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return false;
    return CPU_COUNT(&set) > 1;
  }();
  return more_than_one;
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
  {
    const std::lock_guard lock(s_->m);
    s_->task = task;
    s_->arg = arg;
    s_->busy = true;
  }
  s_->cv.notify_all();
}

void Worker::wait() {
  if (s_ == nullptr) return;
  std::unique_lock lock(s_->m);
  s_->cv.wait(lock, [this] { return !s_->busy; });
}

}  // namespace jbx
