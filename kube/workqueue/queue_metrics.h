// Work-queue metrics under controller-runtime's names, labelled `name` (the queue's name):
// workqueue_depth, workqueue_adds_total, workqueue_queue_duration_seconds,
// workqueue_work_duration_seconds, workqueue_unfinished_work_seconds,
// workqueue_longest_running_processor_seconds, workqueue_retries_total.
//
// Same bookkeeping as client-go's defaultQueueMetrics; the two "in progress" gauges are computed
// when /metrics is scraped instead of by a 500 ms ticker.
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>

#include "kube/base/clock.h"
#include "kube/metrics/registry.h"

namespace kai::workqueue {

class QueueMetrics {
 public:
  QueueMetrics(metrics::Registry* registry, const std::string& name, Clock* clock);

  void Add(const std::string& item);   // an item became dirty
  void Get(const std::string& item);   // handed to a worker
  void Done(const std::string& item);  // the worker finished
  void Retry();                        // AddAfter / AddRateLimited
  // Recomputes unfinished work and the longest running processor (also done on scrape).
  void UpdateUnfinishedWork();

 private:
  Clock* const clock_;
  metrics::Gauge& depth_;
  metrics::Counter& adds_;
  metrics::Histogram& latency_;
  metrics::Histogram& work_duration_;
  metrics::Gauge& unfinished_;
  metrics::Gauge& longest_;
  metrics::Counter& retries_;

  std::mutex mu_;
  std::unordered_map<std::string, MonoTime> add_times_;
  std::unordered_map<std::string, MonoTime> processing_start_times_;

  metrics::CollectHook hook_;  // last: unregistered before the members above go away
};

}  // namespace kai::workqueue
