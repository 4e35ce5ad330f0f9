// JobsOrderByQueues::InitializeFromBase (job_order.h): a victim simulation's order built from a
// base of the pending jobs is the order InitializeWithJobs builds, for any preemptor and victims.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "scheduler/actions/common/job_order.h"
#include "scheduler/actions/common/job_order_testing.h"
#include "scheduler/actions/common/victims.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::PendingJob;
using testing::PopAll;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

std::vector<PodGroupInfo*> PendingJobs(const Session& ssn) {
  std::vector<PodGroupInfo*> out;
  for (PodGroupInfo* job : AllJobs(ssn)) {
    if (job->HasPendingTasks()) out.push_back(job);
  }
  return out;
}

std::vector<PodGroupInfo*> RunningJobs(const Session& ssn) {
  std::vector<PodGroupInfo*> out;
  for (PodGroupInfo* job : AllJobs(ssn)) {
    if (!job->HasPendingTasks()) out.push_back(job);
  }
  return out;
}

// What PopAndAllocate orders without a base: every pending job, the relevant ones in place of
// the pending job of their uid, in uid order.
std::vector<PodGroupInfo*> PendingAndRelevant(const Session& ssn,
                                              const std::vector<PodGroupInfo*>& relevant) {
  std::vector<PodGroupInfo*> out = relevant;
  std::set<std::string> uids;
  for (const PodGroupInfo* j : relevant) uids.insert(j->uid());
  for (PodGroupInfo* j : PendingJobs(ssn)) {
    if (uids.count(j->uid()) == 0) out.push_back(j);
  }
  std::sort(out.begin(), out.end(),
            [](const PodGroupInfo* l, const PodGroupInfo* r) { return l->uid() < r->uid(); });
  return out;
}

// Three departments of three leaf queues (one of them with a sub-department of two more) and a
// top-level leaf, 48 GPUs, running jobs in every queue and pending jobs of mixed sizes and
// priorities.
TestCluster MixedCluster(std::mt19937* rng) {
  TestCluster c;
  for (int n = 0; n < 6; ++n) c.AddNode({.name = "n" + std::to_string(n), .gpus = 8});
  std::vector<std::string> leaves = {"solo"};
  c.AddQueue({.name = "solo", .gpu_quota = 4});
  for (int d = 0; d < 3; ++d) {
    const std::string dept = "d" + std::to_string(d);
    c.AddQueue({.name = dept, .gpu_quota = 12, .creation_offset_min = d});
    for (int l = 0; l < 3; ++l) {
      const std::string leaf = dept + "-q" + std::to_string(l);
      c.AddQueue({.name = leaf,
                  .parent = dept,
                  .gpu_quota = static_cast<double>(1 + l),
                  .creation_offset_min = l});
      leaves.push_back(leaf);
    }
  }
  // A third level: d0-sub under d0, with two leaves.
  c.AddQueue({.name = "d0-sub", .parent = "d0", .gpu_quota = 4, .creation_offset_min = 5});
  for (int l = 0; l < 2; ++l) {
    const std::string leaf = "d0-sub-q" + std::to_string(l);
    c.AddQueue({.name = leaf, .parent = "d0-sub", .gpu_quota = 2, .creation_offset_min = l});
    leaves.push_back(leaf);
  }
  auto pick = [rng](int n) { return static_cast<int>((*rng)() % static_cast<unsigned>(n)); };
  for (int i = 0; i < 16; ++i) {
    c.AddJob(RunningJob("r" + std::to_string(i), leaves[pick(leaves.size())], 1 + pick(2),
                        "n" + std::to_string(i % 6), 1, 50 + 25 * pick(3)));
  }
  for (int i = 0; i < 40; ++i) {
    c.AddJob(PendingJob("p" + std::to_string(i), leaves[pick(leaves.size())], 1 + pick(3),
                        1 + pick(2), 50 + 25 * pick(3)));
  }
  return c;
}

TEST(PendingJobsBaseTest, AnOrderFromTheBaseIsTheOrderOfAllTheJobs) {
  std::mt19937 rng(7);
  int from_base = 0;
  for (int cluster = 0; cluster < 6; ++cluster) {
    TestSession s(MixedCluster(&rng));
    Session& ssn = s.ssn();
    const std::vector<PodGroupInfo*> pending = PendingJobs(ssn);
    const std::vector<PodGroupInfo*> running = RunningJobs(ssn);
    JobsOrderByQueues order(&ssn, JobsOrderOptions{});
    for (int trial = 0; trial < 12; ++trial) {
      PodGroupInfo* preemptor = pending[rng() % pending.size()];
      PendingJobsBase base(&ssn, preemptor->uid());
      base.Build(pending);
      // Victims from zero to four running jobs, evicted as a simulation evicts them.
      std::vector<PodGroupInfo*> relevant = {preemptor};
      auto stmt = ssn.NewStatement();
      const int victims = static_cast<int>(rng() % 5);
      for (int v = 0; v < victims; ++v) {
        PodGroupInfo* victim = running[rng() % running.size()];
        if (std::find(relevant.begin(), relevant.end(), victim) != relevant.end()) continue;
        relevant.push_back(victim);
        for (PodInfo* t : victim->tasks()) {
          ASSERT_TRUE(stmt->Evict(t, "test", EvictionMetadata{}).ok());
        }
      }
      order.Reset(JobsOrderOptions{});
      ASSERT_TRUE(order.InitializeFromBase(base, relevant)) << cluster << "/" << trial;
      ++from_base;
      JobsOrderByQueues full(&ssn, JobsOrderOptions{});
      full.InitializeWithJobs(PendingAndRelevant(ssn, relevant));
      // Untouched subtrees are filled when first entered: a copy filled at once is the full
      // order, and the order itself pops what the full order pops.
      std::unique_ptr<JobsOrderByQueues> entered = order.Clone();
      entered->EnterAll();
      EXPECT_TRUE(entered->SameStateAs(full)) << cluster << "/" << trial;
      EXPECT_EQ(order.size(), full.size()) << cluster << "/" << trial;
      // A push into a subtree not entered yet links under it as under the full order's.
      EXPECT_EQ(order.PopNextJob(), full.PopNextJob()) << cluster << "/" << trial;
      PodGroupInfo* again = pending[rng() % pending.size()];
      order.PushJob(again);
      full.PushJob(again);
      EXPECT_EQ(PopAll(&order), PopAll(&full)) << cluster << "/" << trial;
      stmt->Discard();
    }
  }
  EXPECT_EQ(from_base, 72);
}

