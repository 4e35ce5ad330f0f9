#include "kube/record/event_broadcaster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "api/codec.h"
#include "api/pod.h"
#include "kube/base/fake_clock.h"
#include "kube/rest/errors.h"
#include "kube/rest/fake_client.h"
#include "kube/testing/eventually.h"

namespace kai::record {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class ZeroRandom final : public Random {
 public:
  uint64_t Uniform(uint64_t) override { return 0; }
  double UniformDouble() override { return 0; }
};

using ::kai::testing::Eventually;

api::Pod Pod() {
  api::Pod p;
  p.metadata.namespace_ = "team-a";
  p.metadata.name = "train-0";
  p.metadata.uid = "1234";
  p.metadata.resource_version = "7";
  return p;
}

std::vector<api::Event> Events(kube::FakeClient& fake) {
  auto list = fake.List(kube::GvrOf<api::Event>(), "");
  EXPECT_TRUE(list.ok()) << list.status();
  std::vector<api::Event> out;
  for (const auto& item : list->items) out.push_back(*api::Decode<api::Event>(item));
  return out;
}

TEST(EventRecorderTest, WritesCoreV1EventAndPatchesRepeats) {
  FakeClock clock;
  kube::FakeClient fake({.clock = &clock});
  ClientEventSink sink(&fake);
  EventBroadcaster b(&sink, {.clock = &clock});
  auto recorder = b.NewRecorder({.component = "kai-scheduler", .host = ""});
  recorder->Event(ReferenceTo(Pod()), kEventTypeWarning, "Unschedulable",
                  "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
  b.Flush();
  std::vector<api::Event> events = Events(fake);
  ASSERT_EQ(events.size(), 1u);
  const api::Event e = events[0];  // a copy: `events` is reassigned below
  EXPECT_THAT(e.metadata.name, StartsWith("train-0."));
  EXPECT_EQ(e.metadata.namespace_, "team-a");
  EXPECT_EQ(e.involved_object.kind, "Pod");
  EXPECT_EQ(e.involved_object.api_version, "v1");
  EXPECT_EQ(e.involved_object.name, "train-0");
  EXPECT_EQ(e.involved_object.uid, "1234");
  EXPECT_EQ(e.involved_object.resource_version, "7");
  EXPECT_EQ(e.reason, "Unschedulable");
  EXPECT_EQ(e.type, "Warning");
  EXPECT_EQ(e.source.component, "kai-scheduler");
  EXPECT_EQ(e.reporting_component, "kai-scheduler");
  EXPECT_EQ(e.count, 1);
  EXPECT_EQ(e.first_timestamp, clock.Now());
  EXPECT_EQ(e.last_timestamp, clock.Now());

  clock.Advance(seconds(30));
  fake.ClearActions();
  recorder->Event(ReferenceTo(Pod()), kEventTypeWarning, "Unschedulable",
                  "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
  b.Flush();
  const auto actions = fake.actions();
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].verb, "patch");
  EXPECT_EQ(actions[0].patch_type, kube::PatchType::kStrategicMerge);
  EXPECT_EQ(actions[0].name, e.metadata.name);
  EXPECT_THAT(actions[0].body, HasSubstr("\"count\":2"));
  events = Events(fake);
  ASSERT_EQ(events.size(), 1u) << "a repeat must not create a second Event";
  EXPECT_EQ(events[0].count, 2);
  EXPECT_EQ(events[0].first_timestamp, e.first_timestamp);
  EXPECT_EQ(events[0].last_timestamp, clock.Now());
  EXPECT_EQ(b.stats().created, 1);
  EXPECT_EQ(b.stats().patched, 1);
}

TEST(EventRecorderTest, ClusterScopedObjectsGetEventsInDefaultAndNamesStayUnique) {
  FakeClock clock;
  kube::FakeClient fake({.clock = &clock});
  ClientEventSink sink(&fake);
  EventBroadcaster b(&sink, {.clock = &clock});
  auto recorder = b.NewRecorder({.component = "kai-queue-controller"});
  api::ObjectReference queue{
      .kind = "Queue", .name = "research", .api_version = "scheduling.run.ai/v2"};
  // Same instant (fake clock), different events: distinct names, no AlreadyExists.
  recorder->Event(queue, kEventTypeNormal, "Created", "a");
  recorder->Event(queue, kEventTypeNormal, "Updated", "b");
  b.Flush();
  const auto events = Events(fake);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].metadata.namespace_, "default");
  EXPECT_NE(events[0].metadata.name, events[1].metadata.name);
}

