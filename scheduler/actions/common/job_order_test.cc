// JobsOrderByQueues (reference §7.1, §9.4): jobs are popped queue by queue in the proportion
// plugin's queue order and within a queue in job order; in victim mode the order is reversed.
#include "scheduler/actions/common/job_order.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "scheduler/actions/common/job_order_testing.h"
#include "scheduler/actions/common/victims.h"
#include "scheduler/framework/job_state_generation.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::PendingJob;
using testing::PopAll;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

// Two 8-GPU nodes; departments d0 (leaves q0, q1) and d1 (leaf q2), quotas 1, 3 and 2 GPUs.
TestCluster TwoDepartmentsOnTwoNodes() {
  TestCluster c;
  c.AddNode({.name = "n0", .gpus = 8});
  c.AddNode({.name = "n1", .gpus = 8});
  c.AddQueue({.name = "d0", .gpu_quota = 4});
  c.AddQueue({.name = "d1", .gpu_quota = 4});
  c.AddQueue({.name = "q0", .parent = "d0", .gpu_quota = 1, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .parent = "d0", .gpu_quota = 3, .gpu_weight = 0});
  c.AddQueue({.name = "q2", .parent = "d1", .gpu_quota = 2, .gpu_weight = 0});
  return c;
}

TEST(JobsOrderByQueuesTest, UnderServedQueueFirstThenJobOrder) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 2, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 2, .gpu_weight = 0});
  c.AddJob(RunningJob("q0-running", "q0", 3, "n"));  // q0 is over its fair share
  c.AddJob(PendingJob("q0-a", "q0", 1, 1, 50));
  c.AddJob(PendingJob("q1-low", "q1", 1, 1, 50));
  c.AddJob(PendingJob("q1-high", "q1", 1, 1, 125));
  TestSession s(c);
  JobsOrderOptions opts;
  opts.filter_non_pending = true;
  JobsOrderByQueues q(&s.ssn(), opts);
  q.InitializeWithJobs(AllJobs(s.ssn()));
  EXPECT_EQ(q.size(), 3);
  // q1 (nothing allocated) first; inside q1 the higher priority; q0 last.
  EXPECT_EQ(PopAll(&q), (std::vector<std::string>{"q1-high", "q1-low", "q0-a"}));
}

TEST(JobsOrderByQueuesTest, DrfWithTheJobBreaksTiesBetweenEqualQueues) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 1, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 1, .gpu_weight = 0});
  // Equal allocation (1 each); q1's candidate is smaller, so its dominant share with the job
  // is lower (§9.4 rule 5).
  c.AddJob(RunningJob("r0", "q0", 1, "n"));
  c.AddJob(RunningJob("r1", "q1", 1, "n"));
  c.AddJob(PendingJob("big", "q0", 2));
  c.AddJob(PendingJob("small", "q1", 1));
  TestSession s(c);
  JobsOrderOptions opts;
  opts.filter_non_pending = true;
  JobsOrderByQueues q(&s.ssn(), opts);
  q.InitializeWithJobs(AllJobs(s.ssn()));
  EXPECT_EQ(PopAll(&q), (std::vector<std::string>{"small", "big"}));
}

TEST(JobsOrderByQueuesTest, FiltersUnreadyAndNonPendingJobs) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("done", "q", 1, "n"));
  JobSpec unready = PendingJob("unready", "q", 1, 1);
  unready.min_member = 2;
  c.AddJob(unready);
  c.AddJob(PendingJob("ok", "q", 1));
  TestSession s(c);
  JobsOrderOptions opts;
  opts.filter_non_pending = true;
  opts.filter_unready = true;
  JobsOrderByQueues q(&s.ssn(), opts);
  q.InitializeWithJobs(AllJobs(s.ssn()));
  EXPECT_EQ(PopAll(&q), (std::vector<std::string>{"ok"}));
}

TEST(JobsOrderByQueuesTest, JobsOfAMissingOrNonLeafQueueAreDropped) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "parent"});
  c.AddQueue({.name = "leaf", .parent = "parent"});
  c.AddJob(PendingJob("on-parent", "parent", 1));
  c.AddJob(PendingJob("on-missing", "no-such-queue", 1));
  c.AddJob(PendingJob("on-leaf", "leaf", 1));
  TestSession s(c);
  JobsOrderByQueues q(&s.ssn(), JobsOrderOptions{});
  q.InitializeWithJobs(AllJobs(s.ssn()));
  EXPECT_EQ(PopAll(&q), (std::vector<std::string>{"on-leaf"}));
}

