// Shared allocation logic of the actions (KAI actions/common/allocate.go,
// podgroup_info/allocation_info.go, gpu_sharing/gpuSharing.go): which tasks of a job are tried
// (§7.2), placing a job's tasks through the SubGroupSet tree and the topology node subsets
// (§7.3), whole-GPU / pipelined / fractional placement on a node (§12.3), and the tasks taken
// from a victim job (§7.6).
#pragma once

#include <vector>

#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"

namespace kai::scheduler {

// Tasks of the job to try now: up to minAvailable of every unsatisfied PodSet, or one task of
// the first PodSet (in PodSet order) that has one when all are satisfied. `real_allocation` =
// false also considers tasks this session evicted (simulations).
std::vector<PodInfo*> GetTasksToAllocate(const Session& ssn, const PodGroupInfo& job,
                                         bool real_allocation);
bool HasTasksToAllocate(const PodGroupInfo& job, bool real_allocation);
// Sum of the requests of the tasks to allocate; GPU-memory requests are converted into GPUs with
// the cluster's minimal node GPU memory (§7.2). The reference is into the job's memo: valid until
// the job's tasks to allocate are asked for again.
const ResourceVector& GetTasksToAllocateInitResource(const Session& ssn, const PodGroupInfo& job,
                                                     bool real_allocation);
// Requested whole/fractional GPUs (+ MIG slices) and GPU memory of the tasks to allocate.
std::pair<double, int64_t> GetTasksToAllocateRequestedGpus(const Session& ssn,
                                                           const PodGroupInfo& job,
                                                           bool real_allocation);
// Victim tasks of a job (§7.6): one task (reverse task order) when the job has more active
// allocated tasks than the minimum of its PodSet, otherwise the whole gang. The bool says
// whether the job keeps further candidate tasks.
std::pair<std::vector<PodInfo*>, bool> GetTasksToEvict(const Session& ssn, const PodGroupInfo& job);

// Places the job's tasks to allocate on `nodes`; everything it does is in `stmt` (rolled back on
// failure). `pipeline_only` is the victim-simulation mode.
bool AllocateJob(Session* ssn, Statement* stmt, const NodeSet& nodes, PodGroupInfo* job,
                 bool pipeline_only);

}  // namespace kai::scheduler
