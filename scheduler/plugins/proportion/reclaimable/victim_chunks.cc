#include "scheduler/plugins/proportion/reclaimable/victim_chunks.h"

#include <map>

namespace kai::proportion {
namespace {

// Adds `task` to `chunk`; returns false when the task is left out.
bool Accumulate(const VictimTask& task, bool ignore_moved_tasks, VictimChunk& chunk) {
  if (ignore_moved_tasks && task.active_allocated) return false;
  chunk.resources.Add(task.accepted);
  chunk.involved |= task.involved;
  return true;
}

}  // namespace

std::vector<VictimChunk> SplitVictimChunks(
    std::span<const VictimTask> tasks,
    const std::function<int(std::string_view subgroup)>& min_available, bool ignore_moved_tasks) {
  std::map<std::string_view, std::vector<const VictimTask*>> by_subgroup;
  for (const VictimTask& task : tasks) {
    std::string_view name = task.subgroup.empty() ? kDefaultSubGroup : task.subgroup;
    by_subgroup[name].push_back(&task);
  }

  std::vector<VictimChunk> chunks;
  VictimChunk core;
  bool core_used = false;
  for (const auto& [name, group] : by_subgroup) {
    int min = min_available(name);
    if (min < 0 || min >= static_cast<int>(group.size())) min = static_cast<int>(group.size());
    for (int i = 0; i < static_cast<int>(group.size()); ++i) {
      if (i < min) {
        core_used |= Accumulate(*group[i], ignore_moved_tasks, core);
        continue;
      }
      VictimChunk elastic;
      if (Accumulate(*group[i], ignore_moved_tasks, elastic)) chunks.push_back(elastic);
    }
  }
  if (core_used) chunks.push_back(core);
  return chunks;
}

}  // namespace kai::proportion
