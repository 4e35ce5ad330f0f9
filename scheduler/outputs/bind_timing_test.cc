// The timing of each bind attempt (KAI's task_bind_latency_milliseconds and
// task_scheduling_latency_milliseconds), measured on the injected clock.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "scheduler/outputs/test_cluster.h"

namespace kai::scheduler {
namespace {

using outputs_testing::Harness;
using outputs_testing::NodeYaml;
using outputs_testing::PodGroupYaml;
using outputs_testing::PodOptions;
using outputs_testing::PodYaml;
using outputs_testing::QueueYaml;
using std::chrono::milliseconds;

// Every BindRequest creation takes 40 ms on the fake clock; the harness's clock reads
// 2025-01-01T12:00:00Z when the cycle starts.
std::vector<OutputSink::BindTiming> Timings(Harness& h) {
  std::vector<OutputSink::BindTiming> out;
  h.sink().set_on_bind_timed([&out](const OutputSink::BindTiming& t) { out.push_back(t); });
  h.writer().on_call = [&h](const std::string& verb) {
    if (verb == "CreateBindRequest") h.clock().Advance(milliseconds(40));
  };
  h.Cycle();
  return out;
}

TEST(BindTiming, EachWrittenBindRequestTimesItsPodFromCreation) {
  Harness h;
  // Two single-pod jobs, created 1 s and 3 s before the cycle.
  h.Load(NodeYaml("n1", 2) + QueueYaml("q") + PodGroupYaml("ns", "a", "q", 1) +
         PodYaml("ns", "a0", "a", 1, PodOptions{.created = "2025-01-01T11:59:59Z"}) +
         PodGroupYaml("ns", "b", "q", 1) +
         PodYaml("ns", "b0", "b", 1, PodOptions{.created = "2025-01-01T11:59:57Z"}));
  std::vector<OutputSink::BindTiming> t = Timings(h);
  ASSERT_EQ(h.writer().CallsOf("CreateBindRequest").size(), 2u);
  ASSERT_EQ(t.size(), 2u);
  // Both binds took the creation's 40 ms (nothing else advances the clock).
  EXPECT_EQ(t[0].bind, milliseconds(40));
  EXPECT_EQ(t[1].bind, milliseconds(40));
  // Job a is bound first (its PodGroup ties b's creation time and sorts first): its pod's 1 s +
  // 40 ms, then b's 3 s + 80 ms.
  ASSERT_TRUE(t[0].since_pod_creation && t[1].since_pod_creation);
  EXPECT_EQ(*t[0].since_pod_creation, milliseconds(1040));
  EXPECT_EQ(*t[1].since_pod_creation, milliseconds(3080));
}

TEST(BindTiming, ARefusedCreationIsABindAttemptButNotScheduled) {
  Harness h;
  h.Load(NodeYaml("n1", 1) + QueueYaml("q") + PodGroupYaml("ns", "pg", "q", 1) +
         PodYaml("ns", "p1", "pg", 1));
  h.writer().FailNext("CreateBindRequest", InternalError("boom").SetHttpCode(403));
  std::vector<OutputSink::BindTiming> t = Timings(h);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].bind, milliseconds(40));
  EXPECT_FALSE(t[0].since_pod_creation);
}

// Deferred binds: the time until the creation's answer counts, not the wait for the join.
TEST(BindTiming, DeferredBindsAreTimedToTheirAnswer) {
  Harness h({}, /*bind_request_workers=*/2);
  h.Load(NodeYaml("n1", 2) + QueueYaml("q") +
         PodYaml("ns", "p0", "", 1,
                 PodOptions{.labels = "    kai.scheduler/queue: q\n",
                            .created = "2025-01-01T11:59:59Z"}) +
         PodYaml("ns", "p1", "", 1,
                 PodOptions{.labels = "    kai.scheduler/queue: q\n",
                            .created = "2025-01-01T11:59:59Z"}));
  // Answered one at a time (two creations in flight), in reverse: each advances the clock 40 ms.
  h.gate().Gate(2, 2);
  std::vector<OutputSink::BindTiming> t = Timings(h);
  ASSERT_EQ(t.size(), 2u);
  for (const auto& x : t) {
    ASSERT_TRUE(x.since_pod_creation);
    EXPECT_GE(x.bind, milliseconds(40));
    EXPECT_LE(x.bind, milliseconds(80));
    EXPECT_EQ(*x.since_pod_creation, milliseconds(1000) + x.bind);
  }
}

}  // namespace
}  // namespace kai::scheduler
