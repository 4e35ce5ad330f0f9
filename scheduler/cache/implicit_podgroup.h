// The PodGroup a pod without one is scheduled under: a gang of one, as KAI's pod grouper would
// create for it (default grouper with the pod as its top owner, reference §15.3). The scheduler
// makes it up in its snapshot so that a bare pod is scheduled before (or without) a pod grouper;
// nothing is ever written to it. Once the real PodGroup exists and the pod is annotated, the pod
// belongs to that one instead.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/pod.h"
#include "api/podgroup.h"

namespace kai::scheduler {

struct ImplicitPodGroup {
  // `pg-<pod name>-<pod uid>` in the pod's namespace, minMember 1, the pod's labels, created
  // when the pod was; spec.queue and spec.preemptibility set; spec.priorityClassName left empty
  // (the snapshot resolves `priority_class_candidates` against the existing PriorityClasses).
  std::shared_ptr<const api::PodGroup> podgroup;
  // In the pod grouper's precedence: the pod's `priorityClassName` label, its
  // spec.priorityClassName, then the grouper's default class `train`. The first that names an
  // existing PriorityClass wins; none: the scheduler's default priority.
  std::vector<std::string> priority_class_candidates;
};

// The queue is the pod's `queue_label_key` label, else `<project>` (or `<project>-<node pool>`
// when the pod carries `node_pool_label_key`) from its `project` label, else `default-queue`.
ImplicitPodGroup MakeImplicitPodGroup(const api::Pod& pod, const std::string& queue_label_key,
                                      const std::string& node_pool_label_key);

// KAI's pod grouper names a bare pod's PodGroup `pg-<pod name>-<pod uid>` (`pg-<pod name>` for
// a pod without a uid, as snapshot files may have).
std::string ImplicitPodGroupName(const api::Pod& pod);

inline constexpr char kImplicitDefaultQueue[] = "default-queue";
inline constexpr char kImplicitDefaultPriorityClass[] = "train";

}  // namespace kai::scheduler
