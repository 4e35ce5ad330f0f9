// Deferred binds: the allocate action's BindRequests are created concurrently (OutputSink with
// bind-request workers) and answered in any order. The session must end up as a synchronous
// commit leaves it: a refused creation undoes that pod's allocation (its pod is pending again,
// FailedBinding, the evicting actions wait for the next cycle), one with no answer is held in
// doubt, and the writes other than the creations' order are the same.
#include <gtest/gtest.h>

#include <set>
#include <string>
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

constexpr int kWorkers = 4;

// One 8-GPU node and eight single-GPU bare pods p0..p7, created in that order.
std::string EightPods() {
  std::string y = NodeYaml("n0", 8) + QueueYaml("q");
  for (int i = 0; i < 8; ++i) {
    y += PodYaml("ns", "p" + std::to_string(i), "", 1,
                 PodOptions{.labels = "    kai.scheduler/queue: q\n",
                            .created = "2025-01-01T00:00:0" + std::to_string(i) + "Z"});
  }
  return y;
}

// Every write but the creations, in order, with the status updates drained at the end.
std::vector<std::string> OtherWrites(Harness& h) {
  h.updates().Drain(&h.writer());
  std::vector<std::string> out;
  for (const auto& c : h.writer().calls) {
    if (c.verb == "CreateBindRequest") continue;
    out.push_back(c.verb + " " + c.key + " " + c.body + " " + c.event.type + " " + c.event.reason +
                  " " + c.event.message);
  }
  return out;
}

std::set<std::string> Created(Harness& h) {
  std::set<std::string> out;
  for (const auto& c : h.writer().CallsOf("CreateBindRequest")) out.insert(c.key);
  return out;
}

