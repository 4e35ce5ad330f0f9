#include "scheduler/app/cluster_response.h"

#include <memory>
#include <utility>

#include "api/well_known.h"

namespace kai::scheduler {

Status DecisionRecorder::Bind(const BindDecision& d) {
  Set(d.pod_key, Decision{"Bound", d.node, d.gpu_groups, d.received_resource_type, d.gpu_portion});
  return Status::OK();
}

Status DecisionRecorder::Evict(const EvictDecision& d) {
  Set(d.pod_key, Decision{"Evicted", "", {}, "", "", true});
  return Status::OK();
}

void DecisionRecorder::Pipelined(const PipelineDecision& d) {
  Set(d.pod_key, Decision{"Pipelined", d.node, {}, "", ""});
}

void DecisionRecorder::Set(const std::string& key, Decision d) {
  auto it = decisions_.find(key);
  if (it != decisions_.end() && it->second.evicted) d.evicted = true;
  decisions_[key] = std::move(d);
}

void ApplyDecisionsToModel(const ClusterInfo& cluster, const DecisionRecorder& decisions,
                           WallTime now, ClusterModel* model) {
  for (const auto& t : cluster.tasks) {
    auto d = decisions.decisions().find(t->key());
    bool evicted = d != decisions.decisions().end() && d->second.evicted;
    bool bound = d != decisions.decisions().end() && d->second.kind == "Bound";
    bool was_releasing = t->status == PodStatus::kReleasing;
    if (!bound && !evicted && !was_releasing) continue;
    auto pod = std::make_shared<api::Pod>(t->pod());
    if (bound) {
      pod->spec.node_name = d->second.node;
      pod->status.phase = "Running";
      const auto& groups = d->second.groups;
      if (groups.size() == 1) {
        pod->metadata.labels[std::string(api::kGpuGroupLabel)] = groups[0];
      } else {
        for (const auto& g : groups) {
          pod->metadata.labels[std::string(api::kMultiGpuGroupLabelPrefix) + g] = g;
        }
      }
      if (!d->second.received_type.empty()) {
        pod->metadata.annotations[std::string(api::kReceivedResourceTypeAnnotation)] =
            d->second.received_type;
      }
    } else if (!pod->metadata.finalizers.empty()) {
      // Deletion does not finish: the pod stays Releasing on its node.
      if (!pod->metadata.deletion_timestamp) pod->metadata.deletion_timestamp = now;
    } else {
      // The deletion finishes and the owning controller re-creates the pod.
      pod->spec.node_name.clear();
      pod->status.phase = "Pending";
      pod->metadata.deletion_timestamp.reset();
    }
    model->ReplacePodObject(std::move(pod));
  }
  // What the scheduler writes on PodGroups (start and staleness timestamps) persists.
  const std::string last_start(api::kLastStartTimestampAnnotation);
  const std::string stale(api::kStalePodGroupTimestampAnnotation);
  for (const auto& [id, job] : cluster.jobs) {
    std::map<std::string, std::string> ann = job->podgroup().metadata.annotations;
    if (job->last_start_timestamp) ann[last_start] = FormatRfc3339(*job->last_start_timestamp);
    if (job->stale_timestamp) {
      ann[stale] = FormatRfc3339(*job->stale_timestamp);
    } else {
      ann.erase(stale);
    }
    // As the live scheduler patches only what changed, so the model rebuilds only those jobs.
    if (ann == job->podgroup().metadata.annotations) continue;
    auto pg = std::make_shared<api::PodGroup>(job->podgroup());
    pg->metadata.annotations = std::move(ann);
    model->UpsertPodGroup(pg);
  }
}

}  // namespace kai::scheduler
