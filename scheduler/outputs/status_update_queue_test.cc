#include "scheduler/outputs/status_update_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/well_known.h"
#include "kube/base/fake_clock.h"
#include "scheduler/outputs/fake_scheduler_writer.h"

namespace kai::scheduler {
namespace {

StatusUpdate PodStatus(const std::string& name, const std::string& patch) {
  StatusUpdate u;
  u.kind = StatusUpdate::Kind::kPodStatus;
  u.namespace_ = "ns";
  u.name = name;
  u.uid = "uid-" + name;
  u.patch = patch;
  return u;
}

std::shared_ptr<const api::PodGroup> Pg(const std::string& rv, const std::string& start = "") {
  auto pg = std::make_shared<api::PodGroup>();
  pg->metadata.namespace_ = "ns";
  pg->metadata.name = "pg";
  pg->metadata.uid = "u1";
  pg->metadata.resource_version = rv;
  pg->metadata.annotations["other"] = "keep";
  if (!start.empty()) {
    pg->metadata.annotations[std::string(api::kLastStartTimestampAnnotation)] = start;
  }
  return pg;
}

StatusUpdate PgUpdate(const std::string& start, bool with_condition) {
  StatusUpdate u;
  u.kind = StatusUpdate::Kind::kPodGroup;
  u.namespace_ = "ns";
  u.name = "pg";
  u.uid = "u1";
  auto desired = std::make_shared<api::PodGroup>(*Pg("10", start));
  u.patch = "[{\"op\":\"add\"}]";
  if (with_condition) {
    api::SchedulingCondition c;
    c.type = "UnschedulableOnNodePool";
    c.node_pool = "default";
    c.transition_id = "1";
    desired->status.scheduling_conditions.push_back(c);
    u.status_patch = "[{\"op\":\"add\",\"path\":\"/status\"}]";
  }
  u.desired = desired;
  return u;
}

TEST(StatusUpdateQueue, NewerUpdateReplacesQueuedOneAndKeepsItsPlace) {
  StatusUpdateQueue q;
  q.Push(PodStatus("a", "a1"));
  q.Push(PodStatus("b", "b1"));
  q.Push(PodStatus("a", "a2"));
  EXPECT_EQ(q.size(), 2u);
  auto first = q.Pop();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->name, "a");
  EXPECT_EQ(first->patch, "a2");
  EXPECT_EQ(q.Pop()->name, "b");
  EXPECT_FALSE(q.Pop());
}

TEST(StatusUpdateQueue, PreBindDropsOnlyThePodStatusUpdate) {
  StatusUpdateQueue q;
  q.Push(PodStatus("a", "cond"));
  StatusUpdate labels = PodStatus("a", "labels");
  labels.kind = StatusUpdate::Kind::kPodLabels;
  q.Push(labels);
  q.PreBind("ns", "a", "uid-a");
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q.Pop()->kind, StatusUpdate::Kind::kPodLabels);
  q.PreBind("ns", "missing", "uid-x");  // no-op
}

TEST(StatusUpdateQueue, KeysAreKaiPayloadKeys) {
  EXPECT_EQ(PodStatus("a", "").Key(), "ns/a_uid-a-Status");
  StatusUpdate l = PodStatus("a", "");
  l.kind = StatusUpdate::Kind::kPodLabels;
  EXPECT_EQ(l.Key(), "ns/a_uid-a-Labels");
  EXPECT_EQ(PgUpdate("", false).Key(), "ns/pg_u1");
}

TEST(StatusUpdateQueue, DrainRetriesFailuresAndDropsNotFound) {
  StatusUpdateQueue q;
  FakeSchedulerWriter w;
  q.Push(PodStatus("a", "pa"));
  q.Push(PodStatus("gone", "pg"));
  w.FailNext("PatchPodStatus", UnavailableError("boom"));  // a, retried
  w.FailNext("PatchPodStatus", NotFoundError("pods \"gone\" not found").SetReason("NotFound"));
  int attempts = q.Drain(&w);
  EXPECT_EQ(attempts, 3);
  auto calls = w.CallsOf("PatchPodStatus");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].key, "ns/a");
  EXPECT_EQ(calls[0].body, "pa");
  EXPECT_EQ(q.size(), 0u);
}

