#include "scheduler/api/node_info.h"

#include <glog/logging.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <utility>

#include "api/well_known.h"
#include "kube/base/saturating_cast.h"
#include "scheduler/api/amount_bounds.h"

namespace kai::scheduler {

namespace {

constexpr int64_t kTibInMib = 1024 * 1024;
constexpr const char* kShadowSuffix = "\x01moved";

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  bool neg = false;
  size_t i = 0;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
    if (s.size() == 1) return false;
  }
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = neg ? -v : v;
  return true;
}

// Go strconv.ParseBool.
std::optional<bool> ParseGoBool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False") {
    return false;
  }
  return std::nullopt;
}

}  // namespace

NodeFacts ComputeNodeFacts(const api::Node& node, std::string_view mig_worker_label_key) {
  NodeFacts f;
  const auto& labels = node.metadata.labels;
  auto mem = labels.find(std::string(api::kGpuMemoryLabel));
  int64_t v = 0;
  if (mem != labels.end() && ParseInt64(mem->second, &v)) {
    // GPU feature discovery sometimes reports bytes; KAI converts values >= 1 TiB-in-MiB.
    if (v >= kTibInMib) v = v / (1024 * 1024);
    v = std::min(v, kMaxNodeGpuMemoryMib);
    // KAI floors the label to a multiple of 100 MiB (e.g. 40960 -> 40900).
    f.gpu_memory_mib = v - v % 100;
    f.gpu_memory_synced = true;
  }
  auto count = labels.find(std::string(api::kGpuCountLabel));
  if (count != labels.end() && ParseInt64(count->second, &v)) {
    f.gpu_count_label = std::clamp(v, -kMaxNodeGpuDevices, kMaxNodeGpuDevices);
  }
  auto mig = labels.find(std::string(mig_worker_label_key));
  if (mig != labels.end()) {
    auto b = ParseGoBool(mig->second);
    f.mig_enabled_label = b.has_value() && *b;
  }
  auto strategy = labels.find(std::string(api::kMigStrategyLabel));
  if (strategy != labels.end()) {
    if (strategy->second == "single") f.mig_strategy_label = MigStrategy::kSingle;
    if (strategy->second == "mixed") f.mig_strategy_label = MigStrategy::kMixed;
  }
  // scheduler_util.CheckNodeConditionPredicate.
  if (node.spec.unschedulable) {
    f.unschedulable = true;
    f.condition_reasons.push_back("node is unschedulable");
  }
  for (const auto& c : node.status.conditions) {
    if (c.type == "Ready") {
      if (c.status != "True") f.condition_reasons.push_back("node has NotReady condition");
    } else if (c.type == "MemoryPressure" || c.type == "DiskPressure" || c.type == "PIDPressure" ||
               c.type == "NetworkUnavailable") {
      if (c.status != "False") f.condition_reasons.push_back("node has " + c.type + " condition");
    }
  }
  f.ready = f.condition_reasons.empty();
  return f;
}

NodeInfo::NodeInfo(std::shared_ptr<const api::Node> node, const NodeFacts& facts,
                   const ResourceVectorMap* vector_map, const ResourceVector& alloc)
    : node_(std::move(node)), facts_(facts), vector_map_(vector_map) {
  allocatable = alloc;
  allocatable.Resize(vector_map_->size());
  idle = allocatable;
  used = ResourceVector(vector_map_->size());
  releasing = ResourceVector(vector_map_->size());
  max_task_num = SaturatingCast<int>(allocatable.pods());
  memory_of_every_gpu = facts.gpu_memory_mib;
  gpu_memory_synced = facts.gpu_memory_synced;
}

void NodeInfo::RebindTasks(const ResourceVectorMap* vector_map,
                           const std::vector<PodInfo*>& by_slot) {
  vector_map_ = vector_map;
  for (auto& [key, e] : tasks_) e.task = by_slot[e.task->snapshot_slot];
}

int64_t NodeInfo::NumberOfGpusInNode() const {
  if (facts_.gpu_count_label) return *facts_.gpu_count_label;
  return static_cast<int64_t>(allocatable.gpu());
}

bool NodeInfo::IsMigEnabled() const {
  if (facts_.mig_enabled_label) return *facts_.mig_enabled_label;
  for (const auto& [idx, slices] : vector_map_->mig_indices()) {
    if (allocatable.Get(idx) > 0) return true;
  }
  return false;
}

MigStrategy NodeInfo::GetMigStrategy() const {
  if (!IsMigEnabled()) return MigStrategy::kNone;
  return facts_.mig_strategy_label;
}

bool NodeInfo::IsCpuOnlyNode() const {
  if (IsMigEnabled()) return false;
  return allocatable.gpu() <= 0;
}

double NodeInfo::GpuMemoryFractionOnNode(int64_t memory) const {
  double exact = static_cast<double>(memory) / static_cast<double>(memory_of_every_gpu);
  return std::ceil(exact * 100) / 100;
}

