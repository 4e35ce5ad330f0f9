// reclaim (KAI actions/reclaim, reference §7.5): a job below its fair share takes resources
// back from preemptible jobs of other queues, within the proportion plugin's reclaim rules.
#include <map>
#include <vector>

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
    CandidatesByQueue candidates;
    a.attempt = [ssn, &candidates](PodGroupInfo* job, const JobSearchBudget& budget) {
      return Attempt(ssn, job, budget, &candidates);
    };
    RunVictimSearch(ssn, a);
  }

 private:
  // The victim candidates of a reclaimer's queue: the preemptible jobs of other queues its victim
  // filters admit, in the job map's order. Neither test reads anything a search or a commit
  // changes (a reclaim victim filter reads only the reclaimer's queue and facts of the victim
  // fixed for the session: Session::AddReclaimVictimFilterFn), so they are kept per queue for the
  // action instead of walking every job of the cluster for each job searched; the statuses are
  // checked when the victims queue is built.
  struct Candidates {
    size_t num_jobs = 0;  // the job map's size they were listed for
    std::vector<PodGroupInfo*> jobs;
  };
  using CandidatesByQueue = std::map<const QueueInfo*, Candidates>;

  static const std::vector<PodGroupInfo*>& CandidatesOf(Session* ssn, const PodGroupInfo& reclaimer,
                                                        CandidatesByQueue* cache) {
    // Jobs of other queues: a job whose queue is unknown cannot share the reclaimer's (which is
    // known: CanReclaimResources needs it), so comparing queues by pointer equals comparing their
    // names.
    const QueueInfo* own = ssn->cluster().QueueOf(reclaimer);
    auto list = [&] {
      std::vector<PodGroupInfo*> jobs;
      for (const Session::JobAndQueue& jq : ssn->JobsAndQueues()) {
        if (own != nullptr ? jq.queue == own : jq.job->queue() == reclaimer.queue()) continue;
        if (!jq.job->IsPreemptible()) continue;
        if (!ssn->ReclaimVictimFilter(reclaimer, *jq.job)) continue;
        jobs.push_back(jq.job);
      }
      return jobs;
    };
    // (An unknown queue's list depends on the reclaimer's queue name: listed again every time.)
    Candidates& c = (*cache)[own];
    if (own == nullptr || c.num_jobs != ssn->cluster().jobs.size()) {
      c.jobs = list();
      c.num_jobs = ssn->cluster().jobs.size();
    }
    DCHECK(c.jobs == list()) << "reclaim candidates of queue " << own->name() << " changed";
    return c.jobs;
  }

  static JobSolution Attempt(Session* ssn, PodGroupInfo* reclaimer, const JobSearchBudget& budget,
                             CandidatesByQueue* candidates) {
    ssn->OnJobSolutionStart();
    JobSolver solver(
        FeasibleNodesForJob(ssn->cluster().node_list, *reclaimer),
        [ssn](const ScenarioInfo& s) { return ssn->ReclaimScenarioValid(s); },
        [ssn, reclaimer, candidates]() {
          JobsOrderOptions opts;
          opts.filter_non_preemptible = true;
          opts.filter_non_active_allocated = true;
          opts.victim_queue = true;
          auto queue = std::make_unique<JobsOrderByQueues>(ssn, opts);
          queue->InitializeWithJobs(CandidatesOf(ssn, *reclaimer, candidates));
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
