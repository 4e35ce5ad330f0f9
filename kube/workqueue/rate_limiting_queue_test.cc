#include "kube/workqueue/rate_limiting_queue.h"

#include <gtest/gtest.h>

#include "kube/base/fake_clock.h"

namespace kai::workqueue {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(RateLimitingQueueTest, AddRateLimitedBacksOffExponentiallyUntilForget) {
  FakeClock clock;
  RateLimitingQueue q({.clock = &clock});
  q.AddRateLimited("a");
  EXPECT_EQ(q.NumRequeues("a"), 1);
  EXPECT_EQ(q.Len(), 0);
  clock.Advance(milliseconds(5));
  ASSERT_EQ(q.Len(), 1);
  ASSERT_EQ(q.Get(), "a");
  q.Done("a");

  q.AddRateLimited("a");  // second failure: 10 ms
  clock.Advance(milliseconds(9));
  EXPECT_EQ(q.Len(), 0);
  clock.Advance(milliseconds(1));
  EXPECT_EQ(q.Len(), 1);
  ASSERT_EQ(q.Get(), "a");
  q.Done("a");
  EXPECT_EQ(q.NumRequeues("a"), 2);

  q.Forget("a");
  EXPECT_EQ(q.NumRequeues("a"), 0);
  q.AddRateLimited("a");
  clock.Advance(milliseconds(5));
  EXPECT_EQ(q.Len(), 1);
}

TEST(RateLimitingQueueTest, CustomLimiter) {
  FakeClock clock;
  RateLimitingQueue q({.clock = &clock},
                      std::make_unique<ItemFastSlowRateLimiter>(seconds(1), seconds(60), 1));
  q.AddRateLimited("a");
  clock.Advance(seconds(1));
  ASSERT_EQ(q.Get(), "a");
  q.Done("a");
  q.AddRateLimited("a");
  clock.Advance(seconds(59));
  EXPECT_EQ(q.Len(), 0);
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Len(), 1);
}

}  // namespace
}  // namespace kai::workqueue
