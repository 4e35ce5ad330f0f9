// consolidation (KAI actions/consolidation, reference §7.4): move running preemptible pods so
// that a pending preemptible job fits; every victim must be re-placed.
#include <limits>

#include "scheduler/actions/actions.h"
#include "scheduler/actions/common/job_order.h"
#include "scheduler/actions/common/solvers.h"
#include "scheduler/actions/common/victim_search.h"
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
    VictimSearchAction a;
    a.action = kActionConsolidation;
    a.order.filter_non_pending = true;
    a.order.filter_unready = true;
    a.order.filter_non_preemptible = true;
    a.order.max_jobs_queue_depth = ssn->JobsDepth(kActionConsolidation);
    a.attempt = [ssn](PodGroupInfo* job, const JobSearchBudget& budget) {
      return Attempt(ssn, job, budget);
    };
    RunVictimSearch(ssn, a);
  }

 private:
  static JobSolution Attempt(Session* ssn, PodGroupInfo* preemptor, const JobSearchBudget& budget) {
    if (!IsEnoughGpusAllocatableForJob(*ssn, *preemptor, false)) return {};
    int max_preemptees = ssn->params().max_consolidation_preemptees;
    JobSolver solver(
        FeasibleNodesForJob(ssn->cluster().node_list, *preemptor), AllPodsReallocated,
        [ssn, preemptor, max_preemptees]() {
          // KAI counts the jobs its filter admits (preemptible, not the preemptor, alive, with an
          // active-allocated task) and rejects every job once the count exceeds the maximum: at
          // most max + 1 victim jobs, the first ones in the job map's order, so the walk stops
          // there (none for a maximum below -1, no limit for -1).
          const size_t max_admitted = max_preemptees == -1 ? std::numeric_limits<size_t>::max()
                                      : max_preemptees < -1
                                          ? 0
                                          : static_cast<size_t>(max_preemptees) + 1;
          return GetVictimsQueue(
              *ssn, [](const PodGroupInfo& job) { return job.NumActiveAllocated() != 0; },
              [preemptor](const PodGroupInfo& job) {
                return job.IsPreemptible() && job.uid() != preemptor->uid();
              },
              nullptr, max_admitted);
        },
        std::string(kActionConsolidation));
    return solver.Solve(ssn, preemptor, budget);
  }
};

}  // namespace

std::unique_ptr<Action> NewConsolidationAction() { return std::make_unique<ConsolidationAction>(); }

}  // namespace kai::scheduler
