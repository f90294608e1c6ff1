// A second thread that runs one task at a time while its owner goes on: the
// JSON reader indexes the next chunk of a large document there while the
// walk reads the current one. Everything is out of line, so that code
// compiled for a CPU kernel only calls it.
#pragma once

#include <memory>

namespace jbx {

class Worker {
 public:
  Worker();
  /// Waits for the task, then ends the thread.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Whether a task run apart can gain anything: this process may run on
  /// more than one CPU.
  static bool useful();
  /// Runs task(arg) on the thread, which the first call starts; here and
  /// at once when no thread can be started. The task must not throw, and
  /// the one started before must have been waited for.
  void start(void (*task)(void*), void* arg);
  /// Returns when the task started last has returned.
  void wait();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace jbx
