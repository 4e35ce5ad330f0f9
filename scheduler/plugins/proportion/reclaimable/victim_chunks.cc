#include "scheduler/plugins/proportion/reclaimable/victim_chunks.h"

#include <algorithm>
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

std::string_view SubGroupOf(const VictimTask& task) {
  return task.subgroup.empty() ? kDefaultSubGroup : task.subgroup;
}

// One PodSet's tasks (`size` of them, the i-th from `at(i)`): elastic chunks appended to *out,
// core tasks accumulated into *core.
template <typename At>
void SplitPodSet(std::string_view name, int size, At at,
                 const std::function<int(std::string_view subgroup)>& min_available,
                 bool ignore_moved_tasks, std::vector<VictimChunk>* out, VictimChunk* core,
                 bool* core_used) {
  int min = min_available(name);
  if (min < 0 || min >= size) min = size;
  for (int i = 0; i < size; ++i) {
    if (i < min) {
      *core_used |= Accumulate(at(i), ignore_moved_tasks, *core);
      continue;
    }
    VictimChunk elastic;
    if (Accumulate(at(i), ignore_moved_tasks, elastic)) out->push_back(elastic);
  }
}

}  // namespace

void AppendVictimChunks(std::span<const VictimTask> tasks,
                        const std::function<int(std::string_view subgroup)>& min_available,
                        bool ignore_moved_tasks, std::vector<VictimChunk>* out) {
  if (tasks.empty()) return;
  VictimChunk core;
  bool core_used = false;
  const std::string_view first = SubGroupOf(tasks.front());
  const bool one_pod_set = std::all_of(
      tasks.begin(), tasks.end(), [first](const VictimTask& t) { return SubGroupOf(t) == first; });
  if (one_pod_set) {
    // Most victims: no grouping needed.
    SplitPodSet(
        first, static_cast<int>(tasks.size()),
        [&tasks](int i) -> const VictimTask& { return tasks[i]; }, min_available,
        ignore_moved_tasks, out, &core, &core_used);
  } else {
    std::map<std::string_view, std::vector<const VictimTask*>> by_subgroup;
    for (const VictimTask& task : tasks) by_subgroup[SubGroupOf(task)].push_back(&task);
    for (const auto& [name, group] : by_subgroup) {
      // A named reference: lambdas cannot capture structured bindings before clang 16.
      const std::vector<const VictimTask*>& members = group;
      SplitPodSet(
          name, static_cast<int>(members.size()),
          [&members](int i) -> const VictimTask& { return *members[i]; }, min_available,
          ignore_moved_tasks, out, &core, &core_used);
    }
  }
  if (core_used) out->push_back(core);
}

}  // namespace kai::proportion
