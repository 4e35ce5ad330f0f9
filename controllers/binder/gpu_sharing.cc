#include "controllers/binder/gpu_sharing.h"

#include <cstdlib>

#include "api/json_quote.h"
#include "api/well_known.h"

namespace kai::binder {

namespace {

std::string OwnerReferenceJson(const api::Pod& pod) {
  return "[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":" + api::JsonQuote(pod.metadata.name) +
         ",\"uid\":" + api::JsonQuote(pod.metadata.uid) + "}]";
}

bool SameOwners(const std::vector<api::OwnerReference>& existing, const api::Pod& pod) {
  return existing.size() == 1 && existing[0].api_version == "v1" && existing[0].kind == "Pod" &&
         existing[0].name == pod.metadata.name && existing[0].uid == pod.metadata.uid;
}

}  // namespace

StatusOr<ContainerRef> FractionContainerRef(const api::Pod& pod) {
  auto it = pod.metadata.annotations.find(std::string(api::kGpuFractionContainerNameAnnotation));
  if (it != pod.metadata.annotations.end() && !it->second.empty()) {
    for (size_t i = 0; i < pod.spec.containers.size(); ++i) {
      if (pod.spec.containers[i].name == it->second) {
        return ContainerRef{&pod.spec.containers[i], static_cast<int>(i), false};
      }
    }
    for (size_t i = 0; i < pod.spec.init_containers.size(); ++i) {
      if (pod.spec.init_containers[i].name == it->second) {
        return ContainerRef{&pod.spec.init_containers[i], static_cast<int>(i), true};
      }
    }
    return InvalidArgumentError("pod " + pod.metadata.namespace_ + "/" + pod.metadata.name +
                                ": metadata.annotations." +
                                std::string(api::kGpuFractionContainerNameAnnotation) +
                                ": no container named \"" + it->second + "\"");
  }
  if (pod.spec.containers.empty()) {
    return InvalidArgumentError("pod " + pod.metadata.namespace_ + "/" + pod.metadata.name +
                                ": spec.containers: no container to give the GPU to");
  }
  return ContainerRef{&pod.spec.containers[0], 0, false};
}

StatusOr<std::string> CapabilitiesConfigMapName(const api::Pod& pod, const ContainerRef& ref) {
  auto it = pod.metadata.annotations.find(std::string(api::kSharedGpuConfigMapAnnotation));
  if (it == pod.metadata.annotations.end()) {
    return FailedPreconditionError("no desired configmap name found in pod " +
                                   pod.metadata.namespace_ + "/" + pod.metadata.name +
                                   " annotations");
  }
  return it->second + "-" + (ref.init ? "i" : "") + std::to_string(ref.index);
}

StatusOr<std::string> DirectEnvVarsConfigMapName(const api::Pod& pod, const ContainerRef& ref) {
  KAI_ASSIGN_OR_RETURN(std::string base, CapabilitiesConfigMapName(pod, ref));
  return base + "-evar";
}

bool IsSharedGpuAllocation(const api::BindRequest& br) {
  return br.spec.received_resource_type == api::kReceivedResourceTypeFraction;
}

bool IsMultiFraction(const api::Pod& pod) {
  auto it = pod.metadata.annotations.find(std::string(api::kGpuFractionNumDevicesAnnotation));
  if (it == pod.metadata.annotations.end()) return false;
  return std::strtol(it->second.c_str(), nullptr, 10) > 1;
}

Status GpuSharing::UpsertConfigMap(const api::Pod& pod, const std::string& name) {
  auto existing = client_->GetConfigMap(pod.metadata.namespace_, name);
  if (!existing.ok()) {
    if (!IsNotFound(existing.status())) {
      return existing.status().WithPrefix(
          "failed to check if configmap " + pod.metadata.namespace_ + "/" + name +
          " exists for pod " + pod.metadata.namespace_ + "/" + pod.metadata.name);
    }
    api::ConfigMap cm;
    cm.metadata.name = name;
    cm.metadata.namespace_ = pod.metadata.namespace_;
    api::OwnerReference owner;
    owner.api_version = "v1";
    owner.kind = "Pod";
    owner.name = pod.metadata.name;
    owner.uid = pod.metadata.uid;
    cm.metadata.owner_references.push_back(owner);
    Status s = client_->CreateConfigMap(cm);
    if (s.ok() || IsAlreadyExists(s)) return Status::OK();  // a concurrent create is as good
    return s.WithPrefix("failed to create configmap " + pod.metadata.namespace_ + "/" + name +
                        " for pod " + pod.metadata.namespace_ + "/" + pod.metadata.name);
  }
  if (SameOwners(existing->metadata.owner_references, pod)) return Status::OK();
  // A ConfigMap left by an earlier pod of the same name: adopt it.
  Status s = client_->MergePatchConfigMap(
      pod.metadata.namespace_, name,
      "{\"metadata\":{\"ownerReferences\":" + OwnerReferenceJson(pod) + "}}");
  if (!s.ok()) {
    return s.WithPrefix("failed to patch existing configmap " + pod.metadata.namespace_ + "/" +
                        name);
  }
  return Status::OK();
}

Status GpuSharing::UpdateData(const api::Pod& pod, const std::string& name,
                              const std::vector<std::pair<std::string, std::string>>& set,
                              const std::vector<std::pair<std::string, std::string>>& if_present) {
  KAI_ASSIGN_OR_RETURN(api::ConfigMap cm, client_->GetConfigMap(pod.metadata.namespace_, name));
  std::string patch;
  auto add = [&](const std::string& k, const std::string& v) {
    auto it = cm.data.find(k);
    if (it != cm.data.end() && it->second == v) return;
    patch += (patch.empty() ? "" : ",") + api::JsonQuote(k) + ":" + api::JsonQuote(v);
  };
  for (const auto& [k, v] : if_present) {
    if (cm.data.count(k) > 0) add(k, v);
  }
  for (const auto& [k, v] : set) add(k, v);
  if (patch.empty()) return Status::OK();
  return client_->MergePatchConfigMap(pod.metadata.namespace_, name, "{\"data\":{" + patch + "}}");
}

Status GpuSharing::PreBind(const api::Pod& pod, const api::BindRequest& br,
                           const std::vector<std::string>& gpu_ids) {
  if (!IsSharedGpuAllocation(br)) return Status::OK();
  std::string devices;
  for (const auto& id : gpu_ids) {
    if (!devices.empty()) devices += ",";
    devices += cdi_ ? std::string(kCdiDevicePrefix) + id : id;
  }
  auto ref = FractionContainerRef(pod);
  if (!ref.ok()) return ref.status().WithPrefix("failed to get fraction container ref");
  auto capabilities = CapabilitiesConfigMapName(pod, *ref);
  if (!capabilities.ok()) {
    return capabilities.status().WithPrefix("failed to create capabilities configmap");
  }
  KAI_RETURN_IF_ERROR(
      UpsertConfigMap(pod, *capabilities).WithPrefix("failed to create capabilities configmap"));
  std::string env_vars = *capabilities + "-evar";
  KAI_RETURN_IF_ERROR(UpsertConfigMap(pod, env_vars).WithPrefix("failed to create env configmap"));

  // NVIDIA_VISIBLE_DEVICES goes where the container reads it from: the capabilities ConfigMap
  // when the admission webhook wired it as a configMapKeyRef, else the envFrom one.
  bool in_spec = false;
  for (const auto& e : ref->container->env) {
    if (e.name == kNvidiaVisibleDevices && e.value_from && e.value_from->config_map_key_ref) {
      in_spec = true;
    }
  }
  const std::string& devices_cm = in_spec ? *capabilities : env_vars;
  Status s = UpdateData(pod, devices_cm, {{std::string(kNvidiaVisibleDevices), devices}},
                        {{std::string(kVisibleDevicesBC), devices}});
  if (!s.ok()) {
    return s.WithPrefix("failed to update gpu sharing configmap " + devices_cm + " for pod <" +
                        pod.metadata.namespace_ + "/" + pod.metadata.name + ">");
  }
  const std::string& portion = br.spec.received_gpu ? br.spec.received_gpu->portion : "";
  s = UpdateData(pod, *capabilities,
                 {{std::string(kNumOfGpusBC), portion}, {std::string(kGpuPortion), portion}}, {});
  if (!s.ok()) {
    return s.WithPrefix("failed to update GPU_PORTION value in gpu sharing configmap for pod <" +
                        pod.metadata.namespace_ + "/" + pod.metadata.name + ">");
  }
  return Status::OK();
}

Status GpuSharing::Rollback(const api::Pod& pod, const api::BindRequest& br) {
  if (!IsSharedGpuAllocation(br)) return Status::OK();
  auto ref = FractionContainerRef(pod);
  if (!ref.ok()) return Status::OK();  // nothing was created
  auto capabilities = CapabilitiesConfigMapName(pod, *ref);
  if (!capabilities.ok()) return Status::OK();
  Status first;
  for (const std::string& name : {*capabilities, *capabilities + "-evar"}) {
    Status s = client_->DeleteConfigMap(pod.metadata.namespace_, name);
    if (!s.ok() && !IsNotFound(s) && first.ok()) {
      first = s.WithPrefix("failed to delete configmap " + pod.metadata.namespace_ + "/" + name +
                           " during rollback");
    }
  }
  return first;
}

}  // namespace kai::binder
