#include "test/localkube/replicaset_controller.h"

#include <algorithm>

#include "kube/base/time.h"
#include "test/localkube/controller_util.h"
#include "test/localkube/mutable_object.h"

namespace kai::localkube {
namespace {

// kube-controller-manager's burst limit per sync.
constexpr int64_t kBurstReplicas = 500;

}  // namespace

ReplicaSetController::ReplicaSetController(ControllerContext ctx)
    : ctx_(ctx),
      pods_(std::make_unique<PodSummaries>()),
      loop_("replicaset-controller", ctx.clock,
            [this](const std::string& key) { return Reconcile(key); }) {}

ReplicaSetController::~ReplicaSetController() { Stop(); }

void ReplicaSetController::OnReplicaSet(const ObjectPtr& old, const ObjectPtr& now) {
  loop_.Add((now ? now : old)->Key());
}

void ReplicaSetController::OnPod(const ObjectPtr& old, const ObjectPtr& now) {
  for (const ObjectPtr& p : {old, now}) {
    if (!p) continue;
    const std::string key = ControllerKey(*p, "ReplicaSet");
    if (!key.empty()) loop_.Add(key);
  }
}

Status ReplicaSetController::Reconcile(const std::string& key) {
  pods_->MaybePrune(*ctx_.pods);
  ObjectPtr rs = ctx_.replicasets->Get(key);
  if (!rs) return Status::OK();
  KAI_ASSIGN_OR_RETURN(JsonDoc doc, Parse(rs->json()));
  const std::string ns = rs->namespace_();
  const int64_t replicas = GetInt(doc, {"spec", "replicas"}).value_or(1);
  const int64_t min_ready = GetInt(doc, {"spec", "minReadySeconds"}).value_or(0);
  const WallTime now = ctx_.clock->Now();

  auto owned = [&] {
    std::vector<ObjectPtr> out;
    for (const ObjectPtr& p : ctx_.pods->ByIndex("controller", rs->uid())) {
      if (p->namespace_() == ns) out.push_back(p);
    }
    return out;
  };
  Status manage_error;
  if (!rs->deleting()) {
    std::vector<ObjectPtr> active;
    for (const ObjectPtr& p : owned()) {
      if (pods_->Get(p).Active()) active.push_back(p);
    }
    const int64_t diff = static_cast<int64_t>(active.size()) - replicas;
    const Json* tmpl = Path(doc, {"spec", "template"});
    if (diff < 0 && tmpl != nullptr) {
      const WriteOptions wo = ControllerWrite("replicaset-controller");
      for (int64_t i = 0; i < std::min(-diff, kBurstReplicas); ++i) {
        JsonAlloc scratch_alloc;
        JsonDoc pod = PodFromTemplate(*tmpl, rs->name() + "-",
                                      ControllerRef("apps/v1", "ReplicaSet", *rs, scratch_alloc));
        auto r = ctx_.store->Create(kPodsResource, ns, Serialize(pod), wo);
        if (!r.ok()) {
          manage_error = r.status();
          break;
        }
      }
    } else if (diff > 0) {
      std::vector<std::pair<ObjectPtr, PodSummary>> ranked;
      ranked.reserve(active.size());
      for (const ObjectPtr& p : active) ranked.emplace_back(p, pods_->Get(p));
      std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
        return DeleteFirst(x.first, x.second, y.first, y.second);
      });
      for (int64_t i = 0; i < std::min(diff, kBurstReplicas); ++i) {
        DeleteOptions d;
        d.precondition_uid = ranked[static_cast<size_t>(i)].first->uid();
        d.user = ControllerWrite("replicaset-controller").user;
        auto r =
            ctx_.store->Delete(kPodsResource, ns, ranked[static_cast<size_t>(i)].first->name(), d);
        if (!r.ok() && r.status().reason() != "NotFound" && r.status().reason() != "Conflict") {
          manage_error = r.status();
        }
      }
    }
  }

  // Status from the pods as they are now (the cache already has this sync's writes).
  std::map<std::string, std::string> template_labels;
  if (const Json* l = Path(doc, {"spec", "template", "metadata", "labels"}); l && l->IsObject()) {
    for (auto it = l->MemberBegin(); it != l->MemberEnd(); ++it) {
      template_labels[std::string(View(it->name))] = std::string(View(it->value));
    }
  }
  int64_t n = 0, labeled = 0, ready = 0, available = 0;
  std::optional<WallTime> next_available;
  for (const ObjectPtr& p : owned()) {
    const PodSummary& s = pods_->Get(p);
    if (!s.Active()) continue;
    ++n;
    bool all = true;
    for (const auto& [k, v] : template_labels) {
      if (std::find(p->labels().begin(), p->labels().end(), std::make_pair(k, v)) ==
          p->labels().end()) {
        all = false;
      }
    }
    labeled += all;
    if (!s.ready) continue;
    ++ready;
    const WallTime at = s.ready_since + std::chrono::seconds(min_ready);
    if (min_ready == 0 || at <= now) {
      ++available;
    } else if (!next_available || at < *next_available) {
      next_available = at;
    }
  }
  if (next_available) {
    loop_.AddAfter(key, *next_available - now);
  }
  const std::string now_s = FormatRfc3339(now);
  auto status_differs = [&](const Json& o) {
    const Json* st = Member(o, "status");
    auto get = [&](const char* f) { return st ? GetInt(*st, {f}).value_or(0) : 0; };
    const bool failure_cond = FindCondition(o, "ReplicaFailure") != nullptr;
    return st == nullptr || Member(*st, "replicas") == nullptr || get("replicas") != n ||
           get("fullyLabeledReplicas") != labeled || get("readyReplicas") != ready ||
           get("availableReplicas") != available || get("observedGeneration") != rs->generation() ||
           failure_cond != !manage_error.ok();
  };
  if (status_differs(doc)) {
    auto r = ctx_.store->Mutate(
        kReplicaSetsResource, ns, rs->name(),
        [&](MutableObject& m) -> Status {
          if (m.doc().HasMember("metadata") && GetStr(m.doc(), {"metadata", "uid"}) != rs->uid()) {
            return CancelledError("replaced");
          }
          JsonAlloc& a = m.alloc();
          Json& st = EnsureObject(m.doc(), "status", a);
          SetCount(st, "replicas", n, a, false);
          SetCount(st, "fullyLabeledReplicas", labeled, a, true);
          SetCount(st, "readyReplicas", ready, a, true);
          SetCount(st, "availableReplicas", available, a, true);
          SetCount(st, "observedGeneration", rs->generation(), a, true);
          if (!manage_error.ok()) {
            SetStatusCondition(st, "ReplicaFailure", "True", "FailedCreate",
                               std::string(manage_error.message()), now_s, a, "");
          } else if (Json* conds = Member(st, "conditions"); conds && conds->IsArray()) {
            for (auto it = conds->Begin(); it != conds->End();) {
              it = GetStr(*it, {"type"}) == "ReplicaFailure" ? conds->Erase(it) : it + 1;
            }
            if (conds->Empty()) RemoveMember(st, "conditions");
          }
          return Status::OK();
        },
        ControllerWrite("replicaset-controller", "status"));
    if (!r.ok() && r.status().code() != StatusCode::kCancelled &&
        r.status().reason() != "NotFound") {
      return r.status();
    }
  }
  return manage_error;
}

}  // namespace kai::localkube
