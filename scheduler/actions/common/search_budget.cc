#include "scheduler/actions/common/search_budget.h"

namespace kai::scheduler {

ActionSearchBudget::ActionSearchBudget(const Clock* clock, const SearchBudgets& budgets,
                                       std::string_view action)
    : clock_(clock), job_limit_(budgets.JobLimit()), min_job_(budgets.min_job) {
  const Duration limit = budgets.ActionLimit(action);
  if (limit > Duration::zero()) deadline_ = clock_->NowMonotonic() + limit;
}

JobSearchBudget ActionSearchBudget::BeginJob() const {
  const MonoTime now = clock_->NowMonotonic();
  std::optional<MonoTime> deadline = deadline_;
  if (job_limit_ > Duration::zero() && (!deadline || now + job_limit_ < *deadline)) {
    deadline = now + job_limit_;
  }
  if (deadline && *deadline < now + min_job_) deadline = now + min_job_;
  return JobSearchBudget(clock_, deadline);
}

}  // namespace kai::scheduler
