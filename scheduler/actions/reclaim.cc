// reclaim (KAI actions/reclaim, reference §7.5): a job below its fair share takes resources
// back from preemptible jobs of other queues, within the proportion plugin's reclaim rules.
#include "scheduler/actions/actions.h"
#include "scheduler/actions/common/job_order.h"
#include "scheduler/actions/common/solvers.h"
#include "scheduler/actions/common/victim_search.h"
#include "scheduler/actions/common/victims.h"

namespace kai::scheduler {

namespace {

class ReclaimAction : public Action {
 public:
  std::string_view Name() const override { return kActionReclaim; }

  void Execute(Session* ssn) override {
    VictimSearchAction a;
    a.action = kActionReclaim;
    a.order.filter_non_pending = true;
    a.order.filter_unready = true;
    a.order.max_jobs_queue_depth = ssn->JobsDepth(kActionReclaim);
    a.can_attempt = [ssn](const PodGroupInfo& job) { return ssn->CanReclaimResources(job); };
    a.signature_scope = [](const PodGroupInfo& job) { return job.queue(); };
    a.attempt = [ssn](PodGroupInfo* job, const JobSearchBudget& budget) {
      return Attempt(ssn, job, budget);
    };
    RunVictimSearch(ssn, a);
  }

 private:
  static JobSolution Attempt(Session* ssn, PodGroupInfo* reclaimer, const JobSearchBudget& budget) {
    ssn->OnJobSolutionStart();
    JobSolver solver(
        FeasibleNodesForJob(ssn->cluster().node_list, *reclaimer),
        [ssn](const ScenarioInfo& s) { return ssn->ReclaimScenarioValid(s); },
        [ssn, reclaimer]() {
          JobsOrderOptions opts;
          opts.filter_non_preemptible = true;
          opts.filter_non_active_allocated = true;
          opts.victim_queue = true;
          auto queue = std::make_unique<JobsOrderByQueues>(ssn, opts);
          // Jobs of other queues: a job whose queue is unknown cannot share the reclaimer's
          // (which is known: CanReclaimResources needs it), so comparing queues by pointer
          // equals comparing their names.
          const QueueInfo* own = ssn->cluster().QueueOf(*reclaimer);
          std::vector<PodGroupInfo*> jobs;
          for (const Session::JobAndQueue& jq : ssn->JobsAndQueues()) {
            if (own != nullptr ? jq.queue == own : jq.job->queue() == reclaimer->queue()) continue;
            if (!ssn->ReclaimVictimFilter(*reclaimer, *jq.job)) continue;
            jobs.push_back(jq.job);
          }
          queue->InitializeWithJobs(jobs);
          return queue;
        },
        std::string(kActionReclaim),
        [ssn](const ScenarioInfo& s) { return ssn->ReclaimScenarioRejectedForGood(s); });
    return solver.Solve(ssn, reclaimer, budget);
  }
};

}  // namespace

std::unique_ptr<Action> NewReclaimAction() { return std::make_unique<ReclaimAction>(); }

}  // namespace kai::scheduler
