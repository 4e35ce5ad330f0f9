// Texts of task and job fit errors (reference §21.2; KAI common_info TasksFitErrors.Error and
// JobFitErrorsToMessage).
#include "scheduler/api/fit_errors.h"

#include <gtest/gtest.h>

namespace kai::scheduler {
namespace {

TEST(TaskFitErrorsTest, WithoutAnythingSaysNoNodesWereFound) {
  TaskFitErrors e;
  EXPECT_EQ(e.Message(), "no nodes with enough resources were found");
}

TEST(TaskFitErrorsTest, CountsEveryNodeOnceAndSortsTheHistogram) {
  TaskFitErrors e;
  e.AddNodeError({"node-a", {"node(s) didn't have enough resources: GPUs"}});
  e.AddNodeError({"node-b",
                  {"node(s) didn't have enough resources: GPUs",
                   "node(s) didn't have enough resources: CPU cores"}});
  // The same node rejected again (another topology domain, another elastic attempt).
  e.AddNodeError({"node-a", {"node(s) didn't have enough resources: GPUs"}});
  EXPECT_EQ(e.Message(),
            "no nodes with enough resources were found: 1 node(s) didn't have enough resources: "
            "CPU cores. \n2 node(s) didn't have enough resources: GPUs.");
}

TEST(TaskFitErrorsTest, TaskLevelErrorLeadsTheMessage) {
  TaskFitErrors e;
  e.SetError("Scheduling conditions were not met for pod ns/p:\nsome.");
  EXPECT_EQ(e.Message(), "Scheduling conditions were not met for pod ns/p:\nsome.");
  e.AddNodeError({"n", {"node(s) had untolerated taint {a: b}"}});
  EXPECT_EQ(e.Message(),
            "Scheduling conditions were not met for pod ns/p:\nsome.: 1 node(s) had untolerated "
            "taint {a: b}.");
}

TEST(TaskFitErrorsTest, MergeKeepsTheFirstErrorAndTheLatestNodeReasons) {
  TaskFitErrors a, b;
  a.SetError("first");
  a.AddNodeError({"n1", {"x"}});
  b.SetError("second");
  b.AddNodeError({"n1", {"y"}});
  b.AddNodeError({"n2", {"y"}});
  a.Merge(b);
  EXPECT_EQ(a.Message(), "first: 2 y.");
}

TEST(JobFitErrorsToMessageTest, SingleErrorIsPrefixedWithItsReason) {
  std::vector<JobFitError> errors{{"OverLimit", "q quota has reached the allowable limit", {}}};
  EXPECT_EQ(JobFitErrorsToMessage(errors), "OverLimit: q quota has reached the allowable limit.");
}

TEST(JobFitErrorsToMessageTest, SeveralErrorsUseTheGenericReasonAndAHistogram) {
  std::vector<JobFitError> errors{{"PodSchedulingErrors", "b", {}},
                                  {"PodSchedulingErrors", "a", {}},
                                  {"PodSchedulingErrors", "b", {}}};
  EXPECT_EQ(JobFitErrorsToMessage(errors), "Unable to schedule podgroup: 2 b. \na.");
}

TEST(JobFitErrorsToMessageTest, NoErrorIsTheDefaultText) {
  EXPECT_EQ(JobFitErrorsToMessage({}), "Unable to schedule podgroup");
}

}  // namespace
}  // namespace kai::scheduler
