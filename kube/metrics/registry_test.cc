#include "kube/metrics/registry.h"

#include <gtest/gtest.h>

#include <thread>

namespace kai::metrics {
namespace {

TEST(RegistryTest, EmptyRegistryExposesNothing) {
  Registry r;
  EXPECT_EQ(r.Expose(), "");
}

TEST(RegistryTest, CounterWithLabelsSortedDeterministically) {
  Registry r;
  auto& f =
      r.RegisterCounter("controller_runtime_reconcile_total",
                        "Total number of reconciliations per controller", {"result", "controller"});
  f.WithLabelValues({"success", "b"}).Inc();
  f.WithLabelValues({"error", "b"}).Inc(2);
  f.WithLabelValues({"success", "a"}).Inc(3);
  // Label pairs come in label-name order (controller before result); children sorted by them.
  EXPECT_EQ(r.Expose(),
            "# HELP controller_runtime_reconcile_total Total number of reconciliations per "
            "controller\n"
            "# TYPE controller_runtime_reconcile_total counter\n"
            "controller_runtime_reconcile_total{controller=\"a\",result=\"success\"} 3\n"
            "controller_runtime_reconcile_total{controller=\"b\",result=\"error\"} 2\n"
            "controller_runtime_reconcile_total{controller=\"b\",result=\"success\"} 1\n");
}

TEST(RegistryTest, LabelledFamilyWithoutChildrenIsOmittedUnlabelledIsNot) {
  Registry r;
  r.RegisterGauge("a_gauge", "A", {"name"});
  r.RegisterGauge("b_gauge", "B");
  EXPECT_EQ(r.Expose(), "# HELP b_gauge B\n# TYPE b_gauge gauge\nb_gauge 0\n");
}

TEST(RegistryTest, FamiliesSortedByNameAndGaugeArithmetic) {
  Registry r;
  auto& z = r.RegisterGauge("zz", "z").Get();
  auto& a = r.RegisterCounter("aa_total", "a").Get();
  z.Set(5);
  z.Inc();
  z.Dec();
  z.Add(0.5);
  z.Sub(2);
  a.Inc();
  a.Inc(-3);  // ignored: counters never go down
  EXPECT_EQ(r.Expose(),
            "# HELP aa_total a\n# TYPE aa_total counter\naa_total 1\n"
            "# HELP zz z\n# TYPE zz gauge\nzz 3.5\n");
}

TEST(RegistryTest, HistogramBucketsInfSumCount) {
  Registry r;
  auto& h = r.RegisterHistogram("work_seconds", "How long.", {"name"}, {0.005, 0.5, 1});
  auto& q = h.WithLabelValues({"q"});
  q.Observe(0.005);  // inclusive upper bound
  q.Observe(0.2);
  q.Observe(7);
  EXPECT_EQ(r.Expose(),
            "# HELP work_seconds How long.\n"
            "# TYPE work_seconds histogram\n"
            "work_seconds_bucket{name=\"q\",le=\"0.005\"} 1\n"
            "work_seconds_bucket{name=\"q\",le=\"0.5\"} 2\n"
            "work_seconds_bucket{name=\"q\",le=\"1\"} 2\n"
            "work_seconds_bucket{name=\"q\",le=\"+Inf\"} 3\n"
            "work_seconds_sum{name=\"q\"} 7.205\n"
            "work_seconds_count{name=\"q\"} 3\n");
}

TEST(RegistryTest, UnlabelledHistogramAndExponentialBuckets) {
  Registry r;
  auto& h = r.RegisterHistogram("lat", "l", {}, ExponentialBuckets(1e-8, 10, 3)).Get();
  h.Observe(5e-8);
  EXPECT_EQ(r.Expose(),
            "# HELP lat l\n# TYPE lat histogram\n"
            "lat_bucket{le=\"1e-08\"} 0\n"
            "lat_bucket{le=\"1e-07\"} 1\n"
            "lat_bucket{le=\"1e-06\"} 1\n"
            "lat_bucket{le=\"+Inf\"} 1\n"
            "lat_sum 5e-08\n"
            "lat_count 1\n");
}

// KAI's latency histograms: prometheus.ExponentialBuckets(5, 2, 10) in milliseconds. Bounds print
// as integers, buckets are cumulative, values on a bound count in it, above the last in +Inf only.
TEST(RegistryTest, MillisecondLatencyHistogramExposition) {
  Registry r;
  auto& h = r.RegisterHistogram("kai_task_bind_latency_milliseconds",
                                "Task bind latency histogram in milliseconds", {},
                                ExponentialBuckets(5, 2, 10))
                .Get();
  EXPECT_EQ(
      r.Expose(),
      "# HELP kai_task_bind_latency_milliseconds Task bind latency histogram in milliseconds\n"
      "# TYPE kai_task_bind_latency_milliseconds histogram\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"5\"} 0\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"10\"} 0\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"20\"} 0\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"40\"} 0\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"80\"} 0\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"160\"} 0\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"320\"} 0\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"640\"} 0\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"1280\"} 0\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"2560\"} 0\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"+Inf\"} 0\n"
      "kai_task_bind_latency_milliseconds_sum 0\n"
      "kai_task_bind_latency_milliseconds_count 0\n");
  for (double v : {0.0, 5.0, 6.0, 40.0, 2560.0, 3000.0}) h.Observe(v);
  EXPECT_EQ(
      r.Expose(),
      "# HELP kai_task_bind_latency_milliseconds Task bind latency histogram in milliseconds\n"
      "# TYPE kai_task_bind_latency_milliseconds histogram\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"5\"} 2\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"10\"} 3\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"20\"} 3\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"40\"} 4\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"80\"} 4\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"160\"} 4\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"320\"} 4\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"640\"} 4\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"1280\"} 4\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"2560\"} 5\n"
      "kai_task_bind_latency_milliseconds_bucket{le=\"+Inf\"} 6\n"
      "kai_task_bind_latency_milliseconds_sum 5611\n"
      "kai_task_bind_latency_milliseconds_count 6\n");
}

TEST(RegistryTest, EscapesHelpAndLabelValues) {
  Registry r;
  r.RegisterCounter("c_total", "line1\nline2 \\ \"q\"", {"v"})
      .WithLabelValues({"a\"b\\c\nd"})
      .Inc();
  EXPECT_EQ(r.Expose(),
            "# HELP c_total line1\\nline2 \\\\ \"q\"\n"
            "# TYPE c_total counter\n"
            "c_total{v=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(RegistryTest, ReRegisteringReturnsSameFamily) {
  Registry r;
  auto& a = r.RegisterGauge("workqueue_depth", "Current depth of workqueue", {"name"});
  auto& b = r.RegisterGauge("workqueue_depth", "Current depth of workqueue", {"name"});
  EXPECT_EQ(&a, &b);
  a.WithLabelValues({"x"}).Set(4);
  EXPECT_EQ(b.WithLabelValues({"x"}).Value(), 4);
  EXPECT_NE(r.Find("workqueue_depth"), nullptr);
  EXPECT_EQ(r.Find("nope"), nullptr);
}

TEST(RegistryDeathTest, ConflictingRegistrationIsAProgrammingError) {
  Registry r;
  r.RegisterGauge("m", "m", {"name"});
  EXPECT_DEATH(r.RegisterCounter("m", "m", {"name"}), "registered twice");
  EXPECT_DEATH(r.RegisterGauge("bad-name", "m"), "invalid metric name");
  EXPECT_DEATH(r.RegisterHistogram("h", "h", {"le"}, {1}), "le");
}

TEST(RegistryTest, RemoveChild) {
  Registry r;
  auto& f = r.RegisterGauge("g", "g", {"name"});
  f.WithLabelValues({"x"}).Set(1);
  EXPECT_TRUE(f.Remove({"x"}));
  EXPECT_FALSE(f.Remove({"x"}));
  EXPECT_EQ(r.Expose(), "");
}

TEST(RegistryTest, CollectHooksRunBeforeExposeAndStopWhenReleased) {
  Registry r;
  auto& g = r.RegisterGauge("g", "g").Get();
  int calls = 0;
  {
    CollectHook hook = r.AddCollectHook([&] {
      ++calls;
      g.Set(42);
    });
    EXPECT_EQ(r.Expose(), "# HELP g g\n# TYPE g gauge\ng 42\n");
    CollectHook moved = std::move(hook);
    r.Expose();
    EXPECT_EQ(calls, 2);
  }
  r.Expose();
  EXPECT_EQ(calls, 2);
}

TEST(RegistryTest, ConcurrentUpdatesAreNotLost) {
  Registry r;
  auto& c = r.RegisterCounter("c_total", "c").Get();
  auto& h = r.RegisterHistogram("h", "h", {"w"}, {1});
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto& mine = h.WithLabelValues({t % 2 == 0 ? "even" : "odd"});
      for (int i = 0; i < 10000; ++i) {
        c.Inc();
        mine.Observe(0.5);
        if (i % 1000 == 0) r.Expose();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.Value(), 40000);
  EXPECT_EQ(h.WithLabelValues({"even"}).Collect().count, 20000u);
  EXPECT_EQ(h.WithLabelValues({"odd"}).Collect().sum, 10000.0);
}

}  // namespace
}  // namespace kai::metrics