TEST(JobsOrderByQueuesTest, PushedBackJobCompetesAgain) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 1, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 1, .gpu_weight = 0});
  c.AddJob(PendingJob("a", "q0", 1));
  c.AddJob(PendingJob("b", "q1", 1));
  TestSession s(c);
  JobsOrderByQueues q(&s.ssn(), JobsOrderOptions{});
  q.InitializeWithJobs(AllJobs(s.ssn()));
  PodGroupInfo* first = q.PopNextJob();
  ASSERT_NE(first, nullptr);
  q.PushJob(first);
  EXPECT_EQ(q.size(), 2);
  // Nothing changed in the queues' allocation, so the same job comes first again.
  EXPECT_EQ(q.PopNextJob(), first);
}

PodGroupInfo* JobNamed(const Session& ssn, const std::string& name) {
  for (PodGroupInfo* j : AllJobs(ssn)) {
    if (j->name() == name) return j;
  }
  ADD_FAILURE() << "no job " << name;
  return nullptr;
}

std::vector<std::string> Names(const std::vector<PodGroupInfo*>& jobs) {
  std::vector<std::string> out;
  out.reserve(jobs.size());
  for (const PodGroupInfo* j : jobs) out.push_back(j->name());
  return out;
}

// Victim simulations pop the preemptor and the victims' jobs among every pending job; when those
// share one leaf queue their order is that leaf's job order, whatever else is queued.
TEST(JobsOrderByQueuesTest, OneLeafQueuesJobsPopInJobOrderWhateverElseIsQueued) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 16});
  c.AddQueue({.name = "d0", .gpu_quota = 8});
  c.AddQueue({.name = "d1", .gpu_quota = 8});
  c.AddQueue({.name = "q0", .parent = "d0", .gpu_quota = 2, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .parent = "d0", .gpu_quota = 2, .gpu_weight = 0});
  c.AddQueue({.name = "q2", .parent = "d1", .gpu_quota = 4, .gpu_weight = 0});
  c.AddJob(RunningJob("q0-run-low", "q0", 2, "n", 1, 40));
  c.AddJob(RunningJob("q0-run-mid", "q0", 1, "n", 2, 50));
  c.AddJob(PendingJob("q0-pend-high", "q0", 1, 1, 125));
  c.AddJob(PendingJob("q0-pend-mid", "q0", 1, 1, 50));
  c.AddJob(PendingJob("q0-other", "q0", 1, 1, 100));
  c.AddJob(PendingJob("q1-high", "q1", 1, 1, 200));
  c.AddJob(PendingJob("q2-a", "q2", 2, 1, 50));
  c.AddJob(RunningJob("q2-run", "q2", 1, "n", 1, 50));
  TestSession s(c);
  const std::vector<std::string> relevant_names = {"q0-pend-mid", "q0-run-low", "q0-pend-high",
                                                   "q0-run-mid"};
  std::vector<PodGroupInfo*> relevant;
  relevant.reserve(relevant_names.size());
  for (const std::string& name : relevant_names) relevant.push_back(JobNamed(s.ssn(), name));
  auto order = PopOrderWithinOneLeafQueue(s.ssn(), relevant);
  ASSERT_TRUE(order.has_value());
  // Priority first, then creation (all equal here), then uid.
  EXPECT_EQ(Names(*order),
            (std::vector<std::string>{"q0-pend-high", "q0-pend-mid", "q0-run-mid", "q0-run-low"}));
  JobsOrderByQueues q(&s.ssn(), JobsOrderOptions{});
  q.InitializeWithJobs(AllJobs(s.ssn()));
  std::vector<std::string> popped;
  for (const std::string& name : PopAll(&q)) {
    if (std::find(relevant_names.begin(), relevant_names.end(), name) != relevant_names.end()) {
      popped.push_back(name);
    }
  }
  EXPECT_EQ(popped, Names(*order));
}

