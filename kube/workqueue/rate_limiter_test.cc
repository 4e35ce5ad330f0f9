#include "kube/workqueue/rate_limiter.h"

#include <gtest/gtest.h>

#include "kube/base/fake_clock.h"

namespace kai::workqueue {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(ItemExponentialFailureRateLimiterTest, DoublesPerFailureUpToTheCap) {
  ItemExponentialFailureRateLimiter l(milliseconds(5), seconds(1000));
  EXPECT_EQ(l.When("a"), milliseconds(5));
  EXPECT_EQ(l.When("a"), milliseconds(10));
  EXPECT_EQ(l.When("a"), milliseconds(20));
  EXPECT_EQ(l.When("a"), milliseconds(40));
  EXPECT_EQ(l.NumRequeues("a"), 4);
  // Another key has its own history.
  EXPECT_EQ(l.When("b"), milliseconds(5));
  EXPECT_EQ(l.NumRequeues("b"), 1);
  l.Forget("a");
  EXPECT_EQ(l.NumRequeues("a"), 0);
  EXPECT_EQ(l.When("a"), milliseconds(5));
}

TEST(ItemExponentialFailureRateLimiterTest, CapsAndNeverOverflows) {
  ItemExponentialFailureRateLimiter l(milliseconds(5), seconds(1000));
  // 5 ms * 2^17 = 655.36 s < 1000 s; 2^18 = 1310.72 s is capped.
  for (int i = 0; i < 17; ++i) l.When("a");
  EXPECT_EQ(l.When("a"), milliseconds(655360));
  EXPECT_EQ(l.When("a"), seconds(1000));
  for (int i = 0; i < 2000; ++i) l.When("a");  // 2^2000 overflows a double: still the cap
  EXPECT_EQ(l.When("a"), seconds(1000));
}

TEST(ItemFastSlowRateLimiterTest, FastThenSlow) {
  ItemFastSlowRateLimiter l(milliseconds(5), seconds(10), 3);
  EXPECT_EQ(l.When("a"), milliseconds(5));
  EXPECT_EQ(l.When("a"), milliseconds(5));
  EXPECT_EQ(l.When("a"), milliseconds(5));
  EXPECT_EQ(l.When("a"), seconds(10));
  EXPECT_EQ(l.NumRequeues("a"), 4);
  l.Forget("a");
  EXPECT_EQ(l.When("a"), milliseconds(5));
}

TEST(BucketRateLimiterTest, BurstThenQpsWithDebt) {
  FakeClock clock;
  BucketRateLimiter l(10, 100, &clock);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(l.When("x"), Duration::zero()) << i;
  // Bucket empty: each further token is 100 ms more in debt.
  EXPECT_EQ(l.When("x"), milliseconds(100));
  EXPECT_EQ(l.When("x"), milliseconds(200));
  // One second refills 10 tokens: the debt of 2 is paid and 8 remain.
  clock.Advance(seconds(1));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(l.When("x"), Duration::zero()) << i;
  EXPECT_EQ(l.When("x"), milliseconds(100));
  // Refill never exceeds the burst.
  clock.Advance(seconds(1000));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(l.When("x"), Duration::zero()) << i;
  EXPECT_EQ(l.When("x"), milliseconds(100));
  EXPECT_EQ(l.NumRequeues("x"), 0);
}

TEST(DefaultControllerRateLimiterTest, MaxOfExponentialAndBucket) {
  FakeClock clock;
  auto l = DefaultControllerRateLimiter(&clock);
  // 100 different keys fit in the burst: the per-item 5 ms wins.
  for (int i = 0; i < 100; ++i) EXPECT_EQ(l->When("k" + std::to_string(i)), milliseconds(5));
  // The 101st key's first failure waits for the overall bucket (100 ms > 5 ms).
  EXPECT_EQ(l->When("k100"), milliseconds(100));
  EXPECT_EQ(l->NumRequeues("k100"), 1);
  // After a refill, repeated failures of one key follow the exponential.
  clock.Advance(seconds(100));
  EXPECT_EQ(l->When("k0"), milliseconds(10));
  EXPECT_EQ(l->When("k0"), milliseconds(20));
  EXPECT_EQ(l->NumRequeues("k0"), 3);
  l->Forget("k0");
  EXPECT_EQ(l->NumRequeues("k0"), 0);
  EXPECT_EQ(l->When("k0"), milliseconds(5));
}

}  // namespace
}  // namespace kai::workqueue
