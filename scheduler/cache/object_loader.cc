#include "scheduler/cache/object_loader.h"

#include "api/codec_internal.h"
#include "api/pod_resources.h"
#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/strings.h"
#include "scheduler/api/amount_bounds.h"
#include "scheduler/cache/object_loader_json.h"

// The objects are decoded by the api codec the other components use (api::DecodeValue), so a
// snapshot, a watch event and a kubectl-applied object are read by the same rules. This file adds
// only what the scheduler derives from them: effective pod requests and node resources in
// scheduler units, the default namespace of a snapshot object written without one, and error
// messages that name the document.

namespace kai::scheduler {

namespace {

using rapidjson::Value;

// "cpu" in millicores, everything else in base units, rounded up as Kubernetes'
// MilliValue() / Value() do, then clamped (amount_bounds.h).
ResourceAmounts ToAmounts(const api::ResourceList& list,
                          double (*clamp)(std::string_view, double)) {
  ResourceAmounts out;
  for (const auto& [name, q] : list) {
    out[name] = clamp(name, static_cast<double>(name == "cpu" ? q.MilliValue() : q.Value()));
  }
  return out;
}

const Value* Path(const Value& root, std::initializer_list<const char*> keys) {
  const Value* v = &root;
  for (const char* k : keys) {
    if (!v->IsObject()) return nullptr;
    v = api::FindMember(*v, k);
    if (v == nullptr) return nullptr;
  }
  return v;
}

// The api codec's error already names the object ("Pod ns/p: spec...: ..."); prefix the document.
template <typename T>
StatusOr<std::shared_ptr<T>> DecodeObject(const Value& doc, const std::string& doc_where) {
  auto obj = std::make_shared<T>();
  Status s = api::DecodeValue(doc, obj.get());
  if (!s.ok()) return InvalidArgumentError(doc_where + ": " + std::string(s.message()));
  // Snapshots written by hand often leave the namespace out; the API server would default it.
  if constexpr (T::kTypeInfo.namespaced) {
    if (obj->metadata.namespace_.empty()) obj->metadata.namespace_ = "default";
  }
  return obj;
}

std::string ObjectName(const Value& doc, std::string_view kind) {
  std::string name, ns;
  if (const Value* n = Path(doc, {"metadata", "name"}); n && n->IsString()) name = n->GetString();
  if (const Value* n = Path(doc, {"metadata", "namespace"}); n && n->IsString()) {
    ns = n->GetString();
  }
  if (name.empty()) name = "<unnamed>";
  return std::string(kind) + " " + (ns.empty() ? name : ns + "/" + name);
}

template <typename T>
Status AddTyped(const Value& doc, const std::string& doc_where,
                std::vector<std::shared_ptr<const T>>* out) {
  KAI_ASSIGN_OR_RETURN(std::shared_ptr<T> obj, DecodeObject<T>(doc, doc_where));
  out->push_back(std::move(obj));
  return Status::OK();
}

}  // namespace

Status AddObjectValue(const Value& doc, const std::string& doc_where, LoadedObjects* out) {
  if (!doc.IsObject()) return InvalidArgumentError(doc_where + ": expected an object");
  const Value* kind_v = api::FindMember(doc, "kind");
  if (kind_v == nullptr || !kind_v->IsString()) {
    return InvalidArgumentError(doc_where + ": missing kind");
  }
  std::string kind = kind_v->GetString();
  if (kind == "List" || kind.ends_with("List")) {
    const Value* items = api::FindMember(doc, "items");
    if (items == nullptr) return Status::OK();
    if (!items->IsArray()) return InvalidArgumentError(doc_where + ": items: expected a list");
    for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
      KAI_RETURN_IF_ERROR(
          AddObjectValue((*items)[i], doc_where + " items[" + std::to_string(i) + "]", out));
    }
    return Status::OK();
  }
  const Value* name = Path(doc, {"metadata", "name"});
  if (name == nullptr || !name->IsString() || std::string_view(name->GetString()).empty()) {
    return InvalidArgumentError(doc_where + ": " + ObjectName(doc, kind) +
                                ": metadata.name: required");
  }
  if (kind == "Pod") {
    KAI_ASSIGN_OR_RETURN(std::shared_ptr<api::Pod> pod, DecodeObject<api::Pod>(doc, doc_where));
    LoadedPod lp;
    lp.requests = ToAmounts(api::PodRequests(pod->spec), ClampPodAmount);
    lp.pod = std::move(pod);
    out->pods.push_back(std::move(lp));
  } else if (kind == "Node") {
    KAI_ASSIGN_OR_RETURN(std::shared_ptr<api::Node> node, DecodeObject<api::Node>(doc, doc_where));
    LoadedNode ln;
    ln.allocatable = ToAmounts(node->status.allocatable, ClampNodeAmount);
    ln.capacity = ToAmounts(node->status.capacity, ClampNodeAmount);
    ln.node = std::move(node);
    out->nodes.push_back(std::move(ln));
  } else if (kind == "PodGroup") {
    return AddTyped(doc, doc_where, &out->podgroups);
  } else if (kind == "Queue") {
    return AddTyped(doc, doc_where, &out->queues);
  } else if (kind == "PriorityClass") {
    return AddTyped(doc, doc_where, &out->priority_classes);
  } else if (kind == "Topology") {
    return AddTyped(doc, doc_where, &out->topologies);
  } else if (kind == "ConfigMap") {
    return AddTyped(doc, doc_where, &out->config_maps);
  } else if (kind == "BindRequest") {
    return AddTyped(doc, doc_where, &out->bind_requests);
  } else if (kind == "SchedulingShard") {
    return AddTyped(doc, doc_where, &out->shards);
  } else if (kind == "Config") {
    return AddTyped(doc, doc_where, &out->configs);
  } else {
    std::string api_version;
    if (const Value* av = api::FindMember(doc, "apiVersion"); av && av->IsString()) {
      api_version = av->GetString();
    }
    return InvalidArgumentError(doc_where + ": " + ObjectName(doc, kind) + ": unknown kind \"" +
                                kind + "\" (apiVersion \"" + api_version +
                                "\"); expected Node, Pod, PodGroup, Queue, PriorityClass, "
                                "SchedulingShard, Config, Topology, ConfigMap or BindRequest");
  }
  return Status::OK();
}