TEST(JobsOrderByQueuesTest, PopOrderWithinOneLeafQueueNeedsOneQueueAndRankedOrder) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0"});
  c.AddQueue({.name = "q1"});
  c.AddQueue({.name = "orphan", .parent = "gone"});
  c.AddJob(PendingJob("a", "q0", 1));
  c.AddJob(PendingJob("b", "q1", 1));
  c.AddJob(PendingJob("lost", "orphan", 1));
  TestSession s(c);
  std::vector<PodGroupInfo*> jobs;
  for (const char* name : {"a", "b", "lost"}) jobs.push_back(JobNamed(s.ssn(), name));
  EXPECT_FALSE(PopOrderWithinOneLeafQueue(s.ssn(), {jobs[0], jobs[1]}).has_value());
  EXPECT_EQ(PopOrderWithinOneLeafQueue(s.ssn(), {jobs[0]}), std::vector<PodGroupInfo*>{jobs[0]});
  // A queue the job order never admits pops nothing.
  auto none = PopOrderWithinOneLeafQueue(s.ssn(), {jobs[2]});
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
  // A job order without ranks may read anything a simulation changes: no shortcut.
  s.ssn().AddJobOrderFn([](const PodGroupInfo&, const PodGroupInfo&) { return 0; });
  EXPECT_FALSE(PopOrderWithinOneLeafQueue(s.ssn(), {jobs[0]}).has_value());
}

// The proportion plugin keeps each queue's order key between allocations (job-order heaps compare
// the same queues many times); an allocation, and its undoing, must change the order it gives.
TEST(JobsOrderByQueuesTest, QueueOrderFollowsAllocationsWithinASession) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 2, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 2, .gpu_weight = 0, .creation_offset_min = 1});
  c.AddJob(PendingJob("a", "q0", 1));
  c.AddJob(PendingJob("b", "q1", 1));
  c.AddJob(PendingJob("extra", "q0", 1));
  TestSession s(c);
  const Session& ssn = s.ssn();
  const QueueInfo& q0 = *ssn.cluster().FindQueue("q0");
  const QueueInfo& q1 = *ssn.cluster().FindQueue("q1");
  const PodGroupInfo* a = s.Job("a");
  const PodGroupInfo* b = s.Job("b");
  // Equal shares: the older queue first.
  EXPECT_TRUE(ssn.QueueOrderLess(q0, q1, a, b, {}, {}));
  EXPECT_FALSE(ssn.QueueOrderLess(q1, q0, b, a, {}, {}));
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Allocate(s.Task("extra-0"), "n").ok());
  // q0 now holds a GPU: its share with its candidate is the larger.
  EXPECT_FALSE(ssn.QueueOrderLess(q0, q1, a, b, {}, {}));
  EXPECT_TRUE(ssn.QueueOrderLess(q1, q0, b, a, {}, {}));
  stmt->Discard();
  EXPECT_TRUE(ssn.QueueOrderLess(q0, q1, a, b, {}, {}));
  EXPECT_FALSE(ssn.QueueOrderLess(q1, q0, b, a, {}, {}));
}

