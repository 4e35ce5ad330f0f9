// Effective pod resource requests and limits, as Kubernetes computes them
// (k8s.io/component-helpers/resource PodRequests/PodLimits): the max of the sum of regular
// containers (plus native sidecars) and each init container's peak (plus sidecars started
// before it), plus pod overhead. Requests are taken as the pod has them: the API server has
// already defaulted missing requests to limits when the pod was created.
#pragma once

#include "api/pod.h"
#include "api/quantity.h"

namespace kai::api {

struct PodResourcesOptions {
  // Leave spec.overhead out.
  bool exclude_overhead = false;
  // Resources to add to any container (regular or init) that does not request them, as
  // kube-scheduler does for scoring (e.g. cpu 100m, memory 200Mi). Requests only.
  ResourceList non_missing_container_requests;
};

ResourceList PodRequests(const PodSpec& spec, const PodResourcesOptions& options = {});
// Overhead is added only to resources that have a limit.
ResourceList PodLimits(const PodSpec& spec, const PodResourcesOptions& options = {});

}  // namespace kai::api
