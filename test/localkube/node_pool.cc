#include "test/localkube/node_pool.h"

#include <set>

#include "api/quantity.h"
#include "api/validation.h"
#include "api/yaml_json.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "test/localkube/json.h"
#include "test/localkube/selector.h"
#include "test/localkube/types.h"

namespace kai::localkube {
namespace {

struct GpuArch {
  const char* family;
  const char* compute_major;
  const char* compute_minor;
};

// GPU feature discovery derives family and compute capability from the device; here from the
// product name.
std::optional<GpuArch> ArchOf(std::string_view product) {
  auto has = [&](std::string_view s) { return product.find(s) != std::string_view::npos; };
  if (has("B200") || has("B100")) return GpuArch{"blackwell", "10", "0"};
  if (has("H100") || has("H200") || has("H800") || has("H20")) return GpuArch{"hopper", "9", "0"};
  if (has("L40") || has("L4") || has("RTX-40")) return GpuArch{"ada-lovelace", "8", "9"};
  if (has("A100") || has("A800") || has("A30")) return GpuArch{"ampere", "8", "0"};
  if (has("A10") || has("A40") || has("A16") || has("RTX-A")) return GpuArch{"ampere", "8", "6"};
  if (has("T4")) return GpuArch{"turing", "7", "5"};
  if (has("V100")) return GpuArch{"volta", "7", "0"};
  return std::nullopt;
}

Status CheckQuantity(const std::string& v, std::string_view what, std::string_view field) {
  auto q = api::Quantity::Parse(v);
  if (!q.ok()) {
    return InvalidArgumentError(std::string(what) + ": " + std::string(field) + ": \"" + v +
                                "\": " + std::string(q.status().message()));
  }
  if (q->Sign() < 0) {
    return InvalidArgumentError(std::string(what) + ": " + std::string(field) +
                                " must not be negative");
  }
  return Status::OK();
}

StatusOr<std::string> ScalarString(const Json& v, std::string_view what, std::string_view field) {
  if (v.IsString()) return std::string(View(v));
  if (v.IsNumber()) return ScalarText(v);
  return InvalidArgumentError(std::string(what) + ": " + std::string(field) +
                              " must be a string or number");
}

StatusOr<int64_t> IntField(const Json& v, std::string_view what, std::string_view field) {
  if (v.IsInt64()) return v.GetInt64();
  if (v.IsString()) {
    const std::string s(View(v));
    try {
      size_t pos = 0;
      const long long n = std::stoll(s, &pos);
      if (pos == s.size()) return static_cast<int64_t>(n);
    } catch (...) {
    }
  }
  return InvalidArgumentError(std::string(what) + ": " + std::string(field) +
                              " must be an integer");
}

}  // namespace

std::string FormatIpv4(uint32_t v) {
  return std::to_string((v >> 24) & 255) + "." + std::to_string((v >> 16) & 255) + "." +
         std::to_string((v >> 8) & 255) + "." + std::to_string(v & 255);
}

StatusOr<std::map<std::string, std::string>> ParseNodeLabels(std::string_view text) {
  std::map<std::string, std::string> out;
  for (const std::string& raw : StrSplit(text, ',')) {
    const std::string kv(StripWhitespace(raw));
    if (kv.empty()) continue;
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) {
      return InvalidArgumentError("--node-labels: expected key=value, got \"" + kv + "\"");
    }
    const std::string k = kv.substr(0, eq);
    const std::string v = kv.substr(eq + 1);
    if (std::string e = StrJoin(api::IsQualifiedName(k), "; "); !e.empty()) {
      return InvalidArgumentError(StrCat("--node-labels: invalid label key \"", k, "\": ", e));
    }
    if (std::string e = StrJoin(api::IsValidLabelValue(v), "; "); !e.empty()) {
      return InvalidArgumentError(StrCat("--node-labels: invalid label value \"", v, "\": ", e));
    }
    out[k] = v;
  }
  return out;
}