// Order keys are kept per queue until that queue changes: an allocation in a leaf changes its
// ancestors' keys too, and leaves the other subtree's keys as they were.
TEST(JobsOrderByQueuesTest, AnAllocationChangesTheOrderOfItsLeafsAncestors) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "d0", .gpu_quota = 4, .gpu_weight = 0});
  c.AddQueue({.name = "d1", .gpu_quota = 4, .gpu_weight = 0, .creation_offset_min = 1});
  c.AddQueue({.name = "q0", .parent = "d0", .gpu_quota = 2, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .parent = "d1", .gpu_quota = 2, .gpu_weight = 0});
  c.AddQueue(
      {.name = "q2", .parent = "d1", .gpu_quota = 2, .gpu_weight = 0, .creation_offset_min = 2});
  c.AddJob(PendingJob("a", "q0", 1));
  c.AddJob(PendingJob("b", "q1", 1));
  c.AddJob(PendingJob("c", "q2", 1));
  c.AddJob(PendingJob("extra", "q0", 1));
  TestSession s(c);
  const Session& ssn = s.ssn();
  const QueueInfo& d0 = *ssn.cluster().FindQueue("d0");
  const QueueInfo& d1 = *ssn.cluster().FindQueue("d1");
  const QueueInfo& q1 = *ssn.cluster().FindQueue("q1");
  const QueueInfo& q2 = *ssn.cluster().FindQueue("q2");
  const PodGroupInfo* a = s.Job("a");
  const PodGroupInfo* b = s.Job("b");
  const PodGroupInfo* cj = s.Job("c");
  // Equal shares: the older queue first, at both levels (keys computed and kept).
  EXPECT_TRUE(ssn.QueueOrderLess(d0, d1, a, b, {}, {}));
  EXPECT_TRUE(ssn.QueueOrderLess(q1, q2, b, cj, {}, {}));
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Allocate(s.Task("extra-0"), "n").ok());
  // d0 holds a GPU through q0: its share with its candidate is now the larger.
  EXPECT_FALSE(ssn.QueueOrderLess(d0, d1, a, b, {}, {}));
  EXPECT_TRUE(ssn.QueueOrderLess(d1, d0, b, a, {}, {}));
  EXPECT_TRUE(ssn.QueueOrderLess(q1, q2, b, cj, {}, {}));
  stmt->Discard();
  EXPECT_TRUE(ssn.QueueOrderLess(d0, d1, a, b, {}, {}));
  // An allocation under d1 (in q2) moves q2 behind q1 ... and d1 further behind d0.
  auto stmt2 = s.ssn().NewStatement();
  ASSERT_TRUE(stmt2->Allocate(s.Task("c-0"), "n").ok());
  EXPECT_TRUE(ssn.QueueOrderLess(d0, d1, a, b, {}, {}));
  EXPECT_TRUE(ssn.QueueOrderLess(q1, q2, b, nullptr, {}, {}));
  EXPECT_FALSE(ssn.QueueOrderLess(q2, q1, nullptr, b, {}, {}));
  stmt2->Discard();
}

// The proportion plugin also keeps each session job's keys for the last queues it was the
// candidate of. A job is compared at each level of a four-level path (more levels than it keeps)
// against another queue, with candidates alternating; then its minimum rises (no queue changes,
// only the structure generation moves) and every level must see the larger request.
TEST(JobsOrderByQueuesTest, KeysKeptPerJobFollowTheJobsOwnRequest) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 16});
  c.AddQueue({.name = "l1", .gpu_quota = 8, .gpu_weight = 0});
  c.AddQueue({.name = "l2", .parent = "l1", .gpu_quota = 8, .gpu_weight = 0});
  c.AddQueue({.name = "l3", .parent = "l2", .gpu_quota = 8, .gpu_weight = 0});
  c.AddQueue({.name = "l4", .parent = "l3", .gpu_quota = 2, .gpu_weight = 0});
  c.AddQueue({.name = "x", .gpu_quota = 8, .gpu_weight = 0, .creation_offset_min = 1});
  JobSpec a = PendingJob("a", "l4", 1, 4);
  a.min_member = 1;
  c.AddJob(a);
  JobSpec other = PendingJob("other", "l4", 1, 4);
  other.min_member = 4;
  c.AddJob(other);
  JobSpec b = PendingJob("b", "x", 1, 2);
  b.min_member = 2;
  c.AddJob(b);
  TestSession s(c);
  const Session& ssn = s.ssn();
  const QueueInfo& x = *ssn.cluster().FindQueue("x");
  PodGroupInfo* ja = s.Job("a");
  const PodGroupInfo* jo = s.Job("other");
  const PodGroupInfo* jb = s.Job("b");
  // Per level, whether the queue with `job` as its candidate comes before x with b.
  auto first = [&](const PodGroupInfo* job, const std::vector<const char*>& levels) {
    std::string out;
    for (const char* name : levels) {
      const QueueInfo& l = *ssn.cluster().FindQueue(name);
      const bool less = ssn.QueueOrderLess(l, x, job, jb, {}, {});
      EXPECT_EQ(less, !ssn.QueueOrderLess(x, l, jb, job, {}, {})) << name;
      out += less ? '1' : '0';
    }
    return out;
  };
  // a asks for 1 GPU: before x at the levels with a quota of 8, after it in l4 (quota 2).
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(first(ja, {"l3", "l4"}), "10") << round;
    EXPECT_EQ(first(jo, {"l3", "l4"}), "00") << round;
  }
  // A partial job's minimum as the victim solver sets it: a now asks for 4 GPUs.
  ja->FindPodSet(std::string(kDefaultSubGroup))->set_min_available(4);
  BumpJobStructure();
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(first(ja, {"l3", "l4"}), "00") << round;
  }
  ja->FindPodSet(std::string(kDefaultSubGroup))->set_min_available(1);
  BumpJobStructure();
  // More levels than the job keeps: entries are replaced, answers stay right.
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(first(ja, {"l1", "l2", "l3", "l4", "l4", "l1"}), "111001") << round;
  }
}

