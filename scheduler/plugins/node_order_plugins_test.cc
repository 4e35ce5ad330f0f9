// Node and GPU ordering (reference §8, §8.2, §12.3): scores are summed, so the score constants
// define a strict precedence; nodeplacement bin-packs or spreads GPUs and CPU.
#include <gtest/gtest.h>

#include <optional>
#include <span>

#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::PendingJob;
using testing::ReleasingJob;
using testing::RunningJob;
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
  c.AddJob(ReleasingJob("leaving", "q", 1, "full"));
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

// Per-node and batch node order functions add into one total per node in registration order
// (floating-point sums depend on it), and a node one of them cannot score is dropped: the
// per-node functions registered after it are not asked about it.
TEST(NodeOrderTest, PerNodeAndBatchFunctionsAddUpInRegistrationOrder) {
  TestCluster c;
  c.SetPlugins({{"predicates", {}}});
  c.AddNode({.name = "a", .gpus = 2});
  c.AddNode({.name = "b", .gpus = 2});
  c.AddNode({.name = "c", .gpus = 2});
  c.AddQueue({.name = "q"});
  c.AddJob(PendingJob("gpu", "q", 1));
  TestSession s(c);
  Session& ssn = s.ssn();
  std::vector<std::string> last_asked;
  ssn.AddNodeOrderFn([](const PodInfo&, const NodeInfo& n) -> std::optional<double> {
    if (n.name() == "b") return std::nullopt;
    return 1e16;
  });
  ssn.AddNodeOrderBatchFn([](const PodInfo&, std::span<const NodeInfo* const> nodes,
                             std::span<double> out, std::span<uint8_t>) {
    for (size_t i = 0; i < nodes.size(); ++i) out[i] += nodes[i]->name() == "c" ? 2.0 : 1.0;
  });
  ssn.AddNodeOrderFn([&](const PodInfo&, const NodeInfo& n) -> std::optional<double> {
    last_asked.push_back(n.name());
    return -1e16;
  });
  PodInfo& task = *s.Task("gpu-0");
  // (1e16 + 1) rounds back to 1e16, so a gets 0 where another order would give 1; c's
  // 1e16 + 2 is exact and stays 2.
  EXPECT_EQ(*ssn.NodeOrderScore(task, *s.Node("a")), 0.0);
  EXPECT_EQ(*ssn.NodeOrderScore(task, *s.Node("c")), 2.0);
  last_asked.clear();
  EXPECT_EQ(ssn.NodeOrderScore(task, *s.Node("b")), std::nullopt);
  EXPECT_TRUE(last_asked.empty());
  last_asked.clear();
  EXPECT_EQ(Order(s, "gpu-0"), (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(last_asked, (std::vector<std::string>{"a", "c"}));
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
