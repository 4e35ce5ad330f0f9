// Effective pod resource requests and limits, as Kubernetes computes them
// (k8s.io/component-helpers/resource PodRequests/PodLimits): the max of the sum of regular
// containers (plus native sidecars) and each init container's peak (plus sidecars started
// before it), plus pod overhead.
#pragma once

#include "api/pod.h"
#include "api/quantity.h"

namespace kai::api {

ResourceList PodRequests(const PodSpec& spec);
ResourceList PodLimits(const PodSpec& spec);

}  // namespace kai::api
