// ReconcileLoop: the work queue and worker of an in-process controller (simulated kubelet,
// workload controllers), like client-go's workqueue plus a controller's processNextWorkItem:
// keys are deduplicated while queued, can be scheduled for later on the injected clock, and a
// key whose reconcile fails is retried with exponential backoff. One worker thread, so a
// reconcile function never runs concurrently with itself.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "kube/base/clock.h"
#include "kube/base/status.h"

namespace kai::localkube {

class ReconcileLoop {
 public:
  using Reconcile = std::function<Status(const std::string& key)>;

  ReconcileLoop(std::string name, Clock* clock, Reconcile reconcile);
  ~ReconcileLoop();
  ReconcileLoop(const ReconcileLoop&) = delete;
  ReconcileLoop& operator=(const ReconcileLoop&) = delete;

  void Start();
  // Stops the worker after the key being reconciled (queued keys are dropped).
  void Stop();

  // Queues `key` now (no-op when already queued).
  void Add(const std::string& key);
  // Queues `key` at `when` (monotonic); an earlier pending time for the same key wins.
  void AddAt(const std::string& key, MonoTime when);
  void AddAfter(const std::string& key, Duration d) { AddAt(key, clock_->NowMonotonic() + d); }

  // True when nothing is queued or running and no scheduled key is due.
  bool Idle() const;
  // Blocks until Idle() (tests: with a FakeClock, "everything due has been processed").
  void WaitIdle();
  // Number of keys reconciled so far (tests, benchmarks).
  uint64_t processed() const;

 private:
  void Run();
  bool IdleLocked() const;

  const std::string name_;
  Clock* clock_;
  Reconcile reconcile_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::unordered_set<std::string> queued_;
  std::set<std::pair<MonoTime, std::string>> timers_;
  std::unordered_map<std::string, MonoTime> timer_of_;
  std::unordered_map<std::string, int> failures_;
  bool busy_ = false;
  bool stop_ = false;
  bool started_ = false;
  uint64_t processed_ = 0;
  std::thread thread_;
};

}  // namespace kai::localkube
