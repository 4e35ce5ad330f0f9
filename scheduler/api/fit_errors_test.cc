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

// The dense form (one shared reason list per node of a set, what ResourceFitCache builds) reads,
// counts and merges exactly as the map form with the same entries.
TEST(NodeFitErrorsTest, DenseFormReadsAndCountsLikeTheMapForm) {
  auto lists = std::make_shared<std::vector<NodeFitErrors::Reasons>>();
  lists->push_back({"node(s) didn't have enough resources: GPUs"});
  lists->push_back({"node(s) didn't have enough resources: GPUs",
                    "node(s) didn't have enough resources: CPU cores"});
  auto names =
      std::make_shared<std::vector<std::string>>(std::vector<std::string>{"n1", "n2", "n3", "n4"});
  NodeFitErrors dense(names, {&(*lists)[0], nullptr, &(*lists)[1], &(*lists)[0]}, lists);
  EXPECT_EQ(dense.size(), 3u);
  const NodeFitErrors::Map map = dense.ToMap();
  EXPECT_EQ(map,
            (NodeFitErrors::Map{{"n1", (*lists)[0]}, {"n3", (*lists)[1]}, {"n4", (*lists)[0]}}));
  EXPECT_EQ(dense.Summary(), NodeFitErrors(map).Summary());
  EXPECT_EQ(dense.Summary(),
            "1 node(s) didn't have enough resources: CPU cores. \n3 node(s) didn't have enough "
            "resources: GPUs");

  // Writing one node recounts.
  dense.set_dense_at(1, &(*lists)[1]);
  dense.set_dense_at(0, nullptr);
  EXPECT_EQ(dense.size(), 3u);
  EXPECT_EQ(dense.Summary(),
            "2 node(s) didn't have enough resources: CPU cores. \n3 node(s) didn't have enough "
            "resources: GPUs");

  // A task with errors of its own merges the dense entries node by node.
  TaskFitErrors t;
  t.AddNodeError({"n2", {"stale"}});
  t.AddNodeError({"n9", {"node(s) had untolerated taint {a: b}"}});
  t.AddNodeErrors(std::make_shared<const NodeFitErrors>(dense));
  EXPECT_EQ(t.num_nodes(), 4u);
  EXPECT_EQ(t.Message(),
            "no nodes with enough resources were found: 1 node(s) had untolerated taint {a: b}. "
            "\n2 node(s) didn't have enough resources: CPU cores. \n3 node(s) didn't have enough "
            "resources: GPUs.");

  // Writing through the map form converts the dense one.
  dense.mutable_map()["n1"] = {"x"};
  EXPECT_EQ(dense.size(), 4u);
  EXPECT_EQ(dense.ToMap().at("n1"), std::vector<std::string>{"x"});
}

TEST(FitFailuresTest, IndicesBeyondOneWordAreKept) {
  FitFailures f;
  f.Set(0);
  f.Set(63);
  f.Set(64);
  f.Set(200);
  EXPECT_TRUE(f.Has(0) && f.Has(63) && f.Has(64) && f.Has(200));
  EXPECT_FALSE(f.Has(1) || f.Has(65) || f.Has(199));
  FitFailures g = f;
  EXPECT_EQ(f, g);
  g.Set(201);
  EXPECT_NE(f, g);
  EXPECT_LT(f, g);
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
