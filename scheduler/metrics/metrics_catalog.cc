#include "scheduler/metrics/metrics_catalog.h"

namespace kai::scheduler {

std::vector<double> LatencyBucketsMs() {
  std::vector<double> b;
  double v = 5;
  for (int i = 0; i < 10; ++i, v *= 2) b.push_back(v);
  return b;
}

const std::vector<MetricSpec>& SchedulerMetrics() {
  static const auto* specs = new std::vector<MetricSpec>{
      {kE2eSchedulingLatency, MetricKind::kGauge, "E2e scheduling latency in milliseconds", {}, {}},
      {kOpenSessionLatency, MetricKind::kGauge, "Open session latency in milliseconds", {}, {}},
      {kCloseSessionLatency, MetricKind::kGauge, "Close session latency in milliseconds", {}, {}},
      {kPluginSchedulingLatency,
       MetricKind::kGauge,
       "Plugin scheduling latency in milliseconds, as a gauge",
       {"plugin", "OnSession"},
       {}},
      {kActionSchedulingLatency,
       MetricKind::kGauge,
       "Action scheduling latency in milliseconds",
       {"action"},
       {}},
      {kTaskSchedulingLatency,
       MetricKind::kHistogram,
       "Task scheduling latency in milliseconds",
       {},
       LatencyBucketsMs()},
      {kTaskBindLatency,
       MetricKind::kHistogram,
       "Task bind latency histogram in milliseconds",
       {},
       LatencyBucketsMs()},
      {kPodgroupsScheduledByAction,
       MetricKind::kCounter,
       "Count of podgroups scheduled per action",
       {"action"},
       {}},
      {kPodgroupsActedOnByAction,
       MetricKind::kCounter,
       "Count of podgroups tried per action",
       {"action"},
       {}},
      {kScenariosSimulationByAction,
       MetricKind::kCounter,
       "Number of scenarios simulated per action",
       {"action"},
       {}},
      {kScenariosFilteredByAction,
       MetricKind::kCounter,
       "Number of scenarios filtered before simulation per action",
       {"action"},
       {}},
      {kTotalPreemptionAttempts,
       MetricKind::kCounter,
       "Total preemption attempts in the cluster till now",
       {},
       {}},
      {kQueueFairShareCpu,
       MetricKind::kGauge,
       "CPU fair share of queue, in cores",
       {"queue_name"},
       {}},
      {kQueueFairShareMemory,
       MetricKind::kGauge,
       "Memory fair share of queue, in GB",
       {"queue_name"},
       {}},
      {kQueueFairShareGpu, MetricKind::kGauge, "GPU fair share of queue", {"queue_name"}, {}},
      {kQueueCpuUsage,
       MetricKind::kGauge,
       "Normalized historical CPU usage of queue",
       {"queue_name"},
       {}},
      {kQueueMemoryUsage,
       MetricKind::kGauge,
       "Normalized historical memory usage of queue",
       {"queue_name"},
       {}},
      {kQueueGpuUsage,
       MetricKind::kGauge,
       "Normalized historical GPU usage of queue",
       {"queue_name"},
       {}},
      {kUsageQueryLatency,
       MetricKind::kHistogram,
       "Usage database query latency histogram in milliseconds",
       {},
       LatencyBucketsMs()},
      {kPodGroupEvictedPodsTotal,
       MetricKind::kCounter,
       "Number of evicted pods per pod group",
       {"podgroup", "namespace", "uid", "nodepool", "action"},
       {}},
      {kScenarioSearchBudgetExhausted,
       MetricKind::kCounter,
       "Victim searches stopped by a scenario search budget, per action and budget (job: one "
       "job's search; action: the action tried no further job)",
       {"action", "budget"},
       {}},
  };
  return *specs;
}

const MetricSpec* FindSchedulerMetric(std::string_view name) {
  for (const auto& s : SchedulerMetrics()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string PrefixedMetricName(std::string_view metrics_namespace, std::string_view name) {
  if (metrics_namespace.empty()) return std::string(name);
  return std::string(metrics_namespace) + "_" + std::string(name);
}

}  // namespace kai::scheduler
