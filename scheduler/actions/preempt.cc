// preempt (KAI actions/preempt, reference §7.5): a job evicts lower-priority preemptible jobs of
// its own queue.
#include "scheduler/actions/actions.h"
#include "scheduler/actions/common/allocation.h"
#include "scheduler/actions/common/job_order.h"
#include "scheduler/actions/common/solvers.h"
#include "scheduler/actions/common/victim_search.h"
#include "scheduler/actions/common/victims.h"

namespace kai::scheduler {

namespace {

class PreemptAction : public Action {
 public:
  std::string_view Name() const override { return kActionPreempt; }

  void Execute(Session* ssn) override {
    VictimSearchAction a;
    a.action = kActionPreempt;
    a.order.filter_non_pending = true;
    a.order.filter_unready = true;
    a.order.max_jobs_queue_depth = ssn->JobsDepth(kActionPreempt);
    a.signature_scope = [](const PodGroupInfo& job) { return job.queue(); };
    a.attempt = [ssn](PodGroupInfo* job, const JobSearchBudget& budget) {
      return Attempt(ssn, job, budget);
    };
    RunVictimSearch(ssn, a);
  }

 private:
  static JobSolution Attempt(Session* ssn, PodGroupInfo* preemptor, const JobSearchBudget& budget) {
    std::vector<PodInfo*> tasks = GetTasksToAllocate(*ssn, *preemptor, false);
    if (!ssn->IsNonPreemptibleJobOverQueueQuota(*preemptor, tasks).schedulable) return {};
    JobSolver solver(
        FeasibleNodesForJob(ssn->cluster().node_list, *preemptor),
        [ssn](const ScenarioInfo& s) { return ssn->PreemptScenarioValid(s); },
        [ssn, preemptor]() {
          // Victims share the preemptor's queue: only its jobs are walked (all of them when the
          // queue is unknown, which the filters then reject anyway).
          const QueueInfo* q = ssn->cluster().QueueOf(*preemptor);
          // Every test is side-effect free: all of them run before the alive check.
          return GetVictimsQueue(
              *ssn, nullptr,
              [ssn, preemptor](const PodGroupInfo& job) {
                if (!job.IsPreemptible()) return false;
                if (job.priority() >= preemptor->priority()) return false;
                if (job.queue() != preemptor->queue()) return false;
                if (job.uid() == preemptor->uid()) return false;
                if (job.NumActiveAllocated() == 0) return false;
                return ssn->PreemptVictimFilter(*preemptor, job);
              },
              q != nullptr ? &ssn->JobsOfQueue(*q) : nullptr);
        },
        std::string(kActionPreempt),
        [ssn](const ScenarioInfo& s) { return ssn->PreemptScenarioRejectedForGood(s); });
    return solver.Solve(ssn, preemptor, budget);
  }
};

}  // namespace

std::unique_ptr<Action> NewPreemptAction() { return std::make_unique<PreemptAction>(); }

}  // namespace kai::scheduler
