// podaffinity (inter-pod affinity scoring), dynamicresources and snapshot.
#include <algorithm>
#include <map>
#include <memory>
#include <span>

#include "scheduler/k8s_internal/inter_pod_affinity.h"
#include "scheduler/k8s_internal/pod_affinity_index.h"
#include "scheduler/plugins/plugins.h"

namespace kai::scheduler {

namespace k8s = ::kai::k8s_internal;

namespace {

// podaffinity: kube-scheduler's InterPodAffinity score per node x 100000 (not normalized, as
// KAI does), skipped when PreScore finds nothing to score.
class PodAffinityPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "podaffinity"; }
  void OnSessionOpen(Session* ssn) override {
    ssn_ = ssn;
    const ClusterInfo& c = ssn->cluster();
    bool any = false;
    for (const auto& t : c.tasks) {
      const auto& a = t->pod().spec.affinity;
      if (a && (a->pod_affinity || a->pod_anti_affinity)) any = true;
    }
    if (!any) return;
    index_ = std::make_unique<k8s::PodAffinityIndex>();
    for (size_t i = 0; i < c.node_list.size(); ++i) {
      ids_[c.node_list[i]->name()] = static_cast<int>(i);
      index_->SetNode(static_cast<int>(i), c.node_list[i]->node());
    }
    for (const auto& t : c.tasks) Sync(*t);
    EventHandler h;
    h.allocate = [this](const PodInfo& t) { Sync(t); };
    h.deallocate = [this](const PodInfo& t) { Sync(t); };
    ssn->AddEventHandler(std::move(h));
    ssn->AddNodePreOrderFn([this](const PodInfo& task, const NodeSet&) {
      scorer_ = std::make_unique<k8s::InterPodAffinityScorer>(
          k8s::InterPodAffinityScorer::PreScore(task.pod(), *index_));
      scored_task_ = task.uid();
    });
    ssn->AddNodeOrderBatchFn([this](const PodInfo& task, std::span<const NodeInfo* const> nodes,
                                    std::span<double> out, std::span<uint8_t> failed) {
      if (!scorer_ || scored_task_ != task.uid() || scorer_->status().IsSkip()) return;
      if (!scorer_->status().IsSuccess()) {
        std::fill(failed.begin(), failed.end(), 1);
        return;
      }
      for (size_t i = 0; i < nodes.size(); ++i) {
        auto it = ids_.find(nodes[i]->name());
        if (it == ids_.end()) continue;
        out[i] += static_cast<double>(scorer_->Score(it->second)) * scores::kK8sPlugins;
      }
    });
  }

 private:
  void Sync(const PodInfo& t) {
    const api::Pod* pod = t.pod_ptr().get();
    auto it = ids_.find(t.node_name);
    bool want = it != ids_.end() && IsActiveUsedStatus(t.status) &&
                !(t.status == PodStatus::kReleasing && t.is_virtual_status);
    bool has = index_->Contains(pod);
    if (has && (!want || placed_[pod] != t.node_name)) {
      index_->RemovePod(pod);
      placed_.erase(pod);
      has = false;
    }
    if (want && !has) {
      index_->AddPod(pod, it->second);
      placed_[pod] = t.node_name;
    }
  }

  Session* ssn_ = nullptr;
  std::unique_ptr<k8s::PodAffinityIndex> index_;
  std::map<std::string, int> ids_;
  std::map<const api::Pod*, std::string> placed_;
  std::unique_ptr<k8s::InterPodAffinityScorer> scorer_;
  std::string scored_task_;
};

// dynamicresources: DRA is not supported by this scheduler yet (feature gate off), so pods that
// reference ResourceClaims cannot be scheduled, with KAI's message for that case.
class DynamicResourcesPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "dynamicresources"; }
  void OnSessionOpen(Session* ssn) override {
    ssn->AddPrePredicateFn(
        [](const PodInfo& task, const PodGroupInfo&) -> std::optional<std::string> {
          const auto& claims = task.pod().spec.resource_claims;
          if (claims.empty()) return std::nullopt;
          std::string names;
          for (const auto& c : claims) names += (names.empty() ? "" : ", ") + c.name;
          return "pod " + task.key() + " cannot be scheduled, it references resource claims <" +
                 names + "> while dynamic resource allocation feature is not enabled in cluster";
        });
  }
};

// snapshot: upstream serves /get-snapshot from the plugin server; it has no scheduling hooks.
// The HTTP endpoint comes with the live mode (issue 6); `kai-scheduler simulate` reads the same
// kind of snapshot from a file.
class SnapshotPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "snapshot"; }
  void OnSessionOpen(Session*) override {}
};

}  // namespace

std::unique_ptr<Plugin> NewPodAffinityPlugin(const PluginArguments&) {
  return std::make_unique<PodAffinityPlugin>();
}
std::unique_ptr<Plugin> NewDynamicResourcesPlugin(const PluginArguments&) {
  return std::make_unique<DynamicResourcesPlugin>();
}
std::unique_ptr<Plugin> NewSnapshotPlugin(const PluginArguments&) {
  return std::make_unique<SnapshotPlugin>();
}

}  // namespace kai::scheduler