TEST(EventRecorderTest, InvalidTypeIsRejected) {
  kube::FakeClient fake;
  ClientEventSink sink(&fake);
  EventBroadcaster b(&sink);
  b.NewRecorder({.component = "x"})->Event(ReferenceTo(Pod()), "Error", "R", "m");
  b.Flush();
  EXPECT_EQ(b.stats().queued, 0);
  EXPECT_TRUE(Events(fake).empty());
}

TEST(EventRecorderTest, PatchOfAVanishedEventCreatesItAgain) {
  FakeClock clock;
  kube::FakeClient fake({.clock = &clock});
  ClientEventSink sink(&fake);
  EventBroadcaster b(&sink, {.clock = &clock});
  auto recorder = b.NewRecorder({.component = "c"});
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "Bound", "m");
  b.Flush();
  const auto first = Events(fake);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(fake.Delete(kube::GvrOf<api::Event>(), "team-a", first[0].metadata.name).ok());
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "Bound", "m");
  b.Flush();
  const auto again = Events(fake);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].count, 2);
}

// A sink that fails or blocks as the test says.
class ScriptedSink final : public EventSink {
 public:
  StatusOr<api::Event> Create(const api::Event& e) override {
    std::unique_lock<std::mutex> l(mu_);
    ++creates_;
    started_.push_back(e.involved_object.name + ":" + e.reason);
    cv_.notify_all();
    cv_.wait(l, [&] { return !block_; });
    if (!error_.ok()) return error_;
    return e;
  }
  StatusOr<api::Event> Patch(const api::Event& e, std::string_view) override { return e; }
  void SetError(Status s) {
    std::lock_guard<std::mutex> l(mu_);
    error_ = std::move(s);
  }
  void SetBlocked(bool b) {
    std::lock_guard<std::mutex> l(mu_);
    block_ = b;
    cv_.notify_all();
  }
  int creates() {
    std::lock_guard<std::mutex> l(mu_);
    return creates_;
  }
  // "object:reason" of every Create, in the order they started.
  std::vector<std::string> started() {
    std::lock_guard<std::mutex> l(mu_);
    return started_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  Status error_;
  bool block_ = false;
  int creates_ = 0;
  std::vector<std::string> started_;
};

TEST(EventBroadcasterTest, TransportErrorsAreRetried12Times10sApart) {
  FakeClock clock;
  ZeroRandom random;
  ScriptedSink sink;
  sink.SetError(UnavailableError("connection refused"));
  EventBroadcaster b(&sink, {.clock = &clock, .random = &random});
  b.NewRecorder({.component = "c"})->Event(ReferenceTo(Pod()), kEventTypeNormal, "R", "m");
  // Try 1 fails; the first wait is randomized (0 here); try 2 follows at once.
  ASSERT_TRUE(Eventually([&] { return sink.creates() == 2; }));
  for (int tries = 2; tries < 12; ++tries) {
    ASSERT_TRUE(Eventually([&] { return clock.NumWaiters() > 0; }));
    clock.Advance(seconds(9));
    EXPECT_EQ(sink.creates(), tries) << "retried before 10 s";
    clock.Advance(seconds(1));
    ASSERT_TRUE(Eventually([&] { return sink.creates() == tries + 1; }));
  }
  b.Flush();
  EXPECT_EQ(sink.creates(), 12);
  EXPECT_EQ(b.stats().failed, 1);
  EXPECT_EQ(b.stats().retries, 11);
}

TEST(EventBroadcasterTest, ServerRejectionsAreNotRetried) {
  ScriptedSink sink;
  sink.SetError(kube::NewForbidden("events is forbidden: User cannot create resource"));
  EventBroadcaster b(&sink);
  b.NewRecorder({.component = "c"})->Event(ReferenceTo(Pod()), kEventTypeNormal, "R", "m");
  b.Flush();
  EXPECT_EQ(sink.creates(), 1);
  EXPECT_EQ(b.stats().failed, 1);
  EXPECT_EQ(b.stats().retries, 0);
}

TEST(EventBroadcasterTest, RecordingNeverBlocksAndDropsWhenTheQueueIsFull) {
  ScriptedSink sink;
  sink.SetBlocked(true);
  EventBroadcaster b(&sink, {.queue_size = 3});
  auto recorder = b.NewRecorder({.component = "c"});
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R0", "m");
  ASSERT_TRUE(Eventually([&] { return sink.creates() == 1; }));  // the worker is stuck
  for (int i = 1; i <= 10; ++i) {
    recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R" + std::to_string(i), "m");
  }
  EXPECT_EQ(b.stats().queued, 4);
  EXPECT_EQ(b.stats().dropped, 7);
  sink.SetBlocked(false);
  b.Flush();
  EXPECT_EQ(sink.creates(), 4);
}

TEST(EventBroadcasterTest, SeveralWritersKeepEachObjectsEventsInOrder) {
  ScriptedSink sink;
  sink.SetBlocked(true);
  EventBroadcaster b(&sink, {.writers = 3});
  auto recorder = b.NewRecorder({.component = "c"});
  auto pod = [](const std::string& name) {
    api::Pod p = Pod();
    p.metadata.name = name;
    p.metadata.uid = "uid-" + name;
    return ReferenceTo(p);
  };
  recorder->Event(pod("a"), kEventTypeNormal, "A1", "m");
  recorder->Event(pod("a"), kEventTypeNormal, "A2", "m");
  recorder->Event(pod("b"), kEventTypeNormal, "B1", "m");
  recorder->Event(pod("c"), kEventTypeNormal, "C1", "m");
  // Three writes in flight at once, none of them a's second event.
  ASSERT_TRUE(Eventually([&] { return sink.creates() == 3; }));
  std::vector<std::string> first = sink.started();
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, (std::vector<std::string>{"a:A1", "b:B1", "c:C1"}));
  sink.SetBlocked(false);
  b.Flush();
  EXPECT_EQ(sink.creates(), 4);
  EXPECT_EQ(sink.started().back(), "a:A2");
  EXPECT_EQ(b.stats().created, 4);
}