int64_t NodeInfo::ResourceGpuMemory(const GpuRequirement& r) const {
  if (r.GpuMemory() > 0) return r.GpuMemory();
  return static_cast<int64_t>(r.Portion() * static_cast<double>(memory_of_every_gpu));
}

double NodeInfo::ResourceGpuPortion(const GpuRequirement& r) const {
  if (r.GpuMemory() > 0) return GpuMemoryFractionOnNode(r.GpuMemory());
  return r.Portion();
}

bool NodeInfo::IsValidGpuPortion(const GpuRequirement& r) const {
  double p = ResourceGpuPortion(r);
  // A GPU-memory request larger than one device of this node cannot be placed (KAI also accepts
  // a whole multiple of the device memory here and then puts it into a single GPU group; see
  // docs/scheduler-behaviour.md).
  if (r.GpuMemory() > 0) return p <= 1;
  return p <= 1 || p == static_cast<double>(static_cast<int64_t>(p));
}

ResourceVector NodeInfo::RequiredInitQuota(const PodInfo& task) const {
  ResourceVector result = task.res_req;
  if (!task.gpu_req.MigResources().empty()) {
    result.Set(kGpuIndex, task.gpu_req.GpusQuota());
  } else {
    result.Set(kGpuIndex, static_cast<double>(task.gpu_req.NumDevices()) *
                              GpuMemoryFractionOnNode(ResourceGpuMemory(task.gpu_req)));
  }
  return result;
}

void NodeInfo::SetAcceptedResources(PodInfo* task) const {
  if (!IsActiveUsedStatus(task->status)) return;
  if (task->IsMigCandidate()) {
    task->received_type = ResourceReceivedType::kMigInstance;
    task->accepted_gpu = GpuRequirement::WithMig(task->gpu_req.MigResources());
  } else if (task->IsFractionCandidate()) {
    task->received_type = ResourceReceivedType::kFraction;
    task->accepted_gpu = GpuRequirement::WithMultiFraction(task->gpu_req.NumDevices(),
                                                           ResourceGpuPortion(task->gpu_req),
                                                           ResourceGpuMemory(task->gpu_req));
  } else {
    task->received_type = ResourceReceivedType::kRegular;
    task->accepted_gpu = GpuRequirement::WithGpus(task->gpu_req.Gpus(), 0);
  }
  task->accepted = task->res_req;
  task->accepted.Set(kGpuIndex, task->accepted_gpu.Gpus());
  for (const auto& [name, count] : task->accepted_gpu.MigResources()) {
    int idx = vector_map_->Index(name);
    if (idx >= 0) task->accepted.Set(idx, static_cast<double>(count));
  }
}

NodeInfo::Entry NodeInfo::MakeEntry(const PodInfo& task) const {
  Entry e;
  e.task = &task;
  e.status = task.status;
  e.is_virtual_status = task.is_virtual_status;
  e.shared_allocation = task.IsSharedGpuAllocation();
  e.reservation = task.is_reservation;
  e.other_scheduler = task.of_other_scheduler;
  e.tracked = task.accepted;
  if (e.shared_allocation || e.reservation) e.tracked.Set(kGpuIndex, 0);
  e.gpu_memory = ResourceGpuMemory(task.gpu_req);
  if (e.shared_allocation) e.groups = task.gpu_groups;
  return e;
}

int NodeInfo::NumberOfUsedSharedGpus() const {
  if (used_shared_gpus_ >= 0) {
#ifndef NDEBUG
    int check = 0;
    for (const auto& [g, m] : used_shared_gpus_memory) check += m > 0 ? 1 : 0;
    CHECK_EQ(check, used_shared_gpus_) << "stale NumberOfUsedSharedGpus on node " << name();
#endif
    return used_shared_gpus_;
  }
  int n = 0;
  for (const auto& [g, m] : used_shared_gpus_memory) {
    if (m > 0) ++n;
  }
  used_shared_gpus_ = n;
  return n;
}

int NodeInfo::NumberOfAllocatedSharedGpus() const {
  int n = 0;
  for (const auto& [g, m] : allocated_shared_gpus_memory) {
    if (m > 0) ++n;
  }
  return n;
}

int NodeInfo::NumGroupsWithoutReservationPod() const {
  if (missing_reservations_ >= 0) return missing_reservations_;
  int missing = 0;
  for (const auto& [group, mem] : used_shared_gpus_memory) {
    if (mem > 0 && reservation_groups_.count(group) == 0) ++missing;
  }
  missing_reservations_ = missing;
  return missing;
}

int NodeInfo::NumberOfUsedGpus() const {
  return static_cast<int>(used.gpu()) + NumberOfUsedSharedGpus();
}

