// allocate (KAI actions/allocate, reference §7.3): place pending jobs in fairness order; a gang
// that can only partly start is pipelined as a whole.
#include <glog/logging.h>

#include "scheduler/actions/actions.h"
#include "scheduler/actions/common/allocation.h"
#include "scheduler/actions/common/job_order.h"
#include "scheduler/actions/common/victims.h"
#include "scheduler/framework/statement.h"

namespace kai::scheduler {

namespace {

class AllocateAction : public Action {
 public:
  std::string_view Name() const override { return kActionAllocate; }

  void Execute(Session* ssn) override {
    JobsOrderOptions opts;
    opts.filter_non_pending = true;
    opts.filter_unready = true;
    opts.max_jobs_queue_depth = ssn->JobsDepth(kActionAllocate);
    JobsOrderByQueues queue(ssn, opts);
    queue.InitializeWithJobs(JobsThatMayBePending(*ssn));
    while (!queue.empty()) {
      PodGroupInfo* job = queue.PopNextJob();
      if (job == nullptr) break;
      std::unique_ptr<Statement> stmt = ssn->NewStatement();
      bool already_allocated = job->NumAllocated() > 0;
      bool pipelined = false;
      if (Attempt(ssn, stmt.get(), job, &pipelined)) {
        Status s = stmt->Commit();
        ssn->CountPodGroup(kActionAllocate, s.ok());
        if (s.ok() && !pipelined && !already_allocated) job->last_start_timestamp = ssn->now();
        if (s.ok() && HasTasksToAllocate(*job, true)) queue.PushJob(job);
      } else {
        ssn->CountPodGroup(kActionAllocate, false);
        stmt->Discard();
      }
    }
  }

 private:
  static bool Attempt(Session* ssn, Statement* stmt, PodGroupInfo* job, bool* pipelined) {
    if (!AllocateJob(ssn, stmt, ssn->cluster().node_list, job, /*pipeline_only=*/false)) {
      return false;
    }
    *pipelined = false;
    if (job->ShouldPipelineJob()) {
      Status s = stmt->ConvertAllAllocatedToPipelined(job->uid());
      if (!s.ok()) {
        LOG(ERROR) << "failed to convert allocated tasks of " << job->uid()
                   << " to pipelined: " << s;
        return false;
      }
      *pipelined = true;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Action> NewAllocateAction() { return std::make_unique<AllocateAction>(); }

void RegisterDefaultActions(ActionRegistry* registry) {
  registry->Register(std::string(kActionAllocate), NewAllocateAction);
  registry->Register(std::string(kActionConsolidation), NewConsolidationAction);
  registry->Register(std::string(kActionReclaim), NewReclaimAction);
  registry->Register(std::string(kActionPreempt), NewPreemptAction);
  registry->Register(std::string(kActionStaleGangEviction), NewStaleGangEvictionAction);
}

Status CheckActionName(std::string_view name) {
  for (std::string_view known : {kActionAllocate, kActionConsolidation, kActionReclaim,
                                 kActionPreempt, kActionStaleGangEviction}) {
    if (name == known) return Status::OK();
  }
  return InvalidArgumentError("unknown action \"" + std::string(name) +
                              "\" (known: allocate, consolidation, reclaim, preempt, "
                              "stalegangeviction)");
}

}  // namespace kai::scheduler