TEST(EventBroadcasterTest, FullWaitWaitsForRoomThenDrops) {
  FakeClock clock;
  ScriptedSink sink;
  sink.SetBlocked(true);
  EventBroadcaster b(&sink, {.clock = &clock, .queue_size = 1, .full_wait = seconds(2)});
  auto recorder = b.NewRecorder({.component = "c"});
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R0", "m");
  ASSERT_TRUE(Eventually([&] { return sink.creates() == 1; }));      // the worker is stuck
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R1", "m");  // queued
  // R2 waits for room: the writer gets unstuck and takes R1, so R2 is queued, not dropped.
  std::thread unblock([&] {
    Eventually([&] { return clock.NumWaiters() > 0; });
    sink.SetBlocked(false);
  });
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R2", "m");
  unblock.join();
  b.Flush();
  EXPECT_EQ(b.stats().dropped, 0);
  EXPECT_EQ(sink.creates(), 3);
  // Stuck again and full: after 2 s the event is dropped.
  sink.SetBlocked(true);
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R3", "m");
  ASSERT_TRUE(Eventually([&] { return sink.creates() == 4; }));
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R4", "m");  // queued
  std::thread advance([&] {
    Eventually([&] { return clock.NumWaiters() > 0; });
    clock.Advance(seconds(2));
  });
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R5", "m");
  advance.join();
  EXPECT_EQ(b.stats().dropped, 1);
  // The sink is stalled: further events are dropped at once, without waiting (no clock advance).
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R6", "m");
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R7", "m");
  EXPECT_EQ(b.stats().dropped, 3);
  // A write succeeds: waiting for room is back.
  sink.SetBlocked(false);
  b.Flush();
  sink.SetBlocked(true);
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R8", "m");
  ASSERT_TRUE(Eventually([&] { return sink.creates() == 6; }));
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R9", "m");  // queued
  std::thread unblock2([&] {
    Eventually([&] { return clock.NumWaiters() > 0; });
    sink.SetBlocked(false);
  });
  recorder->Event(ReferenceTo(Pod()), kEventTypeNormal, "R10", "m");
  unblock2.join();
  b.Flush();
  EXPECT_EQ(b.stats().dropped, 3);
  EXPECT_EQ(sink.creates(), 8);
}

TEST(EventBroadcasterTest, ShutdownCutsARetryWaitShort) {
  FakeClock clock;
  ScriptedSink sink;
  sink.SetError(UnavailableError("connection refused"));
  SeededRandom random(3);
  EventBroadcaster b(&sink, {.clock = &clock, .random = &random});
  b.NewRecorder({.component = "c"})->Event(ReferenceTo(Pod()), kEventTypeNormal, "R", "m");
  ASSERT_TRUE(Eventually([&] { return clock.NumWaiters() > 0; }));
  b.Shutdown();  // returns without the clock moving
  EXPECT_FALSE(b.Action(api::Event()));
}

}  // namespace
}  // namespace kai::record
