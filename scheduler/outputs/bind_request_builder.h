// The objects and patches the scheduler writes when it binds or evicts a task, exactly as KAI's
// cache builds them (pkg/scheduler/cache/cache.go, reference §2.3, §6.8, §21.3).
#pragma once

#include <optional>
#include <string>

#include "api/bind_request.h"
#include "api/pod.h"
#include "scheduler/conf/scheduler_conf.h"
#include "scheduler/framework/interfaces.h"

namespace kai::scheduler {

// The BindRequest for a committed allocation: named after the pod in its namespace, owned by the
// pod (so it is garbage-collected with it), labelled selected-node=<node> (unless the name is too
// long for a label value) plus the shard's node-pool label, annotations from
// BindRequestMutateFns, and the GPU allocation.
api::BindRequest BuildBindRequest(const BindDecision& d, const api::Pod& pod,
                                  const SchedulerParams& params);

// Node-pool name used in messages and conditions: the partition value, or "default".
std::string NodePoolName(const SchedulerParams& params);
// KAI utils.GetNodePoolNameFromLabels: the node-pool label's value, or "default".
std::string NodePoolNameFromLabels(const std::map<std::string, std::string>& labels,
                                   const std::string& key);

// Merge patch adding the shard's node-pool label to a pod bound by a partitioned shard; nullopt
// when there is no partition value or the pod already carries it.
std::optional<std::string> NodePoolLabelPatch(const api::Pod& pod, const SchedulerParams& params);

}  // namespace kai::scheduler