// Nodes live in blocks and are never freed one by one: a queue emptied by a pop and pushed to
// again gets a new node, many times over (past the first block), in a two-level tree; every pop
// still returns the job just pushed, and the other queue's jobs come out in job order at the end.
TEST(JobsOrderByQueuesTest, QueuesEmptiedAndRefilledGetNewNodes) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "d0", .gpu_quota = 4});
  c.AddQueue({.name = "q0", .parent = "d0", .gpu_quota = 2});
  c.AddQueue({.name = "q1", .parent = "d0", .gpu_quota = 2, .creation_offset_min = 1});
  c.AddJob(PendingJob("a", "q0", 1));
  c.AddJob(PendingJob("b", "q0", 1));
  c.AddJob(PendingJob("low", "q1", 1, 1, 50));
  c.AddJob(PendingJob("high", "q1", 1, 1, 125));
  TestSession s(c);
  JobsOrderByQueues q(&s.ssn(), JobsOrderOptions{});
  q.InitializeWithJobs({s.Job("low"), s.Job("high")});
  for (int i = 0; i < 40; ++i) {
    PodGroupInfo* job = s.Job(i % 2 == 0 ? "a" : "b");
    // q0 holds only this job: the older queue goes first; popping it empties q0 (and its node).
    q.PushJob(job);
    ASSERT_EQ(q.size(), 3) << i;
    ASSERT_EQ(q.PopNextJob(), job) << i;
  }
  EXPECT_EQ(PopAll(&q), (std::vector<std::string>{"high", "low"}));
}

// A queue's key follows its candidate: the same queues compared with alternating candidates
// (one within the queue's deserved share, one beyond it) in one session.
TEST(JobsOrderByQueuesTest, QueueOrderFollowsTheCandidateJob) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 2, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 2, .gpu_weight = 0, .creation_offset_min = 1});
  c.AddJob(PendingJob("big", "q0", 4));
  c.AddJob(PendingJob("small", "q0", 1));
  c.AddJob(PendingJob("mid", "q1", 2));
  TestSession s(c);
  const Session& ssn = s.ssn();
  const QueueInfo& q0 = *ssn.cluster().FindQueue("q0");
  const QueueInfo& q1 = *ssn.cluster().FindQueue("q1");
  const PodGroupInfo* big = s.Job("big");
  const PodGroupInfo* small = s.Job("small");
  const PodGroupInfo* mid = s.Job("mid");
  for (int round = 0; round < 2; ++round) {
    // "big" would take q0 past its deserved 2 GPUs: q1 ("mid" stays within) goes first.
    EXPECT_FALSE(ssn.QueueOrderLess(q0, q1, big, mid, {}, {})) << round;
    EXPECT_TRUE(ssn.QueueOrderLess(q1, q0, mid, big, {}, {})) << round;
    // Both within: the smaller dominant share with the job, q0 with "small", goes first.
    EXPECT_TRUE(ssn.QueueOrderLess(q0, q1, small, mid, {}, {})) << round;
    EXPECT_FALSE(ssn.QueueOrderLess(q1, q0, mid, small, {}, {})) << round;
  }
}

