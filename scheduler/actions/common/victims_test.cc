// Victim scenarios (reference §7.6): the simulation that re-places the preemptor after its
// victims were evicted, and the eviction messages of a batch of victims (§21.3).
#include "scheduler/actions/common/victims.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "scheduler/framework/statement.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

// Two 8-GPU nodes, full: queue "b" runs a 4-GPU victim and 12 GPUs of others; queue "a" waits.
TestCluster FullCluster(const testing::JobSpec& preemptor) {
  TestCluster c;
  c.AddNode({.name = "n1", .gpus = 8});
  c.AddNode({.name = "n2", .gpus = 8});
  c.AddQueue({.name = "a", .gpu_quota = 8});
  c.AddQueue({.name = "b", .gpu_quota = 8});
  c.AddJob(RunningJob("victim", "b", 4, "n1"));
  c.AddJob(RunningJob("other", "b", 4, "n1"));
  c.AddJob(RunningJob("rest", "b", 8, "n2"));
  c.AddJob(preemptor);
  return c;
}

TestCluster FullCluster(double preemptor_gpus) {
  return FullCluster(PendingJob("preemptor", "a", preemptor_gpus));
}

bool Simulate(TestSession* s) {
  Session& ssn = s->ssn();
  PodGroupInfo* preemptor = s->Job("preemptor");
  std::vector<PodInfo*> victims = {s->Task("victim-0")};
  std::unique_ptr<Statement> stmt = ssn.NewStatement();
  EXPECT_TRUE(EvictAllPreemptees(&ssn, victims, *preemptor, stmt.get(), kActionReclaim).ok());
  const bool placed =
      TryToVirtuallyAllocatePreemptor(&ssn, stmt.get(), s->cluster().node_list, preemptor, victims);
  stmt->Discard();
  return placed;
}

// The job queues that admit only jobs with a Pending task start from the jobs that had one when
// the session opened: a subset of AllJobs in the same uid order, still a superset of the pending
// jobs after the session placed some of them.
TEST(JobsThatMayBePendingTest, AreThePendingJobsAtOpenInUidOrder) {
  TestCluster c = FullCluster(4);
  c.AddJob(PendingJob("another", "a", 1));
  TestSession s(c);
  std::vector<std::string> uids;
  for (const PodGroupInfo* job : JobsThatMayBePending(s.ssn())) uids.push_back(job->uid());
  std::vector<std::string> pending;
  for (const PodGroupInfo* job : AllJobs(s.ssn())) {
    if (job->HasPendingTasks()) pending.push_back(job->uid());
  }
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(uids, pending);
  EXPECT_EQ(AllJobs(s.ssn()).size(), 5u);
  // Placing the preemptor leaves it listed (the queues' own filter drops it).
  std::unique_ptr<Statement> stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("victim-0"), "m", EvictionMetadata{}).ok());
  ASSERT_TRUE(stmt->Pipeline(s.Task("preemptor-0"), "n1", false).ok());
  EXPECT_FALSE(s.Job("preemptor")->HasPendingTasks());
  EXPECT_EQ(JobsThatMayBePending(s.ssn()).size(), 2u);
  stmt->Discard();
}

TEST(VictimSimulationTest, PreemptorIsPlacedOnTheRoomItsVictimsFree) {
  TestSession s(FullCluster(4));
  EXPECT_TRUE(Simulate(&s));
}

TEST(VictimSimulationTest, PreemptorWithAPodThatFitsNowhereIsNotPlaced) {
  // 6 GPUs: the victim frees 4 on n1, and no node has 6 idle or releasing.
  TestSession s(FullCluster(6));
  EXPECT_FALSE(Simulate(&s));
  // Nothing the simulation did outlives its statement.
  EXPECT_EQ(s.Task("victim-0")->status, PodStatus::kRunning);
  EXPECT_EQ(s.Node("n1")->idle.gpu(), 0);
}

