#include "scheduler/framework/resource_fit_cache.h"

#include <glog/logging.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "kube/base/saturating_cast.h"

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
  const bool a_empty = a.errors == nullptr || a.errors->empty();
  const bool b_empty = b.errors == nullptr || b.errors->empty();
  if (a_empty || b_empty) return a_empty == b_empty;
  return a.errors->ToMap() == b.errors->ToMap();
}
#endif

}  // namespace

const ResourceFitCache::TaskFit* ResourceFitCache::PrepareTaskFit(const PodInfo& task,
                                                                  const NodeSet& nodes) {
  if (nodes.empty() || !NodeFitView::Answers(task)) return nullptr;
  task_fit_.map = &nodes[0]->vector_map();
  return &task_fit_;
}

bool ResourceFitCache::HasRoom(const PodInfo& task, const TaskFit* fit, const NodeInfo& node,
                               int rank, uint64_t version) const {
  // Only a view that is already current: building one for a node checked once (victim
  // simulations change nodes all the time) would cost more than the check itself.
  if (fit != nullptr) {
    if (const NodeFitView* view = CurrentView(rank, version, *fit->map)) {
      return view->HasRoom(task, node);
    }
  }
  return node.IsTaskAllocatableOnReleasingOrIdle(task);
}

void ResourceFitCache::FitsInIdle(const PodInfo& task, std::span<const NodeInfo* const> nodes,
                                  std::span<uint8_t> out) const {
  CHECK_EQ(out.size(), nodes.size());
  const ResourceVectorMap* map =
      !nodes.empty() && NodeFitView::Answers(task) ? &nodes[0]->vector_map() : nullptr;
  // Whole-GPU and CPU-only tasks read the columns where they hold the node's current view.
  const Columns& c = columns_;
  const bool by_columns = map != nullptr && task.IsRegularGpuRequest() && c.map == map &&
                          c.dims == map->size() && task.res_req.size() <= c.dims;
  const bool valid = by_columns && nodes[0]->IsValidGpuPortion(task.gpu_req);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeInfo& node = *nodes[i];
    const size_t rank = node.name_rank();
    if (by_columns && rank > 0 && rank < c.ranks && c.version[rank] == node.accounting_version()) {
      out[i] = valid && c.Fits(c.allocatable_idle, task.res_req, rank) ? 1 : 0;
      DCHECK_EQ(out[i], node.IsTaskAllocatable(task) ? 1 : 0)
          << "stale fit-cache column of " << node.name() << " for " << task.key();
      continue;
    }
    const NodeFitView* view =
        map != nullptr ? CurrentView(node.name_rank(), node.accounting_version(), *map) : nullptr;
    if (view != nullptr) {
      out[i] = view->FitsInIdle(task, node) ? 1 : 0;
      DCHECK_EQ(out[i], node.IsTaskAllocatable(task) ? 1 : 0)
          << "stale NodeFitView of " << node.name() << " for " << task.key();
    } else {
      out[i] = node.IsTaskAllocatable(task) ? 1 : 0;
    }
  }
}

std::optional<FitFailures> ResourceFitCache::Failures(const PodInfo& task, const TaskFit* fit,
                                                      const InternedSet& s, size_t i,
                                                      uint64_t version) {
  const NodeInfo& node = *s.nodes[i];
  const int rank = s.mirrored[i] > 0 ? s.mirrored[i] : node.name_rank();
  if (fit != nullptr && rank > 0) {
    if (static_cast<size_t>(rank) >= views_.size()) views_.resize(rank + 1);
    if (CurrentView(rank, version, *fit->map) == nullptr) views_[rank].Build(node, version);
    if (const NodeFitView* view = CurrentView(rank, version, *fit->map)) {
      return view->Failures(task, node);
    }
  }
  return node.FittingFailuresUnlessAllocatable(task);
}

const NodeFitErrors::Reasons* ResourceFitCache::NodeErrors(std::optional<FitFailures> f,
                                                           const NodeInfo& node) {
  if (!f) return nullptr;
  // Most nodes fail like the previous one: compare with it before searching the table.
  if (last_reasons_ != nullptr && *f == last_failures_) return last_reasons_;
  auto [it, fresh] = reasons_->by_failures.try_emplace(std::move(*f), nullptr);
  if (fresh) it->second = &reasons_->lists.emplace_back(node.FitFailureReasons(it->first));
  last_failures_ = it->first;
  last_reasons_ = it->second;
  return it->second;
}

