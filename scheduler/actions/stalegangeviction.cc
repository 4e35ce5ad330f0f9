// stalegangeviction (KAI actions/stalegangeviction, reference §7.8): evict the running pods of
// gangs that lost their minimum for longer than the staleness grace period.
#include <glog/logging.h>

#include "scheduler/actions/actions.h"

namespace kai::scheduler {

namespace {

class StaleGangEvictionAction : public Action {
 public:
  std::string_view Name() const override { return kActionStaleGangEviction; }

  void Execute(Session* ssn) override {
    for (auto& [id, job] : ssn->cluster().jobs) {
      if (job->IsStale()) {
        HandleStale(ssn, job.get());
      } else if (job->stale_timestamp) {
        job->stale_timestamp.reset();
        job->stale = false;
      }
    }
  }

 private:
  static void HandleStale(Session* ssn, PodGroupInfo* job) {
    WallTime now = ssn->now();
    if (!job->stale_timestamp) job->stale_timestamp = now;
    Duration grace = ssn->params().default_staleness_grace_period;
    if (grace < Duration::zero()) return;
    if (now - *job->stale_timestamp < grace) return;
    job->stale = true;
    std::vector<PodInfo*> to_evict;
    for (PodInfo* t : job->tasks()) {
      if (IsActiveAllocatedStatus(t->status)) to_evict.push_back(t);
    }
    EvictionMetadata meta;
    meta.action = std::string(kActionStaleGangEviction);
    meta.gang_size = static_cast<int>(to_evict.size());
    for (PodInfo* t : to_evict) {
      std::string reason = "Workload doesn't meet the minimum required number of pods (" +
                           std::to_string(job->DefaultMinAvailable()) +
                           "), evicting remaining pod: " + t->key();
      Status s = ssn->Evict(t, reason, meta);
      if (!s.ok()) LOG(ERROR) << "failed to evict " << t->key() << ": " << s;
    }
  }
};

}  // namespace

std::unique_ptr<Action> NewStaleGangEvictionAction() {
  return std::make_unique<StaleGangEvictionAction>();
}

}  // namespace kai::scheduler
