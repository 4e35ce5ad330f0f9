// /metrics: the registry in the Prometheus text format (version 0.0.4).
#pragma once

#include "kube/metrics/registry.h"
#include "kube/server/http.h"

namespace kai::server {

Handler MetricsHandler(metrics::Registry* registry);

}  // namespace kai::server
