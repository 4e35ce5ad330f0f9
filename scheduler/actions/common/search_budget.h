// Time budgets of the victim searches (KAI's scenarioSearchBudgets, SchedulingShard spec since
// v0.15): an action stops trying new jobs once its budget is spent, and one job's search stops
// once its own budget is spent, so that one cycle over thousands of pending jobs that fit nowhere
// ends in bounded time. Read on the session's monotonic clock.
#pragma once

#include <optional>
#include <string_view>

#include "kube/base/clock.h"
#include "scheduler/conf/search_budgets.h"

namespace kai::scheduler {

// One job's search: Exhausted() once its deadline passed (never when unlimited).
class JobSearchBudget {
 public:
  JobSearchBudget(const Clock* clock, std::optional<MonoTime> deadline)
      : clock_(clock), deadline_(deadline) {}
  static JobSearchBudget Unlimited() { return {nullptr, std::nullopt}; }

  bool Exhausted() const { return deadline_ && clock_->NowMonotonic() >= *deadline_; }

 private:
  const Clock* clock_;
  std::optional<MonoTime> deadline_;
};

// One action's search, started when the action starts.
class ActionSearchBudget {
 public:
  ActionSearchBudget(const Clock* clock, const SearchBudgets& budgets, std::string_view action);

  bool Exhausted() const { return deadline_ && clock_->NowMonotonic() >= *deadline_; }
  // The next job's budget: what is left of the action's, capped by the job and generator limits,
  // but never less than the minimum job search.
  JobSearchBudget BeginJob() const;

 private:
  const Clock* clock_;
  std::optional<MonoTime> deadline_;
  Duration job_limit_;  // 0: unlimited
  Duration min_job_;
};

}  // namespace kai::scheduler