// The simulations of one search share their base and its replays of the untouched subtrees,
// each popping them as far as it goes; between pops the victims' queues change (more of their
// pods evicted), as a simulation's allocations change them; a push may follow.
TEST(PendingJobsBaseTest, SimulationsOfOneSearchPopWhatTheFullOrderPops) {
  std::mt19937 rng(23);
  int pops = 0;
  for (int cluster = 0; cluster < 6; ++cluster) {
    TestSession s(MixedCluster(&rng));
    Session& ssn = s.ssn();
    const std::vector<PodGroupInfo*> pending = PendingJobs(ssn);
    const std::vector<PodGroupInfo*> running = RunningJobs(ssn);
    for (int search = 0; search < 3; ++search) {
      PodGroupInfo* preemptor = pending[rng() % pending.size()];
      PendingJobsBase base(&ssn, preemptor->uid());
      base.Build(pending);
      JobsOrderByQueues order(&ssn, JobsOrderOptions{});
      for (int simulation = 0; simulation < 8; ++simulation) {
        std::vector<PodGroupInfo*> relevant = {preemptor};
        std::vector<PodInfo*> to_evict;
        for (int v = static_cast<int>(rng() % 4); v > 0; --v) {
          PodGroupInfo* victim = running[rng() % running.size()];
          if (std::find(relevant.begin(), relevant.end(), victim) != relevant.end()) continue;
          relevant.push_back(victim);
          for (PodInfo* t : victim->tasks()) to_evict.push_back(t);
        }
        auto stmt = ssn.NewStatement();
        order.Reset(JobsOrderOptions{});
        ASSERT_TRUE(order.InitializeFromBase(base, relevant));
        JobsOrderByQueues full(&ssn, JobsOrderOptions{});
        full.InitializeWithJobs(PendingAndRelevant(ssn, relevant));
        // Stop somewhere (a simulation stops once its relevant jobs are popped).
        const int stop = static_cast<int>(rng() % (pending.size() + 2));
        for (int i = 0; i < stop && !full.empty(); ++i) {
          PodGroupInfo* job = full.PopNextJob();
          ASSERT_EQ(order.PopNextJob(), job) << cluster << "/" << search << "/" << simulation;
          ++pops;
          if (!to_evict.empty()) {
            ASSERT_TRUE(stmt->Evict(to_evict.back(), "test", EvictionMetadata{}).ok());
            to_evict.pop_back();
          }
          EXPECT_EQ(order.size(), full.size());
        }
        // A push turns replayed subtrees on its path back into heaps, as far as they were popped.
        if (simulation % 2 == 1) {
          PodGroupInfo* again = pending[rng() % pending.size()];
          order.PushJob(again);
          full.PushJob(again);
          EXPECT_EQ(PopAll(&order), PopAll(&full)) << cluster << "/" << search << "/" << simulation;
        }
        stmt->Discard();
      }
    }
  }
  EXPECT_GT(pops, 1000);
}

TEST(PendingJobsBaseTest, ARelevantJobThatIsAlsoPendingOrAFilteredOrderUsesNoBase) {
  std::mt19937 rng(11);
  TestSession s(MixedCluster(&rng));
  Session& ssn = s.ssn();
  const std::vector<PodGroupInfo*> pending = PendingJobs(ssn);
  PendingJobsBase base(&ssn, pending[0]->uid());
  JobsOrderByQueues order(&ssn, JobsOrderOptions{});
  EXPECT_FALSE(order.InitializeFromBase(base, {pending[0]})) << "not built yet";
  base.Build(pending);
  // pending[1] is one of the base's jobs: as a victim it may have changed.
  EXPECT_FALSE(order.InitializeFromBase(base, {pending[0], pending[1]}));
  EXPECT_TRUE(order.empty());
  JobsOrderOptions filtered;
  filtered.filter_non_pending = true;
  JobsOrderByQueues filtered_order(&ssn, filtered);
  EXPECT_FALSE(filtered_order.InitializeFromBase(base, {pending[0]}));
  ASSERT_TRUE(order.InitializeFromBase(base, {pending[0]}));
  EXPECT_EQ(static_cast<size_t>(order.size()), pending.size());
}

}  // namespace
}  // namespace kai::scheduler