StatusOr<std::vector<NodeTaint>> ParseNodeTaints(std::string_view text) {
  std::vector<NodeTaint> out;
  for (const std::string& raw : StrSplit(text, ',')) {
    const std::string t(StripWhitespace(raw));
    if (t.empty()) continue;
    const size_t colon = t.rfind(':');
    if (colon == std::string::npos) {
      return InvalidArgumentError("--node-taints: expected key[=value]:Effect, got \"" + t + "\"");
    }
    NodeTaint taint;
    taint.effect = t.substr(colon + 1);
    const std::string kv = t.substr(0, colon);
    const size_t eq = kv.find('=');
    taint.key = kv.substr(0, eq);
    if (eq != std::string::npos) taint.value = kv.substr(eq + 1);
    out.push_back(std::move(taint));
  }
  return out;
}

Status ValidateNodePool(const NodePool& p, std::string_view what) {
  const std::string w(what);
  if (p.count < 0) return InvalidArgumentError(w + ": count must not be negative");
  if (p.gpus < 0) return InvalidArgumentError(w + ": gpus must not be negative");
  if (p.gpus > 0 && p.gpu_memory_mib <= 0) {
    return InvalidArgumentError(w + ": gpuMemory must be a positive number of MiB");
  }
  if (p.max_pods <= 0) return InvalidArgumentError(w + ": maxPods must be positive");
  KAI_RETURN_IF_ERROR(CheckQuantity(p.cpu, w, "cpu"));
  KAI_RETURN_IF_ERROR(CheckQuantity(p.memory, w, "memory"));
  if (p.gpus > 0) {
    if (std::string e = StrJoin(api::IsValidLabelValue(p.gpu_product), "; "); !e.empty()) {
      return InvalidArgumentError(w + ": gpuProduct \"" + p.gpu_product + "\": " + e);
    }
  }
  for (const auto& [k, v] : p.labels) {
    if (std::string e = StrJoin(api::IsQualifiedName(k), "; "); !e.empty()) {
      return InvalidArgumentError(StrCat(w, ": labels: invalid key \"", k, "\": ", e));
    }
    if (std::string e = StrJoin(api::IsValidLabelValue(v), "; "); !e.empty()) {
      return InvalidArgumentError(StrCat(w, ": labels[", k, "]: invalid value \"", v, "\": ", e));
    }
  }
  for (const NodeTaint& t : p.taints) {
    if (std::string e = StrJoin(api::IsQualifiedName(t.key), "; "); !e.empty()) {
      return InvalidArgumentError(StrCat(w, ": taints: invalid key \"", t.key, "\": ", e));
    }
    if (!t.value.empty()) {
      if (std::string e = StrJoin(api::IsValidLabelValue(t.value), "; "); !e.empty()) {
        return InvalidArgumentError(
            StrCat(w, ": taints[", t.key, "]: invalid value \"", t.value, "\": ", e));
      }
    }
    if (t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute") {
      return InvalidArgumentError(w + ": taints[" + t.key + "]: effect \"" + t.effect +
                                  "\" must be NoSchedule, PreferNoSchedule or NoExecute");
    }
  }
  if (p.count > 0) {
    const std::string last = NodeName(p, p.count - 1);
    if (std::string e = StrJoin(api::IsDns1123Subdomain(last), "; "); !e.empty()) {
      return InvalidArgumentError(w + ": node name \"" + last + "\" (namePrefix \"" +
                                  p.name_prefix + "\"): " + e);
    }
  }
  return Status::OK();
}

