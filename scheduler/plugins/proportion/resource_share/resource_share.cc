#include "scheduler/plugins/proportion/resource_share/resource_share.h"

#include <algorithm>

#include "scheduler/plugins/proportion/resource_share/resource_quantities.h"

namespace kai::proportion {

double ResourceShare::RequestableShare() const {
  if (max_allowed == kUnlimited) return request;
  return std::min(max_allowed, request);
}

double ResourceShare::AllocatableShare() const {
  if (deserved == kUnlimited) return max_allowed;
  double allocatable = std::max(deserved, fair_share);
  if (max_allowed != kUnlimited) allocatable = std::min(max_allowed, allocatable);
  return allocatable;
}

}  // namespace kai::proportion
