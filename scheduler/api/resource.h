// Resource arithmetic of the scheduler (KAI pkg/scheduler/api/resource_info).
//
// A ResourceVector is a dense array of doubles indexed through a ResourceVectorMap that is built
// once per snapshot from the node resources: CPU (millicores), memory (bytes), GPU (devices,
// fractional), pods, then every other resource name any node advertises (MIG profiles, extended
// resources, ephemeral storage) in name order. Resources that no node advertises have no index,
// exactly as in KAI, so a request for them is ignored by the fit checks.
//
// GPU requests are kept apart in a GpuRequirement (whole devices, a per-device fraction or GPU
// memory, a device count, MIG profiles) because placement treats them differently.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kai::scheduler {

inline constexpr int kCpuIndex = 0;
inline constexpr int kMemoryIndex = 1;
inline constexpr int kGpuIndex = 2;
inline constexpr int kPodsIndex = 3;

inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";
inline constexpr std::string_view kMigResourcePrefix = "nvidia.com/mig-";

// True for "nvidia.com/mig-<g>g.<m>gb".
bool IsMigResource(std::string_view name);
// Parses "nvidia.com/mig-<g>g.<m>gb" into (g, m). Returns false when the name does not parse.
bool ParseMigResourceName(std::string_view name, int64_t* gpu_slices, int64_t* memory_gb);

class ResourceVectorMap {
 public:
  // Core resources only.
  ResourceVectorMap();
  // Adds a resource name (normalizing GPU aliases); no-op when already present.
  void Add(std::string_view name);
  // -1 when the resource has no index.
  int Index(std::string_view name) const;
  int size() const { return static_cast<int>(names_.size()); }
  const std::string& NameAt(int i) const { return names_[i]; }
  const std::vector<std::string>& names() const { return names_; }
  // Indices of MIG resources with their GPU slice count (for TotalGpus).
  const std::vector<std::pair<int, int64_t>>& mig_indices() const { return mig_indices_; }
  // Every index besides CPU, memory and GPUs that is not a MIG resource: the resources a fit
  // check compares one by one (pods and extended resources).
  const std::vector<int>& other_indices() const { return other_indices_; }

 private:
  std::vector<std::string> names_;
  std::map<std::string, int, std::less<>> index_;
  std::vector<std::pair<int, int64_t>> mig_indices_;
  std::vector<int> other_indices_;
};

class ResourceVector {
 public:
  ResourceVector() = default;
  explicit ResourceVector(int size) : v_(size, 0.0) {}
  ResourceVector(double milli_cpu, double memory, double gpu, int size = 4);

  double Get(int i) const { return i >= 0 && i < static_cast<int>(v_.size()) ? v_[i] : 0.0; }
  void Set(int i, double value);
  int size() const { return static_cast<int>(v_.size()); }
  void Resize(int n) {
    if (n > size()) v_.resize(n, 0.0);
  }

  void Add(const ResourceVector& o);
  void Sub(const ResourceVector& o);
  void SetMax(const ResourceVector& o);
  // Element-wise a <= b, with missing entries treated as 0 (KAI ResourceVector.LessEqual).
  bool LessEqual(const ResourceVector& o) const { return LessEqualTo(o); }
  // The same against anything with size() and Get(i), e.g. a sum of vectors not materialised.
  template <typename V>
  bool LessEqualTo(const V& o) const {
    const int n = size() < o.size() ? size() : o.size();
    for (int i = 0; i < n; ++i) {
      if (v_[i] > o.Get(i)) return false;
    }
    for (int i = n; i < size(); ++i) {
      if (v_[i] > 0) return false;
    }
    for (int i = n; i < o.size(); ++i) {
      if (o.Get(i) < 0) return false;
    }
    return true;
  }
  bool IsZero() const;
  // GPU devices including MIG profiles converted to compute slices.
  double TotalGpus(const ResourceVectorMap& map) const;

  double milli_cpu() const { return Get(kCpuIndex); }
  double memory() const { return Get(kMemoryIndex); }
  double gpu() const { return Get(kGpuIndex); }
  double pods() const { return Get(kPodsIndex); }

  bool operator==(const ResourceVector&) const = default;
  const std::vector<double>& values() const { return v_; }

 private:
  std::vector<double> v_;
};

// GPU part of a request (KAI GpuResourceRequirement): `count` devices each of `portion` (1 for
// whole GPUs) or of `gpu_memory` MiB, or MIG profiles.
class GpuRequirement {
 public:
  GpuRequirement() = default;
  // KAI NewGpuResourceRequirementWithGpus: gpus >= 1 -> whole devices; (0,1) or memory -> one
  // fractional device.
  static GpuRequirement WithGpus(double gpus, int64_t gpu_memory_mib);
  static GpuRequirement WithMultiFraction(int64_t count, double portion, int64_t gpu_memory_mib);
  static GpuRequirement WithMig(std::map<std::string, int64_t> mig);

  int64_t NumDevices() const { return count_; }
  double Portion() const { return portion_; }
  int64_t GpuMemory() const { return gpu_memory_; }
  const std::map<std::string, int64_t>& MigResources() const { return mig_; }
  // count x portion with two-decimal fixed point (computed once: every fit check of every node
  // asks for it).
  double Gpus() const { return gpus_; }
  // Whole + fractional + MIG compute slices.
  double GpusQuota() const;
  bool IsEmpty() const;
  bool IsFractional() const;
  // count * memory / device_memory (0 for non-memory requests).
  double GpuMemoryAsFraction(int64_t device_memory_mib) const;
  // Human readable ("2", "0.5", "2 X 0.5").
  std::string ToString() const;

  bool operator==(const GpuRequirement&) const = default;

 private:
  int64_t count_ = 0;
  double portion_ = 0;
  int64_t gpu_memory_ = 0;
  std::map<std::string, int64_t> mig_;
  double gpus_ = 0;  // RoundGpus(portion_, count_), set by the factories
};

// Two-decimal fixed point used by KAI for GPU arithmetic.
double RoundGpus(double portion, int64_t count);

// "%g"-like compact formatting used in messages.
std::string FormatNumber(double v);

}  // namespace kai::scheduler
