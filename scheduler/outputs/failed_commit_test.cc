// A write that fails in the middle of a cycle (the API server went away, a 500) must leave the
// session as it was actually written: later actions of the same cycle must not see decisions that
// were never persisted, and must not evict pods for them.
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
using outputs_testing::WholeGpuBindRequest;

// 2 nodes x 4 GPUs; two gangs of 2 whole-GPU pods, three whole-GPU bare pods and a half-GPU bare
// pod (the restart e2e workload).
std::string Workload() {
  std::string y = NodeYaml("n0", 4) + NodeYaml("n1", 4) + QueueYaml("q") +
                  QueueYaml("default-queue") + PodGroupYaml("ns", "g1", "q", 2) +
                  PodGroupYaml("ns", "g2", "q", 2);
  for (const char* p : {"g1-0", "g1-1"}) y += PodYaml("ns", p, "g1", 1);
  for (const char* p : {"g2-0", "g2-1"}) y += PodYaml("ns", p, "g2", 1);
  for (const char* p : {"solo-0", "solo-1", "solo-2"}) {
    y += PodYaml("ns", p, "", 1, PodOptions{.labels = "    kai.scheduler/queue: q\n"});
  }
  y += PodYaml("ns", "frac", "", 0,
               PodOptions{.annotations = "    gpu-fraction: \"0.5\"\n",
                          .labels = "    kai.scheduler/queue: q\n"});
  return y;
}

// A refusal: an HTTP answer saying nothing was stored.
Status Refused() {
  return UnavailableError("too many requests").SetHttpCode(429).SetReason("TooManyRequests");
}

TEST(FailedCommit, RefusedMidCycleEvictsNothingAndTheNextCycleBindsTheRest) {
  // The API server refuses BindRequests after the first gang's two. Before the fix, the second
  // gang's other pod stayed Allocated in the session, consolidation took it and then the
  // pipelined pods for victims, and deleted g2-0, g2-1 and frac (pods that ran nowhere).
  Harness h;
  h.Load(Workload());
  h.writer().FailAfter("CreateBindRequest", 2, Refused());
  h.Cycle();
  EXPECT_TRUE(h.writer().CallsOf("DeletePod").empty());
  for (const auto& e : h.writer().Events()) EXPECT_NE(e.reason, "Evict") << e.message;
  ASSERT_EQ(h.writer().CallsOf("CreateBindRequest").size(), 2u);

  // Back: the next cycle binds every other pod on the idle GPUs, evicting nothing.
  h.writer().FailNone();
  h.writer().calls.clear();
  h.Cycle();
  EXPECT_TRUE(h.writer().CallsOf("DeletePod").empty());
  std::set<std::string> created;
  for (const auto& c : h.writer().CallsOf("CreateBindRequest")) created.insert(c.key);
  EXPECT_EQ(created, (std::set<std::string>{"ns/frac", "ns/g2-0", "ns/g2-1", "ns/solo-0",
                                            "ns/solo-1", "ns/solo-2"}));
}

TEST(FailedCommit, ActionsAfterAFailedBindWaitForTheNextCycle) {
  // g2-0's BindRequest is written, g2-1's is not: the gang is half written. Consolidation in the
  // same cycle took g2 (one pod Binding) as a victim for the pending pods and deleted g2-0 to
  // move the whole gang, though every pending pod fits on idle GPUs. The eviction actions are
  // skipped for the rest of the cycle.
  Harness h;
  h.Load(Workload());
  h.writer().FailAfter("CreateBindRequest", 3, Refused());
  CycleResult r = h.Cycle();
  EXPECT_TRUE(h.writer().CallsOf("DeletePod").empty());
  ASSERT_EQ(h.writer().CallsOf("CreateBindRequest").size(), 3u);
  EXPECT_EQ(h.writer().CallsOf("CreateBindRequest")[2].key, "ns/g2-0");
  EXPECT_EQ(r.skipped_actions,
            (std::vector<std::string>{"consolidation", "reclaim", "preempt", "stalegangeviction"}));

  h.writer().FailNone();
  h.writer().calls.clear();
  r = h.Cycle();
  EXPECT_TRUE(r.skipped_actions.empty());
  EXPECT_TRUE(h.writer().CallsOf("DeletePod").empty());
  std::set<std::string> created;
  for (const auto& c : h.writer().CallsOf("CreateBindRequest")) created.insert(c.key);
  EXPECT_EQ(created,
            (std::set<std::string>{"ns/frac", "ns/g2-1", "ns/solo-0", "ns/solo-1", "ns/solo-2"}));
}

