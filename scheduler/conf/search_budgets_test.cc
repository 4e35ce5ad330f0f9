// scenarioSearchBudgets from a SchedulingShard and from the config file: defaults, overrides,
// and clear errors for bad values.
#include "scheduler/conf/search_budgets.h"

#include <gtest/gtest.h>

#include "scheduler/conf/scheduler_conf.h"

namespace kai::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

StatusOr<SchedulerConfiguration> FromShard(const std::string& budgets_json) {
  std::string json =
      R"({"apiVersion":"kai.scheduler/v1","kind":"SchedulingShard","metadata":{"name":"s"},)"
      R"("spec":{)" +
      (budgets_json.empty() ? "" : R"("scenarioSearchBudgets":)" + budgets_json) + "}}";
  KAI_ASSIGN_OR_RETURN(api::SchedulingShard shard, api::Decode<api::SchedulingShard>(json));
  SchedulerConfiguration conf = DefaultSchedulerConfiguration();
  SchedulerParams params;
  KAI_RETURN_IF_ERROR(ConfigFromSchedulingShard(shard, &conf, &params));
  return conf;
}

TEST(SearchBudgetsTest, DefaultsAreUpstreams) {
  const SearchBudgets b = DefaultSearchBudgets();
  EXPECT_EQ(b.ActionLimit("reclaim"), seconds(20));
  EXPECT_EQ(b.ActionLimit("consolidation"), seconds(20));
  EXPECT_EQ(b.max_job, seconds(10));
  EXPECT_EQ(b.JobLimit(), seconds(5));  // the generator's limit is the tighter one
  EXPECT_EQ(b.min_job, Duration::zero());
  auto conf = FromShard("");
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_EQ(conf->search_budgets.ActionLimit("preempt"), seconds(20));
}

TEST(SearchBudgetsTest, AShardOverridesPerActionAndKeepsTheRest) {
  auto conf = FromShard(R"({"maxActionSearchDuration":{"reclaim":"500ms","default":"2m"},)"
                        R"("maxJobSearchDuration":"1m","minJobSearchDuration":"100ms",)"
                        R"("maxGeneratorSearchDuration":{"default":"0s","MultiNodeGang":"1s"}})");
  ASSERT_TRUE(conf.ok()) << conf.status();
  const SearchBudgets& b = conf->search_budgets;
  EXPECT_EQ(b.ActionLimit("reclaim"), milliseconds(500));
  EXPECT_EQ(b.ActionLimit("preempt"), minutes(2));
  EXPECT_EQ(b.JobLimit(), minutes(1));  // generator limit 0 = unlimited
  EXPECT_EQ(b.min_job, milliseconds(100));
}

TEST(SearchBudgetsTest, FailedSearchBackoffIsOffUnlessSetAndItsMaximumIsAtLeastItsMinimum) {
  auto off = FromShard("");
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_EQ(off->search_budgets.BackoffBounds("reclaim").first, Duration::zero());
  auto on = FromShard(R"({"minFailedSearchBackoff":{"default":"10s","preempt":"1m"},)"
                      R"("maxFailedSearchBackoff":{"default":"5m","preempt":"30s"}})");
  ASSERT_TRUE(on.ok()) << on.status();
  EXPECT_EQ(on->search_budgets.BackoffBounds("reclaim"),
            std::pair(Duration(seconds(10)), Duration(minutes(5))));
  EXPECT_EQ(on->search_budgets.BackoffBounds("preempt"),
            std::pair(Duration(minutes(1)), Duration(minutes(1))));
  auto bad = FromShard(R"({"minFailedSearchBackoff":{"allocate":"10s"}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("minFailedSearchBackoff.allocate: unknown action"),
            std::string::npos);
}

TEST(SearchBudgetsTest, BadShardValuesNameTheField) {
  auto unknown = FromShard(R"({"maxActionSearchDuration":{"reclaimm":"1s"}})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "SchedulingShard s: spec.scenarioSearchBudgets.maxActionSearchDuration.reclaimm: "
            "unknown action (expected default, reclaim, preempt or consolidation)");
  auto negative = FromShard(R"({"maxJobSearchDuration":"-1s"})");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(),
            "SchedulingShard s: spec.scenarioSearchBudgets.maxJobSearchDuration: must be "
            "non-negative, got -1s");
  auto min_over_max = FromShard(R"({"maxJobSearchDuration":"1s","minJobSearchDuration":"1s"})");
  ASSERT_FALSE(min_over_max.ok());
  EXPECT_NE(min_over_max.status().message().find(
                "minJobSearchDuration: must be less than maxJobSearchDuration (1s >= 1s)"),
            std::string::npos);
  auto not_a_duration = FromShard(R"({"maxJobSearchDuration":"soon"})");
  ASSERT_FALSE(not_a_duration.ok());
  EXPECT_NE(
      not_a_duration.status().message().find("spec.scenarioSearchBudgets.maxJobSearchDuration"),
      std::string::npos)
      << not_a_duration.status();
}

TEST(SearchBudgetsTest, TheConfigFileTakesTheSameShape) {
  auto conf = ParseSchedulerConfiguration(
      "actions: allocate, reclaim\n"
      "scenarioSearchBudgets:\n"
      "  maxActionSearchDuration: {reclaim: 250ms}\n"
      "  maxJobSearchDuration: 50ms\n");
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_EQ(conf->search_budgets.ActionLimit("reclaim"), milliseconds(250));
  EXPECT_EQ(conf->search_budgets.ActionLimit("preempt"), seconds(20));
  EXPECT_EQ(conf->search_budgets.JobLimit(), milliseconds(50));

  auto bad = ParseSchedulerConfiguration("scenarioSearchBudgets:\n  maxJobSearchDuration: 5\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "scheduler config: scenarioSearchBudgets.maxJobSearchDuration: expected duration "
            "string, got number 5");
  auto not_a_map = ParseSchedulerConfiguration("scenarioSearchBudgets: [1s]\n");
  ASSERT_FALSE(not_a_map.ok());
  EXPECT_EQ(not_a_map.status().message(),
            "scheduler config: scenarioSearchBudgets: expected object, got array");
  auto bad_entry = ParseSchedulerConfiguration(
      "scenarioSearchBudgets:\n  minFailedSearchBackoff: {reclaim: 3 minutes}\n");
  ASSERT_FALSE(bad_entry.ok());
  EXPECT_NE(bad_entry.status().message().find(
                "scheduler config: scenarioSearchBudgets.minFailedSearchBackoff.reclaim: "),
            std::string::npos)
      << bad_entry.status();
  auto typo = ParseSchedulerConfiguration(
      "scenarioSearchBudgets:\n  maxActionSearchDuration: {allocate: 1s}\n");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("maxActionSearchDuration.allocate: unknown action"),
            std::string::npos);
}

}  // namespace
}  // namespace kai::scheduler