TEST(VictimSimulationTest, AGangIsPlacedOnlyWhereAllItsPodsFit) {
  // The victim frees 4 GPUs on n1, where each pod of these gangs has room; the whole gang fits
  // only when its pods' GPUs, and CPUs, add up within what n1 has (without a simulation when they
  // do not: debug builds run it anyway and check it agrees).
  TestSession two_by_two(FullCluster(PendingJob("preemptor", "a", 2, /*tasks=*/2)));
  EXPECT_TRUE(Simulate(&two_by_two));
  TestSession three_by_two(FullCluster(PendingJob("preemptor", "a", 2, /*tasks=*/3)));
  EXPECT_FALSE(Simulate(&three_by_two));
  // n1 has 18 idle cores and the victim's 1 releasing.
  testing::JobSpec nine_cores = PendingJob("preemptor", "a", 1, /*tasks=*/2);
  nine_cores.cpu = "9";
  TestSession cores_fit(FullCluster(nine_cores));
  EXPECT_TRUE(Simulate(&cores_fit));
  testing::JobSpec ten_cores = PendingJob("preemptor", "a", 1, /*tasks=*/2);
  ten_cores.cpu = "10";
  TestSession cores_short(FullCluster(ten_cores));
  EXPECT_FALSE(Simulate(&cores_short));
  EXPECT_EQ(cores_short.Task("victim-0")->status, PodStatus::kRunning);
}

TEST(VictimSimulationTest, SharedGpuPreemptorsGetTheSameAnswers) {
  // A shared-GPU pod names new GPU groups on the way (derived names: the shortcut applies too).
  TestSession fits(FullCluster(0.5));
  EXPECT_TRUE(Simulate(&fits));
  testing::JobSpec big = PendingJob("preemptor", "a", 0.5);
  big.cpu = "30";  // no node has 30 CPU cores
  TestSession fits_nowhere(FullCluster(big));
  EXPECT_FALSE(Simulate(&fits_nowhere));
}

// n1 (20 cores) runs a 0.5-GPU pod in GPU group "group-1", whose other half is free; its other
// GPUs are idle. The victim is a CPU pod on n2, which has no GPU. The preemptor is a gang of
// 0.25-GPU pods.
TestCluster SharedGroupCluster(double n1_gpus, int pods, const std::string& cpu) {
  TestCluster c;
  c.AddNode({.name = "n1", .gpus = n1_gpus});
  c.AddNode({.name = "n2", .gpus = 0});
  c.AddQueue({.name = "a", .gpu_quota = n1_gpus});
  c.AddQueue({.name = "b", .gpu_quota = 0});
  testing::JobSpec shared = RunningJob("shared", "b", 0.5, "n1");
  shared.tasks[0].gpu_groups = {"group-1"};
  c.AddJob(shared);
  c.AddJob(RunningJob("victim", "b", 0, "n2"));
  testing::JobSpec preemptor = PendingJob("preemptor", "a", 0.25, pods);
  preemptor.cpu = cpu;
  c.AddJob(preemptor);
  return c;
}

// A gang of shared-GPU pods is bounded by the CPU, memory and pods its pods take, never by whole
// GPUs: with one GPU no GPU is idle or releasing, yet two pods fit in the group (1 core taken).
TEST(VictimSimulationTest, SharedGpuGangsAreBoundedByTheirOtherResourcesOnly) {
  TestSession fits(SharedGroupCluster(1, 2, "9"));
  ASSERT_EQ(fits.Node("n1")->idle.gpu() + fits.Node("n1")->releasing.gpu(), 0);
  EXPECT_TRUE(Simulate(&fits));
  TestSession cores_short(SharedGroupCluster(1, 2, "10"));
  EXPECT_FALSE(Simulate(&cores_short));
  EXPECT_EQ(cores_short.Task("victim-0")->status, PodStatus::kRunning);
}

