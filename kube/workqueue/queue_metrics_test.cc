#include "kube/workqueue/queue_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kube/base/fake_clock.h"
#include "kube/workqueue/rate_limiting_queue.h"

namespace kai::workqueue {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;

TEST(QueueMetricsTest, ControllerRuntimeNamesAndValues) {
  FakeClock clock;
  metrics::Registry registry;
  RateLimitingQueue q({.name = "binder", .registry = &registry, .clock = &clock});
  q.Add("a");
  q.Add("a");  // deduplicated: not an add
  q.Add("b");
  clock.Advance(seconds(2));
  ASSERT_EQ(q.Get(), "a");  // waited 2 s
  clock.Advance(seconds(3));
  q.AddRateLimited("c");  // a retry
  const std::string mid = registry.Expose();
  // Scraped while "a" has been processing for 3 s.
  EXPECT_THAT(mid, HasSubstr("workqueue_unfinished_work_seconds{name=\"binder\"} 3\n"));
  EXPECT_THAT(mid, HasSubstr("workqueue_longest_running_processor_seconds{name=\"binder\"} 3\n"));
  q.Done("a");

  const std::string out = registry.Expose();
  EXPECT_THAT(out, HasSubstr("# HELP workqueue_depth Current depth of workqueue\n"
                             "# TYPE workqueue_depth gauge\n"
                             "workqueue_depth{name=\"binder\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("# TYPE workqueue_adds_total counter\n"
                             "workqueue_adds_total{name=\"binder\"} 2\n"));
  EXPECT_THAT(out, HasSubstr("workqueue_retries_total{name=\"binder\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("workqueue_queue_duration_seconds_bucket{name=\"binder\",le=\"1\"} "
                             "0\n"
                             "workqueue_queue_duration_seconds_bucket{name=\"binder\",le=\"10\"} "
                             "1\n"));
  EXPECT_THAT(out, HasSubstr("workqueue_queue_duration_seconds_sum{name=\"binder\"} 2\n"));
  EXPECT_THAT(out, HasSubstr("workqueue_work_duration_seconds_sum{name=\"binder\"} 3\n"));
  EXPECT_THAT(out, HasSubstr("workqueue_work_duration_seconds_count{name=\"binder\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("workqueue_work_duration_seconds_bucket{name=\"binder\",le=\"1e-08\"}"
                             " 0\n"));
  EXPECT_THAT(out, HasSubstr("workqueue_unfinished_work_seconds{name=\"binder\"} 0\n"));
}

TEST(QueueMetricsTest, TwoQueuesShareFamiliesWithTheirOwnLabel) {
  metrics::Registry registry;
  Queue a({.name = "a", .registry = &registry});
  Queue b({.name = "b", .registry = &registry});
  a.Add("x");
  b.Add("x");
  b.Add("y");
  const std::string out = registry.Expose();
  EXPECT_THAT(out, HasSubstr("workqueue_depth{name=\"a\"} 1\nworkqueue_depth{name=\"b\"} 2\n"));
}

TEST(QueueMetricsTest, NoRegistryNoMetrics) {
  metrics::Registry registry;
  Queue q({.name = "", .registry = &registry});
  q.Add("x");
  EXPECT_EQ(registry.Expose(), "");
}

}  // namespace
}  // namespace kai::workqueue
