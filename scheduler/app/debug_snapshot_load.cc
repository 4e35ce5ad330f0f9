#include "scheduler/app/debug_snapshot_load.h"

#include <cmath>

#include "api/rapidjson_util.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "kube/base/zip_reader.h"
#include "scheduler/app/debug_snapshot.h"
#include "scheduler/cache/object_loader_json.h"

namespace kai::scheduler {

namespace {

using rapidjson::Value;

Status ParamError(const std::string& field, const std::string& msg) {
  return InvalidArgumentError("schedulerParams." + field + ": " + msg);
}

Status ReadString(const Value& obj, const char* name, const std::string& path, std::string* out) {
  const Value* v = api::FindMember(obj, name);
  if (v == nullptr || v->IsNull()) return Status::OK();
  if (!v->IsString()) return ParamError(path, "expected a string");
  *out = v->GetString();
  return Status::OK();
}

// KAI marshals its booleans with omitempty: an omitted one is false (ours writes every member),
// not our default, which is true for three of them.
Status ReadBool(const Value& obj, const char* name, bool* out) {
  const Value* v = api::FindMember(obj, name);
  if (v == nullptr || v->IsNull()) {
    *out = false;
    return Status::OK();
  }
  if (!v->IsBool()) return ParamError(name, "expected a boolean");
  *out = v->GetBool();
  return Status::OK();
}

Status ReadInt(const Value& obj, const char* name, int* out) {
  const Value* v = api::FindMember(obj, name);
  if (v == nullptr || v->IsNull()) return Status::OK();
  if (!v->IsInt()) return ParamError(name, "expected an integer");
  *out = v->GetInt();
  return Status::OK();
}

// Go's time.Duration marshals as integer nanoseconds; a duration string ("1s") is accepted too.
// Negative values are kept (a negative staleness grace period means never evict).
Status ReadDuration(const Value& obj, const char* name, Duration* out) {
  const Value* v = api::FindMember(obj, name);
  if (v == nullptr || v->IsNull()) return Status::OK();
  if (v->IsInt64()) {
    *out = std::chrono::duration_cast<Duration>(std::chrono::nanoseconds(v->GetInt64()));
    return Status::OK();
  }
  if (v->IsString()) {
    auto d = ParseGoDuration(v->GetString());
    if (!d.ok()) return ParamError(name, std::string(d.status().message()));
    *out = *d;
    return Status::OK();
  }
  return ParamError(name, "expected nanoseconds or a duration string");
}

StatusOr<SchedulerParams> ParamsFromValue(const Value& v) {
  if (!v.IsObject()) return InvalidArgumentError("schedulerParams: expected an object");
  SchedulerParams p;
  KAI_RETURN_IF_ERROR(ReadString(v, "schedulerName", "schedulerName", &p.scheduler_name));
  KAI_RETURN_IF_ERROR(ReadBool(v, "restrictSchedulingNodes", &p.restrict_node_scheduling));
  if (const Value* pp = api::FindMember(v, "partitionParams"); pp != nullptr && !pp->IsNull()) {
    if (!pp->IsObject()) return ParamError("partitionParams", "expected an object");
    KAI_RETURN_IF_ERROR(ReadString(*pp, "NodePoolLabelKey", "partitionParams.NodePoolLabelKey",
                                   &p.node_pool_label_key));
    KAI_RETURN_IF_ERROR(ReadString(*pp, "NodePoolLabelValue", "partitionParams.NodePoolLabelValue",
                                   &p.partition_label_value));
  }
  KAI_RETURN_IF_ERROR(
      ReadInt(v, "maxNumberConsolidationPreemptees", &p.max_consolidation_preemptees));
  KAI_RETURN_IF_ERROR(ReadBool(v, "useSchedulingSignatures", &p.use_scheduling_signatures));
  KAI_RETURN_IF_ERROR(ReadBool(v, "fullHierarchyFairness", &p.full_hierarchy_fairness));
  KAI_RETURN_IF_ERROR(ReadBool(v, "allowConsolidatingReclaim", &p.allow_consolidating_reclaim));
  KAI_RETURN_IF_ERROR(
      ReadDuration(v, "globalDefaultStalenessGracePeriod", &p.default_staleness_grace_period));
  KAI_RETURN_IF_ERROR(ReadDuration(v, "schedulePeriod", &p.schedule_period));
  KAI_RETURN_IF_ERROR(ReadBool(v, "detailedFitErrors", &p.detailed_fit_errors));
  KAI_RETURN_IF_ERROR(ReadBool(v, "updatePodEvictionCondition", &p.update_pod_eviction_condition));
  KAI_RETURN_IF_ERROR(ReadString(v, "queueLabelKey", "queueLabelKey", &p.queue_label_key));
  KAI_RETURN_IF_ERROR(ReadString(v, "resourceReservationAppLabel", "resourceReservationAppLabel",
                                 &p.resource_reservation_app_label));
  KAI_RETURN_IF_ERROR(ReadString(v, "cpuWorkerNodeLabelKey", "cpuWorkerNodeLabelKey",
                                 &p.cpu_worker_node_label_key));
  KAI_RETURN_IF_ERROR(ReadString(v, "gpuWorkerNodeLabelKey", "gpuWorkerNodeLabelKey",
                                 &p.gpu_worker_node_label_key));
  KAI_RETURN_IF_ERROR(ReadString(v, "migWorkerNodeLabelKey", "migWorkerNodeLabelKey",
                                 &p.mig_worker_node_label_key));
  return p;
}

Status LoadRawObjects(Value& raw, rapidjson::Document::AllocatorType& alloc, DebugSnapshot* out) {
  if (!raw.IsObject()) return InvalidArgumentError("rawObjects: expected an object");
  // By index: comparing RapidJSON's non-const member iterators is ambiguous in C++20 (clang).
  auto members = raw.MemberBegin();
  for (rapidjson::SizeType m = 0, n = raw.MemberCount(); m < n; ++m) {
    const std::string list = members[m].name.GetString();
    Value& items = members[m].value;
    if (items.IsNull()) continue;  // Go marshals an empty slice of a nil list as null
    if (!items.IsArray()) return InvalidArgumentError("rawObjects." + list + ": expected a list");
    const RawObjectKind* kind = RawObjectKindOf(list);
    if (kind == nullptr) {
      if (items.Size() > 0) {
        out->warnings.push_back("rawObjects." + list + ": " + std::to_string(items.Size()) +
                                " object(s) of a kind simulate does not model; ignored");
      }
      continue;
    }
    for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
      const std::string where = "rawObjects." + list + "[" + std::to_string(i) + "]";
      Value& item = items[i];
      if (!item.IsObject()) return InvalidArgumentError(where + ": expected an object");
      // Objects from informers often lack apiVersion/kind: the list names the kind.
      Value* k = item.HasMember("kind") ? &item["kind"] : nullptr;
      if (k == nullptr || (k->IsString() && k->GetStringLength() == 0)) {
        if (k != nullptr) item.RemoveMember("kind");
        item.AddMember("kind", rapidjson::StringRef(kind->kind), alloc);
      } else if (!k->IsString() || std::string_view(k->GetString()) != kind->kind) {
        std::string msg = where + ": kind ";
        msg += k->IsString() ? "\"" + std::string(k->GetString()) + "\"" : "(not a string)";
        msg += " in the " + list + " list (expected " + kind->kind + ")";
        return InvalidArgumentError(msg);
      }
      KAI_RETURN_IF_ERROR(AddObjectValue(item, where, &out->objects));
    }
  }
  return Status::OK();
}

}  // namespace

