// Builders for the binder's tests.
#pragma once

#include <string>
#include <vector>

#include "api/well_known.h"
#include "controllers/binder/fake_binder_client.h"
#include "controllers/binder/reconciler.h"
#include "kube/base/fake_clock.h"
#include "kube/base/time.h"

namespace kai::binder::testing {

inline api::Node Node(const std::string& name) {
  api::Node n;
  n.metadata.name = name;
  n.metadata.labels[std::string(api::kGpuMemoryLabel)] = "40000";
  return n;
}

// A pending pod of the KAI scheduler; fractional pods get the annotations and env the admission
// webhook adds.
inline api::Pod Pod(const std::string& ns, const std::string& name, bool fractional = false,
                    int devices = 1, bool env_in_spec = true) {
  api::Pod p;
  p.metadata.namespace_ = ns;
  p.metadata.name = name;
  p.metadata.uid = "uid-" + name;
  p.spec.scheduler_name = "kai-scheduler";
  p.status.phase = "Pending";
  api::Container c;
  c.name = "main";
  c.image = "busybox";
  if (fractional) {
    p.metadata.annotations[std::string(api::kGpuFractionAnnotation)] = "0.5";
    if (devices > 1) {
      p.metadata.annotations[std::string(api::kGpuFractionNumDevicesAnnotation)] =
          std::to_string(devices);
    }
    p.metadata.annotations[std::string(api::kSharedGpuConfigMapAnnotation)] =
        name + "-abcdefg-shared-gpu";
    if (env_in_spec) {
      api::EnvVar e;
      e.name = "NVIDIA_VISIBLE_DEVICES";
      api::EnvVarSource src;
      src.config_map_key_ref = api::ConfigMapKeySelector{name + "-abcdefg-shared-gpu-0",
                                                         "NVIDIA_VISIBLE_DEVICES", std::nullopt};
      e.value_from = src;
      c.env.push_back(e);
    }
  }
  p.spec.containers.push_back(c);
  return p;
}

inline api::BindRequest BindRequest(const std::string& ns, const std::string& pod,
                                    const std::string& node, std::vector<std::string> groups = {},
                                    const std::string& portion = "1.00") {
  api::BindRequest br;
  br.metadata.namespace_ = ns;
  br.metadata.name = pod;
  br.metadata.labels["selected-node"] = node;
  br.spec.pod_name = pod;
  br.spec.selected_node = node;
  bool fraction = !groups.empty() || portion != "1.00";
  br.spec.received_resource_type = fraction ? "Fraction" : "Regular";
  br.spec.received_gpu =
      api::ReceivedGpu{static_cast<int>(groups.empty() ? 1 : groups.size()), portion};
  br.spec.selected_gpu_groups = std::move(groups);
  return br;
}

inline BinderOptions Options() {
  BinderOptions o;
  o.resource_reservation_pod_image = "reservation:test";
  return o;
}

inline std::vector<api::Pod> ReservationPods(const FakeBinderClient& c) {
  std::vector<api::Pod> out;
  for (const auto& [k, p] : c.pods) {
    if (p.metadata.namespace_ == "kai-resource-reservation") out.push_back(p);
  }
  return out;
}

}  // namespace kai::binder::testing
