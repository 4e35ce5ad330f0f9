#include "test/localkube/controller_util.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "kube/base/time.h"

namespace kai::localkube {
namespace {

// Canonical JSON: object members sorted by name (so equal templates hash equally whatever the
// member order).
void AppendCanonical(const Json& v, std::string* out) {
  if (v.IsObject()) {
    std::vector<std::pair<std::string_view, const Json*>> members;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      members.emplace_back(View(it->name), &it->value);
    }
    std::sort(members.begin(), members.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    *out += '{';
    bool first = true;
    for (const auto& [name, value] : members) {
      if (!first) *out += ',';
      first = false;
      AppendQuoted(out, name);
      *out += ':';
      AppendCanonical(*value, out);
    }
    *out += '}';
  } else if (v.IsArray()) {
    *out += '[';
    bool first = true;
    for (const Json& x : v.GetArray()) {
      if (!first) *out += ',';
      first = false;
      AppendCanonical(x, out);
    }
    *out += ']';
  } else {
    *out += Serialize(v);
  }
}

WallTime TimeOf(const Json& obj, std::initializer_list<std::string_view> path) {
  auto t = ParseRfc3339(GetStr(obj, path));
  return t.ok() ? *t : WallTime();
}

}  // namespace

WriteOptions ControllerWrite(std::string_view controller, std::string_view subresource) {
  WriteOptions o;
  o.field_manager = "kube-controller-manager";
  o.subresource = std::string(subresource);
  o.user.username = "system:serviceaccount:kube-system:" + std::string(controller);
  o.user.groups = {"system:serviceaccounts", "system:serviceaccounts:kube-system",
                   "system:authenticated"};
  return o;
}

std::string TemplateHash(const Json& pod_template, int64_t collision_count) {
  JsonDoc copy = Clone(pod_template);
  if (Json* labels = Path(copy, {"metadata", "labels"}); labels && labels->IsObject()) {
    RemoveMember(*labels, "pod-template-hash");
  }
  std::string text;
  AppendCanonical(copy, &text);
  uint32_t h = 2166136261u;
  auto mix = [&](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 16777619u;
    }
  };
  mix(text);
  if (collision_count > 0) mix(std::to_string(collision_count));
  // rand.SafeEncodeString(fmt.Sprint(hash)).
  static constexpr char kAlphanums[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string digits = std::to_string(h);
  for (char& c : digits) c = kAlphanums[static_cast<unsigned char>(c) % 27];
  return digits;
}

Json ControllerRef(std::string_view api_version, std::string_view kind, const Object& owner,
                   JsonAlloc& a) {
  Json r(rapidjson::kObjectType);
  r.AddMember("apiVersion", Str(api_version, a), a);
  r.AddMember("kind", Str(kind, a), a);
  r.AddMember("name", Str(owner.name(), a), a);
  r.AddMember("uid", Str(owner.uid(), a), a);
  r.AddMember("controller", true, a);
  r.AddMember("blockOwnerDeletion", true, a);
  return r;
}

JsonDoc PodFromTemplate(const Json& pod_template, std::string_view generate_name,
                        const Json& owner_ref) {
  JsonDoc pod;
  pod.SetObject();
  JsonAlloc& a = pod.GetAllocator();
  pod.AddMember("apiVersion", "v1", a);
  pod.AddMember("kind", "Pod", a);
  Json meta(rapidjson::kObjectType);
  meta.AddMember("generateName", Str(generate_name, a), a);
  for (const char* field : {"labels", "annotations", "finalizers"}) {
    if (const Json* v = Path(pod_template, {"metadata", field}); v != nullptr && !v->IsNull()) {
      meta.AddMember(Str(field, a), Json(*v, a), a);
    }
  }
  Json refs(rapidjson::kArrayType);
  refs.PushBack(Json(owner_ref, a), a);
  meta.AddMember("ownerReferences", refs, a);
  pod.AddMember("metadata", meta, a);
  if (const Json* spec = Member(pod_template, "spec"); spec != nullptr) {
    pod.AddMember("spec", Json(*spec, a), a);
  } else {
    pod.AddMember("spec", Json(rapidjson::kObjectType), a);
  }
  return pod;
}

const Json* FindCondition(const Json& obj, std::string_view type) {
  const Json* conds = Path(obj, {"status", "conditions"});
  if (conds == nullptr || !conds->IsArray()) return nullptr;
  for (const Json& c : conds->GetArray()) {
    if (GetStr(c, {"type"}) == type) return &c;
  }
  return nullptr;
}

bool SetStatusCondition(Json& status, std::string_view type, std::string_view value,
                        std::string_view reason, std::string_view message, const std::string& now,
                        JsonAlloc& a, std::string_view update_field) {
  Json& found = FindOrAddCondition(status, type, a);
  if (Member(found, "status") != nullptr && GetStr(found, {"status"}) == value &&
      GetStr(found, {"reason"}) == reason && GetStr(found, {"message"}) == message) {
    return false;
  }
  if (GetStr(found, {"status"}) != value) SetString(found, "lastTransitionTime", now, a);
  SetString(found, "status", value, a);
  SetString(found, "reason", reason, a);
  SetString(found, "message", message, a);
  if (!update_field.empty()) SetString(found, update_field, now, a);
  return true;
}

const PodSummary& PodSummaries::Get(const ObjectPtr& pod) {
  PodSummary& s = memo_[pod->Key()];
  if (s.rv == pod->resource_version() && s.rv != 0) return s;
  s = PodSummary();
  s.rv = pod->resource_version();
  s.phase = std::string(pod->Field("status.phase"));
  s.deleting = pod->deleting();
  s.assigned = !pod->Field("spec.nodeName").empty();
  auto doc = Parse(pod->json());
  if (!doc.ok()) return s;
  s.created = TimeOf(*doc, {"metadata", "creationTimestamp"});
  if (const Json* ready = FindCondition(*doc, "Ready"); ready != nullptr) {
    s.ready = GetStr(*ready, {"status"}) == "True";
    s.ready_since = TimeOf(*ready, {"lastTransitionTime"});
  }
  if (const Json* cs = Path(*doc, {"status", "containerStatuses"}); cs && cs->IsArray()) {
    for (const Json& c : cs->GetArray()) s.restarts += GetInt(c, {"restartCount"}).value_or(0);
  }
  const std::string cost =
      GetStr(*doc, {"metadata", "annotations", "controller.kubernetes.io/pod-deletion-cost"});
  if (!cost.empty()) {
    try {
      s.deletion_cost = std::stoll(cost);
    } catch (...) {
    }
  }
  s.completion_index =
      GetStr(*doc, {"metadata", "annotations", "batch.kubernetes.io/job-completion-index"});
  return s;
}

void PodSummaries::MaybePrune(const ObjectCache& pods) {
  if (memo_.size() < 2 * pods.Size() + 1024) return;
  for (auto it = memo_.begin(); it != memo_.end();) {
    it = pods.Get(it->first) ? std::next(it) : memo_.erase(it);
  }
}

bool DeleteFirst(const ObjectPtr& a, const PodSummary& sa, const ObjectPtr& b,
                 const PodSummary& sb) {
  if (sa.assigned != sb.assigned) return !sa.assigned;
  auto phase_rank = [](const std::string& p) {
    if (p == "Pending") return 0;
    if (p == "Unknown") return 1;
    if (p == "Running") return 2;
    return 3;
  };
  if (phase_rank(sa.phase) != phase_rank(sb.phase)) {
    return phase_rank(sa.phase) < phase_rank(sb.phase);
  }
  if (sa.ready != sb.ready) return !sa.ready;
  if (sa.deletion_cost != sb.deletion_cost) return sa.deletion_cost < sb.deletion_cost;
  if (sa.ready && sb.ready && sa.ready_since != sb.ready_since) {
    return sa.ready_since > sb.ready_since;
  }
  if (sa.restarts != sb.restarts) return sa.restarts > sb.restarts;
  if (sa.created != sb.created) return sa.created > sb.created;
  return a->name() < b->name();
}

std::string ControllerKey(const Object& obj, std::string_view kind) {
  for (const OwnerReference& r : obj.owner_references()) {
    if (r.controller && r.kind == kind) return obj.namespace_() + "/" + r.name;
  }
  return "";
}

void SetCount(Json& status, std::string_view field, int64_t value, JsonAlloc& a, bool omit_zero) {
  if (value == 0 && omit_zero) {
    RemoveMember(status, field);
  } else {
    SetInt(status, field, value, a);
  }
}

int64_t ScaledValue(const Json* v, int64_t total, bool round_up, int64_t fallback) {
  if (v == nullptr || v->IsNull()) return fallback;
  if (v->IsInt64()) return v->GetInt64();
  if (v->IsString()) {
    std::string s(View(*v));
    if (!s.empty() && s.back() == '%') {
      s.pop_back();
      try {
        const double pct = std::stod(s);
        const double x = pct * static_cast<double>(total) / 100.0;
        return static_cast<int64_t>(round_up ? std::ceil(x) : std::floor(x));
      } catch (...) {
        return fallback;
      }
    }
    try {
      return std::stoll(s);
    } catch (...) {
      return fallback;
    }
  }
  return fallback;
}

}  // namespace kai::localkube