void NodeInfo::AddSharedPerGroup(const Entry& e, const std::string& g) {
  int64_t mem = e.gpu_memory;
  used_shared_gpus_memory[g] += mem;
  used_shared_gpus_ = -1;  // NumberOfUsedGpus is asked below, between groups
  switch (e.status) {
    case PodStatus::kReleasing:
      releasing_shared_gpus_memory[g] += mem;
      allocated_shared_gpus_memory[g] += mem;
      if (used_shared_gpus_memory[g] == releasing_shared_gpus_memory[g]) {
        if (releasing_shared_gpus.count(g) == 0) {
          releasing.Set(kGpuIndex, releasing.gpu() + 1);
          releasing_shared_gpus.insert(g);
        }
        if (NumberOfGpusInNode() < static_cast<int64_t>(idle.gpu()) + NumberOfUsedGpus()) {
          idle.Set(kGpuIndex, idle.gpu() - 1);
        }
      }
      break;
    case PodStatus::kPipelined:
      releasing_shared_gpus_memory[g] -= mem;
      if (used_shared_gpus_memory[g] - mem == releasing_shared_gpus_memory[g] + mem) {
        releasing.Set(kGpuIndex, releasing.gpu() - 1);
      }
      break;
    default:
      allocated_shared_gpus_memory[g] += mem;
      if (used_shared_gpus_memory[g] <= mem) {
        if (NumberOfGpusInNode() < static_cast<int64_t>(idle.gpu()) + NumberOfUsedGpus()) {
          idle.Set(kGpuIndex, idle.gpu() - 1);
        }
      }
      if (releasing_shared_gpus.count(g) > 0) {
        releasing.Set(kGpuIndex, releasing.gpu() - 1);
        releasing_shared_gpus.erase(g);
      }
      break;
  }
  DropGroupIfUnused(g);
}

void NodeInfo::RemoveSharedPerGroup(const Entry& e, const std::string& g) {
  int64_t mem = e.gpu_memory;
  used_shared_gpus_memory[g] -= mem;
  used_shared_gpus_ = -1;
  switch (e.status) {
    case PodStatus::kReleasing:
      releasing_shared_gpus_memory[g] -= mem;
      allocated_shared_gpus_memory[g] -= mem;
      if (used_shared_gpus_memory[g] <= 0) {
        if (NumberOfGpusInNode() >= static_cast<int64_t>(idle.gpu()) + NumberOfUsedGpus()) {
          idle.Set(kGpuIndex, idle.gpu() + 1);
        }
        if (releasing_shared_gpus.count(g) > 0) {
          releasing.Set(kGpuIndex, releasing.gpu() - 1);
          releasing_shared_gpus.erase(g);
        }
      }
      break;
    case PodStatus::kPipelined: {
      releasing_shared_gpus_memory[g] += mem;
      int64_t used_before = used_shared_gpus_memory[g] + mem;
      int64_t releasing_before = releasing_shared_gpus_memory[g] - mem;
      bool used0 = used_shared_gpus_memory[g] == 0;
      bool releasing0 = releasing_shared_gpus_memory[g] == 0;
      if (used_before == releasing_before || (used0 && releasing0)) {
        releasing.Set(kGpuIndex, releasing.gpu() + 1);
      }
      break;
    }
    default:
      allocated_shared_gpus_memory[g] -= mem;
      if (used_shared_gpus_memory[g] <= 0) {
        if (NumberOfGpusInNode() >= static_cast<int64_t>(idle.gpu()) + NumberOfUsedGpus()) {
          idle.Set(kGpuIndex, idle.gpu() + 1);
        }
      }
      if (IsGpuReleasingFromSharedTasks(g) && releasing_shared_gpus.count(g) == 0) {
        releasing.Set(kGpuIndex, releasing.gpu() + 1);
        releasing_shared_gpus.insert(g);
      }
      break;
  }
  DropGroupIfUnused(g);
}

void NodeInfo::DropGroupIfUnused(const std::string& g) {
  // A group with nothing used, allocated or releasing reads exactly like an absent one everywhere
  // (every reader treats a missing entry as 0 or skips unused groups). Dropping it keeps the maps
  // from growing by one entry per simulated placement on a new group (a fresh UUID each time,
  // rolled back): victim searches left thousands of them on a node for every walk to step over.
  auto used = used_shared_gpus_memory.find(g);
  if (used != used_shared_gpus_memory.end() && used->second != 0) return;
  auto alloc = allocated_shared_gpus_memory.find(g);
  if (alloc != allocated_shared_gpus_memory.end() && alloc->second != 0) return;
  auto rel = releasing_shared_gpus_memory.find(g);
  if (rel != releasing_shared_gpus_memory.end() && rel->second != 0) return;
  if (used != used_shared_gpus_memory.end()) used_shared_gpus_memory.erase(used);
  if (alloc != allocated_shared_gpus_memory.end()) allocated_shared_gpus_memory.erase(alloc);
  if (rel != releasing_shared_gpus_memory.end()) releasing_shared_gpus_memory.erase(rel);
}

