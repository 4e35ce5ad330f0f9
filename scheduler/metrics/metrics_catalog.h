// The scheduler's metrics as KAI names them (pkg/scheduler/metrics/metrics.go, reference §22.1),
// as data: each name is prefixed with the metrics namespace (--metrics-namespace, default "kai")
// when registered, so `e2e_scheduling_latency_milliseconds` is served as
// `kai_e2e_scheduling_latency_milliseconds`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kai::scheduler {

enum class MetricKind { kCounter, kGauge, kHistogram };

struct MetricSpec {
  std::string_view name;  // without the namespace prefix
  MetricKind kind;
  std::string_view help;
  std::vector<std::string_view> labels;
  std::vector<double> buckets;  // histograms only
};

inline constexpr std::string_view kDefaultMetricsNamespace = "kai";

// Names, in the order of the reference table.
inline constexpr std::string_view kE2eSchedulingLatency = "e2e_scheduling_latency_milliseconds";
inline constexpr std::string_view kOpenSessionLatency = "open_session_latency_milliseconds";
inline constexpr std::string_view kCloseSessionLatency = "close_session_latency_milliseconds";
inline constexpr std::string_view kPluginSchedulingLatency =
    "plugin_scheduling_latency_milliseconds";
inline constexpr std::string_view kActionSchedulingLatency =
    "action_scheduling_latency_milliseconds";
inline constexpr std::string_view kTaskSchedulingLatency = "task_scheduling_latency_milliseconds";
inline constexpr std::string_view kTaskBindLatency = "task_bind_latency_milliseconds";
inline constexpr std::string_view kPodgroupsScheduledByAction = "podgroups_scheduled_by_action";
inline constexpr std::string_view kPodgroupsActedOnByAction = "podgroups_acted_on_by_action";
inline constexpr std::string_view kScenariosSimulationByAction = "scenarios_simulation_by_action";
inline constexpr std::string_view kScenariosFilteredByAction = "scenarios_filtered_by_action";
inline constexpr std::string_view kTotalPreemptionAttempts = "total_preemption_attempts";
inline constexpr std::string_view kQueueFairShareCpu = "queue_fair_share_cpu_cores";
inline constexpr std::string_view kQueueFairShareMemory = "queue_fair_share_memory_gb";
inline constexpr std::string_view kQueueFairShareGpu = "queue_fair_share_gpu";
inline constexpr std::string_view kQueueCpuUsage = "queue_cpu_usage";
inline constexpr std::string_view kQueueMemoryUsage = "queue_memory_usage";
inline constexpr std::string_view kQueueGpuUsage = "queue_gpu_usage";
inline constexpr std::string_view kUsageQueryLatency = "usage_query_latency_milliseconds";
inline constexpr std::string_view kPodGroupEvictedPodsTotal = "pod_group_evicted_pods_total";
// Ours (after KAI's table): victim searches a scenarioSearchBudgets limit stopped.
inline constexpr std::string_view kScenarioSearchBudgetExhausted =
    "scenario_search_budget_exhausted_total";

// 5 ms doubling ten times (5, 10, ..., 2560), KAI's prometheus.ExponentialBuckets(5, 2, 10).
std::vector<double> LatencyBucketsMs();

// Every scheduler metric, in the reference's order.
const std::vector<MetricSpec>& SchedulerMetrics();
// nullptr when `name` (without prefix) is not a scheduler metric.
const MetricSpec* FindSchedulerMetric(std::string_view name);

// "<namespace>_<name>" ("kai_e2e_scheduling_latency_milliseconds"); just the name when the
// namespace is empty.
std::string PrefixedMetricName(std::string_view metrics_namespace, std::string_view name);

}  // namespace kai::scheduler
