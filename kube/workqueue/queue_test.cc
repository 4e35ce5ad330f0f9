#include "kube/workqueue/queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "kube/base/fake_clock.h"
#include "kube/base/random.h"

namespace kai::workqueue {
namespace {

using std::chrono::seconds;

void WaitForClockWaiter(FakeClock& clock) {
  while (clock.NumWaiters() == 0) std::this_thread::yield();
}

TEST(QueueTest, AddDeduplicatesDirtyKeys) {
  Queue q;
  q.Add("a");
  q.Add("b");
  q.Add("a");
  EXPECT_EQ(q.Len(), 2);
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Len(), 0);
}

TEST(QueueTest, KeyReAddedWhileProcessingIsQueuedAgainOnlyAtDone) {
  Queue q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Add("a");
  q.Add("a");  // still one dirty copy
  EXPECT_EQ(q.Len(), 0) << "a second worker must not get a key that is processing";
  q.Done("a");
  EXPECT_EQ(q.Len(), 1);
  EXPECT_EQ(q.Get(), "a");
  q.Done("a");
  EXPECT_EQ(q.Len(), 0);
}

TEST(QueueTest, DoneWithoutReAddDoesNotRequeue) {
  Queue q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  q.Done("a");
  EXPECT_EQ(q.Len(), 0);
  q.Add("a");
  EXPECT_EQ(q.Len(), 1);
}

TEST(QueueTest, BlockedGetWakesOnAdd) {
  Queue q;
  std::optional<std::string> got;
  std::thread t([&] { got = q.Get(); });
  q.Add("x");
  t.join();
  EXPECT_EQ(got, "x");
}

TEST(QueueTest, ShutDownHandsOutRemainingKeysThenNullopt) {
  Queue q;
  q.Add("a");
  q.Add("b");
  q.ShutDown();
  EXPECT_TRUE(q.ShuttingDown());
  q.Add("c");  // ignored
  EXPECT_EQ(q.Get(), "a");
  EXPECT_EQ(q.Get(), "b");
  EXPECT_EQ(q.Get(), std::nullopt);
}

TEST(QueueTest, ShutDownWakesBlockedGetters) {
  Queue q;
  std::vector<std::thread> threads;
  threads.reserve(3);
  std::atomic<int> nullopts{0};
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&] {
      if (!q.Get().has_value()) ++nullopts;
    });
  }
  q.ShutDown();
  for (auto& t : threads) t.join();
  EXPECT_EQ(nullopts.load(), 3);
}

TEST(QueueTest, ShutDownWithDrainWaitsForInFlightKeys) {
  Queue q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  std::atomic<bool> drained{false};
  std::thread t([&] {
    q.ShutDownWithDrain();
    drained = true;
  });
  while (!q.ShuttingDown()) std::this_thread::yield();
  EXPECT_FALSE(drained.load()) << "returned while a key was still processing";
  q.Done("a");
  t.join();
  EXPECT_TRUE(drained.load());
}

TEST(QueueTest, ShutDownWithDrainReturnsAtOnceWhenIdle) {
  Queue q;
  q.ShutDownWithDrain();
  EXPECT_TRUE(q.ShuttingDown());
}

TEST(QueueTest, ShutDownWithDrainGivesUpAtDeadline) {
  FakeClock clock;
  Queue q({.clock = &clock});
  q.Add("stuck");
  ASSERT_EQ(q.Get(), "stuck");
  std::atomic<int> result{-1};
  std::thread t([&] { result = q.ShutDownWithDrain(clock.NowMonotonic() + seconds(30)) ? 1 : 0; });
  WaitForClockWaiter(clock);
  clock.Advance(seconds(29));
  EXPECT_EQ(result.load(), -1);
  clock.Advance(seconds(1));
  t.join();
  EXPECT_EQ(result.load(), 0);
}

TEST(QueueTest, ShutDownWithDrainDeadlineSucceedsWhenDone) {
  FakeClock clock;
  Queue q({.clock = &clock});
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  std::atomic<int> result{-1};
  std::thread t([&] { result = q.ShutDownWithDrain(clock.NowMonotonic() + seconds(30)) ? 1 : 0; });
  while (!q.ShuttingDown()) std::this_thread::yield();
  q.Done("a");
  t.join();
  EXPECT_EQ(result.load(), 1);
}

TEST(QueueTest, ShutDownEndsADrain) {
  Queue q;
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  std::thread t([&] { q.ShutDownWithDrain(); });
  while (!q.ShuttingDown()) std::this_thread::yield();
  q.ShutDown();
  t.join();  // returns although "a" was never Done
}

TEST(DelayingQueueTest, AddAfterBecomesReadyAtTheDeadline) {
  FakeClock clock;
  Queue q({.clock = &clock});
  q.AddAfter("a", seconds(10));
  EXPECT_EQ(q.Len(), 0);
  EXPECT_EQ(q.NumWaiting(), 1);
  clock.Advance(seconds(9));
  EXPECT_EQ(q.Len(), 0);
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Len(), 1);
  EXPECT_EQ(q.NumWaiting(), 0);
  EXPECT_EQ(q.Get(), "a");
}

