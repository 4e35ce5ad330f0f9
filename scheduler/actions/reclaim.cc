// reclaim (KAI actions/reclaim, reference §7.5): a job below its fair share takes resources
// back from preemptible jobs of other queues, within the proportion plugin's reclaim rules.
#include "scheduler/actions/actions.h"
#include "scheduler/actions/common/job_order.h"
#include "scheduler/actions/common/solvers.h"
#include "scheduler/actions/common/victims.h"

namespace kai::scheduler {

namespace {

class ReclaimAction : public Action {
 public:
  std::string_view Name() const override { return kActionReclaim; }

  void Execute(Session* ssn) override {
    JobsOrderOptions opts;
    opts.filter_non_pending = true;
    opts.filter_unready = true;
    opts.max_jobs_queue_depth = ssn->JobsDepth(kActionReclaim);
    JobsOrderByQueues queue(ssn, opts);
    queue.InitializeWithJobs(AllJobs(*ssn));
    std::map<std::string, MinimalJobRepresentatives> smallest_failed;
    while (!queue.empty()) {
      PodGroupInfo* job = queue.PopNextJob();
      if (job == nullptr) break;
      if (!IsStillPendingAndReady(*job)) continue;
      if (!ssn->CanReclaimResources(*job)) continue;
      MinimalJobRepresentatives& reps = smallest_failed[job->queue()];
      if (ssn->params().use_scheduling_signatures && !reps.IsEasierToSchedule(*job, nullptr)) {
        continue;
      }
      const bool scheduled = Attempt(ssn, job);
      ssn->CountPodGroup(kActionReclaim, scheduled);
      if (!scheduled) reps.UpdateRepresentative(job);
    }
  }

 private:
  static bool Attempt(Session* ssn, PodGroupInfo* reclaimer) {
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
          std::vector<PodGroupInfo*> jobs;
          for (PodGroupInfo* job : AllJobs(*ssn)) {
            if (job->queue() == reclaimer->queue()) continue;
            if (!ssn->ReclaimVictimFilter(*reclaimer, *job)) continue;
            jobs.push_back(job);
          }
          queue->InitializeWithJobs(jobs);
          return queue;
        },
        std::string(kActionReclaim));
    JobSolution sol = solver.Solve(ssn, reclaimer);
    if (!sol.solved) {
      if (sol.statement) sol.statement->Discard();
      return false;
    }
    return sol.statement->Commit().ok();
  }
};

}  // namespace

std::unique_ptr<Action> NewReclaimAction() { return std::make_unique<ReclaimAction>(); }

}  // namespace kai::scheduler
