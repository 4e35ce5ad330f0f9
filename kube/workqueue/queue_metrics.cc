#include "kube/workqueue/queue_metrics.h"

#include <algorithm>

namespace kai::workqueue {

namespace {

double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

// controller-runtime: prometheus.ExponentialBuckets(10e-9, 10, 12).
std::vector<double> DurationBuckets() { return metrics::ExponentialBuckets(10e-9, 10, 12); }

}  // namespace

QueueMetrics::QueueMetrics(metrics::Registry* registry, const std::string& name, Clock* clock)
    : clock_(clock),
      depth_(registry->RegisterGauge("workqueue_depth", "Current depth of workqueue", {"name"})
                 .WithLabelValues({name})),
      adds_(registry
                ->RegisterCounter("workqueue_adds_total",
                                  "Total number of adds handled by workqueue", {"name"})
                .WithLabelValues({name})),
      latency_(registry
                   ->RegisterHistogram(
                       "workqueue_queue_duration_seconds",
                       "How long in seconds an item stays in workqueue before being requested",
                       {"name"}, DurationBuckets())
                   .WithLabelValues({name})),
      work_duration_(
          registry
              ->RegisterHistogram("workqueue_work_duration_seconds",
                                  "How long in seconds processing an item from workqueue takes.",
                                  {"name"}, DurationBuckets())
              .WithLabelValues({name})),
      unfinished_(registry
                      ->RegisterGauge(
                          "workqueue_unfinished_work_seconds",
                          "How many seconds of work has been done that is in progress and "
                          "hasn't been observed by work_duration. Large values indicate stuck "
                          "threads. One can deduce the number of stuck threads by observing the "
                          "rate at which this increases.",
                          {"name"})
                      .WithLabelValues({name})),
      longest_(registry
                   ->RegisterGauge("workqueue_longest_running_processor_seconds",
                                   "How many seconds has the longest running processor for "
                                   "workqueue been running.",
                                   {"name"})
                   .WithLabelValues({name})),
      retries_(registry
                   ->RegisterCounter("workqueue_retries_total",
                                     "Total number of retries handled by workqueue", {"name"})
                   .WithLabelValues({name})) {
  hook_ = registry->AddCollectHook([this] { UpdateUnfinishedWork(); });
}

void QueueMetrics::Add(const std::string& item) {
  adds_.Inc();
  depth_.Inc();
  std::lock_guard<std::mutex> l(mu_);
  add_times_.try_emplace(item, clock_->NowMonotonic());
}

void QueueMetrics::Get(const std::string& item) {
  depth_.Dec();
  const MonoTime now = clock_->NowMonotonic();
  std::lock_guard<std::mutex> l(mu_);
  processing_start_times_[item] = now;
  auto it = add_times_.find(item);
  if (it != add_times_.end()) {
    latency_.Observe(Seconds(now - it->second));
    add_times_.erase(it);
  }
}

void QueueMetrics::Done(const std::string& item) {
  const MonoTime now = clock_->NowMonotonic();
  std::lock_guard<std::mutex> l(mu_);
  auto it = processing_start_times_.find(item);
  if (it != processing_start_times_.end()) {
    work_duration_.Observe(Seconds(now - it->second));
    processing_start_times_.erase(it);
  }
}

void QueueMetrics::Retry() { retries_.Inc(); }

void QueueMetrics::UpdateUnfinishedWork() {
  const MonoTime now = clock_->NowMonotonic();
  double total = 0;
  double longest = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [item, start] : processing_start_times_) {
      const double s = Seconds(now - start);
      total += s;
      longest = std::max(longest, s);
    }
  }
  unfinished_.Set(total);
  longest_.Set(longest);
}

}  // namespace kai::workqueue
