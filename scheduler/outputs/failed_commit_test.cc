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

TEST(FailedCommit, ApiGoneMidCycleEvictsNothingAndTheNextCycleBindsTheRest) {
  // The API server goes away after the first gang's two BindRequests. Before the fix, the
  // second gang's other pod stayed Allocated in the session, consolidation took it and then the
  // pipelined pods for victims, and deleted g2-0, g2-1 and frac (pods that ran nowhere).
  Harness h;
  h.Load(Workload());
  h.writer().FailAfter("CreateBindRequest", 2, UnavailableError("connection refused"));
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
  h.writer().FailAfter("CreateBindRequest", 3, UnavailableError("connection refused"));
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

}  // namespace
}  // namespace kai::scheduler