TEST(InDoubtBindRequest, AnswerLostHoldsTheGpusAndIsReadBack) {
  // a's BindRequest is stored but its answer is lost (connection reset). Before, a was pending
  // again in the session and the model, c took its GPU (three pods bound to a 2-GPU node), and a
  // was decided again (AlreadyExists) until the informer caught up.
  Harness h;
  h.Load(NodeYaml("n0", 2) + QueueYaml("q") +
         PodYaml("ns", "a", "", 1,
                 PodOptions{.labels = "    kai.scheduler/queue: q\n",
                            .created = "2025-01-01T00:00:01Z"}) +
         PodYaml("ns", "b", "", 1,
                 PodOptions{.labels = "    kai.scheduler/queue: q\n",
                            .created = "2025-01-01T00:00:02Z"}) +
         PodYaml("ns", "c", "", 1,
                 PodOptions{.labels = "    kai.scheduler/queue: q\n",
                            .created = "2025-01-01T00:00:03Z"}));
  h.writer().LoseNextCreateAnswer(UnavailableError("connection reset by peer"));
  h.Cycle();
  EXPECT_EQ(h.sink().num_in_doubt(), 1);
  EXPECT_EQ(h.sink().counters().bind_requests_in_doubt, 1);
  for (const auto& e : h.writer().Events()) EXPECT_NE(e.reason, "FailedBinding") << e.message;
  h.Cycle();  // read back: it exists
  EXPECT_EQ(h.sink().num_in_doubt(), 0);
  h.Cycle();
  std::set<std::string> stored;
  for (const auto& [key, br] : h.writer().bind_requests) stored.insert(key);
  EXPECT_EQ(stored, (std::set<std::string>{"ns/a", "ns/b"}));
  EXPECT_EQ(h.writer().CallsOf("CreateBindRequest").size(), 2u);  // a (answer lost), b
  EXPECT_EQ(h.sink().counters().bind_request_failures, 0);
}

TEST(InDoubtBindRequest, NotStoredIsDroppedAndDecidedAgain) {
  Harness h;
  h.Load(NodeYaml("n0", 2) + QueueYaml("q") +
         PodYaml("ns", "a", "", 1, PodOptions{.labels = "    kai.scheduler/queue: q\n"}));
  h.writer().FailAfter("CreateBindRequest", 0, UnavailableError("connection refused"));
  h.writer().FailAfter("GetBindRequest", 0, UnavailableError("connection refused"));
  h.Cycle();
  h.Cycle();  // still unreachable: a stays in doubt, nothing is decided for it
  EXPECT_EQ(h.sink().num_in_doubt(), 1);
  EXPECT_EQ(h.sink().counters().bind_requests_in_doubt, 1);
  h.writer().FailNone();
  h.Cycle();  // read back: absent, so a is pending in this cycle's snapshot and bound again
  EXPECT_EQ(h.sink().num_in_doubt(), 0);
  ASSERT_EQ(h.writer().CallsOf("CreateBindRequest").size(), 1u);
  EXPECT_EQ(h.writer().CallsOf("CreateBindRequest")[0].key, "ns/a");
}

TEST(InDoubtBindRequest, AlreadyExistsIsReadIntoTheModel) {
  // A BindRequest the model does not know about (an earlier answer lost, the informer behind):
  // the AlreadyExists answer makes the scheduler read it, and the pod is Binding from then on.
  Harness h;
  h.Load(NodeYaml("n0", 1) + QueueYaml("q") +
         PodYaml("ns", "a", "", 1, PodOptions{.labels = "    kai.scheduler/queue: q\n"}));
  h.writer().bind_requests["ns/a"] = WholeGpuBindRequest("ns", "a", "n0");
  h.Cycle();
  EXPECT_EQ(h.sink().counters().bind_request_failures, 1);  // AlreadyExists
  h.writer().calls.clear();
  h.Cycle();
  EXPECT_TRUE(h.writer().CallsOf("CreateBindRequest").empty());
}

}  // namespace
}  // namespace kai::scheduler
