// minruntime (KAI plugins/minruntime, reference §8.3): jobs that started less than their
// minimum runtime ago are protected from preempt / reclaim. Non-elastic protected jobs are not
// victims at all; protected elastic jobs may only lose pods above their minimum.
#include <glog/logging.h>

#include <map>

#include "kube/base/time.h"
#include "scheduler/plugins/plugins.h"

namespace kai::scheduler {

namespace {

Duration ParseMinRuntime(const PluginArguments& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end() || it->second.empty()) return Duration::zero();
  auto d = ParseGoDuration(it->second);
  if (!d.ok()) {
    LOG(ERROR) << "minruntime: failed to parse " << key << " (" << it->second << "): " << d.status()
               << ", using 0s";
    return Duration::zero();
  }
  if (*d < Duration::zero()) {
    LOG(ERROR) << "minruntime: " << key << " (" << it->second << ") is negative, using 0s";
    return Duration::zero();
  }
  return *d;
}

class MinRuntimePlugin : public Plugin {
 public:
  explicit MinRuntimePlugin(const PluginArguments& args)
      : default_reclaim_(ParseMinRuntime(args, "defaultReclaimMinRuntime")),
        default_preempt_(ParseMinRuntime(args, "defaultPreemptMinRuntime")) {
    auto it = args.find("reclaimResolveMethod");
    if (it != args.end() && it->second == "queue") use_lca_ = false;
    if (it != args.end() && it->second != "queue" && it->second != "lca" && !it->second.empty()) {
      LOG(ERROR) << "minruntime: invalid reclaimResolveMethod " << it->second << ", using lca";
    }
  }
  std::string_view Name() const override { return "minruntime"; }

  void OnSessionOpen(Session* ssn) override {
    ssn_ = ssn;
    ssn->AddReclaimVictimFilterFn([this](const PodGroupInfo& pending, const PodGroupInfo& victim) {
      return victim.IsElastic() || !Protected(pending, victim, /*reclaim=*/true);
    });
    ssn->AddPreemptVictimFilterFn([this](const PodGroupInfo& pending, const PodGroupInfo& victim) {
      return victim.IsElastic() || !Protected(pending, victim, /*reclaim=*/false);
    });
    ssn->AddReclaimScenarioValidatorFn(
        [this](const ScenarioInfo& s) { return ValidScenario(s, /*reclaim=*/true); });
    ssn->AddPreemptScenarioValidatorFn(
        [this](const ScenarioInfo& s) { return ValidScenario(s, /*reclaim=*/false); });
  }

 private:
  // A protected elastic victim may not go below the minimum of any of its PodSets.
  bool ValidScenario(const ScenarioInfo& s, bool reclaim) {
    for (const auto& [id, victim] : s.GetVictims()) {
      const PodGroupInfo& job = *victim.representative;
      if (!job.IsElastic()) continue;
      if (!Protected(s.GetPreemptor(), job, reclaim)) continue;
      for (const auto& [name, ps] : job.pod_sets()) {
        int running = ps->NumActiveUsed();
        int taken = 0;
        for (const PodInfo* t : victim.tasks) {
          if (ps == job.PodSetOf(*t)) ++taken;
        }
        if (ps->min_available() > running - taken) return false;
      }
    }
    return true;
  }

  bool Protected(const PodGroupInfo& pending, const PodGroupInfo& victim, bool reclaim) {
    std::string key = (reclaim ? pending.uid() : std::string()) + "|" + victim.uid();
    auto& cache = reclaim ? reclaim_cache_ : preempt_cache_;
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    if (!victim.last_start_timestamp) return false;
    Duration min = reclaim ? ReclaimMinRuntime(pending, victim) : PreemptMinRuntime(victim);
    bool prot = ssn_->now() < *victim.last_start_timestamp + min;
    cache[key] = prot;
    return prot;
  }

  // First queue from `queue` up to the root with the value set, else the default.
  Duration WalkUp(const QueueInfo* queue, bool reclaim, Duration def) const {
    const ClusterInfo& c = ssn_->cluster();
    for (const QueueInfo* q = queue; q != nullptr; q = c.FindQueue(q->parent())) {
      auto v = reclaim ? q->reclaim_min_runtime() : q->preempt_min_runtime();
      if (v) return *v;
      if (q->parent().empty()) break;
    }
    return def;
  }

  Duration PreemptMinRuntime(const PodGroupInfo& victim) const {
    return WalkUp(ssn_->cluster().FindQueue(victim.queue()), false, default_preempt_);
  }

  std::vector<const QueueInfo*> PathFromRoot(const QueueInfo* q) const {
    std::vector<const QueueInfo*> path;
    const ClusterInfo& c = ssn_->cluster();
    while (q != nullptr) {
      path.insert(path.begin(), q);
      if (q->parent().empty()) break;
      q = c.FindQueue(q->parent());
    }
    return path;
  }

  Duration ReclaimMinRuntime(const PodGroupInfo& pending, const PodGroupInfo& victim) const {
    const ClusterInfo& c = ssn_->cluster();
    const QueueInfo* victim_q = c.FindQueue(victim.queue());
    if (!use_lca_) return WalkUp(victim_q, true, default_reclaim_);
    std::vector<const QueueInfo*> vp = PathFromRoot(victim_q);
    std::vector<const QueueInfo*> pp = PathFromRoot(c.FindQueue(pending.queue()));
    if (vp.empty()) return default_reclaim_;
    if (pp.empty() || pp.front() != vp.front()) {
      // Different top-level queues: the victim's top-level queue decides.
      auto v = vp.front()->reclaim_min_runtime();
      return v ? *v : default_reclaim_;
    }
    // Lowest common ancestor, then one level down toward the victim, walking up from there.
    size_t lca = 0;
    while (lca + 1 < vp.size() && lca + 1 < pp.size() && vp[lca + 1] == pp[lca + 1]) ++lca;
    size_t start = lca + 1 < vp.size() ? lca + 1 : lca;
    return WalkUp(vp[start], true, default_reclaim_);
  }

  Duration default_reclaim_;
  Duration default_preempt_;
  bool use_lca_ = true;
  Session* ssn_ = nullptr;
  std::map<std::string, bool> reclaim_cache_;
  std::map<std::string, bool> preempt_cache_;
};

}  // namespace

std::unique_ptr<Plugin> NewMinRuntimePlugin(const PluginArguments& args) {
  return std::make_unique<MinRuntimePlugin>(args);
}

}  // namespace kai::scheduler