// A worker thread has taken the only update and is writing it: the queue is empty, yet Drain
// (the live scheduler's FlushStatusUpdates) returns only once that write has landed.
TEST(StatusUpdateQueue, DrainWaitsForAWorkersWriteInFlight) {
  FakeClock clock;
  StatusUpdateQueue q(&clock);
  FakeSchedulerWriter w;
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false;
  bool release = false;
  w.on_call = [&](const std::string&) {
    std::unique_lock<std::mutex> lock(mu);
    entered = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
  };
  q.Push(PodStatus("a", "pa"));
  std::thread worker([&] { EXPECT_TRUE(q.PerformNext(&w, std::chrono::seconds(1))); });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return entered; });
  }
  EXPECT_EQ(q.size(), 0u);
  std::thread releaser([&] {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
    cv.notify_all();
  });
  EXPECT_EQ(q.Drain(&w), 0);  // nothing left for Drain itself to write
  EXPECT_EQ(w.CallsOf("PatchPodStatus").size(), 1u);
  worker.join();
  releaser.join();
}

TEST(StatusUpdateQueue, PerformNextTimesOutOnAnEmptyQueue) {
  FakeClock clock;
  StatusUpdateQueue q(&clock);
  FakeSchedulerWriter w;
  std::thread worker([&] { EXPECT_FALSE(q.PerformNext(&w, std::chrono::seconds(1))); });
  while (clock.NumWaiters() == 0) std::this_thread::yield();
  clock.Advance(std::chrono::seconds(1));
  worker.join();
  EXPECT_TRUE(w.calls.empty());
}

TEST(StatusUpdateQueue, PodGroupUpdateWritesBothPatchesAndConflictIsDropped) {
  StatusUpdateQueue q;
  FakeSchedulerWriter w;
  q.Push(PgUpdate("2025-01-01T00:00:00Z", true));
  q.Drain(&w);
  ASSERT_EQ(w.CallsOf("PatchPodGroup").size(), 1u);
  ASSERT_EQ(w.CallsOf("PatchPodGroupStatus").size(), 1u);

  q.Push(PgUpdate("2025-01-01T00:00:01Z", true));
  w.FailNext("PatchPodGroupStatus", AbortedError("conflict").SetReason("Conflict"));
  q.Drain(&w);
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(w.CallsOf("PatchPodGroupStatus").size(), 1u);  // not retried
}

// What the server refuses comes back the same every time: it is dropped, not spun on.
TEST(StatusUpdateQueue, RefusedWritesAreDroppedAndOnlyRetryableOnesRetried) {
  StatusUpdateQueue q;
  FakeSchedulerWriter w;
  for (const char* name : {"forbidden", "invalid", "conflict", "throttled", "down"}) {
    q.Push(PodStatus(name, name));
  }
  w.FailNext("PatchPodStatus", PermissionDeniedError("no").SetHttpCode(403));
  w.FailNext("PatchPodStatus", InvalidArgumentError("no").SetHttpCode(422).SetReason("Invalid"));
  w.FailNext("PatchPodStatus", AbortedError("no").SetHttpCode(409).SetReason("Conflict"));
  w.FailNext("PatchPodStatus", UnavailableError("slow down").SetHttpCode(429));
  w.FailNext("PatchPodStatus", UnavailableError("etcd").SetHttpCode(503));
  EXPECT_EQ(q.Drain(&w), 7);  // five, then the two retried
  std::vector<std::string> written;
  for (const auto& c : w.CallsOf("PatchPodStatus")) written.push_back(c.key);
  EXPECT_EQ(written, (std::vector<std::string>{"ns/throttled", "ns/down"}));
  EXPECT_EQ(q.size(), 0u);
}

