#include "test/localkube/patch.h"

#include <algorithm>
#include <map>

#include "test/localkube/errors.h"

namespace kai::localkube {
namespace {

// ---- strategic merge patch metadata (the patchStrategy/patchMergeKey struct tags of k8s.io/api)

struct FieldMeta {
  std::string type;  // struct type of the value (or of list elements)
  bool list = false;
  bool merge = false;
  bool retain_keys = false;
  std::string merge_key;
  bool map_of_type = false;  // map[string]<type>
};

using TypeTable = std::map<std::string, std::map<std::string, FieldMeta>, std::less<>>;

FieldMeta Struct(std::string t) { return FieldMeta{std::move(t)}; }
FieldMeta MergeList(std::string t, std::string key, bool retain = false) {
  FieldMeta f{std::move(t)};
  f.list = true;
  f.merge = true;
  f.merge_key = std::move(key);
  f.retain_keys = retain;
  return f;
}
FieldMeta PrimitiveSet() {
  FieldMeta f;
  f.list = true;
  f.merge = true;
  return f;
}
FieldMeta RetainKeysStruct(std::string t) {
  FieldMeta f{std::move(t)};
  f.retain_keys = true;
  return f;
}

const TypeTable& Types() {
  static const TypeTable* const t = [] {
    auto* m = new TypeTable();
    auto& types = *m;
    types["ObjectMeta"] = {{"finalizers", PrimitiveSet()},
                           {"ownerReferences", MergeList("", "uid")}};
    auto top = [&](const std::string& name, const std::string& spec, const std::string& status) {
      auto& f = types[name];
      f["metadata"] = Struct("ObjectMeta");
      if (!spec.empty()) f["spec"] = Struct(spec);
      if (!status.empty()) f["status"] = Struct(status);
    };
    top("Pod", "PodSpec", "PodStatus");
    types["PodTemplateSpec"] = {{"metadata", Struct("ObjectMeta")}, {"spec", Struct("PodSpec")}};
    top("PodTemplate", "", "");
    types["PodTemplate"]["template"] = Struct("PodTemplateSpec");
    types["PodSpec"] = {
        {"containers", MergeList("Container", "name")},
        {"initContainers", MergeList("Container", "name")},
        {"ephemeralContainers", MergeList("Container", "name")},
        {"volumes", MergeList("Volume", "name", true)},
        {"imagePullSecrets", MergeList("", "name")},
        {"hostAliases", MergeList("", "ip")},
        {"topologySpreadConstraints", MergeList("", "topologyKey")},
        {"resourceClaims", MergeList("", "name", true)},
        {"schedulingGates", MergeList("", "name")},
    };
    types["Container"] = {{"ports", MergeList("", "containerPort")},
                          {"env", MergeList("", "name")},
                          {"volumeMounts", MergeList("", "mountPath")},
                          {"volumeDevices", MergeList("", "devicePath")}};
    types["PodStatus"] = {{"conditions", MergeList("", "type")},
                          {"podIPs", MergeList("", "ip")},
                          {"hostIPs", MergeList("", "ip")},
                          {"resourceClaimStatuses", MergeList("", "name", true)}};
    types["Volume"] = {};
    top("Node", "NodeSpec", "NodeStatus");
    types["NodeSpec"] = {{"podCIDRs", PrimitiveSet()}};
    types["NodeStatus"] = {{"conditions", MergeList("", "type")},
                           {"addresses", MergeList("", "type")}};
    auto workload = [&](const std::string& name, bool retain_strategy) {
      top(name, name + "Spec", name + "Status");
      types[name + "Spec"]["template"] = Struct("PodTemplateSpec");
      if (retain_strategy) types[name + "Spec"]["strategy"] = RetainKeysStruct("");
      types[name + "Status"]["conditions"] = MergeList("", "type");
    };
    workload("Deployment", true);
    workload("ReplicaSet", false);
    workload("StatefulSet", false);
    workload("DaemonSet", false);
    workload("Job", false);
    workload("ReplicationController", false);
    top("CronJob", "CronJobSpec", "");
    types["CronJobSpec"] = {{"jobTemplate", Struct("JobTemplateSpec")}};
    types["JobTemplateSpec"] = {{"metadata", Struct("ObjectMeta")}, {"spec", Struct("JobSpec")}};
    top("Service", "ServiceSpec", "ServiceStatus");
    types["ServiceSpec"] = {{"ports", MergeList("", "port")}};
    types["ServiceStatus"] = {{"conditions", MergeList("", "type")}};
    top("Namespace", "", "NamespaceStatus");
    types["NamespaceStatus"] = {{"conditions", MergeList("", "type")}};
    top("ServiceAccount", "", "");
    types["ServiceAccount"]["secrets"] = MergeList("", "name");
    top("PodDisruptionBudget", "", "PodDisruptionBudgetStatus");
    types["PodDisruptionBudgetStatus"] = {{"conditions", MergeList("", "type")}};
    for (const char* k : {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}) {
      top(k, "", "");
      types[k]["webhooks"] = MergeList("", "name");
    }
    for (const char* k :
         {"ConfigMap", "Secret", "Event", "Endpoints", "Lease", "PriorityClass", "Role",
          "ClusterRole", "RoleBinding", "ClusterRoleBinding", "CustomResourceDefinition", "Binding",
          "Eviction", "Scale", "PersistentVolumeClaim", "PersistentVolume", "StorageClass",
          "LimitRange", "ResourceQuota"}) {
      top(k, "", "");
    }
    return m;
  }();
  return *t;
}

const FieldMeta* Lookup(std::string_view type, std::string_view field) {
  const auto& types = Types();
  auto it = types.find(type);
  if (it == types.end()) return nullptr;
  auto f = it->second.find(std::string(field));
  return f == it->second.end() ? nullptr : &f->second;
}

Status SmpBadRequest(const std::string& msg) { return kube::NewBadRequest(msg); }

bool IsDirectiveKey(std::string_view k) {
  return k == "$patch" || k == "$retainKeys" || k.rfind("$setElementOrder/", 0) == 0 ||
         k.rfind("$deleteFromPrimitiveList/", 0) == 0;
}

// Removes every directive from a value about to be stored as-is (e.g. a new map).
void StripDirectives(Json& v, JsonAlloc& a) {
  if (v.IsObject()) {
    for (auto it = v.MemberBegin(); it != v.MemberEnd();) {
      if (IsDirectiveKey(View(it->name))) {
        it = v.EraseMember(it);
      } else {
        StripDirectives(it->value, a);
        ++it;
      }
    }
  } else if (v.IsArray()) {
    for (auto it = v.Begin(); it != v.End();) {
      if (it->IsObject() && Member(*it, "$patch") != nullptr) {
        it = v.Erase(it);
      } else {
        StripDirectives(*it, a);
        ++it;
      }
    }
  }
}

Status MergeMap(Json& original, const Json& patch, std::string_view type, JsonAlloc& a);

Status MergeList(Json& original, const Json& patch, const FieldMeta& meta, JsonAlloc& a) {
  // A {"$patch": "replace"} element replaces the whole list.
  for (const Json& e : patch.GetArray()) {
    if (e.IsObject() && GetStr(e, {"$patch"}) == "replace") {
      Json out(rapidjson::kArrayType);
      for (const Json& x : patch.GetArray()) {
        if (x.IsObject() && Member(x, "$patch") != nullptr) continue;
        Json c(x, a);
        StripDirectives(c, a);
        out.PushBack(c, a);
      }
      original = out;
      return Status::OK();
    }
  }
  if (!meta.merge) {
    Json c(patch, a);
    StripDirectives(c, a);
    original = c;
    return Status::OK();
  }
  if (!original.IsArray()) original.SetArray();
  if (meta.merge_key.empty()) {
    // Primitive set: union, keeping original order.
    for (const Json& e : patch.GetArray()) {
      bool found = false;
      for (const Json& o : original.GetArray()) {
        if (o == e) found = true;
      }
      if (!found) original.PushBack(Json(e, a), a);
    }
    return Status::OK();
  }
  for (const Json& e : patch.GetArray()) {
    if (!e.IsObject()) {
      return SmpBadRequest("unable to find api field in struct for the merge key \"" +
                           meta.merge_key + "\" in a list of primitives");
    }
    const Json* key = Member(e, meta.merge_key);
    if (key == nullptr) {
      return SmpBadRequest("map: " + Serialize(e) +
                           " does not contain declared merge key: " + meta.merge_key);
    }
    const std::string directive = GetStr(e, {"$patch"});
    auto match = original.Begin();
    for (; match != original.End(); ++match) {
      const Json* ok = Member(*match, meta.merge_key);
      if (ok != nullptr && *ok == *key) break;
    }
    if (directive == "delete") {
      if (match != original.End()) original.Erase(match);
      continue;
    }
    if (match != original.End()) {
      KAI_RETURN_IF_ERROR(MergeMap(*match, e, meta.type, a));
    } else {
      Json fresh(rapidjson::kObjectType);
      KAI_RETURN_IF_ERROR(MergeMap(fresh, e, meta.type, a));
      original.PushBack(fresh, a);
    }
  }
  return Status::OK();
}

// Orders `list` by `order` (a $setElementOrder list): listed elements first in that order,
// then the rest in their current order.
void ApplyElementOrder(Json& list, const Json& order, const std::string& merge_key, JsonAlloc& a) {
  if (!list.IsArray() || !order.IsArray()) return;
  Json out(rapidjson::kArrayType);
  std::vector<bool> used(list.Size(), false);
  for (const Json& o : order.GetArray()) {
    for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
      if (used[i]) continue;
      const Json& e = list[i];
      bool eq = false;
      if (merge_key.empty()) {
        eq = e == o;
      } else {
        const Json* k1 = Member(e, merge_key);
        const Json* k2 = Member(o, merge_key);
        eq = k1 != nullptr && k2 != nullptr && *k1 == *k2;
      }
      if (eq) {
        used[i] = true;
        out.PushBack(Json(e, a), a);
        break;
      }
    }
  }
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    if (!used[i]) out.PushBack(Json(list[i], a), a);
  }
  list = out;
}

