#include "scheduler/cache/implicit_podgroup.h"

#include <utility>

#include "api/well_known.h"

namespace kai::scheduler {

namespace {

const std::string* Label(const api::ObjectMeta& m, std::string_view key) {
  auto it = m.labels.find(std::string(key));
  return it == m.labels.end() || it->second.empty() ? nullptr : &it->second;
}

}  // namespace

std::string ImplicitPodGroupName(const api::Pod& pod) {
  // Snapshot files may leave uids out.
  if (pod.metadata.uid.empty()) return "pg-" + pod.metadata.name;
  return "pg-" + pod.metadata.name + "-" + pod.metadata.uid;
}

ImplicitPodGroup MakeImplicitPodGroup(const api::Pod& pod, const std::string& queue_label_key,
                                      const std::string& node_pool_label_key) {
  const api::ObjectMeta& m = pod.metadata;
  auto pg = std::make_shared<api::PodGroup>();
  pg->metadata.name = ImplicitPodGroupName(pod);
  pg->metadata.namespace_ = m.namespace_;
  pg->metadata.labels = m.labels;
  pg->metadata.creation_timestamp = m.creation_timestamp;
  pg->spec.min_member = 1;
  if (const std::string* q = Label(m, queue_label_key)) {
    pg->spec.queue = *q;
  } else if (const std::string* project = Label(m, api::kProjectLabel)) {
    const std::string* pool = Label(m, node_pool_label_key);
    pg->spec.queue = pool ? *project + "-" + *pool : *project;
  } else {
    pg->spec.queue = kImplicitDefaultQueue;
  }
  if (const std::string* p = Label(m, api::kPreemptibilityLabel)) pg->spec.preemptibility = *p;

  ImplicitPodGroup out;
  if (const std::string* pc = Label(m, api::kPriorityClassLabel)) {
    out.priority_class_candidates.push_back(*pc);
  }
  if (!pod.spec.priority_class_name.empty()) {
    out.priority_class_candidates.push_back(pod.spec.priority_class_name);
  }
  out.priority_class_candidates.push_back(kImplicitDefaultPriorityClass);
  out.podgroup = std::move(pg);
  return out;
}

}  // namespace kai::scheduler
