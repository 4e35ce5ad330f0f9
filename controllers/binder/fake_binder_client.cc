#include "controllers/binder/fake_binder_client.h"

#include <rapidjson/document.h>

#include <set>

#include "api/rapidjson_util.h"
#include "api/well_known.h"

namespace kai::binder {

namespace {

void MergeInto(rapidjson::Value* target, const rapidjson::Value& patch,
               rapidjson::Document::AllocatorType& a) {
  if (!patch.IsObject()) {
    target->CopyFrom(patch, a);
    return;
  }
  if (!target->IsObject()) target->SetObject();
  for (auto m = patch.MemberBegin(); m != patch.MemberEnd(); ++m) {
    if (m->value.IsNull()) {
      target->RemoveMember(m->name);
      continue;
    }
    auto t = target->FindMember(m->name);
    if (t == target->MemberEnd()) {
      rapidjson::Value name(m->name, a);
      rapidjson::Value v;
      MergeInto(&v, m->value, a);
      target->AddMember(name, v, a);
    } else {
      MergeInto(&t->value, m->value, a);
    }
  }
}

Status NotFound(const std::string& resource, const std::string& name) {
  return NotFoundError(resource + " \"" + name + "\" not found")
      .SetReason("NotFound")
      .SetHttpCode(404);
}

std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

template <class T>
Status MergePatchObject(T* obj, std::string_view patch) {
  KAI_ASSIGN_OR_RETURN(std::string merged, ApplyMergePatch(api::EncodeJson(*obj), patch));
  T out;
  KAI_RETURN_IF_ERROR(api::DecodeJson(merged, &out));
  *obj = std::move(out);
  return Status::OK();
}

}  // namespace

StatusOr<std::string> ApplyMergePatch(std::string_view doc, std::string_view patch) {
  rapidjson::Document d, p;
  KAI_RETURN_IF_ERROR(api::ParseJson(doc, &d));
  KAI_RETURN_IF_ERROR(api::ParseJson(patch, &p));
  MergeInto(&d, p, d.GetAllocator());
  return api::ToJsonString(d);
}

template <class T>
void FakeBinderClient::Stamp(T* obj, bool created) {
  obj->metadata.resource_version = std::to_string(++rv_);
  if (created) {
    if (obj->metadata.uid.empty()) obj->metadata.uid = "uid-" + std::to_string(++uid_);
    if (!obj->metadata.creation_timestamp) obj->metadata.creation_timestamp = clock_->Now();
  }
}

void FakeBinderClient::AddPod(api::Pod pod) {
  Stamp(&pod, true);
  pods[Key(pod.metadata.namespace_, pod.metadata.name)] = std::move(pod);
}
void FakeBinderClient::AddNode(api::Node node) {
  Stamp(&node, true);
  nodes[node.metadata.name] = std::move(node);
}
void FakeBinderClient::AddBindRequest(api::BindRequest br) {
  Stamp(&br, true);
  bind_requests[Key(br.metadata.namespace_, br.metadata.name)] = std::move(br);
}
void FakeBinderClient::AddConfigMap(api::ConfigMap cm) {
  Stamp(&cm, true);
  config_maps[Key(cm.metadata.namespace_, cm.metadata.name)] = std::move(cm);
}

int FakeBinderClient::ReportReservedGpus(const std::string& ns) {
  std::map<std::string, std::set<std::string>> used;  // node -> gpu ids
  for (const auto& [k, p] : pods) {
    auto it = p.metadata.annotations.find(std::string(api::kReserveForGpuIndexAnnotation));
    if (p.metadata.namespace_ == ns && it != p.metadata.annotations.end()) {
      used[p.spec.node_name].insert(it->second);
    }
  }
  int n = 0;
  for (auto& [k, p] : pods) {
    if (p.metadata.namespace_ != ns || p.metadata.deletion_timestamp) continue;
    std::string key(api::kReserveForGpuIndexAnnotation);
    if (p.metadata.annotations.count(key) > 0) continue;
    for (int i = 0;; ++i) {
      std::string id = "GPU-" + p.spec.node_name + "-" + std::to_string(i);
      if (used[p.spec.node_name].insert(id).second) {
        p.metadata.annotations[key] = id;
        break;
      }
    }
    p.status.phase = "Running";
    Stamp(&p, false);
    ++n;
  }
  return n;
}

Status FakeBinderClient::ReadFailure(const std::string& verb) const {
  auto it = read_failures_.find(verb);
  return it == read_failures_.end() ? Status::OK() : it->second;
}

Status FakeBinderClient::Write(const std::string& verb, const std::string& key, std::string body,
                               const std::function<Status()>& write) {
  ++write_attempts_;
  if (before_write) before_write(verb);
  auto it = failures_.find(verb);
  std::optional<Failure> failure;
  if (it != failures_.end() && !it->second.empty()) {
    failure = std::move(it->second.front());
    it->second.pop_front();
  } else if (auto n = numbered_failures_.find(write_attempts_); n != numbered_failures_.end()) {
    failure = std::move(n->second);
    numbered_failures_.erase(n);
  }
  if (failure && failure->when == When::kBefore) return failure->status;
  Status s = write();
  if (s.ok()) calls.push_back(Call{verb, key, std::move(body)});
  if (failure) return failure->status;
  return s;
}

std::vector<FakeBinderClient::Call> FakeBinderClient::CallsOf(const std::string& verb) const {
  std::vector<Call> out;
  for (const auto& c : calls) {
    if (c.verb == verb) out.push_back(c);
  }
  return out;
}

StatusOr<api::BindRequest> FakeBinderClient::GetBindRequest(const std::string& ns,
                                                            const std::string& name) {
  KAI_RETURN_IF_ERROR(ReadFailure("GetBindRequest"));
  auto it = bind_requests.find(Key(ns, name));
  if (it == bind_requests.end()) return NotFound("bindrequests.scheduling.run.ai", name);
  return it->second;
}

StatusOr<std::vector<api::BindRequest>> FakeBinderClient::ListBindRequests() {
  KAI_RETURN_IF_ERROR(ReadFailure("ListBindRequests"));
  std::vector<api::BindRequest> out;
  for (const auto& [k, br] : bind_requests) out.push_back(br);
  return out;
}

StatusOr<api::Pod> FakeBinderClient::GetPod(const std::string& ns, const std::string& name,
                                            bool fresh) {
  KAI_RETURN_IF_ERROR(ReadFailure("GetPod"));
  auto it = pods.find(Key(ns, name));
  if (it == pods.end()) return NotFound("pods", name);
  return it->second;
}

StatusOr<std::vector<api::Pod>> FakeBinderClient::ListPods(const PodQuery& q) {
  KAI_RETURN_IF_ERROR(ReadFailure("ListPods"));
  std::vector<api::Pod> out;
  for (const auto& [k, p] : pods) {
    if (!q.namespace_.empty() && p.metadata.namespace_ != q.namespace_) continue;
    if (!q.node_name.empty() && p.spec.node_name != q.node_name) continue;
    bool ok = true;
    for (const auto& [lk, lv] : q.labels) {
      auto it = p.metadata.labels.find(lk);
      if (it == p.metadata.labels.end() || it->second != lv) ok = false;
    }
    for (const auto& lk : q.has_labels) {
      if (p.metadata.labels.count(lk) == 0) ok = false;
    }
    if (ok) out.push_back(p);
  }
  return out;
}

StatusOr<api::Node> FakeBinderClient::GetNode(const std::string& name) {
  KAI_RETURN_IF_ERROR(ReadFailure("GetNode"));
  auto it = nodes.find(name);
  if (it == nodes.end()) return NotFound("nodes", name);
  return it->second;
}

StatusOr<api::ConfigMap> FakeBinderClient::GetConfigMap(const std::string& ns,
                                                        const std::string& name) {
  KAI_RETURN_IF_ERROR(ReadFailure("GetConfigMap"));
  auto it = config_maps.find(Key(ns, name));
  if (it == config_maps.end()) return NotFound("configmaps", name);
  return it->second;
}

StatusOr<api::Pod> FakeBinderClient::CreatePod(const api::Pod& pod) {
  std::string key = Key(pod.metadata.namespace_, pod.metadata.name);
  api::Pod created = pod;
  Status s = Write("CreatePod", key, api::EncodeJson(pod), [&]() -> Status {
    if (pods.count(key) > 0) {
      return AlreadyExistsError("pods \"" + pod.metadata.name + "\" already exists")
          .SetReason("AlreadyExists")
          .SetHttpCode(409);
    }
    Stamp(&created, true);
    if (created.status.phase.empty()) created.status.phase = "Pending";
    pods[key] = created;
    return Status::OK();
  });
  if (!s.ok()) return s;
  return created;
}

Status FakeBinderClient::DeletePod(const std::string& ns, const std::string& name,
                                   std::optional<int64_t> grace) {
  std::string key = Key(ns, name);
  return Write("DeletePod", key, "", [&]() -> Status {
    if (pods.erase(key) == 0) return NotFound("pods", name);
    return Status::OK();
  });
}

Status FakeBinderClient::MergePatchPod(const std::string& ns, const std::string& name,
                                       std::string_view patch) {
  std::string key = Key(ns, name);
  return Write("MergePatchPod", key, std::string(patch), [&]() -> Status {
    auto it = pods.find(key);
    if (it == pods.end()) return NotFound("pods", name);
    KAI_RETURN_IF_ERROR(MergePatchObject(&it->second, patch));
    Stamp(&it->second, false);
    return Status::OK();
  });
}

Status FakeBinderClient::PatchPodStatus(const std::string& ns, const std::string& name,
                                        std::string_view patch) {
  std::string key = Key(ns, name);
  return Write("PatchPodStatus", key, std::string(patch), [&]() -> Status {
    auto it = pods.find(key);
    if (it == pods.end()) return NotFound("pods", name);
    // Strategic merge of status.conditions: merged by type.
    api::Pod shaped;
    std::string doc =
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"," + std::string(patch.substr(1, patch.size() - 1));
    KAI_RETURN_IF_ERROR(api::DecodeJson(doc, &shaped));
    if (!shaped.metadata.uid.empty() && shaped.metadata.uid != it->second.metadata.uid) {
      return InvalidArgumentError("Pod \"" + name +
                                  "\" is invalid: metadata.uid: field is immutable")
          .SetReason("Invalid")
          .SetHttpCode(422);
    }
    for (const auto& c : shaped.status.conditions) {
      bool found = false;
      for (auto& existing : it->second.status.conditions) {
        if (existing.type == c.type) {
          existing = c;
          found = true;
        }
      }
      if (!found) it->second.status.conditions.push_back(c);
    }
    Stamp(&it->second, false);
    return Status::OK();
  });
}

Status FakeBinderClient::CreateBinding(const std::string& ns, const std::string& pod_name,
                                       const std::string& pod_uid, const std::string& node,
                                       const std::map<std::string, std::string>& annotations) {
  std::string key = Key(ns, pod_name);
  return Write("CreateBinding", key, node, [&]() -> Status {
    auto it = pods.find(key);
    if (it == pods.end()) return NotFound("pods", pod_name);
    if (!pod_uid.empty() && it->second.metadata.uid != pod_uid) {
      return AbortedError("Precondition failed: UID in precondition: " + pod_uid)
          .SetReason("Conflict")
          .SetHttpCode(409);
    }
    if (!it->second.spec.node_name.empty()) {
      return AbortedError("pod " + pod_name + " is already assigned to node \"" +
                          it->second.spec.node_name + "\"")
          .SetReason("Conflict")
          .SetHttpCode(409);
    }
    it->second.spec.node_name = node;
    for (const auto& [k, v] : annotations) it->second.metadata.annotations[k] = v;
    Stamp(&it->second, false);
    bindings[key]++;
    return Status::OK();
  });
}

Status FakeBinderClient::CreateConfigMap(const api::ConfigMap& cm) {
  std::string key = Key(cm.metadata.namespace_, cm.metadata.name);
  return Write("CreateConfigMap", key, api::EncodeJson(cm), [&]() -> Status {
    if (config_maps.count(key) > 0) {
      return AlreadyExistsError("configmaps \"" + cm.metadata.name + "\" already exists")
          .SetReason("AlreadyExists")
          .SetHttpCode(409);
    }
    api::ConfigMap created = cm;
    Stamp(&created, true);
    config_maps[key] = created;
    return Status::OK();
  });
}

Status FakeBinderClient::MergePatchConfigMap(const std::string& ns, const std::string& name,
                                             std::string_view patch) {
  std::string key = Key(ns, name);
  return Write("MergePatchConfigMap", key, std::string(patch), [&]() -> Status {
    auto it = config_maps.find(key);
    if (it == config_maps.end()) return NotFound("configmaps", name);
    KAI_RETURN_IF_ERROR(MergePatchObject(&it->second, patch));
    Stamp(&it->second, false);
    return Status::OK();
  });
}

Status FakeBinderClient::DeleteConfigMap(const std::string& ns, const std::string& name) {
  std::string key = Key(ns, name);
  return Write("DeleteConfigMap", key, "", [&]() -> Status {
    if (config_maps.erase(key) == 0) return NotFound("configmaps", name);
    return Status::OK();
  });
}

Status FakeBinderClient::UpdateBindRequestStatus(const std::string& ns, const std::string& name,
                                                 const std::string& uid,
                                                 const api::BindRequestStatus& status) {
  std::string key = Key(ns, name);
  return Write("UpdateBindRequestStatus", key, BindRequestStatusJson(status), [&]() -> Status {
    auto it = bind_requests.find(key);
    if (it == bind_requests.end()) return NotFound("bindrequests.scheduling.run.ai", name);
    if (!uid.empty() && it->second.metadata.uid != uid) {
      return AbortedError("BindRequest " + key + " is now another one").SetReason("Conflict");
    }
    it->second.status = status;
    Stamp(&it->second, false);
    return Status::OK();
  });
}

Status FakeBinderClient::DeleteBindRequest(const std::string& ns, const std::string& name,
                                           const std::string& uid) {
  std::string key = Key(ns, name);
  return Write("DeleteBindRequest", key, uid, [&]() -> Status {
    auto it = bind_requests.find(key);
    if (it == bind_requests.end()) return NotFound("bindrequests.scheduling.run.ai", name);
    if (!uid.empty() && it->second.metadata.uid != uid) {
      return AbortedError("Operation cannot be fulfilled on bindrequests.scheduling.run.ai \"" +
                          name + "\": Precondition failed: UID in precondition: " + uid +
                          ", UID in object meta: " + it->second.metadata.uid)
          .SetReason("Conflict")
          .SetHttpCode(409);
    }
    bind_requests.erase(it);
    return Status::OK();
  });
}

}  // namespace kai::binder
