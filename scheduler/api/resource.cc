#include "scheduler/api/resource.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "scheduler/api/amount_bounds.h"

namespace kai::scheduler {

namespace {

bool IsGpuAlias(std::string_view name) {
  return name == kGpuResource || name == "gpu" || name == "amd.com/gpu";
}

std::string_view Normalize(std::string_view name) { return IsGpuAlias(name) ? kGpuResource : name; }

bool ParseInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
    if (v > kMaxMigProfileNumber) return false;
  }
  *out = v;
  return true;
}

}  // namespace

bool IsMigResource(std::string_view name) { return name.starts_with(kMigResourcePrefix); }

bool IsGpuDeviceResource(std::string_view resource) {
  return IsGpuAlias(resource) || IsMigResource(resource);
}

double NodeAmountBound(std::string_view resource) {
  return IsGpuDeviceResource(resource) ? static_cast<double>(kMaxNodeGpuDevices) : kMaxNodeAmount;
}

double PodAmountBound(std::string_view resource) {
  return IsGpuDeviceResource(resource) ? static_cast<double>(kMaxPodGpuDevices) : kMaxPodAmount;
}

double ClampNodeAmount(std::string_view resource, double amount) {
  const double bound = NodeAmountBound(resource);
  return std::clamp(amount, -bound, bound);
}

double ClampPodAmount(std::string_view resource, double amount) {
  const double bound = PodAmountBound(resource);
  return std::clamp(amount, -bound, bound);
}

bool ParseMigResourceName(std::string_view name, int64_t* gpu_slices, int64_t* memory_gb) {
  if (!IsMigResource(name)) return false;
  std::string_view rest = name.substr(kMigResourcePrefix.size());  // "<g>g.<m>gb"
  size_t g = rest.find("g.");
  if (g == std::string_view::npos || !rest.ends_with("gb")) return false;
  std::string_view slices = rest.substr(0, g);
  std::string_view mem = rest.substr(g + 2, rest.size() - g - 2 - 2);
  return ParseInt(slices, gpu_slices) && ParseInt(mem, memory_gb);
}

ResourceVectorMap::ResourceVectorMap() {
  Add("cpu");
  Add("memory");
  Add(kGpuResource);
  Add("pods");
}

void ResourceVectorMap::Add(std::string_view raw) {
  std::string_view name = Normalize(raw);
  if (index_.find(name) != index_.end()) return;
  int idx = static_cast<int>(names_.size());
  names_.emplace_back(name);
  index_.emplace(std::string(name), idx);
  int64_t g = 0, m = 0;
  if (ParseMigResourceName(name, &g, &m)) mig_indices_.emplace_back(idx, g);
  if (idx != kCpuIndex && idx != kMemoryIndex && idx != kGpuIndex && !IsMigResource(name)) {
    other_indices_.push_back(idx);
  }
}

int ResourceVectorMap::Index(std::string_view name) const {
  auto it = index_.find(Normalize(name));
  return it == index_.end() ? -1 : it->second;
}

ResourceVector::ResourceVector(double milli_cpu, double memory, double gpu, int size)
    : v_(size < 4 ? 4 : size, 0.0) {
  v_[kCpuIndex] = milli_cpu;
  v_[kMemoryIndex] = memory;
  v_[kGpuIndex] = gpu;
}

void ResourceVector::Set(int i, double value) {
  if (i < 0) return;
  if (i >= size()) v_.resize(i + 1, 0.0);
  v_[i] = value;
}

void ResourceVector::Add(const ResourceVector& o) {
  Resize(o.size());
  for (int i = 0; i < o.size(); ++i) v_[i] += o.v_[i];
}

void ResourceVector::Sub(const ResourceVector& o) {
  Resize(o.size());
  for (int i = 0; i < o.size(); ++i) v_[i] -= o.v_[i];
}

void ResourceVector::SetMax(const ResourceVector& o) {
  Resize(o.size());
  for (int i = 0; i < o.size(); ++i) {
    if (o.v_[i] > v_[i]) v_[i] = o.v_[i];
  }
}

bool ResourceVector::IsZero() const {
  for (double d : v_) {
    if (d != 0) return false;
  }
  return true;
}

double ResourceVector::TotalGpus(const ResourceVectorMap& map) const {
  double total = Get(kGpuIndex);
  for (const auto& [idx, slices] : map.mig_indices())
    total += static_cast<double>(slices) * Get(idx);
  return total;
}

double RoundGpus(double portion, int64_t count) {
  int64_t as_decimals = static_cast<int64_t>(std::round(portion * 100));
  return static_cast<double>(as_decimals * count) / 100;
}

GpuRequirement GpuRequirement::WithGpus(double gpus, int64_t gpu_memory_mib) {
  GpuRequirement r;
  r.portion_ = gpus;
  r.gpu_memory_ = gpu_memory_mib;
  if (gpus >= 1) {
    r.count_ = static_cast<int64_t>(gpus);
    r.portion_ = 1;
  } else if (gpus > 0 || gpu_memory_mib > 0) {
    r.count_ = 1;
  }
  r.gpus_ = RoundGpus(r.portion_, r.count_);
  return r;
}

GpuRequirement GpuRequirement::WithMultiFraction(int64_t count, double portion,
                                                 int64_t gpu_memory_mib) {
  GpuRequirement r;
  r.count_ = count;
  r.portion_ = portion;
  r.gpu_memory_ = gpu_memory_mib;
  r.gpus_ = RoundGpus(r.portion_, r.count_);
  return r;
}

GpuRequirement GpuRequirement::WithMig(std::map<std::string, int64_t> mig) {
  GpuRequirement r;
  r.mig_ = std::move(mig);
  return r;
}

double GpuRequirement::GpusQuota() const {
  double total = 0;
  for (const auto& [name, quantity] : mig_) {
    int64_t g = 0, m = 0;
    if (ParseMigResourceName(name, &g, &m)) {
      total += static_cast<double>(g) * static_cast<double>(quantity);
    }
  }
  return total + Gpus();
}

bool GpuRequirement::IsEmpty() const {
  if (Gpus() > 0.01) return false;
  for (const auto& [name, quantity] : mig_) {
    if (quantity > 0) return false;
  }
  return true;
}

bool GpuRequirement::IsFractional() const {
  if (gpu_memory_ > 0) return true;
  return count_ > 0 && portion_ < 1;
}

double GpuRequirement::GpuMemoryAsFraction(int64_t device_memory_mib) const {
  if (gpu_memory_ <= 0 || device_memory_mib <= 0) return 0;
  return static_cast<double>(count_) *
         (static_cast<double>(gpu_memory_) / static_cast<double>(device_memory_mib));
}

std::string FormatNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3g", v);
  return buf;
}

std::string GpuRequirement::ToString() const {
  if (IsFractional() && count_ > 1) {
    return std::to_string(count_) + " X " + FormatNumber(portion_);
  }
  return FormatNumber(Gpus());
}

}  // namespace kai::scheduler
