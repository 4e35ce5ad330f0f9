#include "scheduler/framework/resource_fit_cache.h"

#include <glog/logging.h>

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
bool SameResult(const ResourceFitCache::Result& a, const ResourceFitCache::Result& b, bool errors) {
  if (a.none_fits != b.none_fits) return false;
  if (!errors || !a.none_fits) return true;
  const bool a_empty = a.errors == nullptr || a.errors->nodes().empty();
  const bool b_empty = b.errors == nullptr || b.errors->nodes().empty();
  if (a_empty || b_empty) return a_empty == b_empty;
  return a.errors->nodes() == b.errors->nodes();
}
#endif

}  // namespace

std::optional<std::vector<std::string>> ResourceFitCache::NodeErrors(const PodInfo& task,
                                                                     const NodeInfo& node,
                                                                     bool gang) {
  if (node.IsTaskAllocatable(task)) return std::nullopt;
  std::optional<NodeFitError> fe = node.FittingError(task, gang);
  if (!fe) return std::nullopt;
  return std::move(fe->reasons);
}

ResourceFitCache::Result ResourceFitCache::Compute(const PodInfo& task, const NodeSet& nodes,
                                                   bool gang) {
  Result r;
  for (const NodeInfo* n : nodes) {
    if (n->IsTaskAllocatableOnReleasingOrIdle(task)) return r;
  }
  r.none_fits = true;
  NodeFitErrors::Map errors;
  for (const NodeInfo* n : nodes) {
    if (auto reasons = NodeErrors(task, *n, gang)) errors[n->name()] = std::move(*reasons);
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

void ResourceFitCache::ShapeKey(const PodInfo& task, std::string* key) {
  key->clear();
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

void ResourceFitCache::SetNodeErrors(Errors* e, const NodeInfo& node,
                                     std::optional<std::vector<std::string>> reasons) {
  const NodeFitErrors::Map& current = e->errors->nodes();
  auto it = current.find(node.name());
  if (!reasons ? it == current.end() : it != current.end() && it->second == *reasons) return;
  // Tasks that recorded the old errors keep them: copy before writing.
  if (e->errors.use_count() > 1) e->errors = std::make_shared<NodeFitErrors>(current);
  NodeFitErrors::Map& mine = e->errors->mutable_nodes();
  if (reasons) {
    mine[node.name()] = std::move(*reasons);
  } else {
    mine.erase(node.name());
  }
}

std::shared_ptr<const NodeFitErrors> ResourceFitCache::ErrorsFor(const std::string& shape_key,
                                                                 const PodInfo& task,
                                                                 const NodeSet& nodes, bool gang) {
  thread_local std::string key;
  key = shape_key;
  AppendBytes(&key, gang);
  AppendBytes(&key, InternNodeSet(nodes));
  auto [it, fresh] = errors_.try_emplace(key);
  Errors& e = it->second;
  if (fresh) {
    // Built in one pass: node sets are in name order, so every insertion goes at the end of the
    // map (a hint, not a search among thousands of similar names).
    e.versions.resize(nodes.size());
    NodeFitErrors::Map errors;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeInfo& n = *nodes[i];
      e.versions[i] = n.accounting_version();
      if (auto reasons = NodeErrors(task, n, gang)) {
        errors.emplace_hint(errors.end(), n.name(), std::move(*reasons));
      }
    }
    e.errors = std::make_shared<NodeFitErrors>(std::move(errors));
  } else {
    // Only the nodes whose accounting changed since the errors were last brought up to date.
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeInfo& n = *nodes[i];
      if (n.accounting_version() == e.versions[i]) continue;
      e.versions[i] = n.accounting_version();
      SetNodeErrors(&e, n, NodeErrors(task, n, gang));
    }
  }
  if (e.errors->nodes().empty()) return nullptr;
  return e.errors;
}

ResourceFitCache::Result ResourceFitCache::Check(const PodInfo& task, const NodeSet& nodes,
                                                 bool gang, bool want_errors) {
  thread_local std::string key;
  ShapeKey(task, &key);
  auto it = shapes_.find(key);
  if (it == shapes_.end()) {
    it = shapes_.emplace(key, Shape{}).first;
    ++misses_;
  } else {
    ++hits_;
  }
  Shape& shape = it->second;
  room_.resize(nodes.size());
  int num_room = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeInfo& n = *nodes[i];
    const int rank = n.name_rank();
    NodeRoom* memo = nullptr;
    if (rank > 0) {
      if (static_cast<size_t>(rank) >= shape.by_rank.size()) shape.by_rank.resize(rank + 1);
      memo = &shape.by_rank[rank];
    }
    if (memo == nullptr || memo->version != n.accounting_version()) {
      ++node_rechecks_;
      const uint8_t room = n.IsTaskAllocatableOnReleasingOrIdle(task) ? 1 : 0;
      if (memo != nullptr) *memo = NodeRoom{n.accounting_version(), room};
      room_[i] = room;
    } else {
      room_[i] = memo->room;
    }
    num_room += room_[i];
  }
  Result r;
  r.none_fits = num_room == 0;
  r.room = &room_;
  if (r.none_fits && want_errors) r.errors = ErrorsFor(key, task, nodes, gang);
#ifndef NDEBUG
  // Debug builds (the sanitizer build runs every test with them) prove each answer exact.
  CHECK(SameResult(r, Compute(task, nodes, gang), want_errors))
      << "stale ResourceFitCache entry for " << task.key();
  for (size_t i = 0; i < nodes.size(); ++i) {
    CHECK_EQ(room_[i], nodes[i]->IsTaskAllocatableOnReleasingOrIdle(task) ? 1 : 0)
        << "stale ResourceFitCache room of " << nodes[i]->name() << " for " << task.key();
  }
#endif
  return r;
}

}  // namespace kai::scheduler
