// Cycles over a cluster that absorbs their decisions: the small preset settles, and the churn
// counters count what they say.
#include "scheduler/bench/converging_cycles.h"

#include <gtest/gtest.h>

namespace kai::scheduler::bench {
namespace {

struct Series {
  SchedulerConfiguration conf = DefaultSchedulerConfiguration();
  SchedulerParams params;
  PluginRegistry plugins;
  ActionRegistry actions;
  FailedSearchBackoff backoff;
  Series() {
    RegisterDefaultPlugins(&plugins);
    RegisterDefaultActions(&actions);
  }
  std::vector<ConvergedCycle> Run(const std::string& size, int cycles) {
    auto spec = SpecForSize(size);
    EXPECT_TRUE(spec.ok());
    SyntheticCluster cluster = GenerateSyntheticCluster(*spec);
    CycleSetup setup{&conf, &params, &plugins, &actions, false, true, &backoff};
    return RunConvergingCycles(cluster, setup, cycles, std::chrono::seconds(1));
  }
};

TEST(ConvergingCyclesTest, TheSmallClusterSettlesAfterItsFirstDecisions) {
  Series s;
  auto cycles = s.Run("S", 4);
  ASSERT_EQ(cycles.size(), 4u);
  // The first cycle binds, evicts and pipelines (S has queues over their share and gangs that
  // need consolidation); the second binds what was pipelined; then nothing changes.
  EXPECT_GT(cycles[0].result.binds, 0);
  EXPECT_GT(cycles[0].result.evictions, 0);
  EXPECT_GT(cycles[0].result.pipelined, 0);
  EXPECT_GT(cycles[1].result.binds, 0);
  for (size_t i = 2; i < cycles.size(); ++i) {
    EXPECT_EQ(cycles[i].result.binds, 0) << "cycle " << i + 1;
    EXPECT_EQ(cycles[i].result.evictions, 0) << "cycle " << i + 1;
    EXPECT_EQ(cycles[i].result.pipelined, 0) << "cycle " << i + 1;
    EXPECT_EQ(cycles[i].pending_pods_after, cycles[1].pending_pods_after);
    EXPECT_EQ(cycles[i].running_pods_after, cycles[1].running_pods_after);
  }
  // Pods bound by the second cycle run in the third: no pod is lost or counted twice.
  EXPECT_EQ(cycles[2].pending_pods_after + cycles[2].running_pods_after,
            cycles[0].pending_pods_after + cycles[0].running_pods_after);
  for (const auto& c : cycles) {
    EXPECT_LE(c.evicted_bound_this_cycle, c.result.evictions);
    EXPECT_LE(c.evicted_again, c.result.evictions);
  }
  EXPECT_EQ(cycles[0].evicted_again, 0);
}

TEST(ConvergingCyclesTest, JsonHasOneEntryPerCycle) {
  Series s;
  auto cycles = s.Run("tiny", 2);
  std::string json = ConvergingCyclesJson(cycles);
  EXPECT_NE(json.find("\"cycle\": 1"), std::string::npos);
  EXPECT_NE(json.find("\"cycle\": 2"), std::string::npos);
  EXPECT_EQ(json.find("\"cycle\": 3"), std::string::npos);
  EXPECT_NE(json.find("\"evicted_again\": 0"), std::string::npos);
}

}  // namespace
}  // namespace kai::scheduler::bench