// With two GPUs n1 holds six 0.25-GPU pods: four on its idle GPU, two in the group. The bound on
// GPU slots counts both, and no more.
TEST(VictimSimulationTest, SharedGpuGangsFitInTheGroupsAndWholeGpusLeft) {
  TestSession six(SharedGroupCluster(2, 6, "1"));
  const NodeInfo* n1 = six.Node("n1");
  EXPECT_EQ(n1->SharedGpuSlots(n1->ResourceGpuMemory(six.Task("preemptor-0")->gpu_req)), 6);
  EXPECT_TRUE(Simulate(&six));
  TestSession seven(SharedGroupCluster(2, 7, "1"));
  EXPECT_FALSE(Simulate(&seven));
  EXPECT_EQ(seven.Task("victim-0")->status, PodStatus::kRunning);
}

// A victim job re-placed in a simulation is not told why a hypothetical move failed: its
// explanation is about its own pods (KAI records these too). The victim runs one pod on the only
// GPU and waits with another; whatever the simulation pops first, a re-placement of the victim
// fails, and nothing of it stays on the job.
TEST(VictimSimulationTest, VictimsRecordNoFitErrorsInASimulation) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 1});
  c.AddQueue({.name = "a", .gpu_quota = 1});
  c.AddQueue({.name = "b", .gpu_quota = 0});
  testing::JobSpec victim = RunningJob("victim", "b", 1, "n", 1);
  victim.min_member = 1;
  victim.tasks.push_back({});  // pending
  c.AddJob(victim);
  c.AddJob(PendingJob("preemptor", "a", 1));
  TestSession s(c);
  Session& ssn = s.ssn();
  PodGroupInfo* job = s.Job("victim");
  ASSERT_EQ(job->NumPending(), 1);
  std::vector<PodInfo*> victims = {s.Task("victim-0")};
  std::unique_ptr<Statement> stmt = ssn.NewStatement();
  ASSERT_TRUE(
      EvictAllPreemptees(&ssn, victims, *s.Job("preemptor"), stmt.get(), kActionReclaim).ok());
  TryToVirtuallyAllocatePreemptor(&ssn, stmt.get(), s.cluster().node_list, s.Job("preemptor"),
                                  victims);
  stmt->Discard();
  EXPECT_TRUE(job->job_fit_errors.empty()) << job->job_fit_errors.front().message;
  EXPECT_TRUE(job->task_fit_errors.empty());
  EXPECT_EQ(job->fit_errors_muted, 0);
  // Outside simulations the job records as before.
  job->AddJobFitError("r", "m");
  EXPECT_EQ(job->job_fit_errors.size(), 1u);
}

// The pure filter runs first, then the alive check, then the filter (which may count what it
// admits, as consolidation's preemptee limit does): the filter only ever sees alive jobs that
// passed the pure filter.
TEST(VictimsQueueTest, FilterSeesOnlyAliveJobsThatPassedThePureFilter) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("run-a", "q", 1, "n"));
  c.AddJob(RunningJob("run-b", "q", 1, "n"));
  c.AddJob(RunningJob("run-skip", "q", 1, "n"));
  testing::JobSpec done = RunningJob("done", "q", 1, "n");
  done.tasks[0].state = testing::TaskState::kSucceeded;  // no alive pod
  c.AddJob(done);
  TestSession s(c);
  std::vector<std::string> pure_seen, seen;
  auto q = GetVictimsQueue(
      s.ssn(),
      [&seen](const PodGroupInfo& job) {
        seen.push_back(job.name());
        return seen.size() == 1;  // admits only the first job it sees
      },
      [&pure_seen](const PodGroupInfo& job) {
        pure_seen.push_back(job.name());
        return job.name() != "run-skip";
      });
  std::sort(pure_seen.begin(), pure_seen.end());
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(pure_seen, (std::vector<std::string>{"done", "run-a", "run-b", "run-skip"}));
  EXPECT_EQ(seen, (std::vector<std::string>{"run-a", "run-b"}));
  EXPECT_EQ(q->size(), 1);
}

