#include "scheduler/plugins/proportion/resource_share/resource_quantities.h"

#include <cmath>
#include <sstream>

namespace kai::proportion {

std::string_view ResourceNameString(ResourceName r) {
  switch (r) {
    case ResourceName::kCpu:
      return "CPU";
    case ResourceName::kMemory:
      return "Memory";
    case ResourceName::kGpu:
      return "GPU";
  }
  return "";
}

bool LessOrEqualWithTolerance(double quantity, double limit) {
  return quantity <= limit || std::fabs(quantity - limit) <= kFloatComparisonTolerance;
}

int CompareQuantities(double quantity, double other) {
  if (quantity == kUnlimited) {
    return other == kUnlimited ? 0 : 1;
  }
  if (other == kUnlimited) return -1;
  if (!LessOrEqualWithTolerance(quantity, other)) return 1;
  if (!LessOrEqualWithTolerance(other, quantity)) return -1;
  return 0;
}

void ResourceQuantities::Add(const ResourceQuantities& other) {
  for (int i = 0; i < 3; ++i) values[i] += other.values[i];
}

void ResourceQuantities::Sub(const ResourceQuantities& other) {
  for (int i = 0; i < 3; ++i) values[i] -= other.values[i];
}

bool ResourceQuantities::Less(const ResourceQuantities& other) const {
  for (int i = 0; i < 3; ++i) {
    if (values[i] >= other.values[i]) return false;
  }
  return true;
}

bool ResourceQuantities::LessEqual(const ResourceQuantities& other) const {
  for (int i = 0; i < 3; ++i) {
    if (CompareQuantities(values[i], other.values[i]) > 0) return false;
  }
  return true;
}

bool ResourceQuantities::LessInAtLeastOneResource(const ResourceQuantities& other) const {
  return !other.LessEqual(*this);
}

ResourceMask ResourceQuantities::Positive() const {
  ResourceMask mask = 0;
  for (ResourceName r : kAllResources) {
    if ((*this)[r] > 0) mask |= Bit(r);
  }
  return mask;
}

std::string ResourceQuantities::ToString() const {
  std::ostringstream os;
  os << "cpu: " << cpu() << "m, memory: " << memory() << ", gpu: " << gpu();
  return os.str();
}

}  // namespace kai::proportion
