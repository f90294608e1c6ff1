// A second thread that runs one task at a time while its owner goes on: the
// JSON reader indexes the next chunk of a large document there while the
// walk reads the current one. Everything is out of line, so that code
// compiled for a CPU kernel only calls it.
#pragma once

#include <cstddef>
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

  /// Drops the bytes [p, p + n) from every CPU cache (written back first).
  /// For memory the thread writes again after its owner has read it: lines
  /// left shared with the owner's cache are each taken back one store at a
  /// time, which made the thread's pieces of a CBOR array 1.7x slower on a
  /// two-CPU AMD EPYC. Does nothing where the CPU has no such instruction.
  static void evict(const void* p, std::size_t n);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace jbx
