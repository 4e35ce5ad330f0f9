// minruntime (reference §8.3): a victim is protected while now < lastStart + min-runtime; the
// preempt min-runtime walks up from the victim's queue, the reclaim one resolves through the
// lowest common ancestor (or the victim's queue with reclaimResolveMethod=queue).
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <utility>

#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

JobSpec Victim(const std::string& name, const std::string& queue, int started_min_ago) {
  JobSpec j = RunningJob(name, queue, 1, "n");
  j.last_start_min = started_min_ago;
  return j;
}

TestCluster Tree(std::map<std::string, std::string> minruntime_args = {}) {
  // root-a / (team-1 / q1, team-2 / q2), root-b / q3
  TestCluster c;
  std::vector<PluginOption> plugins{{"proportion", {}}, {"priority", {}}, {"minruntime", {}}};
  plugins.back().arguments = std::move(minruntime_args);
  c.SetPlugins(plugins);
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "root-a", .reclaim_min_runtime = "30m"});
  c.AddQueue({.name = "team-1", .parent = "root-a", .reclaim_min_runtime = "20m"});
  c.AddQueue({.name = "team-2", .parent = "root-a"});
  c.AddQueue({.name = "q1", .parent = "team-1", .preempt_min_runtime = "5m"});
  c.AddQueue({.name = "q2", .parent = "team-2"});
  c.AddQueue({.name = "root-b", .reclaim_min_runtime = "1m"});
  c.AddQueue({.name = "q3", .parent = "root-b"});
  return c;
}

TEST(MinRuntimeTest, PreemptMinRuntimeOfTheVictimsQueue) {
  TestCluster c = Tree();
  c.AddJob(Victim("young", "q1", 3));
  c.AddJob(Victim("old", "q1", 10));
  c.AddJob(PendingJob("preemptor", "q1", 1, 1, 125));
  TestSession s(c);
  const PodGroupInfo& p = *s.Job("preemptor");
  EXPECT_FALSE(s.ssn().PreemptVictimFilter(p, *s.Job("young")));
  EXPECT_TRUE(s.ssn().PreemptVictimFilter(p, *s.Job("old")));
}

TEST(MinRuntimeTest, DefaultPreemptMinRuntimeWhenNoQueueSetsOne) {
  TestCluster c = Tree({{"defaultPreemptMinRuntime", "15m"}});
  c.AddJob(Victim("v", "q2", 10));
  c.AddJob(PendingJob("preemptor", "q2", 1, 1, 125));
  TestSession s(c);
  EXPECT_FALSE(s.ssn().PreemptVictimFilter(*s.Job("preemptor"), *s.Job("v")));
}

TEST(MinRuntimeTest, ReclaimInsideATopLevelQueueUsesTheLcaChild) {
  TestCluster c = Tree();
  // Reclaimer in q2, victim in q1: the lowest common ancestor is root-a; one level down toward
  // the victim is team-1 (20m).
  c.AddJob(Victim("v-15", "q1", 15));
  c.AddJob(Victim("v-25", "q1", 25));
  c.AddJob(PendingJob("reclaimer", "q2", 1));
  TestSession s(c);
  const PodGroupInfo& r = *s.Job("reclaimer");
  EXPECT_FALSE(s.ssn().ReclaimVictimFilter(r, *s.Job("v-15")));
  EXPECT_TRUE(s.ssn().ReclaimVictimFilter(r, *s.Job("v-25")));
}

TEST(MinRuntimeTest, ReclaimAcrossTopLevelQueuesUsesTheVictimsTopLevelQueue) {
  TestCluster c = Tree();
  // Reclaimer in q3 (root-b), victim in q1 (root-a): root-a's 30m applies.
  c.AddJob(Victim("v-25", "q1", 25));
  c.AddJob(Victim("v-35", "q1", 35));
  c.AddJob(PendingJob("reclaimer", "q3", 1));
  TestSession s(c);
  const PodGroupInfo& r = *s.Job("reclaimer");
  EXPECT_FALSE(s.ssn().ReclaimVictimFilter(r, *s.Job("v-25")));
  EXPECT_TRUE(s.ssn().ReclaimVictimFilter(r, *s.Job("v-35")));
}