Status MergeMap(Json& original, const Json& patch, std::string_view type, JsonAlloc& a) {
  if (!original.IsObject()) original.SetObject();
  const std::string directive = GetStr(patch, {"$patch"});
  if (directive == "replace") {
    Json c(patch, a);
    StripDirectives(c, a);
    original = c;
    return Status::OK();
  }
  if (directive == "delete") {
    original.SetObject();
    return Status::OK();
  }
  if (!directive.empty()) {
    return SmpBadRequest("Unknown patch type: " + directive + " in map: " + Serialize(patch));
  }
  if (const Json* rk = Member(patch, "$retainKeys"); rk != nullptr) {
    if (!rk->IsArray()) {
      return SmpBadRequest("invalid patch format for $retainKeys: must be a list");
    }
    for (auto it = original.MemberBegin(); it != original.MemberEnd();) {
      bool keep = false;
      for (const Json& k : rk->GetArray()) {
        if (View(k) == View(it->name)) keep = true;
      }
      if (keep) {
        ++it;
      } else {
        it = original.EraseMember(it);
      }
    }
  }
  std::vector<std::pair<std::string, const Json*>> orders;
  for (auto it = patch.MemberBegin(); it != patch.MemberEnd(); ++it) {
    const std::string_view k = View(it->name);
    if (k.rfind("$deleteFromPrimitiveList/", 0) == 0) {
      const std::string field(k.substr(25));
      Json* list = Member(original, field);
      if (!it->value.IsArray()) {
        return SmpBadRequest("invalid patch format for $deleteFromPrimitiveList: must be a list");
      }
      if (list != nullptr && list->IsArray()) {
        for (auto li = list->Begin(); li != list->End();) {
          bool del = false;
          for (const Json& d : it->value.GetArray()) {
            if (*li == d) del = true;
          }
          if (del) {
            li = list->Erase(li);
          } else {
            ++li;
          }
        }
      }
    } else if (k.rfind("$setElementOrder/", 0) == 0) {
      orders.emplace_back(std::string(k.substr(17)), &it->value);
    }
  }
  for (auto it = patch.MemberBegin(); it != patch.MemberEnd(); ++it) {
    const std::string_view k = View(it->name);
    if (IsDirectiveKey(k)) continue;
    const Json& pv = it->value;
    Json* ov = Member(original, k);
    if (pv.IsNull()) {
      RemoveMember(original, k);
      continue;
    }
    const FieldMeta* meta = Lookup(type, k);
    if (pv.IsObject()) {
      if (ov == nullptr || !ov->IsObject()) {
        if (ov == nullptr) {
          original.AddMember(Str(k, a), Json(rapidjson::kObjectType), a);
          ov = Member(original, k);
        } else {
          ov->SetObject();
        }
      }
      KAI_RETURN_IF_ERROR(MergeMap(*ov, pv, meta ? std::string_view(meta->type) : "", a));
      if (GetStr(pv, {"$patch"}) == "delete") RemoveMember(original, k);
      continue;
    }
    if (pv.IsArray()) {
      if (ov == nullptr) {
        original.AddMember(Str(k, a), Json(rapidjson::kArrayType), a);
        ov = Member(original, k);
      }
      FieldMeta none;
      KAI_RETURN_IF_ERROR(MergeList(*ov, pv, meta ? *meta : none, a));
      continue;
    }
    Json c(pv, a);
    if (ov != nullptr) {
      *ov = c;
    } else {
      original.AddMember(Str(k, a), c, a);
    }
  }
  for (const auto& [field, order] : orders) {
    Json* list = Member(original, field);
    if (list == nullptr) continue;
    const FieldMeta* meta = Lookup(type, field);
    ApplyElementOrder(*list, *order, meta ? meta->merge_key : "", a);
  }
  return Status::OK();
}

