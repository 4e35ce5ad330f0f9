#include "scheduler/app/debug_snapshot.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>

#include "api/rapidjson_util.h"
#include "kube/base/zip_writer.h"

namespace kai::scheduler {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Str(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void WriteConfiguration(Writer& w, const SchedulerConfiguration& conf) {
  w.StartObject();
  w.Key("actions");
  std::string actions;
  for (const auto& a : conf.actions) actions += (actions.empty() ? "" : ", ") + a;
  Str(w, actions);
  // The flat plugin list is one tier: tier boundaries do not change behaviour here.
  w.Key("tiers");
  w.StartArray();
  w.StartObject();
  w.Key("plugins");
  w.StartArray();
  for (const auto& p : conf.plugins) {
    w.StartObject();
    w.Key("name");
    Str(w, p.name);
    if (!p.arguments.empty()) {
      w.Key("arguments");
      w.StartObject();
      for (const auto& [k, v] : p.arguments) {
        Str(w, k);
        Str(w, v);
      }
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndArray();
  if (!conf.queue_depth_per_action.empty()) {
    w.Key("queueDepthPerAction");
    w.StartObject();
    for (const auto& [action, depth] : conf.queue_depth_per_action) {
      Str(w, action);
      w.Int(depth);
    }
    w.EndObject();
  }
  w.EndObject();
}

void WriteParams(Writer& w, const SchedulerParams& p) {
  auto ns = [](Duration d) {
    return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
  };
  w.StartObject();
  w.Key("schedulerName");
  Str(w, p.scheduler_name);
  w.Key("restrictSchedulingNodes");
  w.Bool(p.restrict_node_scheduling);
  w.Key("partitionParams");
  w.StartObject();
  w.Key("NodePoolLabelKey");
  Str(w, p.node_pool_label_key);
  w.Key("NodePoolLabelValue");
  Str(w, p.partition_label_value);
  w.EndObject();
  w.Key("maxNumberConsolidationPreemptees");
  w.Int(p.max_consolidation_preemptees);
  w.Key("useSchedulingSignatures");
  w.Bool(p.use_scheduling_signatures);
  w.Key("fullHierarchyFairness");
  w.Bool(p.full_hierarchy_fairness);
  w.Key("allowConsolidatingReclaim");
  w.Bool(p.allow_consolidating_reclaim);
  w.Key("globalDefaultStalenessGracePeriod");
  w.Int64(ns(p.default_staleness_grace_period));
  w.Key("schedulePeriod");
  w.Int64(ns(p.schedule_period));
  w.Key("detailedFitErrors");
  w.Bool(p.detailed_fit_errors);
  w.Key("updatePodEvictionCondition");
  w.Bool(p.update_pod_eviction_condition);
  w.Key("queueLabelKey");
  Str(w, p.queue_label_key);
  // Flags KAI keeps outside SchedulerParams; written so a replay sees the same labels.
  w.Key("resourceReservationAppLabel");
  Str(w, p.resource_reservation_app_label);
  w.Key("cpuWorkerNodeLabelKey");
  Str(w, p.cpu_worker_node_label_key);
  w.Key("gpuWorkerNodeLabelKey");
  Str(w, p.gpu_worker_node_label_key);
  w.Key("migWorkerNodeLabelKey");
  Str(w, p.mig_worker_node_label_key);
  w.EndObject();
}

// Writes one cached object with apiVersion and kind first (taken from the object when set).
Status WriteObject(Writer& w, const std::string& json, const RawObjectKind& kind, size_t index) {
  auto doc = api::ParseJsonDocument(json);
  if (!doc.ok() || !doc->IsObject()) {
    return InvalidArgumentError(std::string(kind.resource) + "[" + std::to_string(index) +
                                "]: cached object is not a JSON object");
  }
  const rapidjson::Value* av = api::FindMember(*doc, "apiVersion");
  const rapidjson::Value* k = api::FindMember(*doc, "kind");
  w.StartObject();
  w.Key("apiVersion");
  if (av != nullptr && av->IsString() && av->GetStringLength() > 0) {
    av->Accept(w);
  } else {
    w.String(kind.api_version);
  }
  w.Key("kind");
  if (k != nullptr && k->IsString() && k->GetStringLength() > 0) {
    k->Accept(w);
  } else {
    w.String(kind.kind);
  }
  for (auto m = doc->MemberBegin(); m != doc->MemberEnd(); ++m) {
    std::string_view name(m->name.GetString(), m->name.GetStringLength());
    if (name == "apiVersion" || name == "kind") continue;
    m->name.Accept(w);
    m->value.Accept(w);
  }
  w.EndObject();
  return Status::OK();
}

}  // namespace

const std::vector<RawObjectKind>& SnapshotRawObjectKinds() {
  static const auto* k = new std::vector<RawObjectKind>{
      {"pods", "pods", "v1", "Pod"},
      {"nodes", "nodes", "v1", "Node"},
      {"queues", "queues", "scheduling.run.ai/v2", "Queue"},
      {"podgroups", "podGroups", "scheduling.run.ai/v2alpha2", "PodGroup"},
      {"bindrequests", "bindRequests", "scheduling.run.ai/v1alpha2", "BindRequest"},
      {"priorityclasses", "priorityClasses", "scheduling.k8s.io/v1", "PriorityClass"},
      {"configmaps", "configMaps", "v1", "ConfigMap"},
      {"topologies", "topologies", "kai.scheduler/v1alpha1", "Topology"},
  };
  return *k;
}

const std::vector<std::string>& UnwatchedRawObjectLists() {
  static const auto* l = new std::vector<std::string>{
      "persistentVolumeClaims", "csiStorageCapacities", "storageClasses", "csiDrivers",
      "resourceClaims",         "resourceSlices",       "deviceClasses"};
  return *l;
}

const RawObjectKind* RawObjectKindOf(const std::string& name) {
  for (const auto& k : SnapshotRawObjectKinds()) {
    if (name == k.resource || name == k.list) return &k;
  }
  return nullptr;
}

std::string SchedulerConfigurationJson(const SchedulerConfiguration& conf) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  WriteConfiguration(w, conf);
  return std::string(buf.GetString(), buf.GetSize());
}

std::string SchedulerParamsJson(const SchedulerParams& params) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  WriteParams(w, params);
  return std::string(buf.GetString(), buf.GetSize());
}

StatusOr<std::string> BuildSnapshotJson(const SchedulerConfiguration& conf,
                                        const SchedulerParams& params, const RawObjectLists& raw) {
  for (const auto& [resource, objects] : raw) {
    if (RawObjectKindOf(resource) == nullptr) {
      return InvalidArgumentError("snapshot: unknown resource \"" + resource + "\"");
    }
  }
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("config");
  WriteConfiguration(w, conf);
  w.Key("schedulerParams");
  WriteParams(w, params);
  w.Key("rawObjects");
  w.StartObject();
  for (const RawObjectKind& kind : SnapshotRawObjectKinds()) {
    w.Key(kind.list);
    w.StartArray();
    auto it = raw.find(kind.resource);
    if (it != raw.end()) {
      for (size_t i = 0; i < it->second.size(); ++i) {
        if (it->second[i] == nullptr) continue;
        KAI_RETURN_IF_ERROR(WriteObject(w, *it->second[i], kind, i));
      }
    }
    w.EndArray();
  }
  for (const std::string& list : UnwatchedRawObjectLists()) {
    Str(w, list);
    w.StartArray();
    w.EndArray();
  }
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

StatusOr<std::string> BuildSnapshotZip(const SchedulerConfiguration& conf,
                                       const SchedulerParams& params, const RawObjectLists& raw) {
  KAI_ASSIGN_OR_RETURN(std::string json, BuildSnapshotJson(conf, params, raw));
  ZipWriter zip;
  zip.Add("snapshot.json", json);
  return zip.Finish();
}

}  // namespace kai::scheduler
