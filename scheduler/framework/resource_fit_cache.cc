#include "scheduler/framework/resource_fit_cache.h"

#include <glog/logging.h>

#include <cstring>

namespace kai::scheduler {

namespace {

template <typename T>
void AppendBytes(std::string* key, const T& v) {
  key->append(reinterpret_cast<const char*>(&v), sizeof(v));
}

uint64_t HashNodeSet(const NodeSet& nodes) {
  // FNV-1a over the pointers: node sets are compared exactly after a hash match.
  uint64_t h = 1469598103934665603ull ^ nodes.size();
  for (const NodeInfo* n : nodes) {
    h ^= reinterpret_cast<uintptr_t>(n);
    h *= 1099511628211ull;
  }
  return h;
}

#ifndef NDEBUG
bool SameErrors(const ResourceFitCache::Result& a, const ResourceFitCache::Result& b) {
  if (a.none_fits != b.none_fits) return false;
  const bool a_empty = a.errors == nullptr || a.errors->nodes().empty();
  const bool b_empty = b.errors == nullptr || b.errors->nodes().empty();
  if (a_empty || b_empty) return a_empty == b_empty;
  return a.errors->nodes() == b.errors->nodes();
}
#endif

}  // namespace

ResourceFitCache::Result ResourceFitCache::Compute(const PodInfo& task, const NodeSet& nodes,
                                                   bool gang) {
  Result r;
  for (const NodeInfo* n : nodes) {
    if (n->IsTaskAllocatableOnReleasingOrIdle(task)) return r;
  }
  r.none_fits = true;
  NodeFitErrors::Map errors;
  for (const NodeInfo* n : nodes) {
    if (n->IsTaskAllocatable(task)) continue;
    if (std::optional<NodeFitError> fe = n->FittingError(task, gang)) {
      errors[fe->node_name] = std::move(fe->reasons);
    }
  }
  if (!errors.empty()) r.errors = std::make_shared<NodeFitErrors>(std::move(errors));
  return r;
}

int ResourceFitCache::InternNodeSet(const NodeSet& nodes) {
  const uint64_t h = HashNodeSet(nodes);
  auto [begin, end] = set_by_hash_.equal_range(h);
  for (auto it = begin; it != end; ++it) {
    if (sets_[it->second] == nodes) return it->second;
  }
  sets_.push_back(nodes);
  const int id = static_cast<int>(sets_.size()) - 1;
  set_by_hash_.emplace(h, id);
  return id;
}

void ResourceFitCache::ShapeKey(const PodInfo& task, bool gang, int set, std::string* key) {
  key->clear();
  AppendBytes(key, set);
  AppendBytes(key, gang);
  AppendBytes(key, task.request_type);
  const GpuRequirement& g = task.gpu_req;
  AppendBytes(key, g.NumDevices());
  AppendBytes(key, g.Portion());
  AppendBytes(key, g.GpuMemory());
  AppendBytes(key, static_cast<int64_t>(g.MigResources().size()));
  for (const auto& [profile, n] : g.MigResources()) {
    AppendBytes(key, static_cast<int64_t>(profile.size()));
    key->append(profile);
    AppendBytes(key, n);
  }
  // Every request, in resource-vector order (the map is fixed for a session).
  const std::vector<double>& v = task.res_req.values();
  AppendBytes(key, static_cast<int64_t>(v.size()));
  key->append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}

const ResourceFitCache::Result& ResourceFitCache::Check(const PodInfo& task, const NodeSet& nodes,
                                                        bool gang) {
  const uint64_t gen = NodeInfo::AccountingGeneration();
  if (gen != generation_) {
    results_.clear();
    generation_ = gen;
  }
  thread_local std::string key;
  ShapeKey(task, gang, InternNodeSet(nodes), &key);
  auto it = results_.find(key);
  if (it != results_.end()) {
    ++hits_;
#ifndef NDEBUG
    // Debug builds (the sanitizer build runs every test with them) prove each hit exact.
    CHECK(SameErrors(it->second, Compute(task, nodes, gang)))
        << "stale ResourceFitCache entry for " << task.key();
#endif
    return it->second;
  }
  ++misses_;
  return results_.emplace(key, Compute(task, nodes, gang)).first->second;
}

}  // namespace kai::scheduler