bool LooksLikeSnapshotJson(std::string_view text) {
  std::string_view t = StripWhitespace(text);
  if (t.empty() || t.front() != '{' || t.find("\"rawObjects\"") == std::string_view::npos) {
    return false;
  }
  auto doc = api::ParseJsonDocument(t);
  return doc.ok() && doc->IsObject() && api::FindMember(*doc, "rawObjects") != nullptr;
}

StatusOr<SchedulerParams> ParseSchedulerParamsJson(std::string_view json) {
  KAI_ASSIGN_OR_RETURN(rapidjson::Document doc, api::ParseJsonDocument(json));
  return ParamsFromValue(doc);
}

StatusOr<DebugSnapshot> LoadSnapshotJson(std::string_view json) {
  auto parsed = api::ParseJsonDocument(json);
  if (!parsed.ok()) return parsed.status().WithPrefix("invalid JSON");
  rapidjson::Document& doc = *parsed;
  if (!doc.IsObject()) return InvalidArgumentError("expected a JSON object");
  DebugSnapshot out;
  Value* raw = doc.HasMember("rawObjects") ? &doc["rawObjects"] : nullptr;
  if (raw == nullptr) return InvalidArgumentError("rawObjects: required");
  KAI_RETURN_IF_ERROR(LoadRawObjects(*raw, doc.GetAllocator(), &out));
  if (const Value* c = api::FindMember(doc, "config"); c != nullptr && !c->IsNull()) {
    if (!c->IsObject()) return InvalidArgumentError("config: expected an object");
    // JSON is YAML: config.yaml's parser reads KAI's JSON configuration as is.
    auto conf = ParseSchedulerConfiguration(api::ToJsonString(*c));
    if (!conf.ok()) return conf.status().WithPrefix("config");
    out.conf = std::move(*conf);
  }
  if (const Value* p = api::FindMember(doc, "schedulerParams"); p != nullptr && !p->IsNull()) {
    KAI_ASSIGN_OR_RETURN(SchedulerParams params, ParamsFromValue(*p));
    out.params = std::move(params);
  }
  return out;
}

StatusOr<DebugSnapshot> LoadSnapshotZip(std::string_view zip) {
  KAI_ASSIGN_OR_RETURN(std::string json, ReadZipEntry(zip, "snapshot.json"));
  auto snapshot = LoadSnapshotJson(json);
  if (!snapshot.ok()) return snapshot.status().WithPrefix("snapshot.json");
  return snapshot;
}

}  // namespace kai::scheduler
