// consolidation (KAI actions/consolidation, reference §7.4): move running preemptible pods so
// that a pending preemptible job fits; every victim must be re-placed.
#include "scheduler/actions/actions.h"
#include "scheduler/actions/common/job_order.h"
#include "scheduler/actions/common/solvers.h"
#include "scheduler/actions/common/victims.h"

namespace kai::scheduler {

namespace {

bool AllPodsReallocated(const ScenarioInfo& scenario) {
  for (const auto& [id, victim] : scenario.GetVictims()) {
    for (const PodInfo* t : victim.tasks) {
      if (t->status == PodStatus::kReleasing) return false;
    }
  }
  return true;
}

class ConsolidationAction : public Action {
 public:
  std::string_view Name() const override { return kActionConsolidation; }

  void Execute(Session* ssn) override {
    if (ssn->params().max_consolidation_preemptees == 0) return;
    JobsOrderOptions opts;
    opts.filter_non_pending = true;
    opts.filter_unready = true;
    opts.filter_non_preemptible = true;
    opts.max_jobs_queue_depth = ssn->JobsDepth(kActionConsolidation);
    JobsOrderByQueues queue(ssn, opts);
    queue.InitializeWithJobs(AllJobs(*ssn));
    MinimalJobRepresentatives smallest_failed;
    while (!queue.empty()) {
      PodGroupInfo* job = queue.PopNextJob();
      if (job == nullptr) break;
      if (!IsStillPendingAndReady(*job)) continue;
      if (ssn->params().use_scheduling_signatures &&
          !smallest_failed.IsEasierToSchedule(*job, nullptr)) {
        continue;
      }
      const bool scheduled = Attempt(ssn, job);
      ssn->CountPodGroup(kActionConsolidation, scheduled);
      if (!scheduled) smallest_failed.UpdateRepresentative(job);
    }
  }

 private:
  static bool Attempt(Session* ssn, PodGroupInfo* preemptor) {
    if (!IsEnoughGpusAllocatableForJob(*ssn, *preemptor, false)) return false;
    int max_preemptees = ssn->params().max_consolidation_preemptees;
    JobSolver solver(
        FeasibleNodesForJob(ssn->cluster().node_list, *preemptor), AllPodsReallocated,
        [ssn, preemptor, max_preemptees]() {
          int counter = 0;
          return GetVictimsQueue(
              *ssn, [preemptor, max_preemptees, counter](const PodGroupInfo& job) mutable {
                if (!job.IsPreemptible()) return false;
                if (job.uid() == preemptor->uid()) return false;
                if (max_preemptees != -1 && counter > max_preemptees) return false;
                if (job.NumActiveAllocated() == 0) return false;
                ++counter;
                return true;
              });
        },
        std::string(kActionConsolidation));
    JobSolution sol = solver.Solve(ssn, preemptor);
    if (!sol.solved) {
      if (sol.statement) sol.statement->Discard();
      return false;
    }
    return sol.statement->Commit().ok();
  }
};

}  // namespace

std::unique_ptr<Action> NewConsolidationAction() { return std::make_unique<ConsolidationAction>(); }

}  // namespace kai::scheduler
