#include "kube/record/events_cache.h"

#include <gtest/gtest.h>

#include "kube/base/fake_clock.h"

namespace kai::record {
namespace {

using std::chrono::seconds;

api::Event MakeEvent(FakeClock& clock, std::string reason, std::string message,
                     const std::string& object = "p1") {
  api::Event e;
  e.metadata.namespace_ = "team-a";
  e.metadata.name = EventName(object, clock.Now());
  e.involved_object = {
      .kind = "Pod", .namespace_ = "team-a", .name = object, .uid = "u1", .api_version = "v1"};
  e.reason = std::move(reason);
  e.message = std::move(message);
  e.type = "Warning";
  e.source.component = "kai-scheduler";
  e.count = 1;
  e.first_timestamp = clock.Now();
  e.last_timestamp = clock.Now();
  return e;
}

TEST(EventNameTest, ObjectNameDotHexNanos) {
  EXPECT_EQ(EventName("pod-a", WallTime(std::chrono::nanoseconds(0x17f3a2b4c5d6e7f8))),
            "pod-a.17f3a2b4c5d6e7f8");
}

TEST(EventCorrelatorTest, RepeatsBecomeCountPatchesOfTheFirstEvent) {
  FakeClock clock;
  EventCorrelator c(&clock);
  const api::Event first = MakeEvent(clock, "Unschedulable", "0/3 nodes are available");
  CorrelateResult r1 = c.Correlate(first);
  ASSERT_FALSE(r1.skip);
  EXPECT_TRUE(r1.patch.empty());
  EXPECT_EQ(r1.event.count, 1);
  api::Event stored = r1.event;
  stored.metadata.resource_version = "42";
  c.UpdateState(stored);  // the server's answer

  clock.Advance(seconds(7));
  CorrelateResult r2 = c.Correlate(MakeEvent(clock, "Unschedulable", "0/3 nodes are available"));
  ASSERT_FALSE(r2.skip);
  EXPECT_EQ(r2.event.count, 2);
  EXPECT_EQ(r2.event.metadata.name, first.metadata.name);
  EXPECT_EQ(r2.event.metadata.resource_version, "42");
  EXPECT_EQ(r2.event.first_timestamp, first.first_timestamp);
  EXPECT_EQ(r2.patch,
            "{\"count\":2,\"lastTimestamp\":\"2026-01-01T00:00:07Z\",\"message\":\"0/3 nodes are "
            "available\"}");
  // A different message is a different event.
  CorrelateResult r3 = c.Correlate(MakeEvent(clock, "Unschedulable", "other"));
  EXPECT_EQ(r3.event.count, 1);
  EXPECT_TRUE(r3.patch.empty());
}

TEST(EventCorrelatorTest, TenSimilarEventsWithin600sAreAggregated) {
  FakeClock clock;
  EventCorrelator c(&clock);
  for (int i = 1; i <= 9; ++i) {
    CorrelateResult r = c.Correlate(MakeEvent(clock, "Evict", "victim " + std::to_string(i)));
    EXPECT_EQ(r.event.message, "victim " + std::to_string(i));
    clock.Advance(seconds(60));  // 9 minutes in all: still one window
  }
  CorrelateResult tenth = c.Correlate(MakeEvent(clock, "Evict", "victim 10"));
  EXPECT_EQ(tenth.event.message, "(combined from similar events): victim 10");
  EXPECT_EQ(tenth.event.count, 1);
  EXPECT_TRUE(tenth.patch.empty());
  const std::string aggregate_name = tenth.event.metadata.name;
  clock.Advance(seconds(1));
  CorrelateResult eleventh = c.Correlate(MakeEvent(clock, "Evict", "victim 11"));
  EXPECT_EQ(eleventh.event.message, "(combined from similar events): victim 11");
  EXPECT_EQ(eleventh.event.count, 2);
  EXPECT_EQ(eleventh.event.metadata.name, aggregate_name);
  EXPECT_FALSE(eleventh.patch.empty());
}

TEST(EventCorrelatorTest, AggregationWindowRestartsAfterTheInterval) {
  FakeClock clock;
  EventCorrelator c(&clock);
  for (int i = 1; i <= 9; ++i) c.Correlate(MakeEvent(clock, "Evict", "v" + std::to_string(i)));
  clock.Advance(seconds(601));
  CorrelateResult r = c.Correlate(MakeEvent(clock, "Evict", "v10"));
  EXPECT_EQ(r.event.message, "v10");
}

TEST(EventCorrelatorTest, SpamFilterAllows25PerObjectThenOnePer300s) {
  FakeClock clock;
  EventCorrelator c(&clock);
  for (int i = 0; i < 25; ++i) {
    EXPECT_FALSE(c.Correlate(MakeEvent(clock, "R" + std::to_string(i), "m")).skip) << i;
  }
  EXPECT_TRUE(c.Correlate(MakeEvent(clock, "R25", "m")).skip);
  // Another object has its own bucket.
  EXPECT_FALSE(c.Correlate(MakeEvent(clock, "R0", "m", "p2")).skip);
  clock.Advance(seconds(299));
  EXPECT_TRUE(c.Correlate(MakeEvent(clock, "R26", "m")).skip);
  clock.Advance(seconds(1));
  EXPECT_FALSE(c.Correlate(MakeEvent(clock, "R27", "m")).skip);
  EXPECT_TRUE(c.Correlate(MakeEvent(clock, "R28", "m")).skip);
}

TEST(EventCorrelatorTest, LruForgetsTheOldestEvents) {
  FakeClock clock;
  EventCorrelator c(&clock, {.lru_cache_size = 2});
  auto first = c.Correlate(MakeEvent(clock, "A", "m", "o1")).event;
  c.UpdateState(first);
  c.Correlate(MakeEvent(clock, "A", "m", "o2"));
  c.Correlate(MakeEvent(clock, "A", "m", "o3"));
  // o1's history was evicted: a repeat is a new event, not a patch.
  EXPECT_EQ(c.Correlate(MakeEvent(clock, "A", "m", "o1")).event.count, 1);
}

TEST(LruCacheTest, EvictsLeastRecentlyUsed) {
  LruCache<int> cache(2);
  cache.Add("a", 1);
  cache.Add("b", 2);
  ASSERT_NE(cache.Get("a"), nullptr);  // a is now the most recent
  cache.Add("c", 3);
  EXPECT_EQ(cache.Get("b"), nullptr);
  EXPECT_EQ(*cache.Get("a"), 1);
  EXPECT_EQ(*cache.Get("c"), 3);
  cache.Add("a", 10);
  EXPECT_EQ(*cache.Get("a"), 10);
  EXPECT_EQ(cache.size(), 2u);
}

}  // namespace
}  // namespace kai::record
