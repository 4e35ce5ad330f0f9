// What the cluster does with a cycle's decisions before the next cycle (the multi-cycle
// semantics of ../shared/scenarios/FORMAT.md): bound pods run, pipelined pods wait pending,
// evicted pods come back pending, and the PodGroup annotations the scheduler writes persist.
// Shared by `simulate --cycles` and the benchmark's converging cycles.
#ifndef KAI_SCHEDULER_APP_CLUSTER_RESPONSE_H_
#define KAI_SCHEDULER_APP_CLUSTER_RESPONSE_H_

#include <map>
#include <string>
#include <vector>

#include "kube/base/time.h"
#include "scheduler/api/cluster_info.h"
#include "scheduler/cache/cluster_model.h"
#include "scheduler/framework/interfaces.h"

namespace kai::scheduler {

// Records a cycle's decisions; the last decision for a pod wins (a victim evicted and pipelined
// elsewhere in the same statement reports Pipelined, as KAI's tests expect).
class DecisionRecorder : public DecisionSink {
 public:
  struct Decision {
    std::string kind;  // Bound, Pipelined, Evicted
    std::string node;
    std::vector<std::string> groups;
    std::string received_type;
    std::string portion;
    bool evicted = false;  // evicted this cycle, whatever came after (a moved victim)
  };
  Status Bind(const BindDecision& d) override;
  Status Evict(const EvictDecision& d) override;
  void Pipelined(const PipelineDecision& d) override;
  const std::map<std::string, Decision>& decisions() const { return decisions_; }

 private:
  void Set(const std::string& key, Decision d);

  std::map<std::string, Decision> decisions_;  // by pod key
};

// Applies the decisions recorded over `cluster` (the closed session's cluster) to `model`, as
// the cluster would have by the next cycle: Bound -> Running on its node with its GPU group
// labels; Evicted, or Releasing when the cycle began -> re-created Pending by its owner (or left
// Releasing when the pod has finalizers); Pipelined -> Pending. The jobs' last-start and
// staleness timestamps are written to their PodGroups' annotations.
void ApplyDecisionsToModel(const ClusterInfo& cluster, const DecisionRecorder& decisions,
                           WallTime now, ClusterModel* model);

}  // namespace kai::scheduler

#endif  // KAI_SCHEDULER_APP_CLUSTER_RESPONSE_H_