void NodeInfo::AddEntryResources(const Entry& e) {
  missing_reservations_ = -1;  // the shared-GPU and reservation maps change below
  used_shared_gpus_ = -1;
  if (e.other_scheduler) ++other_scheduler_entries_;
  if (e.reservation && e.task != nullptr) {
    for (const auto& g : e.task->gpu_groups) reservation_groups_[g]++;
  }
  used.Add(e.tracked);
  switch (e.status) {
    case PodStatus::kReleasing:
      releasing.Add(e.tracked);
      idle.Sub(e.tracked);
      break;
    case PodStatus::kPipelined:
      releasing.Sub(e.tracked);
      break;
    default:
      idle.Sub(e.tracked);
      break;
  }
  if (e.shared_allocation) {
    for (const auto& g : e.groups) AddSharedPerGroup(e, g);
  }
}

void NodeInfo::RemoveEntryResources(const Entry& e) {
  missing_reservations_ = -1;  // the shared-GPU and reservation maps change below
  used_shared_gpus_ = -1;
  if (e.other_scheduler) --other_scheduler_entries_;
  if (e.reservation && e.task != nullptr) {
    for (const auto& g : e.task->gpu_groups) {
      auto it = reservation_groups_.find(g);
      if (it != reservation_groups_.end() && --it->second <= 0) reservation_groups_.erase(it);
    }
  }
  used.Sub(e.tracked);
  switch (e.status) {
    case PodStatus::kReleasing:
      releasing.Sub(e.tracked);
      idle.Add(e.tracked);
      break;
    case PodStatus::kPipelined:
      releasing.Add(e.tracked);
      break;
    default:
      idle.Add(e.tracked);
      break;
  }
  if (e.shared_allocation) {
    for (const auto& g : e.groups) RemoveSharedPerGroup(e, g);
  }
}

namespace {
std::atomic<uint64_t>& AccountingCounter() {
  static std::atomic<uint64_t>* const counter = new std::atomic<uint64_t>(0);
  return *counter;
}
}  // namespace

uint64_t NodeInfo::AccountingGeneration() {
  return AccountingCounter().load(std::memory_order_relaxed);
}

void NodeInfo::Touched() {
  missing_reservations_ = -1;
  used_shared_gpus_ = -1;
  accounting_version_.Set(AccountingCounter().fetch_add(1, std::memory_order_relaxed) + 1);
}

bool NodeInfo::AddTask(PodInfo* task) {
  Touched();
  SetAcceptedResources(task);
  // One search: the position found is the insertion hint (snapshots add tasks in key order, so
  // it is usually the end).
  auto pos = tasks_.lower_bound(task->key());
  if (pos != tasks_.end() && pos->first == task->key()) return false;
  Entry e = MakeEntry(*task);
  if (task->is_legacy_mig) legacy_mig_tasks[task->uid()] = task->key();
  AddEntryResources(e);
  tasks_.emplace_hint(pos, task->key(), std::move(e));
  tasks_layout_.Changed();
  return true;
}