// Whether a job has a live pod is kept per job between victim queues; evicting its only pod, and
// undoing that, must show in the next queue.
TEST(VictimsQueueTest, AJobEvictedSinceTheLastQueueIsNoLongerAVictim) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("stays", "q", 1, "n"));
  c.AddJob(RunningJob("goes", "q", 1, "n"));
  TestSession s(c);
  auto names = [&s] {
    std::vector<std::string> out;
    auto q = GetVictimsQueue(s.ssn(), nullptr);
    while (PodGroupInfo* j = q->PopNextJob()) out.push_back(j->name());
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(names(), (std::vector<std::string>{"goes", "stays"}));
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Evict(s.Task("goes-0"), "test", {}).ok());
  EXPECT_EQ(names(), (std::vector<std::string>{"stays"}));
  stmt->Discard();
  EXPECT_EQ(names(), (std::vector<std::string>{"goes", "stays"}));
}

TEST(EvictionMessageTest, EveryPodOfAVictimGangGetsItsOwnMessageWithBothQueues) {
  TestCluster c;
  c.AddNode({.name = "n1", .gpus = 8});
  c.AddQueue({.name = "a", .gpu_quota = 4});
  c.AddQueue({.name = "b", .gpu_quota = 4});
  c.AddJob(RunningJob("gang", "b", 4, "n1", 2));
  c.AddJob(PendingJob("preemptor", "a", 4));
  TestSession s(c);
  Session& ssn = s.ssn();
  const PodGroupInfo& preemptor = *s.Job("preemptor");
  std::vector<PodInfo*> victims = {s.Task("gang-0"), s.Task("gang-1")};
  const std::string first = EvictionMessage(ssn, kActionReclaim, *victims[0], preemptor);
  const std::string second = EvictionMessage(ssn, kActionReclaim, *victims[1], preemptor);
  EXPECT_NE(first.find("Pod default/gang-0 was preempted by workload default/preemptor."),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("b uses <GPU: 8"), std::string::npos) << first;
  EXPECT_NE(first.find("a uses <GPU: 0"), std::string::npos) << first;

  // Messages are made at commit but say what was true when the batch was evicted: the
  // preemptor pipelined in between changes its queue's numbers, not the messages.
  std::unique_ptr<Statement> stmt = ssn.NewStatement();
  ASSERT_TRUE(EvictAllPreemptees(&ssn, victims, preemptor, stmt.get(), kActionReclaim).ok());
  ASSERT_TRUE(stmt->Pipeline(s.Task("preemptor-0"), "n1", false).ok());
  const std::string now = EvictionMessage(ssn, kActionReclaim, *victims[0], preemptor);
  ASSERT_NE(now.find("a uses <GPU: 4"), std::string::npos) << now;
  ASSERT_TRUE(stmt->Commit().ok());
  ASSERT_EQ(s.sink().evictions.size(), 2u);
  EXPECT_EQ(s.sink().evictions[0].message, first);
  EXPECT_EQ(s.sink().evictions[1].message, second);
}

TEST(EvictionMessageTest, PreemptAndConsolidationMessagesNameTheVictimAndThePreemptor) {
  TestCluster c;
  c.AddNode({.name = "n1", .gpus = 8});
  c.AddQueue({.name = "a", .gpu_quota = 8});
  c.AddJob(RunningJob("low", "a", 4, "n1", 1, 50));
  c.AddJob(PendingJob("high", "a", 8, 1, 125));
  TestSession s(c);
  Session& ssn = s.ssn();
  const PodGroupInfo& preemptor = *s.Job("high");
  std::vector<PodInfo*> victims = {s.Task("low-0")};
  EXPECT_EQ(EvictionMessage(ssn, kActionPreempt, *victims[0], preemptor),
            "Pod default/low-0 was preempted by higher priority workload default/high");
  EXPECT_EQ(EvictionMessage(ssn, kActionConsolidation, *victims[0], preemptor),
            "Pod default/low-0 was preempted and rescheduled due to bin packing (resource "
            "consolidation) procedure");
  std::unique_ptr<Statement> stmt = ssn.NewStatement();
  ASSERT_TRUE(EvictAllPreemptees(&ssn, victims, preemptor, stmt.get(), kActionPreempt).ok());
  ASSERT_TRUE(stmt->Commit().ok());
  ASSERT_EQ(s.sink().evictions.size(), 1u);
  EXPECT_EQ(s.sink().evictions[0].message,
            "Pod default/low-0 was preempted by higher priority workload default/high");
  EXPECT_EQ(s.sink().evictions[0].metadata.action, kActionPreempt);
}

