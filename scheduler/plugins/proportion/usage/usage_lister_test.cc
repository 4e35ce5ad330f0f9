#include "scheduler/plugins/proportion/usage/usage_lister.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "kube/base/fake_clock.h"

namespace kai::proportion {
namespace {

class CountingClient final : public UsageClient {
 public:
  std::atomic<int> calls{0};
  std::atomic<bool> fail{false};
  StatusOr<ClusterUsage> GetResourceUsage() override {
    const int n = ++calls;
    if (fail) return UnavailableError("prometheus down");
    ClusterUsage u;
    u.queues["q"] = ResourceQuantities::Gpu(0.1 * n);
    return u;
  }
};

TEST(UsageLister, KeepsLastGoodDataAndReportsStaleness) {
  FakeClock clock;
  CountingClient client;
  UsageLister lister(&client, &clock, std::chrono::minutes(1), std::chrono::minutes(5),
                     std::chrono::minutes(1));
  EXPECT_FALSE(lister.GetResourceUsage().has_value());

  ASSERT_TRUE(lister.FetchOnce().ok());
  auto first = lister.GetResourceUsage();
  ASSERT_TRUE(first.has_value());
  EXPECT_DOUBLE_EQ(first->usage.queues.at("q").gpu(), 0.1);
  EXPECT_FALSE(first->stale);

  client.fail = true;
  clock.Advance(std::chrono::minutes(6));
  EXPECT_FALSE(lister.FetchOnce().ok());
  auto kept = lister.GetResourceUsage();
  ASSERT_TRUE(kept.has_value());
  EXPECT_DOUBLE_EQ(kept->usage.queues.at("q").gpu(), 0.1);  // previous data kept
  EXPECT_TRUE(kept->stale);
}

// A query that takes 30 ms on the fake clock.
class SlowClient final : public UsageClient {
 public:
  explicit SlowClient(FakeClock* clock) : clock_(clock) {}
  bool fail = false;
  StatusOr<ClusterUsage> GetResourceUsage() override {
    clock_->Advance(std::chrono::milliseconds(30));
    if (fail) return UnavailableError("prometheus down");
    return ClusterUsage{};
  }

 private:
  FakeClock* clock_;
};

TEST(UsageLister, ReportsEachSuccessfulQuerysLatency) {
  FakeClock clock;
  SlowClient client(&clock);
  UsageLister lister(&client, &clock, std::chrono::minutes(1), std::chrono::minutes(5),
                     std::chrono::minutes(1));
  std::vector<Duration> latencies;
  lister.set_on_query_latency([&](Duration d) { latencies.push_back(d); });
  ASSERT_TRUE(lister.FetchOnce().ok());
  client.fail = true;
  EXPECT_FALSE(lister.FetchOnce().ok());  // not observed (as KAI)
  EXPECT_EQ(latencies, (std::vector<Duration>{std::chrono::milliseconds(30)}));
}

TEST(UsageLister, StalenessNeverBelowFetchInterval) {
  FakeClock clock;
  CountingClient client;
  UsageLister lister(&client, &clock, std::chrono::minutes(10), std::chrono::minutes(1),
                     std::chrono::minutes(1));
  ASSERT_TRUE(lister.FetchOnce().ok());
  clock.Advance(std::chrono::minutes(5));
  EXPECT_FALSE(lister.GetResourceUsage()->stale);
  clock.Advance(std::chrono::minutes(6));
  EXPECT_TRUE(lister.GetResourceUsage()->stale);
}

TEST(UsageLister, BackgroundLoopFetchesEveryInterval) {
  FakeClock clock;
  CountingClient client;
  UsageLister lister(&client, &clock, std::chrono::minutes(1), std::chrono::minutes(5),
                     std::chrono::minutes(1));
  lister.Start();
  EXPECT_TRUE(lister.WaitForFirstData());
  // Wait (in real time, bounded) until the loop sleeps on the clock, then move time forward.
  for (int i = 0; i < 2000 && clock.NumWaiters() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  clock.Advance(std::chrono::minutes(1));
  for (int i = 0; i < 2000 && client.calls < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(client.calls.load(), 2);
  lister.Stop();
  const int calls = client.calls;
  clock.Advance(std::chrono::minutes(10));
  EXPECT_EQ(client.calls.load(), calls);
}

TEST(UsageLister, WaitForFirstDataTimesOut) {
  FakeClock clock;
  CountingClient client;
  client.fail = true;
  UsageLister lister(&client, &clock, std::chrono::minutes(1), std::chrono::minutes(5),
                     std::chrono::seconds(30));
  std::thread waiter([&] { EXPECT_FALSE(lister.WaitForFirstData()); });
  for (int i = 0; i < 2000 && clock.NumWaiters() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  clock.Advance(std::chrono::seconds(31));
  waiter.join();
}

TEST(ApplyUsage, SetsUsageByUid) {
  QueueAttributes a;
  a.uid = "a";
  QueueAttributes b;
  b.uid = "b";
  b.share(ResourceName::kGpu).usage = 0.7;
  auto t = QueueTable::Build({a, b});
  ASSERT_TRUE(t.ok());
  ClusterUsage usage;
  usage.queues["a"] = ResourceQuantities::Of(0.1, 0.2, 0.3);
  ApplyUsage(usage, *t);
  EXPECT_EQ((*t)[t->Find("a")].Usage(), ResourceQuantities::Of(0.1, 0.2, 0.3));
  EXPECT_EQ((*t)[t->Find("b")].Usage(), ResourceQuantities{});
}

}  // namespace
}  // namespace kai::proportion