ResourceFitCache::Result ResourceFitCache::Compute(const PodInfo& task, const NodeSet& nodes,
                                                   bool gang) {
  Result r;
  for (const NodeInfo* n : nodes) {
    if (n->IsTaskAllocatableOnReleasingOrIdle(task)) return r;
  }
  r.none_fits = true;
  NodeFitErrors::Map errors;
  // The reference construction: node by node, as Session::FittingNode records them.
  for (const NodeInfo* n : nodes) {
    if (n->IsTaskAllocatable(task)) continue;
    if (auto fe = n->FittingError(task, gang)) errors[n->name()] = std::move(fe->reasons);
  }
  if (!errors.empty()) r.errors = std::make_shared<NodeFitErrors>(std::move(errors));
  return r;
}

int ResourceFitCache::InternNodeSet(const NodeSet& nodes) {
  // Allocate asks about one set task after task: comparing with it is cheaper than hashing.
  if (last_set_ >= 0 && SetAt(last_set_).nodes == nodes) return last_set_;
  const uint64_t h = HashNodeSet(nodes);
  auto [begin, end] = set_by_hash_.equal_range(h);
  for (auto it = begin; it != end; ++it) {
    if (SetAt(it->second).nodes == nodes) return last_set_ = it->second;
  }
  if (sets_.size() >= kRecentSets) DropOldestSet();
  InternedSet& s = sets_.emplace_back();
  s.hash = h;
  s.nodes = nodes;
  s.mirrored.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int rank = nodes[i]->name_rank();
    const bool mirrored = versions_ != nullptr && rank > 0 &&
                          static_cast<size_t>(rank) < versions_->size() &&
                          nodes[i]->accounting_version_table() == versions_ &&
                          nodes[i]->accounting_version_slot() == static_cast<size_t>(rank);
    s.mirrored[i] = mirrored ? rank : 0;
  }
  s.all_mirrored = !nodes.empty() && std::all_of(s.mirrored.begin(), s.mirrored.end(),
                                                 [](int rank) { return rank > 0; });
  const int id = first_set_ + static_cast<int>(sets_.size()) - 1;
  set_by_hash_.emplace(h, id);
  return last_set_ = id;
}

void ResourceFitCache::DropOldestSet() {
  const InternedSet& oldest = sets_.front();
  auto [begin, end] = set_by_hash_.equal_range(oldest.hash);
  for (auto it = begin; it != end; ++it) {
    if (it->second == first_set_) {
      set_by_hash_.erase(it);
      break;
    }
  }
  sets_.pop_front();
  ++first_set_;
}

const std::shared_ptr<const std::vector<std::string>>& ResourceFitCache::SetNames(int set) {
  InternedSet& s = SetAt(set);
  std::shared_ptr<const std::vector<std::string>>& names = s.names;
  if (names == nullptr) {
    auto v = std::make_shared<std::vector<std::string>>();
    v->reserve(s.nodes.size());
    for (const NodeInfo* n : s.nodes) v->push_back(n->name());
    names = std::move(v);
  }
  return names;
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

bool ResourceFitCache::RefreshColumns(const InternedSet& s, const ResourceVectorMap& map) {
  if (versions_ == nullptr || map.size() > 64) return false;
  Columns& c = columns_;
  if (c.map != &map || c.dims != map.size() || c.ranks != versions_->size()) {
    c.map = &map;
    c.dims = map.size();
    c.ranks = versions_->size();
    c.version.assign(c.ranks, kNeverChecked);
    c.plain.assign(c.ranks, 0);
    c.missing_reservations.assign(c.ranks, 0);
    for (auto* col : {&c.room, &c.allocatable_idle, &c.idle, &c.unused, &c.unused_whole}) {
      col->assign(c.ranks * c.dims, 0.0);
    }
  }
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const int rank = s.mirrored[i];
    if (rank <= 0) return false;
    const uint64_t version = (*versions_)[rank];
    if (c.version[rank] == version) continue;
    if (static_cast<size_t>(rank) >= views_.size()) views_.resize(rank + 1);
    if (CurrentView(rank, version, map) == nullptr) views_[rank].Build(*s.nodes[i], version);
    const NodeFitView* v = CurrentView(rank, version, map);
    if (v == nullptr) return false;
    for (const ResourceVector* vec : {&v->room, &v->allocatable_idle, &v->idle, &v->unused}) {
      if (vec->size() > c.dims) return false;
    }
    for (int d = 0; d < c.dims; ++d) {
      const size_t at = d * c.ranks + rank;
      c.room[at] = v->room.Get(d);
      c.allocatable_idle[at] = v->allocatable_idle.Get(d);
      c.idle[at] = v->idle.Get(d);
      c.unused[at] = v->unused.Get(d);
      c.unused_whole[at] = static_cast<double>(SaturatingCast<int64_t>(c.unused[at]));
    }
    c.plain[rank] = s.nodes[i]->memory_of_every_gpu >= 0 ? 1 : 0;
    c.missing_reservations[rank] = v->missing_reservations ? 1 : 0;
    c.version[rank] = version;
  }
  return true;
}

