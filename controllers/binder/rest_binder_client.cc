#include "controllers/binder/rest_binder_client.h"

#include <optional>

#include "kube/cache/factory.h"
#include "kube/cache/informer.h"
#include "kube/cache/typed.h"
#include "kube/rest/resource.h"

namespace kai::binder {

namespace {

const kube::GroupVersionResource& Pods() {
  static const auto* gvr = new kube::GroupVersionResource{"", "v1", "pods"};
  return *gvr;
}
const kube::GroupVersionResource& BindRequests() {
  static const auto* gvr = new kube::GroupVersionResource{kube::GvrOf<api::BindRequest>()};
  return *gvr;
}

template <class T>
StatusOr<std::vector<T>> DecodeItems(const kube::ObjectList& list) {
  std::vector<T> out;
  out.reserve(list.items.size());
  for (const auto& item : list.items) {
    KAI_ASSIGN_OR_RETURN(T obj, api::Decode<T>(item));
    out.push_back(std::move(obj));
  }
  return out;
}

// The store of `informer` when it is synced (a store still filling up would answer "not found"
// for objects that exist), else null.
const kube::Indexer* SyncedStore(const kube::SharedInformer* informer) {
  return informer != nullptr && informer->HasSynced() ? &informer->store() : nullptr;
}

template <class T>
std::optional<T> CachedGet(const kube::SharedInformer* informer, std::string_view ns,
                           std::string_view name) {
  const kube::Indexer* store = SyncedStore(informer);
  if (store == nullptr) return std::nullopt;
  kube::ObjectPtr obj = store->Get(kube::ObjectKey(ns, name));
  const T* typed = obj != nullptr ? obj->As<T>() : nullptr;
  if (typed == nullptr) return std::nullopt;
  return *typed;
}

// On the pod cache's scanned fields: no decode of the pods that do not match.
bool Matches(const kube::Object& p, const PodQuery& q) {
  if (!q.namespace_.empty() && p.namespace_() != q.namespace_) return false;
  if (!q.node_name.empty() && p.field(kPodCacheNodeName) != q.node_name) return false;
  for (const auto& [k, v] : q.labels) {
    const std::string* value = p.label(k);
    if (value == nullptr || *value != v) return false;
  }
  for (const auto& k : q.has_labels) {
    if (p.label(k) == nullptr) return false;
  }
  return true;
}

}  // namespace

StatusOr<kube::SharedInformer*> PodCacheInformer(kube::SharedInformerFactory* factory) {
  kube::SharedInformer* pods = factory->InformerFor(
      Pods(), kube::LazyTypedDecoder<api::Pod>(
                  {{"spec", "nodeName"}, {"spec", "schedulerName"}, {"status", "phase"}},
                  /*labels=*/true));
  KAI_RETURN_IF_ERROR(pods->AddIndex(kPodNodeNameIndex, [](const kube::Object& o) {
    std::string_view node = o.field(kPodCacheNodeName);
    return node.empty() ? std::vector<std::string>{} : std::vector<std::string>{std::string(node)};
  }));
  return pods;
}

kube::SharedInformer* BindRequestCacheInformer(kube::SharedInformerFactory* factory) {
  return factory->InformerFor(
      BindRequests(), kube::LazyTypedDecoder<api::BindRequest>({{"metadata", "generation"}}));
}

std::string LabelSelectorOf(const PodQuery& q) {
  std::string out;
  for (const auto& [k, v] : q.labels) {
    if (!out.empty()) out += ',';
    out += k;
    out += '=';
    out += v;
  }
  for (const auto& k : q.has_labels) out += (out.empty() ? "" : ",") + k;
  return out;
}

std::string FieldSelectorOf(const PodQuery& q) {
  return q.node_name.empty() ? "" : "spec.nodeName=" + q.node_name;
}

StatusOr<api::BindRequest> RestBinderClient::GetBindRequest(const std::string& ns,
                                                            const std::string& name) {
  if (auto cached = CachedGet<api::BindRequest>(caches_.bind_requests, ns, name)) return *cached;
  KAI_ASSIGN_OR_RETURN(std::string json, client_->Get(BindRequests(), ns, name));
  return api::Decode<api::BindRequest>(json);
}

StatusOr<std::vector<api::BindRequest>> RestBinderClient::ListBindRequests() {
  if (const kube::Indexer* store = SyncedStore(caches_.bind_requests)) {
    std::vector<api::BindRequest> out;
    for (const kube::ObjectPtr& obj : store->List()) {
      if (const auto* br = obj->As<api::BindRequest>()) out.push_back(*br);
    }
    return out;
  }
  KAI_ASSIGN_OR_RETURN(kube::ObjectList list, kube::ListAll(*client_, BindRequests(), ""));
  return DecodeItems<api::BindRequest>(list);
}

StatusOr<api::Pod> RestBinderClient::GetPod(const std::string& ns, const std::string& name,
                                            bool fresh) {
  if (!fresh) {
    if (auto cached = CachedGet<api::Pod>(caches_.pods, ns, name)) return *cached;
  }
  KAI_ASSIGN_OR_RETURN(std::string json, client_->Get(Pods(), ns, name));
  return api::Decode<api::Pod>(json);
}

StatusOr<std::vector<api::Pod>> RestBinderClient::ListPods(const PodQuery& q) {
  if (const kube::Indexer* store = SyncedStore(caches_.pods)) {
    std::vector<kube::ObjectPtr> candidates =
        !q.node_name.empty()    ? store->ByIndex(kPodNodeNameIndex, q.node_name)
        : !q.namespace_.empty() ? store->ByIndex(kube::kNamespaceIndex, q.namespace_)
                                : store->List();
    std::vector<api::Pod> out;
    for (const kube::ObjectPtr& obj : candidates) {
      if (!Matches(*obj, q)) continue;
      if (const auto* pod = obj->As<api::Pod>()) out.push_back(*pod);
    }
    return out;
  }
  kube::ListOptions o;
  o.label_selector = LabelSelectorOf(q);
  o.field_selector = FieldSelectorOf(q);
  KAI_ASSIGN_OR_RETURN(kube::ObjectList list, kube::ListAll(*client_, Pods(), q.namespace_, o));
  return DecodeItems<api::Pod>(list);
}

StatusOr<api::Node> RestBinderClient::GetNode(const std::string& name) {
  if (auto cached = CachedGet<api::Node>(caches_.nodes, "", name)) return *cached;
  KAI_ASSIGN_OR_RETURN(std::string json, client_->Get(kube::GvrOf<api::Node>(), "", name));
  return api::Decode<api::Node>(json);
}

StatusOr<api::ConfigMap> RestBinderClient::GetConfigMap(const std::string& ns,
                                                        const std::string& name) {
  KAI_ASSIGN_OR_RETURN(std::string json, client_->Get(kube::GvrOf<api::ConfigMap>(), ns, name));
  return api::Decode<api::ConfigMap>(json);
}

StatusOr<api::Pod> RestBinderClient::CreatePod(const api::Pod& pod) {
  KAI_ASSIGN_OR_RETURN(std::string json,
                       client_->Create(Pods(), pod.metadata.namespace_, api::EncodeJson(pod)));
  return api::Decode<api::Pod>(json);
}

Status RestBinderClient::DeletePod(const std::string& ns, const std::string& name,
                                   std::optional<int64_t> grace_period_seconds) {
  kube::DeleteOptions o;
  o.grace_period_seconds = grace_period_seconds;
  return client_->Delete(Pods(), ns, name, o).status();
}

Status RestBinderClient::MergePatchPod(const std::string& ns, const std::string& name,
                                       std::string_view patch) {
  return client_->Patch(Pods(), ns, name, kube::PatchType::kMerge, patch).status();
}

Status RestBinderClient::PatchPodStatus(const std::string& ns, const std::string& name,
                                        std::string_view patch) {
  kube::PatchOptions o;
  o.subresource = "status";
  return client_->Patch(Pods(), ns, name, kube::PatchType::kStrategicMerge, patch, o).status();
}

Status RestBinderClient::CreateBinding(const std::string& ns, const std::string& pod_name,
                                       const std::string& pod_uid, const std::string& node,
                                       const std::map<std::string, std::string>& annotations) {
  return client_->Bind(ns, pod_name, node, pod_uid, annotations);
}

Status RestBinderClient::CreateConfigMap(const api::ConfigMap& cm) {
  return client_->Create(kube::GvrOf<api::ConfigMap>(), cm.metadata.namespace_, api::EncodeJson(cm))
      .status();
}

Status RestBinderClient::MergePatchConfigMap(const std::string& ns, const std::string& name,
                                             std::string_view patch) {
  return client_->Patch(kube::GvrOf<api::ConfigMap>(), ns, name, kube::PatchType::kMerge, patch)
      .status();
}

Status RestBinderClient::DeleteConfigMap(const std::string& ns, const std::string& name) {
  return client_->Delete(kube::GvrOf<api::ConfigMap>(), ns, name).status();
}

Status RestBinderClient::UpdateBindRequestStatus(const std::string& ns, const std::string& name,
                                                 const std::string& uid,
                                                 const api::BindRequestStatus& status) {
  kube::PatchOptions o;
  o.subresource = "status";
  return kube::PatchJsonWithUid(
             *client_, BindRequests(), ns, name, uid,
             R"([{"op":"add","path":"/status","value":)" + BindRequestStatusJson(status) + "}]", o)
      .status();
}

Status RestBinderClient::DeleteBindRequest(const std::string& ns, const std::string& name,
                                           const std::string& uid) {
  kube::DeleteOptions o;
  o.precondition_uid = uid;
  return client_->Delete(BindRequests(), ns, name, o).status();
}

}  // namespace kai::binder
