// The loop the evicting actions share (consolidation, reclaim, preempt; KAI's Execute of each):
// pending jobs in fairness order, the job-level pre-check, the scheduling-signature skip, one
// victim search per job within the action's search budget, commit or discard.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "scheduler/actions/common/job_order.h"
#include "scheduler/actions/common/search_budget.h"
#include "scheduler/actions/common/solvers.h"
#include "scheduler/framework/session.h"

namespace kai::scheduler {

struct VictimSearchAction {
  std::string_view action;
  JobsOrderOptions order;
  // Run before the signature skip (reclaim: CanReclaimResources); empty: every job.
  std::function<bool(const PodGroupInfo&)> can_attempt;
  // Failed signatures are remembered per scope (reclaim, preempt: the job's queue; consolidation:
  // one scope); empty: one scope.
  std::function<std::string(const PodGroupInfo&)> signature_scope;
  // One job's victim search; the loop commits a solved statement and discards any other.
  std::function<JobSolution(PodGroupInfo*, const JobSearchBudget&)> attempt;
};

// A search a budget stopped proves nothing, so it does not become the failed representative of
// its signature, nor starts a failed-search backoff. Once the action's budget is spent no further
// job is tried this cycle. With a failed-search backoff configured for the action (and kept by
// the session), a job still in its backoff is not searched; a failed search starts or extends
// the backoff, a committed solution ends it.
void RunVictimSearch(Session* ssn, const VictimSearchAction& a);

}  // namespace kai::scheduler
