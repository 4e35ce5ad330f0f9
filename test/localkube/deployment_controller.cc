#include "test/localkube/deployment_controller.h"

#include <algorithm>

#include "kube/base/time.h"
#include "test/localkube/controller_util.h"
#include "test/localkube/mutable_object.h"

namespace kai::localkube {
namespace {

constexpr char kRevision[] = "deployment.kubernetes.io/revision";
constexpr char kDesiredReplicas[] = "deployment.kubernetes.io/desired-replicas";
constexpr char kMaxReplicas[] = "deployment.kubernetes.io/max-replicas";
const GroupVersionResource kEvents{"", "v1", "events"};

struct Rs {
  ObjectPtr obj;
  std::string name;
  int64_t spec_replicas = 0;
  int64_t replicas = 0;  // status
  int64_t ready = 0;
  int64_t available = 0;
  int64_t revision = 0;
  std::string created;
};

int64_t ParseInt(const std::string& s) {
  try {
    return s.empty() ? 0 : std::stoll(s);
  } catch (...) {
    return 0;
  }
}

}  // namespace

DeploymentController::DeploymentController(ControllerContext ctx)
    : ctx_(ctx), loop_("deployment-controller", ctx.clock, [this](const std::string& key) {
        return Reconcile(key);
      }) {}

DeploymentController::~DeploymentController() { Stop(); }

void DeploymentController::OnDeployment(const ObjectPtr& old, const ObjectPtr& now) {
  loop_.Add((now ? now : old)->Key());
}

void DeploymentController::OnReplicaSet(const ObjectPtr& old, const ObjectPtr& now) {
  for (const ObjectPtr& rs : {old, now}) {
    if (!rs) continue;
    const std::string key = ControllerKey(*rs, "Deployment");
    if (!key.empty()) loop_.Add(key);
  }
}

void DeploymentController::OnPod(const ObjectPtr& old, const ObjectPtr& now) {
  // Recreate waits for old pods to stop: pods that end or go matter.
  const bool ended =
      !now ||
      (now->Field("status.phase") != (old ? old->Field("status.phase") : "") &&
       (now->Field("status.phase") == "Succeeded" || now->Field("status.phase") == "Failed"));
  if (!ended) return;
  const ObjectPtr& p = now ? now : old;
  const std::string rs_key = ControllerKey(*p, "ReplicaSet");
  if (rs_key.empty()) return;
  ObjectPtr rs = ctx_.replicasets->Get(rs_key);
  if (!rs) return;
  const std::string key = ControllerKey(*rs, "Deployment");
  if (!key.empty()) loop_.Add(key);
}

Status DeploymentController::Reconcile(const std::string& key) {
  ObjectPtr d = ctx_.deployments->Get(key);
  if (!d) return Status::OK();
  KAI_ASSIGN_OR_RETURN(JsonDoc doc, Parse(d->json()));
  const std::string ns = d->namespace_();
  const std::string name = d->name();
  const int64_t replicas = GetInt(doc, {"spec", "replicas"}).value_or(1);
  const bool recreate = GetStr(doc, {"spec", "strategy", "type"}) == "Recreate";
  int64_t max_surge = ScaledValue(Path(doc, {"spec", "strategy", "rollingUpdate", "maxSurge"}),
                                  replicas, true, (replicas + 3) / 4);
  int64_t max_unavailable =
      ScaledValue(Path(doc, {"spec", "strategy", "rollingUpdate", "maxUnavailable"}), replicas,
                  false, replicas / 4);
  if (recreate) max_surge = 0;
  if (max_surge == 0 && max_unavailable == 0) max_unavailable = 1;
  max_unavailable = std::min(max_unavailable, replicas);
  const int64_t history_limit = GetInt(doc, {"spec", "revisionHistoryLimit"}).value_or(10);
  const int64_t collision = GetInt(doc, {"status", "collisionCount"}).value_or(0);
  const Json* tmpl = Path(doc, {"spec", "template"});
  if (tmpl == nullptr) return Status::OK();
  const std::string hash = TemplateHash(*tmpl, collision);
  const WallTime now = ctx_.clock->Now();
  const std::string now_s = FormatRfc3339(now);
  const WriteOptions wo = ControllerWrite("deployment-controller");

  auto load = [&](std::optional<Rs>* new_rs, std::vector<Rs>* olds) {
    new_rs->reset();
    olds->clear();
    for (const ObjectPtr& o : ctx_.replicasets->ByIndex("controller", d->uid())) {
      if (o->namespace_() != ns) continue;
      auto rd = Parse(o->json());
      if (!rd.ok()) continue;
      Rs rs;
      rs.obj = o;
      rs.name = o->name();
      rs.spec_replicas = GetInt(*rd, {"spec", "replicas"}).value_or(1);
      rs.replicas = GetInt(*rd, {"status", "replicas"}).value_or(0);
      rs.ready = GetInt(*rd, {"status", "readyReplicas"}).value_or(0);
      rs.available = GetInt(*rd, {"status", "availableReplicas"}).value_or(0);
      rs.revision = ParseInt(GetStr(*rd, {"metadata", "annotations", kRevision}));
      rs.created = GetStr(*rd, {"metadata", "creationTimestamp"});
      const Json* rt = Path(*rd, {"spec", "template"});
      if (!*new_rs && rt != nullptr && TemplateHash(*rt, collision) == hash) {
        *new_rs = rs;
      } else {
        olds->push_back(rs);
      }
    }
    std::sort(olds->begin(), olds->end(), [](const Rs& a, const Rs& b) {
      return std::tie(a.created, a.name) < std::tie(b.created, b.name);
    });
  };
  std::optional<Rs> new_rs;
  std::vector<Rs> olds;
  load(&new_rs, &olds);

  auto event = [&](const std::string& message) {
    std::string body = "{\"metadata\":{\"generateName\":";
    AppendQuoted(&body, name + ".");
    body += "},\"involvedObject\":{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",";
    body += "\"namespace\":";
    AppendQuoted(&body, ns);
    body += ",\"name\":";
    AppendQuoted(&body, name);
    body += ",\"uid\":";
    AppendQuoted(&body, d->uid());
    body += "},\"reason\":\"ScalingReplicaSet\",\"message\":";
    AppendQuoted(&body, message);
    body += ",\"type\":\"Normal\",\"source\":{\"component\":\"deployment-controller\"},";
    body += "\"firstTimestamp\":\"" + now_s + "\",\"lastTimestamp\":\"" + now_s +
            "\",\"count\":1,\"reportingComponent\":\"deployment-controller\"}";
    ctx_.store->Create(kEvents, ns, body, wo).status().IgnoreError();
  };
  auto scale = [&](const Rs& rs, int64_t to) -> Status {
    if (rs.spec_replicas == to) return Status::OK();
    auto r = ctx_.store->Mutate(
        kReplicaSetsResource, ns, rs.name,
        [&](MutableObject& m) -> Status {
          JsonAlloc& a = m.alloc();
          SetInt(EnsureObject(m.doc(), "spec", a), "replicas", to, a);
          Json& ann = EnsureObject(m.metadata(), "annotations", a);
          SetString(ann, kDesiredReplicas, std::to_string(replicas), a);
          SetString(ann, kMaxReplicas, std::to_string(replicas + max_surge), a);
          return Status::OK();
        },
        wo);
    if (!r.ok() && r.status().reason() != "NotFound") return r.status();
    event(std::string(to > rs.spec_replicas ? "Scaled up" : "Scaled down") + " replica set " +
          rs.name + " from " + std::to_string(rs.spec_replicas) + " to " + std::to_string(to));
    return Status::OK();
  };

  bool created_new = false;
  const bool paused = GetBool(doc, {"spec", "paused"}, false);
  if (!d->deleting() && !paused) {
    int64_t old_spec = 0;
    for (const Rs& rs : olds) old_spec += rs.spec_replicas;
    // Recreate: old pods must be gone before the new ReplicaSet gets any.
    bool old_pods_running = false;
    if (recreate) {
      for (const Rs& rs : olds) {
        KAI_RETURN_IF_ERROR(scale(rs, 0));
        for (const ObjectPtr& p : ctx_.pods->ByIndex("controller", rs.obj->uid())) {
          const std::string_view ph = p->Field("status.phase");
          if (ph != "Succeeded" && ph != "Failed") old_pods_running = true;
        }
      }
    }
    if (!new_rs && !(recreate && old_pods_running)) {
      int64_t revision = 0;
      for (const Rs& rs : olds) revision = std::max(revision, rs.revision);
      ++revision;
      int64_t initial = replicas;
      if (!recreate && !olds.empty()) {
        initial = std::clamp<int64_t>(replicas + max_surge - old_spec, 0, replicas);
      }
      JsonDoc rsd;
      rsd.SetObject();
      JsonAlloc& a = rsd.GetAllocator();
      rsd.AddMember("apiVersion", "apps/v1", a);
      rsd.AddMember("kind", "ReplicaSet", a);
      Json meta(rapidjson::kObjectType);
      meta.AddMember("name", Str(name + "-" + hash, a), a);
      Json labels(rapidjson::kObjectType);
      if (const Json* l = Path(*tmpl, {"metadata", "labels"}); l && l->IsObject()) {
        labels.CopyFrom(*l, a);
      }
      SetString(labels, "pod-template-hash", hash, a);
      meta.AddMember("labels", Json(labels, a), a);
      Json ann(rapidjson::kObjectType);
      ann.AddMember(Str(kDesiredReplicas, a), Str(std::to_string(replicas), a), a);
      ann.AddMember(Str(kMaxReplicas, a), Str(std::to_string(replicas + max_surge), a), a);
      ann.AddMember(Str(kRevision, a), Str(std::to_string(revision), a), a);
      meta.AddMember("annotations", ann, a);
      Json refs(rapidjson::kArrayType);
      refs.PushBack(ControllerRef("apps/v1", "Deployment", *d, a), a);
      meta.AddMember("ownerReferences", refs, a);
      rsd.AddMember("metadata", meta, a);
      Json spec(rapidjson::kObjectType);
      spec.AddMember("replicas", initial, a);
      if (auto mrs = GetInt(doc, {"spec", "minReadySeconds"}); mrs && *mrs > 0) {
        spec.AddMember("minReadySeconds", *mrs, a);
      }
      Json selector(rapidjson::kObjectType);
      if (const Json* s = Path(doc, {"spec", "selector"}); s && s->IsObject()) {
        selector.CopyFrom(*s, a);
      }
      SetString(EnsureObject(selector, "matchLabels", a), "pod-template-hash", hash, a);
      spec.AddMember("selector", selector, a);
      Json t(*tmpl, a);
      Json& tmeta = EnsureObject(t, "metadata", a);
      SetMember(tmeta, "labels", std::move(labels), a);
      spec.AddMember("template", t, a);
      rsd.AddMember("spec", spec, a);
      auto r = ctx_.store->Create(kReplicaSetsResource, ns, Serialize(rsd), wo);
      if (!r.ok()) {
        if (r.status().reason() == "AlreadyExists") {
          // Same name, another template (a hash collision) or not ours: bump collisionCount.
          auto existing = ctx_.store->Get(kReplicaSetsResource, ns, name + "-" + hash);
          const bool ours = existing.ok() && ControllerKey(**existing, "Deployment") == key;
          if (!ours) {
            auto m = ctx_.store->Mutate(
                kDeploymentsResource, ns, name,
                [&](MutableObject& o) -> Status {
                  Json& st = EnsureObject(o.doc(), "status", o.alloc());
                  SetInt(st, "collisionCount", collision + 1, o.alloc());
                  return Status::OK();
                },
                ControllerWrite("deployment-controller", "status"));
            return m.status();
          }
          return Status::OK();
        }
        return r.status();
      }
      created_new = true;
      event("Scaled up replica set " + name + "-" + hash + " from 0 to " + std::to_string(initial));
      load(&new_rs, &olds);
    }
    // The deployment carries the revision of its newest ReplicaSet.
    if (new_rs &&
        GetStr(doc, {"metadata", "annotations", kRevision}) != std::to_string(new_rs->revision)) {
      const std::string rev = std::to_string(new_rs->revision);
      auto r = ctx_.store->Mutate(
          kDeploymentsResource, ns, name,
          [&](MutableObject& m) -> Status {
            SetString(EnsureObject(m.metadata(), "annotations", m.alloc()), kRevision, rev,
                      m.alloc());
            return Status::OK();
          },
          wo);
      if (!r.ok() && r.status().reason() != "NotFound") return r.status();
    }
    if (new_rs) {
      if (recreate) {
        if (!old_pods_running) KAI_RETURN_IF_ERROR(scale(*new_rs, replicas));
      } else {
        // Scale up the new ReplicaSet within maxSurge.
        int64_t all_spec = new_rs->spec_replicas + old_spec;
        int64_t target = new_rs->spec_replicas;
        if (new_rs->spec_replicas > replicas) {
          target = replicas;
        } else if (new_rs->spec_replicas < replicas) {
          const int64_t room = std::max<int64_t>(0, replicas + max_surge - all_spec);
          target = new_rs->spec_replicas + std::min(room, replicas - new_rs->spec_replicas);
        }
        KAI_RETURN_IF_ERROR(scale(*new_rs, target));
        all_spec += target - new_rs->spec_replicas;
        new_rs->spec_replicas = target;
        // Scale down old ReplicaSets, never below minAvailable.
        const int64_t min_available = replicas - max_unavailable;
        const int64_t new_unavailable = new_rs->spec_replicas - new_rs->available;
        int64_t budget = all_spec - min_available - new_unavailable;
        if (budget > 0 && old_spec > 0) {
          // First unhealthy old replicas.
          for (Rs& rs : olds) {
            if (budget <= 0) break;
            const int64_t unhealthy = rs.spec_replicas - rs.available;
            if (rs.spec_replicas == 0 || unhealthy <= 0) continue;
            const int64_t down = std::min(budget, unhealthy);
            KAI_RETURN_IF_ERROR(scale(rs, rs.spec_replicas - down));
            rs.spec_replicas -= down;
            budget -= down;
          }
          // Then available ones, as long as enough pods stay available.
          int64_t available = new_rs->available;
          for (const Rs& rs : olds) available += rs.available;
          int64_t can_remove = available - min_available;
          for (Rs& rs : olds) {
            if (can_remove <= 0) break;
            if (rs.spec_replicas == 0) continue;
            const int64_t down = std::min(rs.spec_replicas, can_remove);
            KAI_RETURN_IF_ERROR(scale(rs, rs.spec_replicas - down));
            rs.spec_replicas -= down;
            can_remove -= down;
          }
        }
      }
    }
    // Old ReplicaSets beyond revisionHistoryLimit.
    std::vector<Rs> idle;
    for (const Rs& rs : olds) {
      if (rs.spec_replicas == 0 && rs.replicas == 0 && !rs.obj->deleting()) idle.push_back(rs);
    }
    std::sort(idle.begin(), idle.end(),
              [](const Rs& a, const Rs& b) { return a.revision < b.revision; });
    for (int64_t i = 0; i + history_limit < static_cast<int64_t>(idle.size()); ++i) {
      DeleteOptions del;
      del.precondition_uid = idle[static_cast<size_t>(i)].obj->uid();
      ctx_.store->Delete(kReplicaSetsResource, ns, idle[static_cast<size_t>(i)].name, del)
          .status()
          .IgnoreError();
    }
    load(&new_rs, &olds);
  }

  // Status from the ReplicaSets.
  int64_t total = 0, ready = 0, available = 0;
  for (const Rs& rs : olds) {
    total += rs.replicas;
    ready += rs.ready;
    available += rs.available;
  }
  const int64_t updated = new_rs ? new_rs->replicas : 0;
  if (new_rs) {
    total += new_rs->replicas;
    ready += new_rs->ready;
    available += new_rs->available;
  }
  const int64_t unavailable = std::max<int64_t>(0, replicas - available);
  const std::string new_name = new_rs ? new_rs->name : "";
  const bool complete = new_rs && updated == replicas && total == replicas &&
                        available == replicas && new_rs->spec_replicas == replicas;
  auto r = ctx_.store->Mutate(
      kDeploymentsResource, ns, name,
      [&](MutableObject& m) -> Status {
        if (GetStr(m.doc(), {"metadata", "uid"}) != d->uid()) return CancelledError("replaced");
        JsonAlloc& a = m.alloc();
        Json& st = EnsureObject(m.doc(), "status", a);
        SetCount(st, "observedGeneration", d->generation(), a, true);
        SetCount(st, "replicas", total, a, true);
        SetCount(st, "updatedReplicas", updated, a, true);
        SetCount(st, "readyReplicas", ready, a, true);
        SetCount(st, "availableReplicas", available, a, true);
        SetCount(st, "unavailableReplicas", unavailable, a, true);
        if (available >= replicas - max_unavailable) {
          SetStatusCondition(st, "Available", "True", "MinimumReplicasAvailable",
                             "Deployment has minimum availability.", now_s, a, "lastUpdateTime");
        } else {
          SetStatusCondition(st, "Available", "False", "MinimumReplicasUnavailable",
                             "Deployment does not have minimum availability.", now_s, a,
                             "lastUpdateTime");
        }
        if (!new_name.empty()) {
          if (complete) {
            SetStatusCondition(st, "Progressing", "True", "NewReplicaSetAvailable",
                               "ReplicaSet \"" + new_name + "\" has successfully progressed.",
                               now_s, a, "lastUpdateTime");
          } else if (created_new) {
            SetStatusCondition(st, "Progressing", "True", "NewReplicaSetCreated",
                               "Created new replica set \"" + new_name + "\"", now_s, a,
                               "lastUpdateTime");
          } else {
            SetStatusCondition(st, "Progressing", "True", "ReplicaSetUpdated",
                               "ReplicaSet \"" + new_name + "\" is progressing.", now_s, a,
                               "lastUpdateTime");
          }
        }
        return Status::OK();
      },
      ControllerWrite("deployment-controller", "status"));
  if (!r.ok() && r.status().code() != StatusCode::kCancelled && r.status().reason() != "NotFound") {
    return r.status();
  }
  return Status::OK();
}

}  // namespace kai::localkube