uint64_t NodeInfo::Layout::Next() {
  static std::atomic<uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

const NodeInfo::Entry* NodeInfo::FindEntry(const PodInfo& task) const {
  using Item = std::pair<const std::string, Entry>;
  if (task.node_entry_layout == tasks_layout_.value()) {
    const Item* item = static_cast<const Item*>(task.node_entry);
    DCHECK(item->first == task.key()) << "stale entry hint of " << task.key() << " on " << name();
    return &item->second;
  }
  auto it = tasks_.find(task.key());
  if (it == tasks_.end()) return nullptr;
  // The hint is the task's (mutable there), not the node's: filling it changes nothing here.
  task.node_entry = &*it;
  task.node_entry_layout = tasks_layout_.value();
  return &it->second;
}

NodeInfo::Entry* NodeInfo::MutableEntry(const PodInfo& task) {
  return const_cast<Entry*>(std::as_const(*this).FindEntry(task));
}

bool NodeInfo::RemoveTask(const PodInfo& task) {
  Touched();
  auto it = tasks_.find(task.key());
  if (it == tasks_.end()) return false;
  RemoveEntryResources(it->second);
  legacy_mig_tasks.erase(task.uid());
  tasks_.erase(it);
  tasks_layout_.Changed();
  return true;
}

bool NodeInfo::UpdateTask(PodInfo* task) {
  // RemoveTask then AddTask, on the entry in place: the accounting reads no other entry, and an
  // eviction or its rollback (most of a victim simulation's node updates) then neither frees
  // nor allocates a map node. One version bump, after the change: nothing reads the version in
  // between, and the entry hooks invalidate the node's own memos.
  Entry* entry = MutableEntry(*task);
  if (entry == nullptr) return false;
  RemoveEntryResources(*entry);
  legacy_mig_tasks.erase(task->uid());
  Touched();
  SetAcceptedResources(task);
  Entry e = MakeEntry(*task);
  if (task->is_legacy_mig) legacy_mig_tasks[task->uid()] = task->key();
  AddEntryResources(e);
  *entry = std::move(e);
  return true;
}

bool NodeInfo::ConsolidateSharedTaskToDifferentGpu(PodInfo* task) {
  Touched();
  SetAcceptedResources(task);
  auto it = tasks_.find(task->key());
  if (it != tasks_.end()) {
    // The old placement keeps its accounting under a shadow key. A task moved again in the same
    // session (evicted from its new group and moved once more) stacks another shadow.
    int n = 0;
    while (tasks_.count(task->key() + kShadowSuffix + std::to_string(n)) > 0) ++n;
    tasks_.emplace(task->key() + kShadowSuffix + std::to_string(n), std::move(it->second));
    tasks_.erase(it);
    tasks_layout_.Changed();
  }
  Entry e = MakeEntry(*task);
  AddEntryResources(e);
  tasks_.emplace(task->key(), std::move(e));
  tasks_layout_.Changed();
  return true;
}

bool NodeInfo::RestoreConsolidatedSharedTask(const PodInfo& task) {
  Touched();
  RemoveTask(task);
  int n = 0;
  while (tasks_.count(task.key() + kShadowSuffix + std::to_string(n + 1)) > 0) ++n;
  auto shadow = tasks_.find(task.key() + kShadowSuffix + std::to_string(n));
  if (shadow == tasks_.end()) return false;
  Entry e = std::move(shadow->second);
  tasks_.erase(shadow);
  tasks_.emplace(task.key(), std::move(e));
  tasks_layout_.Changed();
  return true;
}

namespace {

// idle (+ releasing), with the pod slots of reservation pods still to be created taken off,
// element by element exactly as copying idle, ResourceVector::Add and Set compute it, without
// the copy (this runs for every node a task is checked on).
class AvailableView {
 public:
  AvailableView(const ResourceVector& idle, const ResourceVector* releasing, int missing_pods)
      : idle_(idle), releasing_(releasing), missing_(missing_pods) {
    size_ = idle.size();
    if (releasing != nullptr && releasing->size() > size_) size_ = releasing->size();
    if (kPodsIndex + 1 > size_) size_ = kPodsIndex + 1;
  }
  int size() const { return size_; }
  double Get(int i) const {
    if (i < 0 || i >= size_) return 0.0;
    double v = idle_.Get(i);
    if (releasing_ != nullptr && i < releasing_->size()) v += releasing_->Get(i);
    if (i == kPodsIndex) v = v - missing_;
    return v;
  }
  double gpu() const { return Get(kGpuIndex); }

 private:
  const ResourceVector& idle_;
  const ResourceVector* releasing_;
  int missing_;
  int size_;
};

// A view's entries as a vector, for callers that keep them across many tasks.
template <typename V>
ResourceVector Materialize(const V& view) {
  ResourceVector out(view.size());
  for (int i = 0; i < view.size(); ++i) out.Set(i, view.Get(i));
  return out;
}

}  // namespace

template <typename V>
bool NodeInfo::LessEqualTaskToNodeResources(const PodInfo& task, const V& vec) const {
  if (!IsValidGpuPortion(task.gpu_req)) return false;
  return task.res_req.LessEqualTo(vec);
}

template <typename V>
bool NodeInfo::IsTaskAllocatableOn(const PodInfo& task, const V& vec) const {
  if (task.IsRegularGpuRequest() || task.IsMigProfileRequest()) {
    return LessEqualTaskToNodeResources(task, vec);
  }
  for (int i = 0; i < task.res_req.size(); ++i) {
    if (i == kGpuIndex) continue;
    if (task.res_req.Get(i) > vec.Get(i)) return false;
  }
  if (!IsValidGpuPortion(task.gpu_req)) return false;
  int64_t whole = static_cast<int64_t>(std::floor(vec.gpu()));
  return whole + FractionTaskGpusAllocatableDeviceCount(task) >= task.gpu_req.NumDevices();
}

bool NodeInfo::IsTaskAllocatable(const PodInfo& task) const {
  if (task.IsBestEffort()) return true;
  if (int missing = NumGroupsWithoutReservationPod(); missing > 0) {
    // Reservation pods the binder still has to create take pod slots.
    return IsTaskAllocatableOn(task, AvailableView(idle, nullptr, missing));
  }
  return IsTaskAllocatableOn(task, idle);
}

bool NodeInfo::IsTaskAllocatableOnReleasingOrIdle(const PodInfo& task) const {
  return IsTaskAllocatableOn(task,
                             AvailableView(idle, &releasing, NumGroupsWithoutReservationPod()));
}

bool NodeInfo::IsTaskAllocatableWithin(const PodInfo& task, const ResourceVector& available) const {
  return IsTaskAllocatableOn(task, available);
}

ResourceVector NodeInfo::AvailableResources(bool with_releasing) const {
  const int missing = NumGroupsWithoutReservationPod();
  if (!with_releasing && missing == 0) return idle;  // what IsTaskAllocatable reads then
  return Materialize(AvailableView(idle, with_releasing ? &releasing : nullptr, missing));
}

template <typename F>
void NodeInfo::ForEachSharedGroup(F&& f) const {
  auto alloc = allocated_shared_gpus_memory.begin();
  auto rel = releasing_shared_gpus_memory.begin();
  for (const auto& [g, used] : used_shared_gpus_memory) {
    while (alloc != allocated_shared_gpus_memory.end() && alloc->first < g) ++alloc;
    while (rel != releasing_shared_gpus_memory.end() && rel->first < g) ++rel;
    int64_t a =
        alloc != allocated_shared_gpus_memory.end() && alloc->first == g ? alloc->second : 0;
    int64_t r = rel != releasing_shared_gpus_memory.end() && rel->first == g ? rel->second : 0;
    if (!f(g, used, a, r)) return;
  }
}

int NodeInfo::CountFittingGpuGroups(const PodInfo& task, int limit) const {
  if (used_shared_gpus_memory.empty() || limit == 0) return 0;
  const int64_t need = ResourceGpuMemory(task.gpu_req);
  auto capped = [limit](int n) { return limit >= 0 ? std::min(n, limit) : n; };
  if (fit_memo_version_ != accounting_version() || accounting_version() == 0) {
    fit_memo_.clear();
    fit_memo_version_ = accounting_version();
  }
  for (const FitMemo& m : fit_memo_) {
    if (m.need != need) continue;
#ifndef NDEBUG
    CHECK_EQ(m.count, CountFittingGpuGroupsUncached(need))
        << "stale CountFittingGpuGroups memo on node " << name();
#endif
    return capped(m.count);
  }
  const int n = CountFittingGpuGroupsUncached(need);
  if (fit_memo_.size() >= kMaxFitMemo) fit_memo_.pop_back();
  fit_memo_.push_back({need, n});
  return capped(n);
}

int NodeInfo::CountFittingGpuGroupsUncached(int64_t need) const {
  int n = 0;
  // Same test as IsTaskFitOnGpuGroup: used, room for the request, not entirely releasing.
  ForEachSharedGroup([&](const std::string&, int64_t used, int64_t allocated, int64_t releasing) {
    if (used != 0 && memory_of_every_gpu - allocated + releasing - need >= 0 &&
        allocated != releasing) {
      ++n;
    }
    return true;
  });
  return n;
}

std::vector<std::string> NodeInfo::FittingGpuGroups(const PodInfo& task) const {
  std::vector<std::string> out;
  if (used_shared_gpus_memory.empty()) return out;
  const int64_t need = ResourceGpuMemory(task.gpu_req);
  ForEachSharedGroup([&](const std::string& g, int64_t used, int64_t allocated, int64_t releasing) {
    if (used != 0 && memory_of_every_gpu - allocated + releasing - need >= 0 &&
        allocated != releasing) {
      out.push_back(g);
    }
    return true;
  });
  return out;
}

double NodeInfo::SharedGpuSlots(int64_t need) const {
  if (need <= 0 || memory_of_every_gpu <= 0) return std::numeric_limits<double>::infinity();
  const int64_t per_gpu = memory_of_every_gpu / need;  // whole multiples
  double slots = std::floor(idle.gpu() + releasing.gpu()) * static_cast<double>(per_gpu);
  // Every group IsTaskFitOnGpuGroup could pick (and a few it would not: an upper bound).
  ForEachSharedGroup([&](const std::string&, int64_t, int64_t allocated, int64_t releasing) {
    const int64_t free = memory_of_every_gpu - allocated + releasing;
    const int64_t multiples = free >= need ? free / need : 0;
    slots += static_cast<double>(multiples);
    return true;
  });
  return slots;
}

int64_t NodeInfo::FractionTaskGpusAllocatableDeviceCount(const PodInfo& task) const {
  int64_t devices = task.gpu_req.NumDevices();
  if (devices <= 0) return 0;
  return CountFittingGpuGroups(task, static_cast<int>(devices));
}

bool NodeInfo::EnoughResourcesOnGpu(const GpuRequirement& r, const std::string& g) const {
  return memory_of_every_gpu - Lookup(allocated_shared_gpus_memory, g) +
             Lookup(releasing_shared_gpus_memory, g) - ResourceGpuMemory(r) >=
         0;
}

bool NodeInfo::KnowsGpuGroup(const std::string& group) const {
  return used_shared_gpus_memory.count(group) > 0 || releasing_shared_gpus.count(group) > 0 ||
         releasing_shared_gpus_memory.count(group) > 0 ||
         allocated_shared_gpus_memory.count(group) > 0 || reservation_groups_.count(group) > 0;
}

bool NodeInfo::EnoughIdleResourcesOnGpu(const GpuRequirement& r, const std::string& g) const {
  auto it = allocated_shared_gpus_memory.find(g);
  if (it == allocated_shared_gpus_memory.end()) return false;
  return memory_of_every_gpu - it->second - ResourceGpuMemory(r) >= 0;
}

bool NodeInfo::IsAllGpuReleased(const std::string& g) const {
  return Lookup(allocated_shared_gpus_memory, g) == Lookup(releasing_shared_gpus_memory, g);
}

bool NodeInfo::IsTaskFitOnGpuGroup(const PodInfo& task, const std::string& g) const {
  return Lookup(used_shared_gpus_memory, g) != 0 && EnoughResourcesOnGpu(task.gpu_req, g) &&
         !IsAllGpuReleased(g);
}

bool NodeInfo::IsGpuReleasingFromSharedTasks(const std::string& g) const {
  auto used_it = used_shared_gpus_memory.find(g);
  if (used_it == used_shared_gpus_memory.end() || used_it->second == 0) return false;
  auto rel_it = releasing_shared_gpus_memory.find(g);
  return rel_it != releasing_shared_gpus_memory.end() && rel_it->second == used_it->second;
}

std::optional<double> NodeInfo::UsedGpuPortion(const std::string& g) const {
  if (memory_of_every_gpu < kDefaultGpuMemoryMib || memory_of_every_gpu == 0) return std::nullopt;
  return static_cast<double>(Lookup(used_shared_gpus_memory, g)) /
         static_cast<double>(memory_of_every_gpu);
}

std::pair<double, int64_t> NodeInfo::SumOfIdleGpus() const {
  double shared = 0;
  int64_t shared_mem = 0;
  for (const auto& [g, alloc] : allocated_shared_gpus_memory) {
    if (alloc > 0) {
      shared += 1 - GpuMemoryFractionOnNode(alloc);
      shared_mem += memory_of_every_gpu - alloc;
    }
  }
  double idle_gpus = idle.TotalGpus(*vector_map_);
  return {shared + idle_gpus, shared_mem + static_cast<int64_t>(idle_gpus) * memory_of_every_gpu};
}

double NodeInfo::IdleAndReleasingGpus() const {
  const uint64_t version = accounting_version();
  if (version != 0 && version == gpu_capacity_version_) {
    DCHECK_EQ(gpu_capacity_, SumOfIdleGpus().first + SumOfReleasingGpus().first)
        << "stale GPU capacity memo on node " << name();
    return gpu_capacity_;
  }
  const double idle = SumOfIdleGpus().first;
  const double releasing = SumOfReleasingGpus().first;
  gpu_capacity_ = idle + releasing;
  // Apart: an over-committed node's idle GPUs are negative.
  has_idle_or_releasing_gpus_ = idle > 0 || releasing > 0;
  gpu_capacity_version_ = version;
  return gpu_capacity_;
}

bool NodeInfo::HasIdleOrReleasingGpus() const {
  IdleAndReleasingGpus();
  DCHECK_EQ(has_idle_or_releasing_gpus_,
            SumOfIdleGpus().first > 0 || SumOfReleasingGpus().first > 0)
      << "stale GPU capacity memo on node " << name();
  return has_idle_or_releasing_gpus_;
}

std::pair<double, int64_t> NodeInfo::SumOfReleasingGpus() const {
  double shared = 0;
  int64_t shared_mem = 0;
  for (const auto& [g, rel] : releasing_shared_gpus_memory) {
    if (rel > 0 && !IsGpuReleasingFromSharedTasks(g)) {
      shared += GpuMemoryFractionOnNode(rel);
      shared_mem += rel;
    }
  }
  double releasing_gpus = releasing.TotalGpus(*vector_map_);
  return {shared + releasing_gpus,
          shared_mem + static_cast<int64_t>(releasing_gpus) * memory_of_every_gpu};
}

std::optional<std::string> NodeInfo::PredicateByNodeResourcesType(const PodInfo& task) const {
  if (task.is_legacy_mig) return "Legacy MIG jobs cannot be scheduled on node " + name();
  if (task.IsCpuOnlyRequest()) return std::nullopt;
  bool mig_node = IsMigEnabled();
  if (!mig_node && task.IsMigCandidate())
    return std::string("MIG job cannot be scheduled on non-MIG node");
  if (mig_node) {
    if (task.IsMigCandidate() && !legacy_mig_tasks.empty()) {
      std::string list;
      for (const auto& [uid, key] : legacy_mig_tasks) list += (list.empty() ? "" : " ") + key;
      return "MIG job cannot be scheduled on node with legacy MIG jobs: <[" + list + "]>";
    }
    MigStrategy strategy = GetMigStrategy();
    if (strategy == MigStrategy::kSingle && !task.IsRegularGpuRequest()) {
      return std::string("only whole gpu jobs can run on a node with MigStrategy='single'");
    }
    if (strategy == MigStrategy::kMixed && !task.IsMigCandidate()) {
      return std::string("non MIG jobs cant run on a node with MigStrategy='mixed'");
    }
  }
  return std::nullopt;
}

std::optional<FitFailures> NodeInfo::FittingFailures(const PodInfo& task) const {
  if (LessEqualTaskToNodeResources(task, idle)) return std::nullopt;
  return FailuresAgainstUsed(task);
}

std::optional<FitFailures> NodeInfo::FittingFailuresUnlessAllocatable(const PodInfo& task) const {
  if (IsTaskAllocatable(task)) return std::nullopt;
  // For these tasks IsTaskAllocatable was exactly FittingFailures' first test (requests <= Idle,
  // nothing taken off for reservation pods): it failed, so that test would too.
  if (!task.IsBestEffort() && (task.IsRegularGpuRequest() || task.IsMigProfileRequest()) &&
      NumGroupsWithoutReservationPod() == 0) {
    return FailuresAgainstUsed(task);
  }
  return FittingFailures(task);
}

namespace {

// allocatable - (used + used shared GPUs), per resource, without copying the vectors (this runs
// for every node a task does not fit on).
class UnusedView {
 public:
  UnusedView(const ResourceVector& allocatable, const ResourceVector& used, double used_gpus,
             int map_size)
      : allocatable_(allocatable),
        used_(used),
        used_gpus_(used_gpus),
        size_(std::max({map_size, allocatable.size(), used.size(), kGpuIndex + 1})) {}
  int size() const { return size_; }
  double Get(int i) const {
    return allocatable_.Get(i) - (i == kGpuIndex ? used_gpus_ : used_.Get(i));
  }

 private:
  const ResourceVector& allocatable_;
  const ResourceVector& used_;
  double used_gpus_;
  int size_;
};

}  // namespace

template <typename V>
FitFailures NodeInfo::FailuresAgainst(const PodInfo& task, const V& unused) const {
  FitFailures f;
  const GpuRequirement& req = task.gpu_req;
  if (!req.MigResources().empty()) {
    for (const auto& [profile, quantity] : req.MigResources()) {
      if (SaturatingCast<int64_t>(unused.Get(vector_map_->Index(profile))) < quantity) {
        f.mig_profiles.push_back(profile);
      }
    }
  } else {
    double requested = req.Gpus();
    if (req.GpuMemory() > 0) {
      requested = RoundGpus(ResourceGpuPortion(req), req.NumDevices());
    }
    if (requested > unused.Get(kGpuIndex)) f.Set(kGpuIndex);
    f.gpu_memory = req.GpuMemory() > memory_of_every_gpu;
  }
  // Integers, as KAI compares them; unused may be far below zero on an over-committed node.
  if (SaturatingCast<int64_t>(task.res_req.milli_cpu()) >
      SaturatingCast<int64_t>(unused.Get(kCpuIndex))) {
    f.Set(kCpuIndex);
  }
  if (task.res_req.memory() > unused.Get(kMemoryIndex)) f.Set(kMemoryIndex);
  for (int i : vector_map_->other_indices()) {
    const int64_t req_q = SaturatingCast<int64_t>(task.res_req.Get(i));
    if (req_q > 0 && SaturatingCast<int64_t>(unused.Get(i)) < req_q) f.Set(i);
  }
  return f;
}

FitFailures NodeInfo::FailuresAgainstUsed(const PodInfo& task) const {
  return FailuresAgainst(task, UnusedView(allocatable, used, used.gpu() + NumberOfUsedSharedGpus(),
                                          vector_map_->size()));
}

FitFailures NodeInfo::FailuresWithin(const PodInfo& task, const ResourceVector& unused) const {
  return FailuresAgainst(task, unused);
}

ResourceVector NodeInfo::UnusedResources() const {
  return Materialize(
      UnusedView(allocatable, used, used.gpu() + NumberOfUsedSharedGpus(), vector_map_->size()));
}

std::vector<std::string> NodeInfo::FitFailureReasons(const FitFailures& f) const {
  constexpr std::string_view kNotEnough = "node(s) didn't have enough resources: ";
  std::vector<std::string> reasons;
  for (const std::string& profile : f.mig_profiles) {
    reasons.push_back("node(s) didn't have enough of mig profile: " + profile);
  }
  auto add = [&](std::string_view what) {
    reasons.push_back(std::string(kNotEnough).append(what));
  };
  if (f.Has(kGpuIndex)) add("GPUs");
  if (f.gpu_memory) add("GPU memory");
  if (f.Has(kCpuIndex)) add("CPU cores");
  if (f.Has(kMemoryIndex)) add("memory");
  for (int i = 0; i < vector_map_->size(); ++i) {
    if (i == kCpuIndex || i == kMemoryIndex || i == kGpuIndex) continue;
    if (f.Has(i)) add(vector_map_->NameAt(i));
  }
  return reasons;
}

std::optional<NodeFitError> NodeInfo::FittingError(const PodInfo& task, bool /*gang*/) const {
  std::optional<FitFailures> f = FittingFailures(task);
  if (!f) return std::nullopt;
  return NodeFitError{name(), FitFailureReasons(*f)};
}

}  // namespace kai::scheduler