// A write that keeps failing is retried after a backoff of its own, doubling to a bound, while
// other objects' writes go on; KAI requeues at once and spins.
TEST(StatusUpdateQueue, ARetriedFailureWaitsItsBackoff) {
  FakeClock clock;
  StatusUpdateQueue q(&clock);
  FakeSchedulerWriter w;
  auto perform_due = [&] {
    while (q.PerformNext(&w, Duration::zero())) {
    }
  };
  q.Push(PodStatus("a", "pa"));
  for (int i = 0; i < 12; ++i) w.FailNext("PatchPodStatus", UnavailableError("down"));
  perform_due();  // the first attempt fails
  EXPECT_EQ(q.size(), 1u);
  Duration backoff = StatusUpdateQueue::kInitialBackoff;
  for (int failures = 1; failures < 12; ++failures) {
    clock.Advance(backoff - std::chrono::milliseconds(1));
    StatusUpdate other = PodStatus("b-" + std::to_string(failures), "labels");
    other.kind = StatusUpdate::Kind::kPodLabels;
    q.Push(other);
    perform_due();  // the other pod's write goes; the failing one is not due yet
    EXPECT_EQ(w.CallsOf("PatchPod").size(), static_cast<size_t>(failures));
    EXPECT_EQ(q.size(), 1u) << failures;
    clock.Advance(std::chrono::milliseconds(1));
    perform_due();  // due: fails again
    backoff = std::min(backoff * 2, StatusUpdateQueue::kMaxBackoff);
  }
  EXPECT_EQ(backoff, StatusUpdateQueue::kMaxBackoff);
  EXPECT_TRUE(w.CallsOf("PatchPodStatus").empty());
  // A newer update of the failing pod waits out the same backoff, then is written.
  q.Push(PodStatus("a", "pa2"));
  clock.Advance(backoff - std::chrono::milliseconds(1));
  perform_due();
  EXPECT_TRUE(w.CallsOf("PatchPodStatus").empty());
  clock.Advance(std::chrono::milliseconds(1));
  perform_due();
  ASSERT_EQ(w.CallsOf("PatchPodStatus").size(), 1u);
  EXPECT_EQ(w.CallsOf("PatchPodStatus")[0].body, "pa2");
  EXPECT_EQ(q.size(), 0u);
}

TEST(StatusUpdateQueue, OverlayShowsQueuedAndUnobservedWrites) {
  StatusUpdateQueue q;
  FakeSchedulerWriter w;
  auto observed = Pg("10");
  EXPECT_EQ(q.Overlay(observed), observed);  // nothing in flight: the same object

  q.Push(PgUpdate("2025-01-01T00:00:00Z", true));
  auto merged = q.Overlay(observed);
  EXPECT_EQ(merged->metadata.annotations.at(std::string(api::kLastStartTimestampAnnotation)),
            "2025-01-01T00:00:00Z");
  EXPECT_EQ(merged->metadata.annotations.at("other"), "keep");
  ASSERT_EQ(merged->status.scheduling_conditions.size(), 1u);

  q.Drain(&w);  // written: the fake returns resourceVersion "1002"
  EXPECT_EQ(q.num_applied_overlays(), 1u);
  // The informer still delivers an older object: the write stays visible.
  merged = q.Overlay(Pg("1001"));
  EXPECT_EQ(merged->status.scheduling_conditions.size(), 1u);
  // The informer caught up: the overlay is forgotten.
  auto caught_up = Pg("1002", "2025-01-01T00:00:00Z");
  EXPECT_EQ(q.Overlay(caught_up), caught_up);
  EXPECT_EQ(q.num_applied_overlays(), 0u);
}

TEST(StatusUpdateQueue, ForgettingADeletedPodGroupDropsItsOverlay) {
  StatusUpdateQueue q;
  FakeSchedulerWriter w;
  q.Push(PgUpdate("2025-01-01T00:00:00Z", true));
  q.Drain(&w);
  EXPECT_EQ(q.num_applied_overlays(), 1u);
  q.ForgetPodGroup("ns", "pg", "other-uid");  // another incarnation: kept
  EXPECT_EQ(q.num_applied_overlays(), 1u);
  q.ForgetPodGroup("ns", "pg", "u1");
  EXPECT_EQ(q.num_applied_overlays(), 0u);
}

TEST(StatusUpdateQueue, OverlayRemovesAnnotationsTheUpdateRemoves) {
  StatusUpdateQueue q;
  q.Push(PgUpdate("", false));
  auto merged = q.Overlay(Pg("10", "2024-01-01T00:00:00Z"));
  EXPECT_EQ(merged->metadata.annotations.count(std::string(api::kLastStartTimestampAnnotation)),
            0u);
  EXPECT_TRUE(merged->status.scheduling_conditions.empty());
}

}  // namespace
}  // namespace kai::scheduler
