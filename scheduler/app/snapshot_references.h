// Reference checks of a `simulate` snapshot: every name one object uses to point at another must
// resolve inside the file. A live cluster tolerates dangling references for a while (the pod
// grouper creates PodGroups after their pods); a snapshot file with one is a mistake, so simulate
// stops with a message naming the object, the field and the missing target.
#pragma once

#include "kube/base/status.h"
#include "scheduler/cache/object_loader.h"
#include "scheduler/conf/scheduler_conf.h"

namespace kai::scheduler {

// Checks, for the pods this scheduler schedules (spec.schedulerName), that their PodGroup
// (annotation pod-group-name) and queue (label kai.scheduler/queue, when set) exist; that every
// PodGroup's spec.queue exists; and that every Queue's spec.parentQueue exists.
Status CheckSnapshotReferences(const LoadedObjects& objects, const SchedulerParams& params);

}  // namespace kai::scheduler