// A queue's kept keys follow its numbers through a statement: q0 changes twice (+2 GPUs, -1 GPU)
// to a state it never had, then to a third, and the discard brings the start back; keys were
// computed for two candidates at each point.
TEST(JobsOrderByQueuesTest, QueueKeysFollowTheQueueThroughAStatementAndItsDiscard) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 2, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 2, .gpu_weight = 0, .creation_offset_min = 1});
  c.AddJob(RunningJob("r0", "q0", 1, "n"));
  c.AddJob(RunningJob("r1", "q1", 1, "n"));
  c.AddJob(PendingJob("a", "q0", 1));
  c.AddJob(PendingJob("a2", "q0", 1));
  c.AddJob(PendingJob("b", "q1", 1));
  c.AddJob(PendingJob("x", "q0", 2));
  TestSession s(c);
  const Session& ssn = s.ssn();
  const QueueInfo& q0 = *ssn.cluster().FindQueue("q0");
  const QueueInfo& q1 = *ssn.cluster().FindQueue("q1");
  const PodGroupInfo* a = s.Job("a");
  const PodGroupInfo* a2 = s.Job("a2");
  const PodGroupInfo* b = s.Job("b");
  // One GPU each: equal shares, the older q0 first, with either candidate (keys kept for both).
  EXPECT_TRUE(ssn.QueueOrderLess(q0, q1, a, b, {}, {}));
  EXPECT_TRUE(ssn.QueueOrderLess(q0, q1, a2, b, {}, {}));
  EXPECT_TRUE(ssn.QueueOrderLess(q0, q1, a, b, {}, {}));
  for (int round = 0; round < 2; ++round) {
    auto stmt = s.ssn().NewStatement();
    ASSERT_TRUE(stmt->Allocate(s.Task("x-0"), "n").ok()) << round;
    ASSERT_TRUE(stmt->Evict(s.Task("r0-0"), "test", EvictionMetadata{}).ok()) << round;
    // q0 now holds 2 GPUs (3 with its candidate, past its deserved 2): q1 first.
    EXPECT_FALSE(ssn.QueueOrderLess(q0, q1, a, b, {}, {})) << round;
    EXPECT_TRUE(ssn.QueueOrderLess(q1, q0, b, a2, {}, {})) << round;
    ASSERT_TRUE(stmt->Evict(s.Task("x-0"), "test", EvictionMetadata{}).ok()) << round;
    // Back to 0 GPUs, a state of its own: q0 first, whatever it was asked before.
    EXPECT_TRUE(ssn.QueueOrderLess(q0, q1, a, b, {}, {})) << round;
    stmt->Discard();
    // Back to the start: the start's order, for both candidates.
    EXPECT_TRUE(ssn.QueueOrderLess(q0, q1, a, b, {}, {})) << round;
    EXPECT_TRUE(ssn.QueueOrderLess(q0, q1, a2, b, {}, {})) << round;
    EXPECT_FALSE(ssn.QueueOrderLess(q1, q0, b, a, {}, {})) << round;
  }
}

// Each victim queue asks every job whether it has an active-allocated task; the answer is
// remembered per job but follows every status change: an allocation, an eviction, a discard.
TEST(JobsOrderByQueuesTest, ActiveAllocatedFilterFollowsAStatementAndItsDiscard) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 8});
  c.AddJob(RunningJob("r", "q0", 1, "n"));
  c.AddJob(PendingJob("p", "q0", 1));
  TestSession s(c);
  auto admitted = [&s] {
    JobsOrderOptions opts;
    opts.filter_non_active_allocated = true;
    opts.victim_queue = true;
    JobsOrderByQueues q(&s.ssn(), opts);
    q.InitializeWithJobs(AllJobs(s.ssn()));
    std::vector<std::string> names = PopAll(&q);
    std::sort(names.begin(), names.end());
    return names;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(admitted(), Names{"r"});
  for (int round = 0; round < 2; ++round) {
    auto stmt = s.ssn().NewStatement();
    ASSERT_TRUE(stmt->Allocate(s.Task("p-0"), "n").ok()) << round;
    EXPECT_EQ(admitted(), (Names{"p", "r"})) << round;
    ASSERT_TRUE(stmt->Evict(s.Task("r-0"), "test", EvictionMetadata{}).ok()) << round;
    EXPECT_EQ(admitted(), Names{"p"}) << round;
    stmt->Discard();
    EXPECT_EQ(admitted(), Names{"r"}) << round;
  }
}