// ---- RFC 6901 pointers and RFC 6902 operations

Status Unprocessable(const std::string& msg) {
  Status out(StatusCode::kInvalidArgument, msg);
  out.SetHttpCode(422).SetReason("Invalid");
  return out;
}

StatusOr<std::vector<std::string>> ParsePointer(std::string_view p) {
  std::vector<std::string> out;
  if (p.empty()) return out;
  if (p[0] != '/')
    return kube::NewBadRequest("JSON pointer must start with '/': " + std::string(p));
  size_t start = 1;
  while (true) {
    size_t slash = p.find('/', start);
    std::string tok(p.substr(start, slash == std::string_view::npos ? p.npos : slash - start));
    std::string un;
    for (size_t i = 0; i < tok.size(); ++i) {
      if (tok[i] == '~' && i + 1 < tok.size() && tok[i + 1] == '0') {
        un += '~';
        ++i;
      } else if (tok[i] == '~' && i + 1 < tok.size() && tok[i + 1] == '1') {
        un += '/';
        ++i;
      } else {
        un += tok[i];
      }
    }
    out.push_back(un);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

bool ParseIndex(const std::string& s, size_t* out) {
  if (s.empty() || s.size() > 9) return false;
  if (s.size() > 1 && s[0] == '0') return false;
  size_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  *out = v;
  return true;
}

Json* Resolve(Json& root, const std::vector<std::string>& path, size_t n) {
  Json* cur = &root;
  for (size_t i = 0; i < n; ++i) {
    if (cur->IsObject()) {
      cur = Member(*cur, path[i]);
    } else if (cur->IsArray()) {
      size_t idx = 0;
      if (!ParseIndex(path[i], &idx) || idx >= cur->Size()) return nullptr;
      cur = &(*cur)[static_cast<rapidjson::SizeType>(idx)];
    } else {
      return nullptr;
    }
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

std::string JoinPointer(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) out += "/" + p;
  return out;
}

Status AddAt(Json& root, const std::vector<std::string>& path, Json value, JsonAlloc& a,
             std::string_view op) {
  if (path.empty()) {
    root = value;
    return Status::OK();
  }
  Json* parent = Resolve(root, path, path.size() - 1);
  if (parent == nullptr) {
    return Unprocessable(std::string(op) + " operation does not apply: doc is missing path: \"" +
                         JoinPointer(path) + "\": missing value");
  }
  const std::string& last = path.back();
  if (parent->IsObject()) {
    SetMember(*parent, last, std::move(value), a);
    return Status::OK();
  }
  if (parent->IsArray()) {
    size_t idx = 0;
    if (last == "-") {
      parent->PushBack(value, a);
      return Status::OK();
    }
    if (!ParseIndex(last, &idx) || idx > parent->Size()) {
      return Unprocessable(std::string(op) + " operation does not apply: doc is missing path: \"" +
                           JoinPointer(path) + "\": missing value");
    }
    parent->PushBack(Json(), a);
    for (size_t i = parent->Size() - 1; i > idx; --i) {
      (*parent)[static_cast<rapidjson::SizeType>(i)] =
          (*parent)[static_cast<rapidjson::SizeType>(i - 1)];
    }
    (*parent)[static_cast<rapidjson::SizeType>(idx)] = value;
    return Status::OK();
  }
  return Unprocessable(std::string(op) + " operation does not apply: doc is missing path: \"" +
                       JoinPointer(path) + "\": missing value");
}

StatusOr<JsonDoc> RemoveAt(Json& root, const std::vector<std::string>& path, std::string_view op) {
  auto missing = [&]() {
    return Unprocessable(std::string(op) + " operation does not apply: doc is missing path: \"" +
                         JoinPointer(path) + "\": missing value");
  };
  if (path.empty()) return missing();
  Json* parent = Resolve(root, path, path.size() - 1);
  if (parent == nullptr) return missing();
  JsonDoc removed;
  if (parent->IsObject()) {
    Json* v = Member(*parent, path.back());
    if (v == nullptr) return missing();
    removed.CopyFrom(*v, removed.GetAllocator());
    RemoveMember(*parent, path.back());
    return removed;
  }
  if (parent->IsArray()) {
    size_t idx = 0;
    if (!ParseIndex(path.back(), &idx) || idx >= parent->Size()) return missing();
    removed.CopyFrom((*parent)[static_cast<rapidjson::SizeType>(idx)], removed.GetAllocator());
    parent->Erase(parent->Begin() + idx);
    return removed;
  }
  return missing();
}

}  // namespace

Status ApplyMergePatch(Json& target, const Json& patch, JsonAlloc& a) {
  if (!patch.IsObject()) {
    target.CopyFrom(patch, a);
    return Status::OK();
  }
  if (!target.IsObject()) target.SetObject();
  for (auto it = patch.MemberBegin(); it != patch.MemberEnd(); ++it) {
    const std::string_view k = View(it->name);
    if (it->value.IsNull()) {
      RemoveMember(target, k);
      continue;
    }
    Json* cur = Member(target, k);
    if (cur == nullptr) {
      target.AddMember(Str(k, a), Json(), a);
      cur = Member(target, k);
    }
    KAI_RETURN_IF_ERROR(ApplyMergePatch(*cur, it->value, a));
  }
  return Status::OK();
}

Status ApplyJsonPatch(Json& target, const Json& patch, JsonAlloc& a) {
  if (!patch.IsArray()) return kube::NewBadRequest("a JSON patch must be an array of operations");
  for (const Json& op : patch.GetArray()) {
    if (!op.IsObject()) return kube::NewBadRequest("a JSON patch operation must be an object");
    const std::string name = GetStr(op, {"op"});
    const Json* path_v = Member(op, "path");
    if (path_v == nullptr || !path_v->IsString()) {
      return kube::NewBadRequest("Unable to apply patch: operation missing path: " + Serialize(op));
    }
    KAI_ASSIGN_OR_RETURN(std::vector<std::string> path, ParsePointer(View(*path_v)));
    const Json* value = Member(op, "value");
    if (name == "add" || name == "replace" || name == "test") {
      if (value == nullptr) {
        return kube::NewBadRequest("Unable to apply patch: " + name + " operation, missing value");
      }
    }
    if (name == "add") {
      KAI_RETURN_IF_ERROR(AddAt(target, path, Json(*value, a), a, "add"));
    } else if (name == "remove") {
      KAI_RETURN_IF_ERROR(RemoveAt(target, path, "remove").status());
    } else if (name == "replace") {
      Json* cur = Resolve(target, path, path.size());
      if (cur == nullptr) {
        return Unprocessable("replace operation does not apply: doc is missing key: " +
                             JoinPointer(path) + ": missing value");
      }
      cur->CopyFrom(*value, a);
    } else if (name == "test") {
      Json* cur = Resolve(target, path, path.size());
      if (cur == nullptr || !(*cur == *value)) {
        return Unprocessable("testing value " + JoinPointer(path) + " failed: test failed");
      }
    } else if (name == "move" || name == "copy") {
      const std::string from_s = GetStr(op, {"from"});
      KAI_ASSIGN_OR_RETURN(std::vector<std::string> from, ParsePointer(from_s));
      JsonDoc moved;
      if (name == "move") {
        KAI_ASSIGN_OR_RETURN(moved, RemoveAt(target, from, "move"));
      } else {
        Json* src = Resolve(target, from, from.size());
        if (src == nullptr) {
          return Unprocessable("copy operation does not apply: doc is missing from path: " +
                               from_s + ": missing value");
        }
        moved.CopyFrom(*src, moved.GetAllocator());
      }
      KAI_RETURN_IF_ERROR(AddAt(target, path, Json(moved, a), a, name));
    } else {
      return kube::NewBadRequest("Unable to apply patch: Unexpected kind: " + name);
    }
  }
  return Status::OK();
}

Status ApplyStrategicMergePatch(Json& target, const Json& patch, std::string_view smp_type,
                                JsonAlloc& a) {
  if (!patch.IsObject()) return kube::NewBadRequest("strategic merge patch must be a JSON object");
  return MergeMap(target, patch, smp_type, a);
}

std::string SmpFieldType(std::string_view type, std::string_view field) {
  const FieldMeta* m = Lookup(type, field);
  return m ? m->type : "";
}

ListStrategy SmpListStrategy(std::string_view type, std::string_view field) {
  ListStrategy s;
  const FieldMeta* m = Lookup(type, field);
  if (m == nullptr || !m->list) return s;
  s.merge = m->merge;
  s.retain_keys = m->retain_keys;
  s.merge_key = m->merge_key;
  if (m->merge && !m->merge_key.empty()) {
    s.map_list = true;
    s.keys = {m->merge_key};
    if (m->merge_key == "containerPort") s.keys = {"containerPort", "protocol"};
    if (m->merge_key == "port" && field == "ports") s.keys = {"port", "protocol"};
  }
  return s;
}

std::string SmpElemType(std::string_view type, std::string_view field) {
  return SmpFieldType(type, field);
}

}  // namespace kai::localkube
