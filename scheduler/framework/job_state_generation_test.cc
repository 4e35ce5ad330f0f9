// When per-job memos may be trusted: a memo of task statuses only (alive, pending) outlives a
// change of PodSet minimums, which the victim solver makes for every job it searches for; memos
// that read the minimums do not; a status change of the job or a new session drops both.
#include "scheduler/framework/job_state_generation.h"

#include <gtest/gtest.h>

#include "scheduler/framework/statement.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::NodeSpec;
using testing::PendingJob;
using testing::TestCluster;
using testing::TestSession;

TestCluster OneJob() {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "node0", .gpus = 4});
  c.AddQueue({.name = "q", .gpu_quota = 4});
  c.AddJob(PendingJob("j", "q", 1, 2));
  c.AddJob(PendingJob("other", "q", 1));
  return c;
}

TEST(JobStateGenerationTest, StatusMemosOutliveMinimumChangesButNotStatusWritesOrASession) {
  TestSession s(OneJob());
  PodGroupInfo* job = s.Job("j");
  ASSERT_NE(job->status_version, 0u);
  JobStateStamp stamp = CurrentJobStateStamp(*job);
  EXPECT_TRUE(JobStateStampHolds(*job, stamp));
  EXPECT_TRUE(JobStatusStampHolds(*job, stamp));

  BumpJobStructure();  // the solver set some job's minimums
  EXPECT_FALSE(JobStateStampHolds(*job, stamp));
  EXPECT_TRUE(JobStatusStampHolds(*job, stamp));

  // Another job's status write leaves this job's memos alone.
  stamp = CurrentJobStateStamp(*job);
  auto stmt = s.ssn().NewStatement();
  ASSERT_TRUE(stmt->Allocate(s.Task("other-0"), "node0").ok());
  EXPECT_TRUE(JobStateStampHolds(*job, stamp));
  EXPECT_TRUE(JobStatusStampHolds(*job, stamp));
  // Its own does not.
  ASSERT_TRUE(stmt->Allocate(s.Task("j-0"), "node0").ok());
  EXPECT_FALSE(JobStateStampHolds(*job, stamp));
  EXPECT_FALSE(JobStatusStampHolds(*job, stamp));
  stmt->Discard();

  // A copy has no status version: its memos hold only while nothing at all changed.
  PodGroupInfo copy(*job, job->tasks());
  ASSERT_EQ(copy.status_version, 0u);
  const JobStateStamp copy_stamp = CurrentJobStateStamp(copy);
  EXPECT_TRUE(JobStatusStampHolds(copy, copy_stamp));
  BumpJobStructure();
  EXPECT_FALSE(JobStatusStampHolds(copy, copy_stamp));

  stamp = CurrentJobStateStamp(*job);
  BumpJobSnapshot();  // a new session
  EXPECT_FALSE(JobStateStampHolds(*job, stamp));
  EXPECT_FALSE(JobStatusStampHolds(*job, stamp));
}

}  // namespace
}  // namespace kai::scheduler