TEST(MinRuntimeTest, ReclaimersOfDifferentQueuesSeeTheirOwnMinRuntime) {
  TestCluster c = Tree();
  // The same victim (q1, started 25m ago): 20m from q2 (team-1 is the LCA's child), 30m from q3
  // (root-a); asked in both orders within one session.
  c.AddJob(Victim("v", "q1", 25));
  c.AddJob(Victim("w", "q1", 25));
  c.AddJob(PendingJob("from-q2", "q2", 1));
  c.AddJob(PendingJob("from-q3", "q3", 1));
  TestSession s(c);
  EXPECT_TRUE(s.ssn().ReclaimVictimFilter(*s.Job("from-q2"), *s.Job("v")));
  EXPECT_FALSE(s.ssn().ReclaimVictimFilter(*s.Job("from-q3"), *s.Job("v")));
  EXPECT_FALSE(s.ssn().ReclaimVictimFilter(*s.Job("from-q3"), *s.Job("w")));
  EXPECT_TRUE(s.ssn().ReclaimVictimFilter(*s.Job("from-q2"), *s.Job("w")));
}

TEST(MinRuntimeTest, ProtectionIsDecidedAtTheSessionsTime) {
  TestCluster c = Tree();
  c.AddJob(Victim("young", "q1", 3));
  c.AddJob(Victim("other", "q1", 3));
  c.AddJob(PendingJob("preemptor", "q1", 1, 1, 125));
  TestSession s(c);
  const PodGroupInfo& p = *s.Job("preemptor");
  EXPECT_FALSE(s.ssn().PreemptVictimFilter(p, *s.Job("young")));
  // Later in the same cycle both are still inside their 5m: one cycle, one answer.
  s.clock().Advance(std::chrono::minutes(10));
  EXPECT_FALSE(s.ssn().PreemptVictimFilter(p, *s.Job("young")));
  EXPECT_FALSE(s.ssn().PreemptVictimFilter(p, *s.Job("other")));
}

TEST(MinRuntimeTest, ReclaimResolveMethodQueueWalksUpFromTheVictim) {
  TestCluster c = Tree({{"reclaimResolveMethod", "queue"}});
  // Victim in q3: q3 has none, root-b says 1m.
  c.AddJob(Victim("v", "q3", 2));
  c.AddJob(PendingJob("reclaimer", "q1", 1));
  TestSession s(c);
  EXPECT_TRUE(s.ssn().ReclaimVictimFilter(*s.Job("reclaimer"), *s.Job("v")));
}

TEST(MinRuntimeTest, ElasticVictimsStayCandidates) {
  TestCluster c = Tree();
  JobSpec elastic = RunningJob("elastic", "q1", 1, "n", 3);
  elastic.min_member = 1;
  elastic.last_start_min = 1;
  c.AddJob(elastic);
  c.AddJob(PendingJob("reclaimer", "q2", 1));
  TestSession s(c);
  // Protected, but elastic: the filter lets it through and the scenario validator decides.
  EXPECT_TRUE(s.ssn().ReclaimVictimFilter(*s.Job("reclaimer"), *s.Job("elastic")));
}

TEST(MinRuntimeTest, JobWithoutStartTimeIsNotProtected) {
  TestCluster c = Tree({{"defaultPreemptMinRuntime", "1h"}});
  JobSpec v = RunningJob("v", "q2", 1, "n");
  v.last_start_min.reset();
  c.AddJob(v);
  c.AddJob(PendingJob("preemptor", "q2", 1, 1, 125));
  TestSession s(c);
  EXPECT_TRUE(s.ssn().PreemptVictimFilter(*s.Job("preemptor"), *s.Job("v")));
}

}  // namespace
}  // namespace kai::scheduler