// Preempt hands GetVictimsQueue only its queue's jobs (Session::JobsOfQueue): the same victims,
// offered to the filters in the same order, as a walk over every job of the session.
TEST(VictimsQueueTest, CandidatesOfOneQueueGiveWhatAWalkOverEveryJobGives) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 16});
  c.AddQueue({.name = "a"});
  c.AddQueue({.name = "b"});
  for (const char* name : {"a-2", "b-1", "a-0", "b-0", "a-1"}) {
    c.AddJob(RunningJob(name, std::string(1, name[0]), 1, "n", 1, name[2] == '0' ? 10 : 50));
  }
  c.AddJob(RunningJob("lost", "missing", 1, "n"));
  TestSession s(c);
  const QueueInfo& a = *s.Queue("a");
  std::vector<std::string> of_a;
  for (const PodGroupInfo* job : s.ssn().JobsOfQueue(a)) of_a.push_back(job->name());
  EXPECT_EQ(of_a, (std::vector<std::string>{"a-0", "a-1", "a-2"}));  // the job map's order
  EXPECT_EQ(s.ssn().JobsOfQueue(*s.Queue("b")).size(), 2u);

  auto pops = [&s](const std::vector<PodGroupInfo*>* candidates) {
    std::vector<std::string> offered, popped;
    auto q = GetVictimsQueue(
        s.ssn(),
        [&offered](const PodGroupInfo& job) {
          offered.push_back(job.name());
          return true;
        },
        [](const PodGroupInfo& job) { return job.queue() == "a"; }, candidates);
    while (PodGroupInfo* j = q->PopNextJob()) popped.push_back(j->name());
    return std::make_pair(offered, popped);
  };
  const auto every_job = pops(nullptr);
  EXPECT_EQ(every_job.first, (std::vector<std::string>{"a-0", "a-1", "a-2"}));
  EXPECT_EQ(every_job.second.size(), 3u);
  EXPECT_EQ(pops(&s.ssn().JobsOfQueue(a)), every_job);
}

// Consolidation admits at most max + 1 victim jobs, the first in the job map's order: the walk
// stops there, and jobs a test rejects do not count.
TEST(VictimsQueueTest, TheWalkStopsOnceMaxAdmittedJobsPassedEveryTest) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 16});
  c.AddQueue({.name = "q"});
  for (const char* name : {"j0", "j1", "j2", "j3", "j4"}) c.AddJob(RunningJob(name, "q", 1, "n"));
  TestSession s(c);
  std::vector<std::string> offered, popped;
  auto q = GetVictimsQueue(
      s.ssn(),
      [&offered](const PodGroupInfo& job) {
        offered.push_back(job.name());
        return job.name() != "j1";
      },
      nullptr, nullptr, 2);
  while (PodGroupInfo* j = q->PopNextJob()) popped.push_back(j->name());
  std::sort(popped.begin(), popped.end());
  EXPECT_EQ(offered, (std::vector<std::string>{"j0", "j1", "j2"}));
  EXPECT_EQ(popped, (std::vector<std::string>{"j0", "j2"}));
  EXPECT_EQ(GetVictimsQueue(s.ssn(), nullptr, nullptr, nullptr, 0)->size(), 0);
}

}  // namespace
}  // namespace kai::scheduler
