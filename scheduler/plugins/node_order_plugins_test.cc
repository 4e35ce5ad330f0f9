// Node and GPU ordering (reference §8, §8.2, §12.3): scores are summed, so the score constants
// define a strict precedence; nodeplacement bin-packs or spreads GPUs and CPU.
#include <gtest/gtest.h>

#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::NodeSpec;
using testing::PendingJob;
using testing::RunningJob;
using testing::TaskState;
using testing::TestCluster;
using testing::TestSession;

std::vector<std::string> Order(TestSession& s, const std::string& pod) {
  std::vector<std::string> out;
  for (NodeInfo* n : s.ssn().OrderedNodesByTask(s.cluster().node_list, *s.Task(pod))) {
    out.push_back(n->name());
  }
  return out;
}

std::vector<PluginOption> Placement(const std::string& gpu, const std::string& cpu) {
  std::vector<PluginOption> plugins{
      {"predicates", {}}, {"proportion", {}},   {"nodeavailability", {}}, {"gpusharingorder", {}},
      {"gpupack", {}},    {"resourcetype", {}}, {"nominatednode", {}},    {"nodeplacement", {}}};
  plugins.back().arguments = {{"gpu", gpu}, {"cpu", cpu}};
  return plugins;
}

TestCluster ThreeNodes(const std::string& gpu, const std::string& cpu) {
  TestCluster c;
  c.SetPlugins(Placement(gpu, cpu));
  c.AddNode({.name = "a", .gpus = 4});
  c.AddNode({.name = "b", .gpus = 4});
  c.AddNode({.name = "c", .gpus = 4});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("on-a", "q", 3, "a"));
  c.AddJob(RunningJob("on-b", "q", 1, "b"));
  c.AddJob(PendingJob("gpu", "q", 1));
  return c;
}

TEST(NodePlacementTest, GpuBinpackPrefersTheFullestNode) {
  TestSession s(ThreeNodes("binpack", "binpack"));
  EXPECT_EQ(Order(s, "gpu-0"), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(NodePlacementTest, GpuSpreadPrefersTheEmptiestNode) {
  TestSession s(ThreeNodes("spread", "binpack"));
  EXPECT_EQ(Order(s, "gpu-0"), (std::vector<std::string>{"c", "b", "a"}));
}

TEST(NodePlacementTest, BinpackScoresScaleBetweenMinAndMax) {
  TestSession s(ThreeNodes("binpack", "binpack"));
  PodInfo& task = *s.Task("gpu-0");
  s.ssn().NodePreOrder(task, s.cluster().node_list);
  // Free GPUs 1 (a), 3 (b), 4 (c): a = 9, b = 9 * (1 - 2/3) = 3, c = 0; plus 100 for fitting
  // in Idle on every node.
  EXPECT_DOUBLE_EQ(*s.ssn().NodeOrderScore(task, *s.Node("a")), 109);
  EXPECT_DOUBLE_EQ(*s.ssn().NodeOrderScore(task, *s.Node("b")), 103);
  EXPECT_DOUBLE_EQ(*s.ssn().NodeOrderScore(task, *s.Node("c")), 100);
}

TEST(NodePlacementTest, CpuOnlyTasksUseTheCpuRule) {
  TestCluster c;
  c.SetPlugins(Placement("binpack", "spread"));
  c.AddNode({.name = "a", .gpus = 0, .cpu = "8"});
  c.AddNode({.name = "b", .gpus = 0, .cpu = "8"});
  c.AddQueue({.name = "q"});
  JobSpec busy = RunningJob("busy", "q", 0, "a");
  busy.cpu = "6";
  c.AddJob(busy);
  c.AddJob(PendingJob("cpu", "q", 0));
  TestSession s(c);
  EXPECT_EQ(Order(s, "cpu-0"), (std::vector<std::string>{"b", "a"}));
}

TEST(NodeOrderTest, FittingInIdleBeatsBinpacking) {
  TestCluster c;
  c.SetPlugins(Placement("binpack", "binpack"));
  c.AddNode({.name = "full", .gpus = 2});
  c.AddNode({.name = "free", .gpus = 2});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("stays", "q", 1, "full"));
  JobSpec leaving = RunningJob("leaving", "q", 1, "full");
  leaving.tasks[0].state = TaskState::kReleasing;
  c.AddJob(leaving);
  c.AddJob(PendingJob("gpu", "q", 1));
  TestSession s(c);
  // "full" only fits on releasing resources (bin-pack 9); "free" fits in Idle (+100).
  EXPECT_EQ(Order(s, "gpu-0"), (std::vector<std::string>{"free", "full"}));
}

TEST(NodeOrderTest, CpuOnlyTaskPrefersCpuOnlyNodes) {
  TestCluster c;
  c.SetPlugins(Placement("binpack", "binpack"));
  c.AddNode({.name = "a-gpu", .gpus = 2});
  c.AddNode({.name = "b-cpu", .gpus = 0});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("cpu", "q", 0));
  TestSession s(c);
  EXPECT_EQ(Order(s, "cpu-0"), (std::vector<std::string>{"b-cpu", "a-gpu"}));
}

