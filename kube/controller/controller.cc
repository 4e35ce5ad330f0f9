#include "kube/controller/controller.h"

#include <glog/logging.h>

#include <exception>

#include "kube/metrics/registry.h"

namespace kai::controller {

namespace {

constexpr char kResultError[] = "error";
constexpr char kResultRequeue[] = "requeue";
constexpr char kResultRequeueAfter[] = "requeue_after";
constexpr char kResultSuccess[] = "success";

std::vector<double> ReconcileTimeBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
          0.7,   0.8,  0.9,   1.0,  1.25, 1.5,  1.75, 2.0,  2.5, 3.0,  3.5, 4.0,  4.5, 5,
          6,     7,    8,     9,    10,   15,   20,   25,   30,  40,   50,  60};
}

}  // namespace

// Children looked up once per controller; updates are then lock-free.
struct Controller::Metrics {
  Metrics(metrics::Registry* r, const std::string& name)
      : total(r->RegisterCounter("controller_runtime_reconcile_total",
                                 "Total number of reconciliations per controller",
                                 {"controller", "result"})),
        success(total.WithLabelValues({name, kResultSuccess})),
        error(total.WithLabelValues({name, kResultError})),
        requeue(total.WithLabelValues({name, kResultRequeue})),
        requeue_after(total.WithLabelValues({name, kResultRequeueAfter})),
        errors(r->RegisterCounter("controller_runtime_reconcile_errors_total",
                                  "Total number of reconciliation errors per controller",
                                  {"controller"})
                   .WithLabelValues({name})),
        terminal_errors(
            r->RegisterCounter("controller_runtime_terminal_reconcile_errors_total",
                               "Total number of terminal reconciliation errors per controller",
                               {"controller"})
                .WithLabelValues({name})),
        panics(r->RegisterCounter("controller_runtime_reconcile_panics_total",
                                  "Total number of reconciliation panics per controller",
                                  {"controller"})
                   .WithLabelValues({name})),
        time(r->RegisterHistogram("controller_runtime_reconcile_time_seconds",
                                  "Length of time per reconciliation per controller",
                                  {"controller"}, ReconcileTimeBuckets())
                 .WithLabelValues({name})),
        max_concurrent(r->RegisterGauge("controller_runtime_max_concurrent_reconciles",
                                        "Maximum number of concurrent reconciles per controller",
                                        {"controller"})
                           .WithLabelValues({name})),
        active(r->RegisterGauge("controller_runtime_active_workers",
                                "Number of currently used workers per controller", {"controller"})
                   .WithLabelValues({name})) {}

  metrics::CounterFamily& total;
  metrics::Counter& success;
  metrics::Counter& error;
  metrics::Counter& requeue;
  metrics::Counter& requeue_after;
  metrics::Counter& errors;
  metrics::Counter& terminal_errors;
  metrics::Counter& panics;
  metrics::Histogram& time;
  metrics::Gauge& max_concurrent;
  metrics::Gauge& active;
};

Controller::Controller(ControllerOptions options, ReconcileFunc reconcile)
    : name_(options.name),
      workers_(std::max(1, options.max_concurrent_reconciles)),
      clock_(options.clock != nullptr ? options.clock : RealClock::Get()),
      need_leader_election_(options.need_leader_election),
      wait_for_sync_(std::move(options.wait_for_sync)),
      cache_sync_timeout_(options.cache_sync_timeout),
      reconcile_(std::move(reconcile)),
      metrics_(options.registry != nullptr
                   ? std::make_unique<Metrics>(options.registry, options.name)
                   : nullptr),
      queue_({.name = options.name, .registry = options.registry, .clock = clock_},
             std::move(options.rate_limiter)) {
  CHECK(!name_.empty()) << "a controller needs a name";
  if (metrics_) metrics_->max_concurrent.Set(workers_);
}

Controller::~Controller() {
  Stop(clock_->NowMonotonic());
  JoinWorkers();
}

void Controller::Enqueue(const Request& request) { queue_.Add(request.Key()); }

void Controller::EnqueueAfter(const Request& request, Duration delay) {
  queue_.AddAfter(request.Key(), delay);
}

