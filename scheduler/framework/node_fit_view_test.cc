// NodeFitView must answer exactly as NodeInfo::FittingFailuresUnlessAllocatable and
// IsTaskAllocatableOnReleasingOrIdle for every task it accepts, on every node it calls usable,
// and refuse the rest.
#include "scheduler/framework/node_fit_view.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::NodeSpec;
using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

JobSpec Pending(const std::string& name, double gpus, const std::string& cpu,
                const std::string& memory) {
  JobSpec j = PendingJob(name, "q", gpus);
  j.cpu = cpu;
  j.memory = memory;
  return j;
}

TEST(NodeFitViewTest, AnswersLikeTheGeneralPath) {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "cpu", .gpus = 0, .cpu = "8", .memory = "16G"});
  c.AddNode(NodeSpec{.name = "full", .gpus = 4, .cpu = "16", .memory = "32G"});
  c.AddNode(NodeSpec{.name = "half", .gpus = 8, .cpu = "32", .memory = "64G"});
  c.AddNode(NodeSpec{.name = "empty", .gpus = 8, .cpu = "4", .memory = "8G", .pods = 1});
  c.AddNode(NodeSpec{.name = "shared", .gpus = 2, .cpu = "16", .memory = "32G"});
  c.AddNode(NodeSpec{.name = "shared-full", .gpus = 2, .cpu = "16", .memory = "32G"});
  c.SetReservationPods(true);
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("quarter", "q", 0.25, "shared"));
  c.AddJob(RunningJob("whole-beside", "q", 1, "shared"));
  c.AddJob(RunningJob("most", "q", 0.75, "shared-full"));
  c.AddJob(RunningJob("rest", "q", 1, "shared-full"));
  c.AddJob(RunningJob("fill", "q", 1, "full", 3));
  JobSpec leaving = RunningJob("leaving", "q", 1, "full");
  leaving.tasks[0].state = testing::TaskState::kReleasing;
  c.AddJob(leaving);
  c.AddJob(RunningJob("some", "q", 2, "half", 2));
  JobSpec busy_cpu = RunningJob("busy-cpu", "q", 0, "cpu");
  busy_cpu.cpu = "7500m";
  c.AddJob(busy_cpu);
  // Whole-GPU and CPU-only tasks the views answer, in sizes that fail on different resources.
  c.AddJob(Pending("g1", 1, "1", "1G"));
  c.AddJob(Pending("g4-big-cpu", 4, "20", "1G"));
  c.AddJob(Pending("g8-big-mem", 8, "1", "60G"));
  c.AddJob(Pending("g16", 16, "1", "1G"));
  c.AddJob(Pending("c1", 0, "1", "1G"));
  c.AddJob(Pending("c-fraction-of-a-core", 0, "900m", "100M"));
  c.AddJob(Pending("c-huge", 0, "100", "200G"));
  c.AddJob(Pending("f-half", 0.5, "1", "1G"));
  c.AddJob(Pending("f-half-big-cpu", 0.5, "40", "1G"));
  c.AddJob(Pending("f-tenth", 0.1, "1", "1G"));
  // Tasks they do not answer.
  JobSpec memory = Pending("gpu-memory", 0, "1", "1G");
  memory.gpu_memory_mib = 50;
  c.AddJob(memory);
  TestSession s(c);

  ASSERT_EQ(s.Node("shared")->NumGroupsWithoutReservationPod(), 0);
  ASSERT_FALSE(s.Node("shared")->used_shared_gpus_memory.empty());
  int compared = 0, fits = 0, multi = 0, fraction_fits_shared = 0, room_only = 0;
  for (const NodeInfo* node : s.cluster().node_list) {
    NodeFitView view;
    view.Build(*node, 7);
    EXPECT_EQ(view.version, 7u);
    ASSERT_TRUE(view.usable) << node->name();
    for (const char* name :
         {"g1-0", "g4-big-cpu-0", "g8-big-mem-0", "g16-0", "c1-0", "c-fraction-of-a-core-0",
          "c-huge-0", "f-half-0", "f-half-big-cpu-0", "f-tenth-0"}) {
      const PodInfo& task = *s.Task(name);
      ASSERT_TRUE(NodeFitView::Answers(task)) << name;
      std::optional<FitFailures> want = node->FittingFailuresUnlessAllocatable(task);
      std::optional<FitFailures> got = view.Failures(task, *node);
      EXPECT_EQ(got, want) << name << " on " << node->name();
      const bool room = node->IsTaskAllocatableOnReleasingOrIdle(task);
      EXPECT_EQ(view.HasRoom(task, *node), room) << name << " on " << node->name();
      if (room && !node->IsTaskAllocatable(task)) ++room_only;
      ++compared;
      if (!want) ++fits;
      if (want && __builtin_popcountll(want->low) > 1) ++multi;
      if (!want && task.IsFractionRequest() && node->idle.gpu() < 1) ++fraction_fits_shared;
    }
  }
  EXPECT_EQ(compared, 60);
  // Not a vacuous comparison: some tasks fit, some fail on more than one resource.
  EXPECT_GT(fits, 3);
  EXPECT_GT(multi, 2);
  EXPECT_GT(fraction_fits_shared, 0);  // a fraction that fits only on a shared GPU
  EXPECT_GT(room_only, 0);             // room only on releasing resources
  for (const char* name : {"gpu-memory-0"}) {
    EXPECT_FALSE(NodeFitView::Answers(*s.Task(name))) << name;
  }
}

// Pod slots of reservation pods still to be created are taken off Idle for IsTaskAllocatable
// but not for FittingFailures' own test: a task that loses the node's last pod slot to a
// missing reservation pod fits nowhere yet records no failure there, on both paths.
TEST(NodeFitViewTest, PodSlotsOfMissingReservationPodsCountAsOnTheGeneralPath) {
  TestCluster c;
  c.AddNode(NodeSpec{.name = "node0", .gpus = 2, .pods = 3});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("half", "q", 0.5, "node0"));
  JobSpec leaving = RunningJob("leaving", "q", 0, "node0");
  leaving.tasks[0].state = testing::TaskState::kReleasing;
  c.AddJob(leaving);
  c.AddJob(Pending("one", 1, "1", "1G"));
  c.AddJob(Pending("two", 2, "1", "1G"));
  c.AddJob(Pending("f-quarter", 0.25, "1", "1G"));
  c.AddJob(Pending("cpu", 0, "1", "1G"));
  TestSession s(c);
  const NodeInfo& n = *s.Node("node0");
  ASSERT_EQ(n.NumGroupsWithoutReservationPod(), 1);
  ASSERT_EQ(n.idle.pods(), 1);
  NodeFitView view;
  view.Build(n, 1);
  ASSERT_TRUE(view.usable);
  EXPECT_TRUE(view.missing_reservations);
  for (const char* name : {"one-0", "two-0", "f-quarter-0", "cpu-0"}) {
    const PodInfo& task = *s.Task(name);
    EXPECT_EQ(view.Failures(task, n), n.FittingFailuresUnlessAllocatable(task)) << name;
    EXPECT_EQ(view.HasRoom(task, n), n.IsTaskAllocatableOnReleasingOrIdle(task)) << name;
  }
  const PodInfo& one = *s.Task("one-0");
  EXPECT_FALSE(n.IsTaskAllocatable(one));
  EXPECT_EQ(view.Failures(one, n), std::nullopt);
}

}  // namespace
}  // namespace kai::scheduler