TEST(NodeOrderTest, SharedGpuWithRoomBeatsEverythingButNomination) {
  TestCluster c;
  c.SetPlugins(Placement("binpack", "binpack"));
  c.AddNode({.name = "empty", .gpus = 4});
  c.AddNode({.name = "shared", .gpus = 4});
  c.AddNode({.name = "nominated", .gpus = 4});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("frac", "q", 0.5, "shared"));
  c.AddJob(RunningJob("fill", "q", 1, "empty", 3));
  JobSpec pending = PendingJob("p", "q", 0.25, 2);
  pending.tasks[1].nominated_node = "nominated";
  c.AddJob(pending);
  TestSession s(c);
  // gpusharingorder (+1000) outweighs bin-packing "empty" (fuller).
  EXPECT_EQ(Order(s, "p-0").front(), "shared");
  // nominatednode (+1000000) outweighs everything.
  EXPECT_EQ(Order(s, "p-1").front(), "nominated");
}

TEST(NodeOrderTest, TiesBreakByNodeName) {
  TestCluster c;
  c.SetPlugins(Placement("binpack", "binpack"));
  c.AddNode({.name = "z", .gpus = 2});
  c.AddNode({.name = "m", .gpus = 2});
  c.AddNode({.name = "a", .gpus = 2});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("gpu", "q", 1));
  TestSession s(c);
  EXPECT_EQ(Order(s, "gpu-0"), (std::vector<std::string>{"a", "m", "z"}));
}

TEST(GpuOrderTest, PackFillsTheFullestSharedGpuSpreadPrefersWholeGpus) {
  for (const bool spread : {false, true}) {
    TestCluster c;
    c.SetPlugins({{"proportion", {}}, {spread ? "gpuspread" : "gpupack", {}}});
    c.AddNode({.name = "n", .gpus = 3});
    c.AddQueue({.name = "q"});
    JobSpec light = RunningJob("light", "q", 0.25, "n");
    light.tasks[0].gpu_groups = {"g-light"};
    JobSpec heavy = RunningJob("heavy", "q", 0.5, "n");
    heavy.tasks[0].gpu_groups = {"g-heavy"};
    c.AddJob(light);
    c.AddJob(heavy);
    c.AddJob(PendingJob("p", "q", 0.25));
    TestSession s(c);
    std::vector<std::string> gpus = s.ssn().FittingGpus(*s.Node("n"), *s.Task("p-0"));
    ASSERT_EQ(gpus.size(), 3u);
    if (spread) {
      EXPECT_EQ(gpus,
                (std::vector<std::string>{std::string(kWholeGpuIndicator), "g-light", "g-heavy"}));
    } else {
      EXPECT_EQ(gpus,
                (std::vector<std::string>{"g-heavy", "g-light", std::string(kWholeGpuIndicator)}));
    }
  }
}

}  // namespace
}  // namespace kai::scheduler
