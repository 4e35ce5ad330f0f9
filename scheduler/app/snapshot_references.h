// Reference checks of a `simulate` snapshot: every name one object uses to point at another
// should resolve inside the file. The live scheduler meets dangling references all the time (the
// pod grouper creates PodGroups after their pods; a queue can be deleted under its jobs) and KAI
// turns them into outcomes: a job whose queue is missing stays pending with QueueDoesNotExist, an
// orphan queue is dropped with its subtree, a pod without its PodGroup is not scheduled. simulate
// therefore reports them as warnings naming the object, the field and the missing target, and
// schedules exactly as the live scheduler would; `--strict` makes them errors.
#pragma once

#include <string>
#include <vector>

#include "scheduler/cache/object_loader.h"
#include "scheduler/conf/scheduler_conf.h"

namespace kai::scheduler {

// For the pods this scheduler schedules (spec.schedulerName): their PodGroup (annotation
// pod-group-name) and queue (label kai.scheduler/queue, when set) exist; every PodGroup's
// spec.queue is set and exists; every Queue's spec.parentQueue exists. One message per problem,
// in a deterministic order. Pods naming a missing PodGroup are left out unless
// `include_model_warnings`: the cluster model warns about those itself.
std::vector<std::string> CheckSnapshotReferences(const LoadedObjects& objects,
                                                 const SchedulerParams& params,
                                                 bool include_model_warnings);

}  // namespace kai::scheduler
