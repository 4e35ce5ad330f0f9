#include "scheduler/metrics/metrics_catalog.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace kai::scheduler {
namespace {

TEST(MetricsCatalog, KaisNamesWithTheNamespacePrefix) {
  EXPECT_EQ(PrefixedMetricName(kDefaultMetricsNamespace, kE2eSchedulingLatency),
            "kai_e2e_scheduling_latency_milliseconds");
  EXPECT_EQ(PrefixedMetricName("", kQueueFairShareGpu), "queue_fair_share_gpu");
  EXPECT_EQ(SchedulerMetrics().size(), 21u);
}

TEST(MetricsCatalog, EveryEntryIsAValidPrometheusFamily) {
  std::regex name_re("[a-zA-Z_:][a-zA-Z0-9_:]*");
  std::regex label_re("[a-zA-Z_][a-zA-Z0-9_]*");
  std::set<std::string_view> names;
  for (const auto& s : SchedulerMetrics()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_TRUE(std::regex_match(std::string(s.name), name_re)) << s.name;
    EXPECT_FALSE(s.help.empty()) << s.name;
    for (auto l : s.labels) EXPECT_TRUE(std::regex_match(std::string(l), label_re)) << l;
    EXPECT_EQ(s.kind == MetricKind::kHistogram, !s.buckets.empty()) << s.name;
  }
}

TEST(MetricsCatalog, LatencyBucketsDoubleFromFive) {
  EXPECT_EQ(LatencyBucketsMs(),
            (std::vector<double>{5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560}));
  const MetricSpec* evicted = FindSchedulerMetric(kPodGroupEvictedPodsTotal);
  ASSERT_NE(evicted, nullptr);
  EXPECT_EQ(evicted->labels,
            (std::vector<std::string_view>{"podgroup", "namespace", "uid", "nodepool", "action"}));
  EXPECT_EQ(FindSchedulerMetric("nope"), nullptr);
}

}  // namespace
}  // namespace kai::scheduler
