#include "scheduler/plugins/proportion/reclaimable/victim_chunks.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace kai::proportion {
namespace {

VictimTask Task(std::string_view subgroup, double cpu, bool moved = false) {
  VictimTask t;
  t.subgroup = subgroup;
  t.accepted = ResourceQuantities::Of(cpu, 0, 0);
  t.involved = t.accepted.Positive();
  t.active_allocated = moved;
  return t;
}

auto MinAvailable(const std::map<std::string, int>& m) {
  return [m](std::string_view name) {
    auto it = m.find(std::string(name));
    return it == m.end() ? -1 : it->second;
  };
}

std::vector<VictimChunk> SplitVictimChunks(
    std::span<const VictimTask> tasks,
    const std::function<int(std::string_view subgroup)>& min_available, bool ignore_moved_tasks) {
  std::vector<VictimChunk> chunks;
  AppendVictimChunks(tasks, min_available, ignore_moved_tasks, &chunks);
  return chunks;
}

// KAI proportion_test.go getVictimResources cases.
TEST(SplitVictimChunks, MinAvailableAboveTaskCount) {
  std::vector<VictimTask> tasks = {Task("", 1000)};
  auto chunks = SplitVictimChunks(tasks, MinAvailable({{"default", 2}}), true);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].resources.cpu(), 1000);
}

TEST(SplitVictimChunks, ElasticTasksIndividuallyCoreTogether) {
  std::vector<VictimTask> tasks = {Task("", 1000), Task("", 1000), Task("", 1000)};
  auto chunks = SplitVictimChunks(tasks, MinAvailable({{"default", 1}}), true);
  ASSERT_EQ(chunks.size(), 3u);
  for (const VictimChunk& c : chunks) EXPECT_EQ(c.resources.cpu(), 1000);
}

TEST(SplitVictimChunks, MinAvailableEqualsTaskCount) {
  std::vector<VictimTask> tasks = {Task("", 1000), Task("", 1000)};
  auto chunks = SplitVictimChunks(tasks, MinAvailable({{"default", 2}}), true);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].resources.cpu(), 2000);
}

TEST(SplitVictimChunks, ZeroMinAvailableMakesEveryTaskElastic) {
  std::vector<VictimTask> tasks = {Task("", 1000), Task("", 1000)};
  auto chunks = SplitVictimChunks(tasks, MinAvailable({{"default", 0}}), true);
  ASSERT_EQ(chunks.size(), 2u);
}

TEST(SplitVictimChunks, SubGroupsAndOrder) {
  // Elastic chunks first (sub-groups by name, tasks in order), then the core chunk.
  std::vector<VictimTask> tasks = {Task("workers", 1), Task("workers", 2), Task("workers", 4),
                                   Task("leader", 8)};
  auto chunks = SplitVictimChunks(tasks, MinAvailable({{"workers", 1}, {"leader", 1}}), true);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].resources.cpu(), 2);
  EXPECT_EQ(chunks[1].resources.cpu(), 4);
  EXPECT_EQ(chunks[2].resources.cpu(), 9);  // leader + first worker
}

TEST(SplitVictimChunks, MovedTasksAreExcludedWithConsolidatingReclaim) {
  std::vector<VictimTask> tasks = {Task("", 1, true), Task("", 2), Task("", 4, true)};
  auto with = SplitVictimChunks(tasks, MinAvailable({{"default", 1}}), true);
  ASSERT_EQ(with.size(), 1u);
  EXPECT_EQ(with[0].resources.cpu(), 2);
  auto without = SplitVictimChunks(tasks, MinAvailable({{"default", 1}}), false);
  ASSERT_EQ(without.size(), 3u);
  // All moved: nothing is reclaimed from this job.
  std::vector<VictimTask> moved = {Task("", 1, true)};
  EXPECT_TRUE(SplitVictimChunks(moved, MinAvailable({{"default", 1}}), true).empty());
}

TEST(SplitVictimChunks, UnknownSubGroupIsCore) {
  std::vector<VictimTask> tasks = {Task("ghost", 1), Task("ghost", 2)};
  auto chunks = SplitVictimChunks(tasks, MinAvailable({}), true);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].resources.cpu(), 3);
}

TEST(AppendVictimChunks, AppendsWhatSplitReturns) {
  // An empty sub-group name is the default PodSet: these three tasks form one PodSet.
  std::vector<VictimTask> one = {Task("", 1), Task("default", 2), Task("", 4)};
  std::vector<VictimTask> several = {Task("workers", 1), Task("leader", 8), Task("workers", 2)};
  for (const auto& tasks : {one, several}) {
    const auto min = MinAvailable({{"default", 1}, {"workers", 1}, {"leader", 1}});
    const std::vector<VictimChunk> split = SplitVictimChunks(tasks, min, true);
    std::vector<VictimChunk> out = {VictimChunk{ResourceQuantities::Of(100, 0, 0), 0}};
    AppendVictimChunks(tasks, min, true, &out);
    ASSERT_EQ(out.size(), split.size() + 1);
    EXPECT_EQ(out[0].resources.cpu(), 100);  // kept
    for (size_t i = 0; i < split.size(); ++i) {
      EXPECT_EQ(out[i + 1].resources.cpu(), split[i].resources.cpu()) << i;
      EXPECT_EQ(out[i + 1].involved, split[i].involved) << i;
    }
  }
  std::vector<VictimChunk> chunks;
  AppendVictimChunks(one, MinAvailable({{"default", 1}}), true, &chunks);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].resources.cpu(), 2);
  EXPECT_EQ(chunks[1].resources.cpu(), 4);
  EXPECT_EQ(chunks[2].resources.cpu(), 1);  // the core: the first task
}

}  // namespace
}  // namespace kai::proportion
