// ResourceQuantities: the [cpu, memory, gpu] vector the proportion plugin accounts in.
//
// Units are the scheduler's: CPU in millicores, memory in bytes, GPUs in (possibly fractional)
// devices. The order of the three resources is KAI's AllResources order (CPU, Memory, GPU); it
// decides which resource a capacity message names first when several are over.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kai::proportion {

enum class ResourceName : uint8_t { kCpu = 0, kMemory = 1, kGpu = 2 };

inline constexpr std::array<ResourceName, 3> kAllResources = {
    ResourceName::kCpu, ResourceName::kMemory, ResourceName::kGpu};

// Queue quota / limit value meaning "unlimited" (and, for deserved, "deserves everything").
inline constexpr double kUnlimited = -1;

// Absolute tolerance KAI uses when comparing accumulated float quantities (0.1 + 0.2 <= 0.3).
inline constexpr double kFloatComparisonTolerance = 1e-9;

// "CPU", "Memory", "GPU" (KAI's ResourceName strings, used in logs).
std::string_view ResourceNameString(ResourceName r);

inline constexpr int Index(ResourceName r) { return static_cast<int>(r); }

// A set of resources, one bit per ResourceName.
using ResourceMask = uint8_t;
inline constexpr ResourceMask Bit(ResourceName r) {
  return static_cast<ResourceMask>(1u << Index(r));
}
inline constexpr ResourceMask kAllResourcesMask = 0x7;

// quantity <= limit, ignoring float noise up to kFloatComparisonTolerance.
bool LessOrEqualWithTolerance(double quantity, double limit);

// Three-way comparison where -1 means unlimited (larger than any finite value, equal to
// itself) and finite values compare with tolerance. Returns -1, 0 or 1.
int CompareQuantities(double quantity, double other);

struct ResourceQuantities {
  std::array<double, 3> values{};

  // Argument order as KAI's NewResourceQuantities(cpu, memory, gpu).
  static constexpr ResourceQuantities Of(double cpu, double memory, double gpu) {
    return ResourceQuantities{{cpu, memory, gpu}};
  }
  static constexpr ResourceQuantities Gpu(double gpu) { return Of(0, 0, gpu); }

  double& operator[](ResourceName r) { return values[Index(r)]; }
  double operator[](ResourceName r) const { return values[Index(r)]; }
  double cpu() const { return values[0]; }
  double memory() const { return values[1]; }
  double gpu() const { return values[2]; }

  void Add(const ResourceQuantities& other);
  void Sub(const ResourceQuantities& other);

  // Strictly less in every resource (plain float comparison, no unlimited handling), as KAI's
  // ResourceQuantities.Less.
  bool Less(const ResourceQuantities& other) const;
  // <= in every resource using CompareQuantities (unlimited-aware, tolerant).
  bool LessEqual(const ResourceQuantities& other) const;
  // Not (other <= this): this is smaller than `other` in at least one resource.
  bool LessInAtLeastOneResource(const ResourceQuantities& other) const;

  // Resources whose value is > 0.
  ResourceMask Positive() const;

  // "cpu: <v>m, memory: <v>, gpu: <v>" for logs and test failure messages.
  std::string ToString() const;

  bool operator==(const ResourceQuantities&) const = default;
};

inline ResourceQuantities operator+(ResourceQuantities a, const ResourceQuantities& b) {
  a.Add(b);
  return a;
}
inline ResourceQuantities operator-(ResourceQuantities a, const ResourceQuantities& b) {
  a.Sub(b);
  return a;
}

}  // namespace kai::proportion
