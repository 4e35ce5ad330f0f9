#include "scheduler/app/snapshot_references.h"

#include <set>
#include <string>
#include <vector>

#include "api/well_known.h"
#include "kube/base/strings.h"

namespace kai::scheduler {

namespace {

std::string Key(const api::ObjectMeta& m) { return m.namespace_ + "/" + m.name; }

}  // namespace

std::vector<std::string> CheckSnapshotReferences(const LoadedObjects& objects,
                                                 const SchedulerParams& params,
                                                 bool include_model_warnings) {
  std::vector<std::string> problems;
  std::set<std::string> queues, podgroups;
  for (const auto& q : objects.queues) queues.insert(q->metadata.name);
  for (const auto& pg : objects.podgroups) podgroups.insert(Key(pg->metadata));

  for (const auto& q : objects.queues) {
    const std::string& parent = q->spec.parent_queue;
    if (!parent.empty() && queues.count(parent) == 0) {
      problems.push_back("Queue " + q->metadata.name + ": spec.parentQueue: Queue \"" + parent +
                         "\" does not exist in the snapshot; it is dropped with its subtree");
    }
  }
  for (const auto& pg : objects.podgroups) {
    const std::string& queue = pg->spec.queue;
    if (queue.empty()) {
      problems.push_back("PodGroup " + Key(pg->metadata) +
                         ": spec.queue: required; the job stays pending");
      continue;
    }
    if (queues.count(queue) == 0) {
      problems.push_back(
          "PodGroup " + Key(pg->metadata) + ": spec.queue: Queue \"" + queue +
          "\" does not exist in the snapshot; the job stays pending (QueueDoesNotExist)");
    }
  }
  const std::string pg_annotation(api::kPodGroupNameAnnotation);
  for (const auto& lp : objects.pods) {
    const api::Pod& pod = *lp.pod;
    if (pod.spec.scheduler_name != params.scheduler_name) continue;  // foreign: only consumes
    const auto& ann = pod.metadata.annotations;
    if (auto it = ann.find(pg_annotation); it != ann.end() && !it->second.empty()) {
      std::string target = pod.metadata.namespace_ + "/" + it->second;
      if (include_model_warnings && podgroups.count(target) == 0) {
        problems.push_back(StrCat("Pod ", Key(pod.metadata), ": metadata.annotations.",
                                  pg_annotation, ": PodGroup \"", target,
                                  "\" does not exist in the snapshot; the pod is not scheduled"));
      }
    }
    const auto& labels = pod.metadata.labels;
    if (auto it = labels.find(params.queue_label_key); it != labels.end() && !it->second.empty()) {
      if (queues.count(it->second) == 0) {
        problems.push_back("Pod " + Key(pod.metadata) + ": metadata.labels." +
                           params.queue_label_key + ": Queue \"" + it->second +
                           "\" does not exist in the snapshot");
      }
    }
  }
  return problems;
}

}  // namespace kai::scheduler
