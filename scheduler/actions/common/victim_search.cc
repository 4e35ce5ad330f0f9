#include "scheduler/actions/common/victim_search.h"

#include <map>

#include "scheduler/actions/common/victims.h"

namespace kai::scheduler {

void RunVictimSearch(Session* ssn, const VictimSearchAction& a) {
  ActionSearchBudget budget(ssn->clock(), ssn->config().search_budgets, a.action);
  JobsOrderByQueues queue(ssn, a.order);
  queue.InitializeWithJobs(a.order.filter_non_pending ? JobsThatMayBePending(*ssn) : AllJobs(*ssn));
  std::map<std::string, MinimalJobRepresentatives> smallest_failed;
  FailedSearchBackoff* backoff = ssn->failed_search_backoff();
  const auto [min_backoff, max_backoff] = ssn->config().search_budgets.BackoffBounds(a.action);
  if (min_backoff == Duration::zero()) backoff = nullptr;
  while (!queue.empty()) {
    PodGroupInfo* job = queue.PopNextJob();
    if (job == nullptr) break;
    if (!IsStillPendingAndReady(*job)) continue;
    if (a.can_attempt && !a.can_attempt(*job)) continue;
    if (backoff && backoff->InBackoff(a.action, job->uid(), ssn->clock()->NowMonotonic())) {
      ssn->CountBackoffSkip(a.action);
      continue;
    }
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
    if (backoff && scheduled) backoff->Clear(a.action, job->uid());
    if (backoff && !scheduled && sol.searched && !sol.budget_exhausted) {
      backoff->RecordFailure(a.action, job->uid(), min_backoff, max_backoff,
                             ssn->clock()->NowMonotonic());
    }
    if (!scheduled && !sol.budget_exhausted) reps.UpdateRepresentative(job);
  }
}

}  // namespace kai::scheduler
