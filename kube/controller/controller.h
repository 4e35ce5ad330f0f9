// Controller: a rate-limited work queue of Requests and N workers calling Reconcile
// (controller-runtime pkg/internal/controller).
//
//   Controller c({.name = "binder", .max_concurrent_reconciles = 4, .clock = clock,
//                 .registry = metrics::Registry::Default()},
//                [&](const Request& r) -> Result { ... });
//   informer handlers call c.Enqueue(...) (see handlers.h);
//   c.Start();  ...  c.Stop(deadline);
//
// - One key is never reconciled by two workers at once; a key enqueued while it is being
//   reconciled is reconciled again afterwards (level-triggered, nothing lost).
// - Result handling as controller-runtime: Error -> AddRateLimited; Terminal -> counted, not
//   requeued; RequeueAfter(d) -> Forget + AddAfter(d); Requeue -> AddRateLimited; Done ->
//   Forget.
// - An exception escaping Reconcile is caught at the worker boundary, counted in
//   controller_runtime_reconcile_panics_total and handled as an error (RecoverPanic).
// - Stop() stops taking work at once (keys still queued are dropped: the next leader or start
//   re-lists), waits for reconciles in flight until the deadline, then joins the workers.
// - Metrics: controller_runtime_reconcile_total{controller,result},
//   controller_runtime_reconcile_errors_total, controller_runtime_terminal_reconcile_errors_total,
//   controller_runtime_reconcile_panics_total, controller_runtime_reconcile_time_seconds,
//   controller_runtime_active_workers, controller_runtime_max_concurrent_reconciles, and the
//   work queue's workqueue_* metrics under name=<controller>.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/base/clock.h"
#include "kube/controller/request.h"
#include "kube/controller/result.h"
#include "kube/controller/runnable.h"
#include "kube/workqueue/rate_limiting_queue.h"

namespace kai::metrics {
class Registry;
class Counter;
class Gauge;
class Histogram;
}  // namespace kai::metrics

namespace kai::controller {

using ReconcileFunc = std::function<Result(const Request&)>;

struct ControllerOptions {
  std::string name;  // required: metrics label, logs, work-queue name
  int max_concurrent_reconciles = 1;
  Clock* clock = nullptr;                 // RealClock::Get() when null
  metrics::Registry* registry = nullptr;  // no metrics when null
  // null = workqueue::DefaultControllerRateLimiter.
  std::unique_ptr<workqueue::RateLimiter> rate_limiter;
  // Workers start only once every function returns true (informers' HasSynced), polled every
  // 100 ms; Start() fails after cache_sync_timeout (controller-runtime: 2 min).
  std::vector<std::function<bool()>> wait_for_sync;
  Duration cache_sync_timeout = std::chrono::minutes(2);
  bool need_leader_election = true;
};

class Controller final : public Runnable {
 public:
  Controller(ControllerOptions options, ReconcileFunc reconcile);
  ~Controller() override;  // Stop() and join
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  void Enqueue(const Request& request);
  void EnqueueAfter(const Request& request, Duration delay);

  // Runnable.
  std::string name() const override { return name_; }
  // Waits for the caches (wait_for_sync), then starts the workers. Keys enqueued before Start()
  // are kept and reconciled once it runs.
  Status Start() override;
  bool Stop(MonoTime deadline) override;
  bool NeedLeaderElection() const override { return need_leader_election_; }

  // True once Stop() was called: a long reconcile may check it and return early.
  bool stopping() const { return stopping_.load(); }
  workqueue::RateLimitingQueue& queue() { return queue_; }
  Clock* clock() const { return clock_; }

 private:
  struct Metrics;
  void Worker();
  void ReconcileOne(const std::string& key);
  void JoinWorkers();

  const std::string name_;
  const int workers_;
  Clock* const clock_;
  const bool need_leader_election_;
  const std::vector<std::function<bool()>> wait_for_sync_;
  const Duration cache_sync_timeout_;
  ReconcileFunc reconcile_;
  std::unique_ptr<Metrics> metrics_;
  workqueue::RateLimitingQueue queue_;

  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable cv_;  // Stop() interrupts the cache-sync wait
  bool started_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kai::controller
