// predicates (reference §8.1): pre-predicates per task (MaxNodePoolResources, ConfigMaps, DRA
// claims) and per node (queue capacity, resource type / MIG, GPU memory, pod slots, node
// conditions, taints, node affinity).
#include <gtest/gtest.h>

#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

std::vector<std::string> Reasons(TestSession& s, const std::string& pod, const std::string& node) {
  PodInfo& t = *s.Task(pod);
  return s.ssn().Predicate(t, *s.Job(t.pod().metadata.annotations.at("pod-group-name")),
                           *s.Node(node));
}

std::string Joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& r : v) out += r + ";";
  return out;
}

TEST(PredicatesTest, MaxNodePoolResourcesNamesTheLargestNode) {
  TestCluster c;
  c.AddNode({.name = "a", .gpus = 2});
  c.AddNode({.name = "b", .gpus = 4});
  c.AddNode({.name = "cpu", .gpus = 0, .cpu = "64"});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("eight", "q", 8));
  JobSpec cores = PendingJob("cores", "q", 0);
  cores.cpu = "100";
  c.AddJob(cores);
  TestSession s(c);
  auto err = s.ssn().PrePredicate(*s.Task("eight-0"), *s.Job("eight"));
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(*err,
            "Scheduling conditions were not met for pod default/eight-0:\nThe pod "
            "default/eight-0 requires GPU: 8, CPU: 1 (cores), memory: 1 (GB). Max GPU resources "
            "available in a single node in the default node-pool is topped at 4.");
  err = s.ssn().PrePredicate(*s.Task("cores-0"), *s.Job("cores"));
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("requires GPU: 0, CPU: 100 (cores), memory: 1 (GB). Max CPU resources "
                      "available in a single node in the default node-pool is topped at 64 cores"),
            std::string::npos)
      << *err;
}

TEST(PredicatesTest, NoNodeWithGpusAtAll) {
  TestCluster c;
  c.AddNode({.name = "cpu", .gpus = 0});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("gpu", "q", 1));
  TestSession s(c);
  auto err = s.ssn().PrePredicate(*s.Task("gpu-0"), *s.Job("gpu"));
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("No node in the default node-pool has GPU resources"), std::string::npos);
}

// A MIG profile no node advertises: the resource is still part of the snapshot's resource map
// (KAI adds every pod request to it), so the pod fits nowhere and the pre-predicate says so.
TEST(PredicatesTest, MigProfileNoNodeHas) {
  TestCluster c;
  c.AddNode({.name = "mig", .gpus = 0, .mig_strategy = "mixed", .mig = {{"1g.5gb", 1}}});
  c.AddQueue({.name = "q"});
  JobSpec j = PendingJob("m", "q", 0);
  j.mig = {{"1g.10gb", 1}};
  c.AddJob(j);
  TestSession s(c);
  auto err = s.ssn().PrePredicate(*s.Task("m-0"), *s.Job("m"));
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(*err,
            "Scheduling conditions were not met for pod default/m-0:\nThe pod default/m-0 requires "
            "GPU: 1, CPU: 1 (cores), memory: 1 (GB), mig nvidia.com/mig-1g.10gb: 1. No node in the "
            "default node-pool has nvidia.com/mig-1g.10gb resources.");
  EXPECT_FALSE(s.ssn().cluster().FindNode("mig")->IsTaskAllocatable(*s.Task("m-0")));
  s.Run({"allocate"});
  EXPECT_TRUE(s.sink().binds.empty());
}