StatusOr<LoadedObjects> LoadObjectJson(std::string_view json) {
  return LoadObjectJson(json, "object");
}

StatusOr<LoadedObjects> LoadObjectJson(std::string_view json, const std::string& where) {
  LoadedObjects out;
  auto doc = api::ParseJsonDocument(json);
  if (!doc.ok()) return doc.status().WithPrefix(where);
  KAI_RETURN_IF_ERROR(AddObjectValue(*doc, where, &out));
  return out;
}

StatusOr<LoadedObjects> LoadObjects(std::string_view text) {
  // A JSON document (kubectl get -o json) skips the YAML reader, which costs ten times the
  // decode. Text that only starts like JSON (a YAML flow mapping, several documents) goes on.
  Status json_error;
  if (std::string_view t = StripWhitespace(text); !t.empty() && t.front() == '{') {
    auto doc = api::ParseJsonDocument(t);
    if (doc.ok()) {
      LoadedObjects out;
      KAI_RETURN_IF_ERROR(AddObjectValue(*doc, "document 1", &out));
      return out;
    }
    json_error = doc.status();
  }
  StatusOr<std::vector<std::string>> yaml = api::YamlToJsonDocuments(text);
  if (!yaml.ok() && !json_error.ok()) {
    // Meant as JSON or as a YAML flow mapping: both readers' errors.
    constexpr std::string_view kYamlPrefix = "invalid YAML: ";  // said once is enough
    std::string_view as_yaml = yaml.status().message();
    if (as_yaml.starts_with(kYamlPrefix)) as_yaml.remove_prefix(kYamlPrefix.size());
    return InvalidArgumentError(std::string(json_error.message()) +
                                "; read as YAML: " + std::string(as_yaml));
  }
  KAI_ASSIGN_OR_RETURN(std::vector<std::string> docs, std::move(yaml));
  LoadedObjects out;
  for (size_t i = 0; i < docs.size(); ++i) {
    std::string where = "document " + std::to_string(i + 1);
    auto parsed = api::ParseJsonDocument(docs[i]);
    if (!parsed.ok()) {
      return InvalidArgumentError(where + ": " + std::string(parsed.status().message()));
    }
    if (parsed->IsNull()) continue;
    KAI_RETURN_IF_ERROR(AddObjectValue(*parsed, where, &out));
  }
  return out;
}

}  // namespace kai::scheduler
