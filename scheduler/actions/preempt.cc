// preempt (KAI actions/preempt, reference §7.5): a job evicts lower-priority preemptible jobs of
// its own queue.
#include "scheduler/actions/actions.h"
#include "scheduler/actions/common/allocation.h"
#include "scheduler/actions/common/job_order.h"
#include "scheduler/actions/common/solvers.h"
#include "scheduler/actions/common/victims.h"

namespace kai::scheduler {

namespace {

class PreemptAction : public Action {
 public:
  std::string_view Name() const override { return kActionPreempt; }

  void Execute(Session* ssn) override {
    JobsOrderOptions opts;
    opts.filter_non_pending = true;
    opts.filter_unready = true;
    opts.max_jobs_queue_depth = ssn->JobsDepth(kActionPreempt);
    JobsOrderByQueues queue(ssn, opts);
    queue.InitializeWithJobs(AllJobs(*ssn));
    std::map<std::string, MinimalJobRepresentatives> smallest_failed;
    while (!queue.empty()) {
      PodGroupInfo* job = queue.PopNextJob();
      if (job == nullptr) break;
      if (!IsStillPendingAndReady(*job)) continue;
      MinimalJobRepresentatives& reps = smallest_failed[job->queue()];
      if (ssn->params().use_scheduling_signatures && !reps.IsEasierToSchedule(*job, nullptr)) {
        continue;
      }
      const bool scheduled = Attempt(ssn, job);
      ssn->CountPodGroup(kActionPreempt, scheduled);
      if (!scheduled) reps.UpdateRepresentative(job);
    }
  }

 private:
  static bool Attempt(Session* ssn, PodGroupInfo* preemptor) {
    std::vector<PodInfo*> tasks = GetTasksToAllocate(*ssn, *preemptor, false);
    if (!ssn->IsNonPreemptibleJobOverQueueQuota(*preemptor, tasks).schedulable) return false;
    JobSolver solver(
        FeasibleNodesForJob(ssn->cluster().node_list, *preemptor),
        [ssn](const ScenarioInfo& s) { return ssn->PreemptScenarioValid(s); },
        [ssn, preemptor]() {
          return GetVictimsQueue(*ssn, [ssn, preemptor](const PodGroupInfo& job) {
            if (!job.IsPreemptible()) return false;
            if (job.priority() >= preemptor->priority()) return false;
            if (job.queue() != preemptor->queue()) return false;
            if (job.uid() == preemptor->uid()) return false;
            if (job.NumActiveAllocated() == 0) return false;
            return ssn->PreemptVictimFilter(*preemptor, job);
          });
        },
        std::string(kActionPreempt));
    JobSolution sol = solver.Solve(ssn, preemptor);
    if (!sol.solved) {
      if (sol.statement) sol.statement->Discard();
      return false;
    }
    return sol.statement->Commit().ok();
  }
};

}  // namespace

std::unique_ptr<Action> NewPreemptAction() { return std::make_unique<PreemptAction>(); }

}  // namespace kai::scheduler