bool ResourceFitCache::ColumnsAnswer(const PodInfo& task, const TaskFit* fit,
                                     const InternedSet& s) {
  // Whole-GPU and CPU-only tasks: their fit tests are one comparison per resource; fractions
  // also count the node's shared GPU groups (NodeInfo's memo), where whole GPUs do not suffice.
  return fit != nullptr && (task.IsRegularGpuRequest() || task.IsFractionRequest()) &&
         task.res_req.size() <= fit->map->size() && RefreshColumns(s, *fit->map);
}

void ResourceFitCache::ColumnRoom(const PodInfo& task, const InternedSet& s) {
  const Columns& c = columns_;
  const size_t n = s.nodes.size();
  // IsTaskAllocatableOn for these tasks: the portion test (the task's own) and LessEqualTo, whose
  // shorter-vector rules are those of vectors padded with zeros.
  room_.assign(n, s.nodes.empty() || s.nodes[0]->IsValidGpuPortion(task.gpu_req) ? 1 : 0);
  if (task.IsFractionRequest()) {
    ColumnFractionFits(task, s, c.room, &room_);
    return;
  }
  for (int d = 0; d < c.dims; ++d) {
    const double req = task.res_req.Get(d);
    const double* col = &c.room[d * c.ranks];
    for (size_t i = 0; i < n; ++i) room_[i] &= req > col[s.mirrored[i]] ? 0 : 1;
  }
}

void ResourceFitCache::ColumnFractionFits(const PodInfo& task, const InternedSet& s,
                                          const std::vector<double>& column,
                                          std::vector<uint8_t>* fits) const {
  const Columns& c = columns_;
  const size_t n = s.nodes.size();
  // IsTaskAllocatableOn for a fraction: the task's own non-GPU requests (its vector's length, no
  // padding), then whole GPUs plus the shared groups it fits in.
  for (int d = 0; d < task.res_req.size(); ++d) {
    if (d == kGpuIndex) continue;
    const double req = task.res_req.Get(d);
    const double* col = &column[d * c.ranks];
    for (size_t i = 0; i < n; ++i) (*fits)[i] &= req > col[s.mirrored[i]] ? 0 : 1;
  }
  const int64_t devices = task.gpu_req.NumDevices();
  const double* gpus = &column[kGpuIndex * c.ranks];
  for (size_t i = 0; i < n; ++i) {
    if ((*fits)[i] == 0) continue;
    const int64_t whole = SaturatingCast<int64_t>(std::floor(gpus[s.mirrored[i]]));
    if (whole >= devices) continue;
    (*fits)[i] = whole + s.nodes[i]->FractionTaskGpusAllocatableDeviceCount(task) >= devices;
  }
}