StatusOr<std::vector<NodePool>> ParseNodePools(std::string_view text, std::string_view filename) {
  const std::string file(filename);
  auto json = api::YamlToJson(text);
  if (!json.ok()) return InvalidArgumentError(file + ": " + std::string(json.status().message()));
  auto doc = Parse(*json);
  if (!doc.ok()) return InvalidArgumentError(file + ": " + std::string(doc.status().message()));
  const Json* pools = doc->IsArray() ? static_cast<const Json*>(&*doc) : nullptr;
  if (pools == nullptr && doc->IsObject()) {
    for (auto it = doc->MemberBegin(); it != doc->MemberEnd(); ++it) {
      if (View(it->name) != "nodePools") {
        return InvalidArgumentError(file + ": unknown field \"" + std::string(View(it->name)) +
                                    "\" (expected nodePools)");
      }
    }
    pools = Member(*doc, "nodePools");
  }
  if (pools == nullptr || !pools->IsArray()) {
    return InvalidArgumentError(file + ": expected a list of node pools under nodePools");
  }
  std::vector<NodePool> out;
  std::set<std::string> prefixes;
  int i = 0;
  for (const Json& p : pools->GetArray()) {
    const std::string what = file + ": nodePools[" + std::to_string(i++) + "]";
    if (!p.IsObject()) return InvalidArgumentError(what + ": must be an object");
    NodePool pool;
    std::string name;
    bool has_prefix = false;
    for (auto it = p.MemberBegin(); it != p.MemberEnd(); ++it) {
      const std::string key(View(it->name));
      const Json& v = it->value;
      if (key == "name") {
        KAI_ASSIGN_OR_RETURN(name, ScalarString(v, what, key));
      } else if (key == "namePrefix") {
        KAI_ASSIGN_OR_RETURN(pool.name_prefix, ScalarString(v, what, key));
        has_prefix = true;
      } else if (key == "count") {
        KAI_ASSIGN_OR_RETURN(int64_t n, IntField(v, what, key));
        pool.count = static_cast<int>(n);
      } else if (key == "gpus") {
        KAI_ASSIGN_OR_RETURN(int64_t n, IntField(v, what, key));
        pool.gpus = static_cast<int>(n);
      } else if (key == "gpuMemory") {
        KAI_ASSIGN_OR_RETURN(pool.gpu_memory_mib, IntField(v, what, key));
      } else if (key == "gpuProduct") {
        KAI_ASSIGN_OR_RETURN(pool.gpu_product, ScalarString(v, what, key));
      } else if (key == "cpu") {
        KAI_ASSIGN_OR_RETURN(pool.cpu, ScalarString(v, what, key));
      } else if (key == "memory") {
        KAI_ASSIGN_OR_RETURN(pool.memory, ScalarString(v, what, key));
      } else if (key == "maxPods") {
        KAI_ASSIGN_OR_RETURN(int64_t n, IntField(v, what, key));
        pool.max_pods = static_cast<int>(n);
      } else if (key == "labels") {
        if (!v.IsObject()) return InvalidArgumentError(what + ": labels must be a map");
        for (auto l = v.MemberBegin(); l != v.MemberEnd(); ++l) {
          KAI_ASSIGN_OR_RETURN(pool.labels[std::string(View(l->name))],
                               ScalarString(l->value, what, "labels"));
        }
      } else if (key == "taints") {
        if (!v.IsArray()) return InvalidArgumentError(what + ": taints must be a list");
        for (const Json& t : v.GetArray()) {
          if (!t.IsObject()) return InvalidArgumentError(what + ": taints: entries are objects");
          NodeTaint taint;
          for (auto m = t.MemberBegin(); m != t.MemberEnd(); ++m) {
            const std::string tk(View(m->name));
            if (tk == "key") {
              taint.key = View(m->value);
            } else if (tk == "value") {
              taint.value = View(m->value);
            } else if (tk == "effect") {
              taint.effect = View(m->value);
            } else {
              return InvalidArgumentError(StrCat(what, ": taints: unknown field \"", tk, "\""));
            }
          }
          pool.taints.push_back(std::move(taint));
        }
      } else {
        return InvalidArgumentError(StrCat(what, ": unknown field \"", key, "\""));
      }
    }
    if (!has_prefix && !name.empty()) pool.name_prefix = name + "-";
    KAI_RETURN_IF_ERROR(ValidateNodePool(pool, what));
    if (!prefixes.insert(pool.name_prefix).second) {
      return InvalidArgumentError(what + ": namePrefix \"" + pool.name_prefix +
                                  "\" is used by another pool");
    }
    out.push_back(std::move(pool));
  }
  return out;
}

std::string NodeName(const NodePool& pool, int index) {
  return pool.name_prefix + std::to_string(index);
}

