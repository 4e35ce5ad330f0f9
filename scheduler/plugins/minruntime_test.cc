// minruntime (reference §8.3): a victim is protected while now < lastStart + min-runtime; the
// preempt min-runtime walks up from the victim's queue, the reclaim one resolves through the
// lowest common ancestor (or the victim's queue with reclaimResolveMethod=queue).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

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

// "elastic": three running pods, minimum 1, started a minute ago.
JobSpec YoungElastic(const std::string& queue) {
  JobSpec j = RunningJob("elastic", queue, 1, "n", 3);
  j.min_member = 1;
  j.last_start_min = 1;
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
  c.AddJob(YoungElastic("q1"));
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

// A scenario that grows as a victim search's does and logs its victims' changes
// (ScenarioInfo::VictimUpdates); serial 0: no log.
class GrowingScenario final : public ScenarioInfo {
 public:
  GrowingScenario(const PodGroupInfo& preemptor, uint64_t serial)
      : preemptor_(preemptor), serial_(serial) {}
  void Take(const PodGroupInfo& job, size_t task) {
    VictimInfo& v = victims_[job.uid()];
    v.job = &job;
    v.representative = &job;
    v.tasks.push_back(job.tasks().at(task));
    updates_.push_back(&v);
  }
  const PodGroupInfo& GetPreemptor() const override { return preemptor_; }
  const std::map<PodGroupId, VictimInfo>& GetVictims() const override { return victims_; }
  const std::vector<PodInfo*>& PendingTasks() const override { return preemptor_.tasks(); }
  uint64_t Serial() const override { return serial_; }
  std::span<const VictimInfo* const> VictimUpdates() const override {
    if (serial_ == 0) return {};
    return updates_;
  }

 private:
  const PodGroupInfo& preemptor_;
  uint64_t serial_;
  std::map<PodGroupId, VictimInfo> victims_;
  std::vector<const VictimInfo*> updates_;
};

// A reclaimer in q1; "elastic" (3 running pods, minimum 1) in q2 started a minute ago, protected
// by root-a's 30m; "old" and "other" are long past any minimum.
TestCluster FinalRejectionCluster() {
  TestCluster c = Tree();
  c.AddJob(YoungElastic("q2"));
  c.AddJob(Victim("old", "q2", 500));
  c.AddJob(Victim("other", "q2", 500));
  c.AddJob(PendingJob("reclaimer", "q1", 1));
  return c;
}

TEST(MinRuntimeTest, FinalRejectionRechecksAVictimThatGainsTasks) {
  TestSession s(FinalRejectionCluster());
  const Session& ssn = s.ssn();
  GrowingScenario g(*s.Job("reclaimer"), 1001);
  g.Take(*s.Job("elastic"), 0);
  EXPECT_FALSE(ssn.ReclaimScenarioRejectedForGood(g));
  g.Take(*s.Job("old"), 0);
  EXPECT_FALSE(ssn.ReclaimScenarioRejectedForGood(g));
  g.Take(*s.Job("elastic"), 1);  // 3 - 2 = 1 left: still at its minimum
  EXPECT_FALSE(ssn.ReclaimScenarioRejectedForGood(g));
  g.Take(*s.Job("elastic"), 2);  // below it
  EXPECT_TRUE(ssn.ReclaimScenarioRejectedForGood(g));
}

TEST(MinRuntimeTest, FinalRejectionOfAnotherScenarioStartsOver) {
  TestSession s(FinalRejectionCluster());
  const Session& ssn = s.ssn();
  // Takes the given (job, task) victims in order.
  auto take = [&s](GrowingScenario* g, const std::vector<std::pair<std::string, size_t>>& victims) {
    for (const auto& [job, task] : victims) g->Take(*s.Job(job), task);
  };
  GrowingScenario first(*s.Job("reclaimer"), 2001);
  take(&first, {{"old", 0}, {"other", 0}, {"elastic", 0}, {"elastic", 1}});
  EXPECT_FALSE(ssn.ReclaimScenarioRejectedForGood(first));
  // As many entries as the first had when found valid, the faulty ones among them.
  GrowingScenario second(*s.Job("reclaimer"), 2002);
  take(&second, {{"elastic", 0}, {"elastic", 1}, {"elastic", 2}, {"old", 0}});
  EXPECT_TRUE(ssn.ReclaimScenarioRejectedForGood(second));
  // A scenario without a log is read whole every time.
  GrowingScenario unlogged(*s.Job("reclaimer"), 0);
  take(&unlogged, {{"elastic", 0}, {"elastic", 1}});
  EXPECT_FALSE(ssn.ReclaimScenarioRejectedForGood(unlogged));
  take(&unlogged, {{"elastic", 2}});
  EXPECT_TRUE(ssn.ReclaimScenarioRejectedForGood(unlogged));
}

}  // namespace
}  // namespace kai::scheduler