TEST(DeferredBinds, AnsweredOutOfOrderTheyAreHandledInIssueOrder) {
  Harness h({}, kWorkers);
  h.Load(EightPods());
  h.gate().Gate(kWorkers, 8);
  CycleResult r = h.Cycle();
  // Four creations in flight at a time, each batch answered in reverse.
  EXPECT_EQ(h.gate().answer_order(),
            (std::vector<std::string>{"ns/p3", "ns/p2", "ns/p1", "ns/p0", "ns/p7", "ns/p6", "ns/p5",
                                      "ns/p4"}));
  EXPECT_TRUE(r.skipped_actions.empty());
  EXPECT_EQ(h.sink().counters().bind_requests_created, 8);
  std::vector<std::string> scheduled;
  for (const auto& e : h.writer().Events()) {
    if (e.reason == "Scheduled") scheduled.push_back(e.object.name);
  }
  EXPECT_EQ(scheduled, (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"}));
  h.writer().calls.clear();
  h.Cycle();  // every pod has its BindRequest: nothing is decided twice
  EXPECT_TRUE(h.writer().CallsOf("CreateBindRequest").empty());
}

TEST(DeferredBinds, RefusedOnesWriteWhatASynchronousCommitWrites) {
  // Same workload, p2 and p5 refused: once with synchronous creations (KAI), once with four
  // workers answering out of order. Same decisions, events, conditions and PodGroup writes,
  // and in both the evicting actions wait for the next cycle.
  const std::set<std::string> refused = {"ns/p2", "ns/p5"};
  Harness sync;
  sync.Load(EightPods());
  sync.gate().Refuse(refused);
  CycleResult rs = sync.Cycle();

  Harness deferred({}, kWorkers);
  deferred.Load(EightPods());
  deferred.gate().Refuse(refused);
  deferred.gate().Gate(kWorkers, 8);
  CycleResult rd = deferred.Cycle();

  const std::set<std::string> written = {"ns/p0", "ns/p1", "ns/p3", "ns/p4", "ns/p6", "ns/p7"};
  EXPECT_EQ(Created(sync), written);
  EXPECT_EQ(Created(deferred), written);
  const std::vector<std::string> skipped = {"consolidation", "reclaim", "preempt",
                                            "stalegangeviction"};
  EXPECT_EQ(rs.skipped_actions, skipped);
  EXPECT_EQ(rd.skipped_actions, skipped);
  EXPECT_EQ(deferred.sink().counters().bind_request_failures, 2);
  EXPECT_EQ(deferred.sink().counters().bind_requests_created, 6);
  std::vector<std::string> other = OtherWrites(deferred);
  EXPECT_EQ(other, OtherWrites(sync));
  // p2 is pending again in the session: FailedBinding, then at session close the Unschedulable
  // event and condition of a pending pod (the condition replaces the queued BindingError one).
  auto has = [&other](const std::string& prefix, const std::string& text) {
    for (const auto& w : other) {
      if (w.rfind(prefix, 0) == 0 && w.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("Event ns/p2", "FailedBinding")) << ::testing::PrintToString(other);
  EXPECT_TRUE(has("Event ns/p2", "Unschedulable"));
  EXPECT_TRUE(has("PatchPodStatus ns/p2", "\"reason\":\"Unschedulable\""));
  EXPECT_FALSE(has("Event ns/p2", "Scheduled Successfully"));

  // Next cycle (the API server accepts again): only the refused pods are decided, nothing
  // evicted.
  for (Harness* h : {&sync, &deferred}) {
    h->gate().Refuse({});
    h->writer().calls.clear();
    CycleResult r = h->Cycle();
    EXPECT_TRUE(r.skipped_actions.empty());
    EXPECT_EQ(Created(*h), refused);
    EXPECT_TRUE(h->writer().CallsOf("DeletePod").empty());
  }
}

TEST(DeferredBinds, ARefusedGangMemberUndoesOnlyItselfAndTheJobDidNotStart) {
  // Gangs g1 (a0..a3) and g2 (b0..b3) on 8 GPUs; a1 is refused. Its allocation is undone; a0,
  // a2 and a3 were issued with it and are written (a synchronous commit would have stopped after
  // a0: either way the gang is partly written and completed by a later cycle). g1's start is
  // not recorded, g2's is.
  std::string y = NodeYaml("n0", 8) + QueueYaml("q") + PodGroupYaml("ns", "g1", "q", 4) +
                  PodGroupYaml("ns", "g2", "q", 4);
  for (int i = 0; i < 4; ++i) {
    y += PodYaml("ns", "a" + std::to_string(i), "g1", 1);
    y += PodYaml("ns", "b" + std::to_string(i), "g2", 1);
  }
  Harness h({}, kWorkers);
  h.Load(y);
  h.gate().Refuse({"ns/a1"});
  h.gate().Gate(kWorkers, 8);
  CycleResult r = h.Cycle();
  EXPECT_EQ(Created(h),
            (std::set<std::string>{"ns/a0", "ns/a2", "ns/a3", "ns/b0", "ns/b1", "ns/b2", "ns/b3"}));
  EXPECT_EQ(h.sink().counters().bind_request_failures, 1);
  EXPECT_FALSE(r.skipped_actions.empty());
  h.updates().Drain(&h.writer());
  auto started = [&h](const std::string& pg) {
    for (const auto& c : h.writer().CallsOf("PatchPodGroup")) {
      if (c.key == pg && c.body.find("last-start-timestamp") != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_FALSE(started("ns/g1"));
  EXPECT_TRUE(started("ns/g2"));
  int failed_binding = 0;
  for (const auto& e : h.writer().Events()) {
    if (e.reason == "FailedBinding") {
      ++failed_binding;
      EXPECT_EQ(e.object.name, "a1");
    }
  }
  EXPECT_EQ(failed_binding, 1);

  h.gate().Refuse({});
  h.writer().calls.clear();
  r = h.Cycle();
  EXPECT_TRUE(r.skipped_actions.empty());
  EXPECT_EQ(Created(h), (std::set<std::string>{"ns/a1"}));
  EXPECT_TRUE(h.writer().CallsOf("DeletePod").empty());
}

TEST(DeferredBinds, UnansweredOneIsHeldInDoubtThenDecidedAgain) {
  Harness h({}, kWorkers);
  h.Load(EightPods());
  h.gate().Unanswered({"ns/p6"});
  h.gate().Gate(kWorkers, 8);
  CycleResult r = h.Cycle();
  EXPECT_EQ(h.sink().num_in_doubt(), 1);
  EXPECT_EQ(h.sink().counters().bind_requests_in_doubt, 1);
  EXPECT_EQ(h.sink().counters().bind_request_failures, 0);
  EXPECT_FALSE(r.skipped_actions.empty());
  for (const auto& e : h.writer().Events()) EXPECT_NE(e.reason, "FailedBinding") << e.message;

  // Read back: not stored, so p6 is pending again and bound in the same cycle.
  h.gate().Unanswered({});
  h.writer().calls.clear();
  h.Cycle();
  EXPECT_EQ(h.sink().num_in_doubt(), 0);
  EXPECT_EQ(Created(h), (std::set<std::string>{"ns/p6"}));
}

}  // namespace
}  // namespace kai::scheduler
