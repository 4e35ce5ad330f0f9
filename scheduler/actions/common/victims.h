// Victim handling shared by consolidation, reclaim and preempt (KAI actions/common/action.go,
// actions/utils/action.go, minimal_job_comparison.go, feasible_nodes.go).
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/actions/common/job_order.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"

namespace kai::scheduler {

// A job popped from an action's queue is still a candidate: ready and with pending tasks. The
// queue is built when the action starts; a job whose own pods were evicted since (it was a victim
// of an earlier job of the same action) is no longer ready and must not get a partial gang.
inline bool IsStillPendingAndReady(const PodGroupInfo& job) {
  return job.NumPending() > 0 && job.IsReadyForScheduling();
}

// Every job of the session, in uid order.
std::vector<PodGroupInfo*> AllJobs(const Session& ssn);

// Every job that may have a Pending task, in uid order: the jobs that had one when the session
// opened (a session makes Pending again only tasks it placed itself), or all of them when the
// session did not record those. For queues that filter non-pending jobs: the jobs they admit, in
// the same order, without asking each of the cluster's running jobs.
std::vector<PodGroupInfo*> JobsThatMayBePending(const Session& ssn);

// Jobs that pass `pure_filter`, have at least one alive pod and pass `filter`, as a victim queue,
// each test in that order. `pure_filter` must have no side effects: it runs first because it is
// cheap next to the alive check (a node lookup per job); `filter` may count what it admits.
using JobFilter = std::function<bool(const PodGroupInfo&)>;
// `candidates`: the only jobs that can pass the filters, in the job map's order (nullptr: every
// job of the session). The walk stops once `max_admitted` jobs passed every test.
std::unique_ptr<JobsOrderByQueues> GetVictimsQueue(
    const Session& ssn, const JobFilter& filter, const JobFilter& pure_filter = nullptr,
    const std::vector<PodGroupInfo*>* candidates = nullptr,
    size_t max_admitted = std::numeric_limits<size_t>::max());

// Eviction message for a victim (§21.3).
std::string EvictionMessage(const Session& ssn, std::string_view action, const PodInfo& victim,
                            const PodGroupInfo& preemptor);

// Evicts the tasks in `stmt` with messages computed before the first eviction.
Status EvictAllPreemptees(Session* ssn, const std::vector<PodInfo*>& tasks,
                          const PodGroupInfo& preemptor, Statement* stmt, std::string_view action);

// What the simulations of one victim search share (JobSolver::Solve keeps one per searched job):
// the order of every pending job, reset and reused by each simulation, and the base it is built
// from (job_order.h, PendingJobsBase).
struct SimulationOrder {
  SimulationOrder(const Session* ssn, const PodGroupId& searched)
      : order(ssn, JobsOrderOptions{}), base(ssn, searched) {}
  JobsOrderByQueues order;
  PendingJobsBase base;
};

// Builds `so`'s base unless it has one or the simulations of `preemptor` against `victims` need
// none (all of them in one leaf queue: RelevantPopOrder). Call it while no victim is evicted.
void PrepareSimulationOrder(const Session& ssn, const PodGroupInfo& preemptor,
                            const std::vector<PodInfo*>& victims, SimulationOrder* so);

// Simulation of a victim scenario (§7.6): all pending jobs plus the victims' jobs plus the
// preemptor, popped in fairness order; victims and the preemptor are re-placed in pipeline-only
// mode. True when the preemptor was placed. `scratch` (optional): what a caller that simulates
// many scenarios of one search reuses for them.
bool TryToVirtuallyAllocatePreemptor(Session* ssn, Statement* stmt, const NodeSet& nodes,
                                     PodGroupInfo* preemptor, const std::vector<PodInfo*>& victims,
                                     SimulationOrder* scratch = nullptr);

// Whether a victim simulation leaves nothing outside the statement it rolls back. The victims'
// re-placements record no fit errors (PopAndAllocate mutes them) and new shared-GPU groups are
// named without the random stream (framework/gpu_group_name.h); what is left is a pre-predicate
// failure of one of the preemptor's pods, which is recorded on its job. The pre-predicates read
// only the pod and cluster-wide facts, so a preemptor whose tasks pass them now leaves no trace.
bool PreemptorLeavesNoTrace(const Session& ssn, const std::vector<PodInfo*>& tasks);

// Nodes worth trying for a job: all nodes, or, when every task needs a GPU, the nodes with idle
// or releasing GPUs.
NodeSet FeasibleNodesForJob(const NodeSet& all, const PodGroupInfo& job);

// Cluster-wide idle+releasing GPUs (and memory) on ready nodes cover the job's request.
bool IsEnoughGpusAllocatableForJob(const Session& ssn, const PodGroupInfo& job,
                                   bool real_allocation);

// Scheduling-signature skip (§7.7): the smallest failed job per signature.
class MinimalJobRepresentatives {
 public:
  // True when `job` may succeed where the representative failed (or there is none).
  bool IsEasierToSchedule(const PodGroupInfo& job, const PodGroupInfo** other) const;
  void UpdateRepresentative(const PodGroupInfo* job);

 private:
  std::map<std::string, const PodGroupInfo*> representatives_;
};

}  // namespace kai::scheduler
