#include "scheduler/actions/common/victim_search.h"

#include <map>

#include "scheduler/actions/common/victims.h"

namespace kai::scheduler {

void RunVictimSearch(Session* ssn, const VictimSearchAction& a) {
  ActionSearchBudget budget(ssn->clock(), ssn->config().search_budgets, a.action);
  JobsOrderByQueues queue(ssn, a.order);
  queue.InitializeWithJobs(AllJobs(*ssn));
  std::map<std::string, MinimalJobRepresentatives> smallest_failed;
  while (!queue.empty()) {
    PodGroupInfo* job = queue.PopNextJob();
    if (job == nullptr) break;
    if (!IsStillPendingAndReady(*job)) continue;
    if (a.can_attempt && !a.can_attempt(*job)) continue;
    MinimalJobRepresentatives& reps =
        smallest_failed[a.signature_scope ? a.signature_scope(*job) : std::string()];
    if (ssn->params().use_scheduling_signatures && !reps.IsEasierToSchedule(*job, nullptr)) {
      continue;
    }
    if (budget.Exhausted()) {
      ssn->CountBudgetStop(a.action, /*whole_action=*/true);
      break;
    }
    JobSolution sol = a.attempt(job, budget.BeginJob());
    bool scheduled = false;
    if (sol.solved) {
      scheduled = sol.statement->Commit().ok();
    } else if (sol.statement) {
      sol.statement->Discard();
    }
    ssn->CountPodGroup(a.action, scheduled);
    if (sol.budget_exhausted) ssn->CountBudgetStop(a.action, /*whole_action=*/false);
    if (!scheduled && !sol.budget_exhausted) reps.UpdateRepresentative(job);
  }
}

}  // namespace kai::scheduler