void ResourceFitCache::ColumnReasons(const PodInfo& task, const TaskFit* fit, const InternedSet& s,
                                     const std::vector<uint64_t>& versions,
                                     std::vector<const NodeFitErrors::Reasons*>* reasons) {
  const Columns& c = columns_;
  const size_t n = s.nodes.size();
  const ResourceVector& req = task.res_req;
  const bool valid = n == 0 || s.nodes[0]->IsValidGpuPortion(task.gpu_req);
  // NodeInfo::FailuresAgainst's comparisons for a whole-GPU or CPU-only task.
  const double gpus = task.gpu_req.Gpus();
  const double cpu_whole = static_cast<double>(SaturatingCast<int64_t>(req.milli_cpu()));
  const double memory = req.memory();
  const auto at = [&c](int d, int rank) { return d * c.ranks + rank; };
  const bool fraction = task.IsFractionRequest();
  // A fraction's test against Idle as IsTaskAllocatable sees it, for every node at once.
  std::vector<uint8_t> fraction_fits;
  if (fraction) {
    fraction_fits.assign(n, valid ? 1 : 0);
    ColumnFractionFits(task, s, c.allocatable_idle, &fraction_fits);
  }
  std::vector<std::pair<uint64_t, const NodeFitErrors::Reasons*>> seen;
  for (size_t i = 0; i < n; ++i) {
    const int rank = s.mirrored[i];
    if (c.plain[rank] == 0) {
      (*reasons)[i] = NodeErrors(Failures(task, fit, s, i, versions[i]), *s.nodes[i]);
      continue;
    }
    // NodeFitView::Failures: no failure when the task fits in Idle as IsTaskAllocatable sees it
    // or, for a fraction or when reservation pods are missing, in Idle itself.
    bool fits_idle =
        fraction ? fraction_fits[i] != 0 : valid && c.Fits(c.allocatable_idle, req, rank);
    if (!fits_idle && valid && (fraction || c.missing_reservations[rank] != 0)) {
      fits_idle = c.Fits(c.idle, req, rank);
    }
    if (fits_idle) {
      (*reasons)[i] = nullptr;
      continue;
    }
    uint64_t bits = 0;
    const auto flag = [&bits](bool failed, int d) { bits |= uint64_t{failed} << d; };
    flag(gpus > c.unused[at(kGpuIndex, rank)], kGpuIndex);
    flag(cpu_whole > c.unused_whole[at(kCpuIndex, rank)], kCpuIndex);
    flag(memory > c.unused[at(kMemoryIndex, rank)], kMemoryIndex);
    for (int d : c.map->other_indices()) {
      const int64_t req_q = SaturatingCast<int64_t>(req.Get(d));
      flag(req_q > 0 && static_cast<double>(req_q) > c.unused_whole[at(d, rank)], d);
    }
    // A handful of failure combinations per shape: intern each once.
    auto known =
        std::find_if(seen.begin(), seen.end(), [bits](auto& e) { return e.first == bits; });
    if (known == seen.end()) {
      FitFailures f;
      f.low = bits;
      known = seen.emplace(seen.end(), bits, NodeErrors(std::move(f), *s.nodes[i]));
    }
    (*reasons)[i] = known->second;
  }
}

std::optional<std::span<const uint32_t>> ResourceFitCache::FewWrittenSince(
    std::optional<uint64_t> since, const InternedSet& s) const {
  if (!since || !s.all_mirrored) return std::nullopt;
  auto written = versions_->WrittenSince(*since);
  // Past a quarter of the set, a pass over the set's versions is as cheap and needs no index.
  if (written && written->size() > s.nodes.size() / 4) return std::nullopt;
  return written;
}

const std::vector<int>& ResourceFitCache::IndexByRank(InternedSet* s) const {
  if (s->index_by_rank.empty()) {
    s->index_by_rank.assign(versions_->size(), -1);
    for (size_t i = 0; i < s->mirrored.size(); ++i)
      s->index_by_rank[s->mirrored[i]] = static_cast<int>(i);
  }
  return s->index_by_rank;
}

std::shared_ptr<const NodeFitErrors> ResourceFitCache::ErrorsFor(const std::string& shape_key,
                                                                 const PodInfo& task, int set,
                                                                 std::optional<bool> columns) {
  InternedSet& s = SetAt(set);
  auto [it, fresh] = s.errors.try_emplace(shape_key);
  Errors& e = it->second;
  const NodeSet& nodes = s.nodes;
  const TaskFit* fit = PrepareTaskFit(task, nodes);
  const std::optional<uint64_t> writes = WritesFor(s);
  // The node's reasons at its current version, copying shared errors before writing.
  const auto refresh = [&](size_t i) {
    const uint64_t version = VersionAt(s, i);
    if (version == e.versions[i]) return;
    e.versions[i] = version;
    const NodeFitErrors::Reasons* reasons =
        NodeErrors(Failures(task, fit, s, i, version), *nodes[i]);
    if (reasons == e.errors->dense_at(i)) return;  // interned: same pointer, same reasons
    // Tasks that recorded the old errors keep them: copy before writing.
    if (e.errors.use_count() > 1) e.errors = std::make_shared<NodeFitErrors>(*e.errors);
    e.errors->set_dense_at(i, reasons);
  };
  if (fresh) {
    e.versions.resize(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) e.versions[i] = VersionAt(s, i);
    std::vector<const NodeFitErrors::Reasons*> reasons(nodes.size());
    if (columns ? *columns : ColumnsAnswer(task, fit, s)) {
      ++column_passes_;
      ColumnReasons(task, fit, s, e.versions, &reasons);
    } else {
      for (size_t i = 0; i < nodes.size(); ++i) {
        reasons[i] = NodeErrors(Failures(task, fit, s, i, e.versions[i]), *nodes[i]);
      }
    }
    e.errors = std::make_shared<NodeFitErrors>(SetNames(set), std::move(reasons), reasons_);
  } else if (auto written = FewWrittenSince(e.writes, s)) {
    ++log_updates_;
    const std::vector<int>& index = IndexByRank(&SetAt(set));
    for (uint32_t rank : *written) {
      if (index[rank] >= 0) refresh(index[rank]);
    }
  } else {
    // Only the nodes whose accounting changed since the errors were last brought up to date.
    for (size_t i = 0; i < nodes.size(); ++i) refresh(i);
  }
  e.writes = writes;
  if (e.errors->empty()) return nullptr;
  return e.errors;
}

