// kai-binder's settings (KAI cmd/binder flags, reference §14.1) that the binding logic uses.
#pragma once

#include <string>

#include "api/resources.h"
#include "kube/base/clock.h"

namespace kai::binder {

struct BinderOptions {
  std::string scheduler_name = "kai-scheduler";
  std::string resource_reservation_namespace = "kai-resource-reservation";
  std::string resource_reservation_service_account = "kai-resource-reservation";
  std::string resource_reservation_pod_image = "registry/local/kai-scheduler/resource-reservation";
  std::string resource_reservation_app_label = "kai-resource-reservation";
  // How long a new reservation pod may take to report its GPU (run.ai/reserve_for_gpu_index)
  // before it is deleted and the bind fails.
  Duration resource_reservation_allocation_timeout = std::chrono::seconds(40);
  // Overrides of the reservation container's resources (GPU entries are ignored).
  std::optional<api::ResourceRequirements> resource_reservation_pod_resources;
  std::string scale_adjust_namespace = "kai-scale-adjust";
  bool fake_gpu_nodes = false;
  bool cdi_enabled = false;
  std::string runtime_class_name;
  // While a reservation pod has not reported its GPU yet, the BindRequest is looked at again
  // after this long (KAI blocks a worker on a watch instead).
  Duration reservation_poll_interval = std::chrono::milliseconds(200);

  bool operator==(const BinderOptions&) const = default;
};

}  // namespace kai::binder
