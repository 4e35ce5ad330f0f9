// The victim solver shared by consolidation, reclaim and preempt (KAI actions/common/solvers,
// reference §7.6): a job solver that grows the set of pending tasks one at a time, a scenario
// builder that accumulates victims from a victim queue, cheap scenario filters, and a by-pod
// solver that simulates each scenario.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/actions/common/job_order.h"
#include "scheduler/actions/common/search_budget.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"

namespace kai::scheduler {

using SolutionValidator = std::function<bool(const ScenarioInfo&)>;
using VictimsQueueFactory = std::function<std::unique_ptr<JobsOrderByQueues>()>;

struct JobSolution {
  bool solved = false;
  bool searched = false;          // a victim search ran (not stopped by a pre-check)
  bool budget_exhausted = false;  // the search stopped early: its failure proves nothing
  std::unique_ptr<Statement> statement;
  std::vector<std::string> victim_names;
};

class JobSolver {
 public:
  // `rejected_for_good` (may be empty): whether a final rejection holds for a scenario
  // (Session::ReclaimScenarioRejectedForGood). When it does and the preemptor's simulations
  // leave no trace outside their statements (PreemptorLeavesNoTrace), the partial job is given
  // up there: every later scenario only adds victims, so none could be solved.
  JobSolver(NodeSet feasible_nodes, SolutionValidator validator, VictimsQueueFactory victims_queue,
            std::string action, SolutionValidator rejected_for_good = nullptr)
      : feasible_nodes_(std::move(feasible_nodes)),
        validator_(std::move(validator)),
        rejected_for_good_(std::move(rejected_for_good)),
        victims_queue_(std::move(victims_queue)),
        action_(std::move(action)) {}

  // Solved iff after the kept statement the job's gang is satisfied and it has more active
  // tasks than before. The budget is read before each scenario is simulated.
  JobSolution Solve(Session* ssn, PodGroupInfo* pending_job,
                    const JobSearchBudget& budget = JobSearchBudget::Unlimited());

 private:
  NodeSet feasible_nodes_;
  SolutionValidator validator_;
  SolutionValidator rejected_for_good_;
  VictimsQueueFactory victims_queue_;
  std::string action_;
};

}  // namespace kai::scheduler