Status Controller::Start() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (started_) return FailedPreconditionError("controller " + name_ + " already started");
    started_ = true;
  }
  if (!wait_for_sync_.empty()) {
    const MonoTime deadline = clock_->NowMonotonic() + cache_sync_timeout_;
    std::unique_lock<std::mutex> l(mu_);
    while (true) {
      if (stopping_) return CancelledError("controller " + name_ + " stopped before caches synced");
      bool synced = true;
      for (const auto& f : wait_for_sync_) synced = synced && f();
      if (synced) break;
      if (clock_->NowMonotonic() >= deadline) {
        return DeadlineExceededError("controller " + name_ +
                                     ": timed out waiting for caches to sync");
      }
      clock_->WaitUntil(
          cv_, l, std::min(deadline, clock_->NowMonotonic() + std::chrono::milliseconds(100)));
    }
  }
  std::lock_guard<std::mutex> l(mu_);
  if (stopping_) return CancelledError("controller " + name_ + " stopped before it started");
  LOG(INFO) << "controller " << name_ << ": starting " << workers_ << " workers";
  for (int i = 0; i < workers_; ++i) threads_.emplace_back([this] { Worker(); });
  return Status::OK();
}

bool Controller::Stop(MonoTime deadline) {
  if (!stopping_.exchange(true)) {
    LOG(INFO) << "controller " << name_ << ": stopping, waiting for reconciles in flight";
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    cv_.notify_all();
  }
  // Workers drop the keys still queued (they see stopping_), so the drain only waits for the
  // reconciles already running.
  const bool drained = queue_.ShutDownWithDrain(deadline);
  if (!drained) {
    LOG(WARNING) << "controller " << name_ << ": reconciles still running at the deadline";
    return false;
  }
  JoinWorkers();
  return true;
}

void Controller::JoinWorkers() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> l(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
}

void Controller::Worker() {
  while (auto key = queue_.Get()) {
    if (stopping_) {
      queue_.Done(*key);
      continue;
    }
    ReconcileOne(*key);
  }
}

void Controller::ReconcileOne(const std::string& key) {
  if (metrics_) metrics_->active.Inc();
  const MonoTime start = clock_->NowMonotonic();
  const Request request = Request::FromKey(key);
  Result result = Result::Done();
  bool panicked = false;
  try {
    result = reconcile_(request);
  } catch (const std::exception& e) {
    panicked = true;
    result = Result::Error(InternalError("reconcile threw: " + std::string(e.what())));
  } catch (...) {
    panicked = true;
    result = Result::Error(InternalError("reconcile threw a non-standard exception"));
  }
  if (panicked) {
    LOG(ERROR) << "controller " << name_ << ": reconcile of " << key
               << " threw (recovered): " << result.error();
    if (metrics_) metrics_->panics.Inc();
  }

  switch (result.kind()) {
    case Result::Kind::kError:
      queue_.AddRateLimited(key);
      if (!panicked) {
        LOG(ERROR) << "controller " << name_ << ": reconcile of " << key
                   << " failed: " << result.error();
      }
      if (metrics_) {
        metrics_->errors.Inc();
        metrics_->error.Inc();
      }
      break;
    case Result::Kind::kTerminalError:
      LOG(ERROR) << "controller " << name_ << ": reconcile of " << key
                 << " failed (terminal, not retried): " << result.error();
      if (metrics_) {
        metrics_->terminal_errors.Inc();
        metrics_->errors.Inc();
        metrics_->error.Inc();
      }
      break;
    case Result::Kind::kRequeueAfter:
      // The delay is the reconciler's own; the failure history starts over.
      queue_.Forget(key);
      queue_.AddAfter(key, result.requeue_after());
      if (metrics_) metrics_->requeue_after.Inc();
      break;
    case Result::Kind::kRequeue:
      queue_.AddRateLimited(key);
      if (metrics_) metrics_->requeue.Inc();
      break;
    case Result::Kind::kDone:
      queue_.Forget(key);
      if (metrics_) metrics_->success.Inc();
      break;
  }
  if (metrics_) {
    metrics_->time.Observe(std::chrono::duration<double>(clock_->NowMonotonic() - start).count());
    metrics_->active.Dec();
  }
  queue_.Done(key);
}

}  // namespace kai::controller
