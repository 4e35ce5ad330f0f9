// minruntime (KAI plugins/minruntime, reference §8.3): jobs that started less than their
// minimum runtime ago are protected from preempt / reclaim. Non-elastic protected jobs are not
// victims at all; protected elastic jobs may only lose pods above their minimum.
#include <glog/logging.h>

#include <cstdint>
#include <map>
#include <span>
#include <utility>

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
    now_ = ssn->now();
    ssn->AddReclaimVictimFilterFn([this](const PodGroupInfo& pending, const PodGroupInfo& victim) {
      // Protected first: it reads the job and a memo, IsElastic walks its PodSets (the filter
      // runs for every running job of every victim queue).
      return !Protected(pending, victim, /*reclaim=*/true) || victim.IsElastic();
    });
    ssn->AddPreemptVictimFilterFn([this](const PodGroupInfo& pending, const PodGroupInfo& victim) {
      return !Protected(pending, victim, /*reclaim=*/false) || victim.IsElastic();
    });
    ssn->AddReclaimScenarioValidatorFn([this](const ScenarioInfo& s) {
      return ValidScenario(s, /*reclaim=*/true, /*settled=*/false);
    });
    ssn->AddPreemptScenarioValidatorFn([this](const ScenarioInfo& s) {
      return ValidScenario(s, /*reclaim=*/false, /*settled=*/false);
    });
    // A victim job without pending or gated pods keeps its active-used count through a
    // simulation (evicted and re-placed pods stay active-used), and more victims only take more
    // of its tasks: once it is taken below a minimum, every larger scenario is too.
    ssn->AddReclaimScenarioFinalRejectionFn([this](const ScenarioInfo& s) {
      return RejectedForGood(s, /*reclaim=*/true, &reclaim_checked_);
    });
    ssn->AddPreemptScenarioFinalRejectionFn([this](const ScenarioInfo& s) {
      return RejectedForGood(s, /*reclaim=*/false, &preempt_checked_);
    });
  }

 private:
  // How much of a growing scenario's victim log (ScenarioInfo::VictimUpdates) a final rejection
  // has found valid.
  struct Checked {
    uint64_t serial = 0;
    size_t updates = 0;
  };

  // A protected elastic victim may not go below the minimum of any of its PodSets. `settled`:
  // only victim jobs without pending or gated pods are checked (those a simulation cannot
  // change).
  bool ValidScenario(const ScenarioInfo& s, bool reclaim, bool settled) {
    for (const auto& [id, victim] : s.GetVictims()) {
      if (!ValidVictim(s.GetPreemptor(), victim, reclaim, settled)) return false;
    }
    return true;
  }

  bool ValidVictim(const PodGroupInfo& preemptor, const VictimInfo& victim, bool reclaim,
                   bool settled) {
    const PodGroupInfo& job = *victim.representative;
    if (!job.IsElastic()) return true;
    if (settled && (job.NumPending() > 0 || job.NumGated() > 0)) return true;
    if (!Protected(preemptor, job, reclaim)) return true;
    for (const auto& [name, ps] : job.pod_sets()) {
      int running = ps->NumActiveUsed();
      int taken = 0;
      for (const PodInfo* t : victim.tasks) {
        if (ps == job.PodSetOf(*t)) ++taken;
      }
      if (ps->min_available() > running - taken) return false;
    }
    return true;
  }

  // The settled check of a victim holds or not whatever the other victims are, and between two
  // checks of one search's scenario the session is back where the search started: a victim
  // checked before and unchanged since is still valid. A long search checks every scenario, each
  // holding hundreds of victims; this reads only those added or grown since the last check
  // (re-reading all of them was a tenth of L reclaim).
  bool RejectedForGood(const ScenarioInfo& s, bool reclaim, Checked* checked) {
    const std::span<const VictimInfo* const> updates = s.VictimUpdates();
    if (s.Serial() == 0) return !ValidScenario(s, reclaim, /*settled=*/true);
    size_t from = checked->serial == s.Serial() ? checked->updates : 0;
    if (from > updates.size()) from = 0;
    bool valid = true;
    for (size_t i = from; i < updates.size() && valid; ++i) {
      valid = ValidVictim(s.GetPreemptor(), *updates[i], reclaim, /*settled=*/true);
    }
    DCHECK_EQ(valid, ValidScenario(s, reclaim, /*settled=*/true))
        << "an incremental final rejection differs from a full one";
    *checked = valid ? Checked{s.Serial(), updates.size()} : Checked{};
    return !valid;
  }

  // Called for every (preemptor, candidate victim) pair of every victim queue: the minimum
  // runtime depends only on the two jobs' queues, so it is kept per queue pair (per victim queue
  // for preempt) instead of per job pair.
  bool Protected(const PodGroupInfo& pending, const PodGroupInfo& victim, bool reclaim) {
    if (!victim.last_start_timestamp) return false;
    const ClusterInfo& c = ssn_->cluster();
    const QueueInfo* victim_q = c.QueueOf(victim);
    const QueueInfo* pending_q = reclaim ? c.QueueOf(pending) : nullptr;
    auto& memo = reclaim ? reclaim_min_ : preempt_min_;
    auto [it, fresh] = memo.try_emplace({pending_q, victim_q}, Duration::zero());
    if (fresh) {
      it->second = reclaim ? ReclaimMinRuntime(pending_q, victim_q) : PreemptMinRuntime(victim_q);
    }
    return now_ < *victim.last_start_timestamp + it->second;
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

  Duration PreemptMinRuntime(const QueueInfo* victim_q) const {
    return WalkUp(victim_q, false, default_preempt_);
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

  Duration ReclaimMinRuntime(const QueueInfo* pending_q, const QueueInfo* victim_q) const {
    if (!use_lca_) return WalkUp(victim_q, true, default_reclaim_);
    std::vector<const QueueInfo*> vp = PathFromRoot(victim_q);
    std::vector<const QueueInfo*> pp = PathFromRoot(pending_q);
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
  // The session's time, read once: a job's protection does not change within a cycle.
  WallTime now_;
  // Minimum runtimes by (preemptor's queue, victim's queue); the first is null for preempt.
  using QueuePair = std::pair<const QueueInfo*, const QueueInfo*>;
  std::map<QueuePair, Duration> reclaim_min_;
  std::map<QueuePair, Duration> preempt_min_;
  Checked reclaim_checked_;
  Checked preempt_checked_;
};

}  // namespace

std::unique_ptr<Plugin> NewMinRuntimePlugin(const PluginArguments& args) {
  return std::make_unique<MinRuntimePlugin>(args);
}

}  // namespace kai::scheduler