TEST(PredicatesTest, NodeConditionsTaintsAndAffinity) {
  TestCluster c;
  c.AddNode({.name = "ok", .gpus = 2});
  c.AddNode({.name = "cordoned", .gpus = 2, .unschedulable = true});
  c.AddNode({.name = "not-ready", .gpus = 2, .not_ready = true});
  c.AddNode({.name = "tainted", .gpus = 2, .no_schedule_taints = {{"dedicated", "x"}}});
  c.AddNode({.name = "other", .gpus = 2});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("any", "q", 1));
  JobSpec pinned = PendingJob("pinned", "q", 1);
  pinned.node_affinity = {"cordoned", "ok"};
  c.AddJob(pinned);
  TestSession s(c);
  EXPECT_EQ(Joined(Reasons(s, "any-0", "ok")), "");
  EXPECT_NE(Joined(Reasons(s, "any-0", "cordoned")).find("unschedulable"), std::string::npos);
  EXPECT_NE(Joined(Reasons(s, "any-0", "not-ready")).find("NotReady"), std::string::npos)
      << Joined(Reasons(s, "any-0", "not-ready"));
  EXPECT_NE(Joined(Reasons(s, "any-0", "tainted")).find("untolerated taint"), std::string::npos)
      << Joined(Reasons(s, "any-0", "tainted"));
  ASSERT_FALSE(s.ssn().PrePredicate(*s.Task("pinned-0"), *s.Job("pinned")).has_value());
  EXPECT_EQ(Joined(Reasons(s, "pinned-0", "ok")), "");
  EXPECT_EQ(Joined(Reasons(s, "pinned-0", "other")),
            "node(s) didn't match Pod's node affinity/selector;");
}

TEST(PredicatesTest, MigStrategiesAndNodeTypes) {
  TestCluster c;
  c.AddNode({.name = "gpu", .gpus = 2});
  c.AddNode({.name = "single", .gpus = 2, .mig_strategy = "single"});
  c.AddNode({.name = "mixed", .gpus = 1, .mig_strategy = "mixed", .mig = {{"1g.10gb", 2}}});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("whole", "q", 1));
  c.AddJob(PendingJob("frac", "q", 0.5));
  JobSpec mig = PendingJob("mig", "q", 0);
  mig.mig = {{"1g.10gb", 1}};
  c.AddJob(mig);
  TestSession s(c);
  EXPECT_EQ(Joined(Reasons(s, "whole-0", "single")), "");
  EXPECT_NE(Joined(Reasons(s, "frac-0", "single")).find("MigStrategy='single'"), std::string::npos);
  EXPECT_NE(Joined(Reasons(s, "whole-0", "mixed")).find("MigStrategy='mixed'"), std::string::npos);
  EXPECT_EQ(Joined(Reasons(s, "mig-0", "mixed")), "");
  EXPECT_NE(Joined(Reasons(s, "mig-0", "gpu")).find("non-MIG node"), std::string::npos);
}

TEST(PredicatesTest, GpuMemoryNeedsAKnownDeviceMemory) {
  TestCluster c;
  c.AddNode({.name = "labelled", .gpus = 1, .gpu_memory_mib = 1000});
  c.AddNode({.name = "unlabelled", .gpus = 1, .gpu_memory_mib = std::nullopt});
  c.AddQueue({.name = "q"});
  JobSpec mem = PendingJob("mem", "q", 0);
  mem.gpu_memory_mib = 500;
  c.AddJob(mem);
  TestSession s(c);
  EXPECT_EQ(Joined(Reasons(s, "mem-0", "labelled")), "");
  EXPECT_NE(Joined(Reasons(s, "mem-0", "unlabelled")).find("GPU memory"), std::string::npos);
}

TEST(PredicatesTest, NewSharedGroupNeedsASlotForItsReservationPod) {
  TestCluster c;
  c.AddNode({.name = "tight", .gpus = 2, .pods = 2});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("one", "q", 1, "tight"));
  c.AddJob(PendingJob("frac", "q", 0.5));
  c.AddJob(PendingJob("whole", "q", 1));
  TestSession s(c);
  EXPECT_NE(Joined(Reasons(s, "frac-0", "tight")).find("pod number exceeded"), std::string::npos)
      << Joined(Reasons(s, "frac-0", "tight"));
  EXPECT_EQ(Joined(Reasons(s, "whole-0", "tight")), "");
}

TEST(PredicatesTest, QueueLimitOnTheNode) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 4});
  c.AddQueue({.name = "q", .gpu_quota = 1, .gpu_limit = 1});
  c.AddJob(RunningJob("used", "q", 1, "n"));
  c.AddJob(PendingJob("more", "q", 1));
  TestSession s(c);
  std::string r = Joined(Reasons(s, "more-0", "n"));
  EXPECT_EQ(r.rfind("node does not have enough capacity. Reason: OverLimit, Details: q quota has "
                    "reached the allowable limit of GPUs",
                    0),
            0u)
      << r;
}

}  // namespace
}  // namespace kai::scheduler