ResourceFitCache::Result ResourceFitCache::Check(const PodInfo& task, const NodeSet& nodes,
                                                 bool gang, bool want_errors) {
  thread_local std::string key;
  ShapeKey(task, &key);
  auto it = shapes_.find(key);
  const bool new_shape = it == shapes_.end();
  if (new_shape) {
    it = shapes_.emplace(key, Shape{}).first;
    // Every node of the session has a rank below the table's size: no growth node by node.
    if (versions_ != nullptr) it->second.by_rank.resize(versions_->size());
    ++misses_;
  } else {
    ++hits_;
  }
  Shape& shape = it->second;
  const int set = InternNodeSet(nodes);
  const InternedSet& s = SetAt(set);
  const TaskFit* fit = PrepareTaskFit(task, nodes);
  room_.resize(nodes.size());
  int num_room = 0;
  const std::optional<uint64_t> writes = WritesFor(s);
  std::optional<std::span<const uint32_t>> written;
  if (!new_shape && shape.last.set == set) written = FewWrittenSince(shape.last.writes, s);
  // A new shape meets every node: where the nodes change rarely (the fit errors are wanted outside
  // victim simulations) their columns are current and answer for all of them at once.
  std::optional<bool> columns;
  if (new_shape && want_errors) columns = ColumnsAnswer(task, fit, s);
  const bool by_columns = columns.value_or(false);
  if (written) {
    // The last answer, with the nodes written since brought up to date.
    ++log_updates_;
    room_ = shape.last.room;
    num_room = shape.last.num_room;
    const std::vector<int>& index = IndexByRank(&SetAt(set));
    for (uint32_t rank : *written) {
      const int i = index[rank];
      if (i < 0) continue;
      NodeRoom& memo = shape.by_rank[rank];
      const uint64_t version = (*versions_)[rank];
      if (memo.version != version) {
        ++node_rechecks_;
        const uint8_t room = HasRoom(task, fit, *nodes[i], static_cast<int>(rank), version) ? 1 : 0;
        memo = NodeRoom{version, room};
      }
      num_room += memo.room - room_[i];
      room_[i] = memo.room;
    }
  } else if (by_columns) {
    ++column_passes_;
    ColumnRoom(task, s);
    for (size_t i = 0; i < nodes.size(); ++i) {
      shape.by_rank[s.mirrored[i]] = NodeRoom{(*versions_)[s.mirrored[i]], room_[i]};
      num_room += room_[i];
    }
    node_rechecks_ += static_cast<int64_t>(nodes.size());
  } else {
    for (size_t i = 0; i < nodes.size(); ++i) {
      // A mirrored node is not read unless it changed: its rank and version come from dense tables.
      const uint64_t version = VersionAt(s, i);
      const int rank = s.mirrored[i] > 0 ? s.mirrored[i] : nodes[i]->name_rank();
      NodeRoom* memo = nullptr;
      if (rank > 0) {
        if (static_cast<size_t>(rank) >= shape.by_rank.size()) shape.by_rank.resize(rank + 1);
        memo = &shape.by_rank[rank];
      }
      if (memo == nullptr || memo->version != version) {
        ++node_rechecks_;
        const uint8_t room = HasRoom(task, fit, *nodes[i], rank, version) ? 1 : 0;
        if (memo != nullptr) *memo = NodeRoom{version, room};
        room_[i] = room;
      } else {
        room_[i] = memo->room;
      }
      num_room += room_[i];
    }
  }
  if (writes) {
    shape.last.set = set;
    shape.last.writes = *writes;
    shape.last.num_room = num_room;
    shape.last.room = room_;
  }
  Result r;
  r.none_fits = num_room == 0;
  r.room = &room_;
  if (r.none_fits && want_errors) r.errors = ErrorsFor(key, task, set, columns);
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