TEST(DelayingQueueTest, NonPositiveDelayAddsAtOnce) {
  FakeClock clock;
  Queue q({.clock = &clock});
  q.AddAfter("a", Duration::zero());
  q.AddAfter("b", -seconds(1));
  EXPECT_EQ(q.Len(), 2);
}

TEST(DelayingQueueTest, EarlierReadyTimeWinsForAWaitingKey) {
  FakeClock clock;
  Queue q({.clock = &clock});
  q.AddAfter("a", seconds(10));
  q.AddAfter("a", seconds(5));
  q.AddAfter("a", seconds(20));  // does not postpone
  EXPECT_EQ(q.NumWaiting(), 1);
  clock.Advance(seconds(5));
  EXPECT_EQ(q.Len(), 1);
  EXPECT_EQ(q.NumWaiting(), 0);
}

TEST(DelayingQueueTest, ReadyKeysComeOutInReadyTimeOrder) {
  FakeClock clock;
  Queue q({.clock = &clock});
  q.AddAfter("late", seconds(3));
  q.AddAfter("early", seconds(1));
  q.AddAfter("middle", seconds(2));
  q.AddAfter("tie", seconds(2));
  clock.Advance(seconds(3));
  EXPECT_EQ(q.Get(), "early");
  EXPECT_EQ(q.Get(), "middle");
  EXPECT_EQ(q.Get(), "tie");
  EXPECT_EQ(q.Get(), "late");
}

TEST(DelayingQueueTest, DelayedKeyThatIsAlreadyDirtyIsDeduplicated) {
  FakeClock clock;
  Queue q({.clock = &clock});
  q.Add("a");
  q.AddAfter("a", seconds(1));
  clock.Advance(seconds(1));
  EXPECT_EQ(q.Len(), 1);
}

TEST(DelayingQueueTest, BlockedGetWakesWhenTheClockReachesTheDeadline) {
  FakeClock clock;
  Queue q({.clock = &clock});
  q.AddAfter("a", seconds(30));
  std::optional<std::string> got;
  std::atomic<bool> returned{false};
  std::thread t([&] {
    got = q.Get();
    returned = true;
  });
  WaitForClockWaiter(clock);
  clock.Advance(seconds(29));
  EXPECT_FALSE(returned.load());
  clock.Advance(seconds(1));
  t.join();
  EXPECT_EQ(got, "a");
}

TEST(DelayingQueueTest, AddAfterWakesAGetterWaitingForALaterKey) {
  FakeClock clock;
  Queue q({.clock = &clock});
  q.AddAfter("later", seconds(100));
  std::optional<std::string> got;
  std::thread t([&] { got = q.Get(); });
  WaitForClockWaiter(clock);
  q.AddAfter("sooner", seconds(1));
  clock.Advance(seconds(1));
  t.join();
  EXPECT_EQ(got, "sooner");
}

TEST(DelayingQueueTest, ShutDownDropsDelayedKeys) {
  FakeClock clock;
  Queue q({.clock = &clock});
  q.AddAfter("a", seconds(1));
  q.ShutDown();
  q.AddAfter("b", seconds(1));
  clock.Advance(seconds(2));
  EXPECT_EQ(q.Len(), 0);
  EXPECT_EQ(q.Get(), std::nullopt);
}

// Many workers and a producer hammering a few keys: a key is never held by two workers, and
// every Add is followed by a processing of that key (level-triggered, nothing lost).
TEST(QueueTest, StressNoKeyProcessedConcurrentlyAndNoAddLost) {
  constexpr int kKeys = 16;
  constexpr int kWorkers = 4;
  constexpr int kAdds = 20000;
  Queue q;
  std::vector<std::atomic<int>> in_flight(kKeys);
  std::vector<std::atomic<int>> added_gen(kKeys);
  std::vector<std::atomic<int>> seen_gen(kKeys);
  std::atomic<int> violations{0};
  std::vector<std::thread> workers;
  workers.reserve(kWorkers);
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      while (auto item = q.Get()) {
        const int k = std::stoi(*item);
        if (in_flight[k].fetch_add(1) != 0) ++violations;
        const int gen = added_gen[k].load();
        if (gen > seen_gen[k].load()) seen_gen[k] = gen;
        std::this_thread::yield();
        in_flight[k].fetch_sub(1);
        q.Done(*item);
      }
    });
  }
  SeededRandom random(7);
  for (int i = 0; i < kAdds; ++i) {
    const int k = static_cast<int>(random.Uniform(kKeys));
    added_gen[k].fetch_add(1);
    q.Add(std::to_string(k));
  }
  q.ShutDownWithDrain();
  for (auto& t : workers) t.join();
  EXPECT_EQ(violations.load(), 0);
  for (int k = 0; k < kKeys; ++k) {
    EXPECT_EQ(seen_gen[k].load(), added_gen[k].load()) << "key " << k << " lost an add";
  }
}

}  // namespace
}  // namespace kai::workqueue