std::string GpuUuid(std::string_view node, int index) {
  return "GPU-" + std::string(node) + "-" + std::to_string(index);
}

std::string NodeJson(const NodePool& pool, int index, int ordinal, WallTime now) {
  const std::string name = NodeName(pool, index);
  const std::string ts = FormatRfc3339(now);
  std::map<std::string, std::string> labels = {
      {"beta.kubernetes.io/arch", "amd64"},
      {"beta.kubernetes.io/os", "linux"},
      {"kubernetes.io/arch", "amd64"},
      {"kubernetes.io/hostname", name},
      {"kubernetes.io/os", "linux"},
      {"node.kubernetes.io/instance-type", pool.gpus > 0 ? "localkube-gpu" : "localkube-cpu"},
      {"topology.kubernetes.io/region", "localkube"},
      {"topology.kubernetes.io/zone", "localkube-a"},
  };
  if (pool.gpus > 0) {
    const std::string gpus = std::to_string(pool.gpus);
    labels["node-role.kubernetes.io/gpu-worker"] = "true";
    labels["feature.node.kubernetes.io/pci-10de.present"] = "true";
    labels["nvidia.com/gpu.present"] = "true";
    labels["nvidia.com/gpu.count"] = gpus;
    labels["nvidia.com/gpu.memory"] = std::to_string(pool.gpu_memory_mib);
    labels["nvidia.com/gpu.product"] = pool.gpu_product;
    labels["nvidia.com/gpu.replicas"] = "1";
    labels["nvidia.com/gpu.sharing-strategy"] = "none";
    labels["nvidia.com/gpu.machine"] = "localkube";
    labels["nvidia.com/mig.capable"] = "false";
    labels["nvidia.com/cuda.driver-version.major"] = "550";
    labels["nvidia.com/cuda.driver-version.minor"] = "54";
    labels["nvidia.com/cuda.driver-version.revision"] = "15";
    labels["nvidia.com/cuda.driver-version.full"] = "550.54.15";
    labels["nvidia.com/cuda.runtime-version.major"] = "12";
    labels["nvidia.com/cuda.runtime-version.minor"] = "4";
    labels["nvidia.com/cuda.runtime-version.full"] = "12.4";
    if (auto arch = ArchOf(pool.gpu_product)) {
      labels["nvidia.com/gpu.family"] = arch->family;
      labels["nvidia.com/gpu.compute.major"] = arch->compute_major;
      labels["nvidia.com/gpu.compute.minor"] = arch->compute_minor;
    }
  } else {
    labels["node-role.kubernetes.io/cpu-worker"] = "true";
  }
  for (const auto& [k, v] : pool.labels) labels[k] = v;

  JsonDoc d;
  d.SetObject();
  JsonAlloc& a = d.GetAllocator();
  d.AddMember("apiVersion", "v1", a);
  d.AddMember("kind", "Node", a);
  Json meta(rapidjson::kObjectType);
  meta.AddMember("name", Str(name, a), a);
  Json jl(rapidjson::kObjectType);
  for (const auto& [k, v] : labels) jl.AddMember(Str(k, a), Str(v, a), a);
  meta.AddMember("labels", jl, a);
  Json ann(rapidjson::kObjectType);
  ann.AddMember(Str(kSimulatedNodeAnnotation, a), Json("true"), a);
  ann.AddMember("node.alpha.kubernetes.io/ttl", "0", a);
  ann.AddMember("volumes.kubernetes.io/controller-managed-attach-detach", "true", a);
  meta.AddMember("annotations", ann, a);
  d.AddMember("metadata", meta, a);

  // Addresses: node k gets 172.16.0.0/12 + k + 2 and the pod range 10.<k/256>.<k%256>.0/24.
  const uint32_t k = static_cast<uint32_t>(ordinal);
  const std::string host_ip = FormatIpv4((172u << 24) | (16u << 16) | ((k + 2) & 0xFFFFF));
  const std::string cidr = FormatIpv4((10u << 24) | ((k & 0xFFFF) << 8)) + "/24";
  Json spec(rapidjson::kObjectType);
  spec.AddMember("podCIDR", Str(cidr, a), a);
  Json cidrs(rapidjson::kArrayType);
  cidrs.PushBack(Str(cidr, a), a);
  spec.AddMember("podCIDRs", cidrs, a);
  spec.AddMember("providerID", Str("localkube://" + name, a), a);
  if (!pool.taints.empty()) {
    Json taints(rapidjson::kArrayType);
    for (const NodeTaint& t : pool.taints) {
      Json jt(rapidjson::kObjectType);
      jt.AddMember("key", Str(t.key, a), a);
      if (!t.value.empty()) jt.AddMember("value", Str(t.value, a), a);
      jt.AddMember("effect", Str(t.effect, a), a);
      taints.PushBack(jt, a);
    }
    spec.AddMember("taints", taints, a);
  }
  d.AddMember("spec", spec, a);

  Json status(rapidjson::kObjectType);
  auto resources = [&]() {
    Json r(rapidjson::kObjectType);
    r.AddMember("cpu", Str(pool.cpu, a), a);
    r.AddMember("ephemeral-storage", "500Gi", a);
    r.AddMember("hugepages-1Gi", "0", a);
    r.AddMember("hugepages-2Mi", "0", a);
    r.AddMember("memory", Str(pool.memory, a), a);
    if (pool.gpus > 0) r.AddMember("nvidia.com/gpu", Str(std::to_string(pool.gpus), a), a);
    r.AddMember("pods", Str(std::to_string(pool.max_pods), a), a);
    return r;
  };
  status.AddMember("capacity", resources(), a);
  status.AddMember("allocatable", resources(), a);
  Json conds(rapidjson::kArrayType);
  auto cond = [&](const char* type, const char* st, const char* reason, const char* message) {
    Json c(rapidjson::kObjectType);
    c.AddMember("type", Str(type, a), a);
    c.AddMember("status", Str(st, a), a);
    c.AddMember("lastHeartbeatTime", Str(ts, a), a);
    c.AddMember("lastTransitionTime", Str(ts, a), a);
    c.AddMember("reason", Str(reason, a), a);
    c.AddMember("message", Str(message, a), a);
    conds.PushBack(c, a);
  };
  cond("MemoryPressure", "False", "KubeletHasSufficientMemory",
       "kubelet has sufficient memory available");
  cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure");
  cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available");
  cond("Ready", "True", "KubeletReady", "kubelet is posting ready status");
  status.AddMember("conditions", conds, a);
  Json addrs(rapidjson::kArrayType);
  Json ip(rapidjson::kObjectType);
  ip.AddMember("type", "InternalIP", a);
  ip.AddMember("address", Str(host_ip, a), a);
  addrs.PushBack(ip, a);
  Json hn(rapidjson::kObjectType);
  hn.AddMember("type", "Hostname", a);
  hn.AddMember("address", Str(name, a), a);
  addrs.PushBack(hn, a);
  status.AddMember("addresses", addrs, a);
  Json de(rapidjson::kObjectType);
  Json ke(rapidjson::kObjectType);
  ke.AddMember("Port", 10250, a);
  de.AddMember("kubeletEndpoint", ke, a);
  status.AddMember("daemonEndpoints", de, a);
  Json info(rapidjson::kObjectType);
  info.AddMember("architecture", "amd64", a);
  info.AddMember("bootID", Str("boot-" + name, a), a);
  info.AddMember("containerRuntimeVersion", "containerd://1.7.22", a);
  info.AddMember("kernelVersion", "6.1.0-localkube", a);
  info.AddMember("kubeProxyVersion", "v1.32.0", a);
  info.AddMember("kubeletVersion", "v1.32.0", a);
  info.AddMember("machineID", Str("machine-" + name, a), a);
  info.AddMember("operatingSystem", "linux", a);
  info.AddMember("osImage", "localkube simulated node", a);
  info.AddMember("systemUUID", Str("system-" + name, a), a);
  status.AddMember("nodeInfo", info, a);
  d.AddMember("status", status, a);
  return Serialize(d);
}

}  // namespace kai::localkube
