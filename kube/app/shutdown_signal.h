// ShutdownSignal: the process's "stop now" (controller-runtime pkg/manager/signals).
//
// InstallProcessSignals() wires SIGTERM and SIGINT to the process-wide instance: the first
// signal triggers a graceful shutdown; a second one exits at once with status 1 (for a shutdown
// that hangs). Code can also Trigger() it (leadership lost, a runnable failed), and tests use
// private instances without touching signal dispositions.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>

#include "kube/base/clock.h"

namespace kai::app {

class ShutdownSignal {
 public:
  ShutdownSignal() = default;
  ShutdownSignal(const ShutdownSignal&) = delete;
  ShutdownSignal& operator=(const ShutdownSignal&) = delete;

  // The process-wide instance, with SIGTERM/SIGINT handlers installed on first call.
  static ShutdownSignal* InstallProcessSignals();

  // First call wins: records `reason` and wakes every waiter. Later calls are ignored.
  void Trigger(const std::string& reason);
  bool triggered() const;
  std::string reason() const;

  // Blocks until triggered.
  void Wait();
  // Blocks until triggered or `deadline` on `clock`; true when triggered.
  bool WaitUntil(Clock* clock, MonoTime deadline);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool triggered_ = false;
  std::string reason_;
};

// Flushes the logs and ends the process with `code` without running static destructors or
// joining threads: after a shutdown that overran its timeout a worker may still be stuck in a
// reconcile, and the process must exit anyway. Every main() ends with it.
[[noreturn]] void ExitProcess(int code);

}  // namespace kai::app