// Victim searches copy one victim queue per partial job: a copy taken at any point pops exactly
// what the original pops from there on, and popping one leaves the other as it was.
TEST(VictimsQueueTest, ACloneContinuesExactlyAsTheOriginal) {
  TestCluster c = TwoDepartmentsOnTwoNodes();
  c.AddJob(RunningJob("q0-a", "q0", 2, "n0", 1, 50));
  c.AddJob(RunningJob("q0-b", "q0", 1, "n0", 2, 75));
  c.AddJob(RunningJob("q1-a", "q1", 1, "n0", 1, 50));
  c.AddJob(RunningJob("q1-b", "q1", 2, "n1", 1, 50));
  c.AddJob(RunningJob("q2-a", "q2", 1, "n1", 3, 50));
  c.AddJob(RunningJob("q2-b", "q2", 1, "n1", 2, 100));
  TestSession s(c);
  auto original = GetVictimsQueue(s.ssn(), nullptr);
  auto fresh_copy = original->Clone();
  ASSERT_NE(original->PopNextJob(), nullptr);
  PodGroupInfo* second = original->PopNextJob();
  ASSERT_NE(second, nullptr);
  original->PushJob(second);  // as the scenario builder pushes back a victim's remaining tasks
  auto copy = original->Clone();
  const std::vector<std::string> rest = PopAll(copy.get());
  EXPECT_EQ(rest.size(), 5u);
  EXPECT_EQ(PopAll(original.get()), rest);
  // The copy taken before any pop pops what a freshly built queue pops.
  auto rebuilt = GetVictimsQueue(s.ssn(), nullptr);
  const std::vector<std::string> all = PopAll(fresh_copy.get());
  EXPECT_EQ(all.size(), 6u);
  EXPECT_EQ(PopAll(rebuilt.get()), all);
}

// A reset order reuses its nodes and heaps: whatever it held before (another mode, nodes left
// behind by pops, inner nodes now leaves), it pops exactly what a new order pops.
TEST(JobsOrderByQueuesTest, AResetOrderPopsAsANewOne) {
  TestCluster c = TwoDepartmentsOnTwoNodes();
  c.AddJob(RunningJob("q0-a", "q0", 2, "n0", 1, 50));
  c.AddJob(RunningJob("q1-a", "q1", 1, "n0", 1, 50));
  c.AddJob(RunningJob("q2-a", "q2", 1, "n1", 3, 50));
  c.AddJob(PendingJob("q0-p", "q0", 1, 1, 75));
  c.AddJob(PendingJob("q1-p", "q1", 1, 2, 50));
  c.AddJob(PendingJob("q1-r", "q1", 2, 1, 100));
  c.AddJob(PendingJob("q2-p", "q2", 1, 1, 50));
  TestSession s(c);
  JobsOrderOptions victims;
  victims.victim_queue = true;
  victims.filter_non_active_allocated = true;
  JobsOrderOptions pending;
  pending.filter_non_pending = true;
  auto fresh = [&](JobsOrderOptions o) {
    JobsOrderByQueues q(&s.ssn(), o);
    q.InitializeWithJobs(AllJobs(s.ssn()));
    return PopAll(&q);
  };
  const std::vector<std::string> victim_order = fresh(victims);
  const std::vector<std::string> pending_order = fresh(pending);
  ASSERT_EQ(victim_order.size(), 3u);
  ASSERT_EQ(pending_order.size(), 4u);

  JobsOrderByQueues reused(&s.ssn(), victims);
  reused.InitializeWithJobs(AllJobs(s.ssn()));
  reused.PopNextJob();  // left half-used
  for (int round = 0; round < 3; ++round) {
    reused.Reset(pending);
    EXPECT_TRUE(reused.empty());
    reused.InitializeWithJobs(AllJobs(s.ssn()));
    EXPECT_EQ(reused.size(), 4);
    EXPECT_EQ(PopAll(&reused), pending_order) << round;
    reused.Reset(victims);
    reused.InitializeWithJobs(AllJobs(s.ssn()));
    EXPECT_EQ(PopAll(&reused), victim_order) << round;
  }
}

TEST(VictimsQueueTest, MostOverServedQueueLowestPriorityJobFirst) {
  TestCluster c;
  c.AddNode({.name = "n", .gpus = 8});
  c.AddQueue({.name = "q0", .gpu_quota = 1, .gpu_weight = 0});
  c.AddQueue({.name = "q1", .gpu_quota = 1, .gpu_weight = 0});
  c.AddJob(RunningJob("q0-high", "q0", 2, "n", 1, 75));
  c.AddJob(RunningJob("q0-low", "q0", 2, "n", 1, 50));
  c.AddJob(RunningJob("q1-low", "q1", 1, "n", 1, 50));
  TestSession s(c);
  auto q = GetVictimsQueue(s.ssn(), nullptr);
  // q0 uses 4 of a fair share of 1 (the most over-served): its lowest-priority job goes first,
  // then, with that job counted as a victim, the queues are compared again.
  std::vector<std::string> order = PopAll(q.get());
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], "q0-low");
}

}  // namespace
}  // namespace kai::scheduler
