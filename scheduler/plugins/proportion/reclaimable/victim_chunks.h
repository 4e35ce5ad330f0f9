// Splits a victim job's evicted tasks into the chunks the reclaim validator checks one by one.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/plugins/proportion/reclaimable/reclaimer_info.h"

namespace kai::proportion {

struct VictimTask {
  // PodSet (sub-group) of the task; empty = the job's default PodSet.
  std::string_view subgroup;  // the pod's own string (it outlives the task)
  // The resources the node granted the task (MIG counted as GPUs).
  ResourceQuantities accepted;
  // Resources counted as involved (see ReclaimerInfo::involved).
  ResourceMask involved = 0;
  // The task is active-allocated in the simulation (it was moved, not evicted).
  bool active_allocated = false;
};

// Name KAI gives the PodSet of tasks without a sub-group.
inline constexpr std::string_view kDefaultSubGroup = "default";

// Per PodSet, in order of `tasks`: the first minAvailable tasks form the job's core, the rest
// are elastic. Appends one chunk per elastic task (PodSets by name, tasks in order), then one
// chunk for all core tasks, to *out (the validator splits every victim job of every placed
// simulation into one vector). With `ignore_moved_tasks` (allow-consolidating-reclaim), tasks
// that are active-allocated are left out; a chunk left empty is dropped. `min_available` returns
// a PodSet's minAvailable, or -1 when the job has no such PodSet (then all its tasks are core).
void AppendVictimChunks(std::span<const VictimTask> tasks,
                        const std::function<int(std::string_view subgroup)>& min_available,
                        bool ignore_moved_tasks, std::vector<VictimChunk>* out);

}  // namespace kai::proportion
