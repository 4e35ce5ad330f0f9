#include "scheduler/api/podgroup_info.h"

#include <algorithm>
#include <set>

#include "api/well_known.h"

namespace kai::scheduler {

namespace {

std::optional<TopologyConstraintInfo> ToConstraint(
    const std::optional<api::TopologyConstraint>& c) {
  if (!c || c->topology.empty()) return std::nullopt;
  return TopologyConstraintInfo{c->topology, c->required_topology_level,
                                c->preferred_topology_level};
}

template <typename Pred>
int CountTasks(const std::vector<PodInfo*>& tasks, Pred pred) {
  int n = 0;
  for (const PodInfo* t : tasks) {
    if (pred(t->status)) ++n;
  }
  return n;
}

}  // namespace

bool IsPreemptible(std::string_view preemptibility, int32_t priority) {
  if (preemptibility == api::kPreemptible) return true;
  if (preemptibility == api::kNonPreemptible) return false;
  return priority < kPreemptibleThreshold;
}

int PodSet::NumActiveAllocated() const { return CountTasks(tasks_, IsActiveAllocatedStatus); }
int PodSet::NumActiveUsed() const { return CountTasks(tasks_, IsActiveUsedStatus); }
int PodSet::NumAlive() const { return CountTasks(tasks_, IsAliveStatus); }
int PodSet::NumGated() const {
  return CountTasks(tasks_, [](PodStatus s) { return s == PodStatus::kGated; });
}
int PodSet::NumPending() const {
  return CountTasks(tasks_, [](PodStatus s) { return s == PodStatus::kPending; });
}

SubGroupSet* SubGroupSet::AddSubGroupSet(std::unique_ptr<SubGroupSet> child) {
  child->parent_ = this;
  child_sets_.push_back(std::move(child));
  return child_sets_.back().get();
}

PodSet* SubGroupSet::AddPodSet(std::unique_ptr<PodSet> child) {
  child->set_parent(this);
  pod_sets_.push_back(std::move(child));
  return pod_sets_.back().get();
}

std::vector<PodSet*> SubGroupSet::DescendantPodSets() const {
  std::vector<PodSet*> out;
  for (const auto& c : child_sets_) {
    auto sub = c->DescendantPodSets();
    out.insert(out.end(), sub.begin(), sub.end());
  }
  for (const auto& p : pod_sets_) out.push_back(p.get());
  return out;
}

bool SubGroupSet::IsReadyForScheduling() const {
  for (const auto& c : child_sets_) {
    if (!c->IsReadyForScheduling()) return false;
  }
  for (const auto& p : pod_sets_) {
    if (!p->IsReadyForScheduling()) return false;
  }
  return true;
}

bool SubGroupSet::IsGangSatisfied() const {
  for (const auto& c : child_sets_) {
    if (!c->IsGangSatisfied()) return false;
  }
  for (const auto& p : pod_sets_) {
    if (!p->IsGangSatisfied()) return false;
  }
  return true;
}

void PodSet::AssignStructureFrom(const PodSet& o) {
  min_available_ = o.min_available_;
  topology_ = o.topology_;
  tasks_.clear();
}

bool SubGroupSet::AssignStructureFrom(const SubGroupSet& o) {
  if (name_ != o.name_ || child_sets_.size() != o.child_sets_.size() ||
      pod_sets_.size() != o.pod_sets_.size()) {
    return false;
  }
  for (size_t i = 0; i < pod_sets_.size(); ++i) {
    if (pod_sets_[i]->name() != o.pod_sets_[i]->name()) return false;
  }
  for (size_t i = 0; i < child_sets_.size(); ++i) {
    if (!child_sets_[i]->AssignStructureFrom(*o.child_sets_[i])) return false;
  }
  topology_ = o.topology_;
  for (size_t i = 0; i < pod_sets_.size(); ++i) pod_sets_[i]->AssignStructureFrom(*o.pod_sets_[i]);
  return true;
}

std::unique_ptr<SubGroupSet> SubGroupSet::CloneStructure() const {
  auto out = std::make_unique<SubGroupSet>(name_, topology_);
  for (const auto& c : child_sets_) out->AddSubGroupSet(c->CloneStructure());
  for (const auto& p : pod_sets_) {
    out->AddPodSet(std::make_unique<PodSet>(p->name(), p->min_available(), p->topology()));
  }
  return out;
}

PodGroupInfo::PodGroupInfo(std::shared_ptr<const api::PodGroup> pg, int32_t priority,
                           std::string* error)
    : pg_(std::move(pg)), priority_(priority) {
  const api::ObjectMeta& meta = pg_->metadata;
  uid_ = meta.namespace_ + "/" + meta.name;
  preemptible_ = ::kai::scheduler::IsPreemptible(pg_->spec.preemptibility, priority_);
  if (meta.creation_timestamp) creation_time_ = *meta.creation_timestamp;
  root_ = std::make_unique<SubGroupSet>("", ToConstraint(pg_->spec.topology_constraint));

  const auto& subgroups = pg_->spec.sub_groups;
  if (subgroups.empty()) {
    int32_t min = pg_->spec.min_member.value_or(1);
    root_->AddPodSet(
        std::make_unique<PodSet>(std::string(kDefaultSubGroup), std::max(min, 1), std::nullopt));
    IndexPodSets();
    return;
  }
  // Subgroups with children become SubGroupSets, the others PodSets (§11.1). Children are
  // attached in the order the PodGroup lists them (KAI iterates a Go map here; any order is
  // upstream-compatible, and sibling order is decided later by the order functions).
  std::map<std::string, const api::SubGroup*> by_name;
  std::map<std::string, std::vector<std::string>> children;
  for (const auto& sg : subgroups) {
    if (sg.name.empty()) {
      if (error) *error = "spec.subGroups: a subgroup has an empty name";
      return;
    }
    if (!by_name.emplace(sg.name, &sg).second) {
      if (error) *error = "spec.subGroups: subgroup <" + sg.name + "> already exists";
      return;
    }
    children[sg.parent.value_or("")].push_back(sg.name);
  }
  // Build top-down from the root so that cycles and dangling parents are detected.
  std::map<std::string, SubGroupSet*> sets{{"", root_.get()}};
  std::set<std::string> placed;
  std::vector<std::string> frontier{""};
  while (!frontier.empty()) {
    std::string parent = frontier.back();
    frontier.pop_back();
    auto it = children.find(parent);
    if (it == children.end()) continue;
    for (const std::string& name : it->second) {
      const api::SubGroup& sg = *by_name[name];
      placed.insert(name);
      if (children.count(name) > 0) {
        sets[name] = sets[parent]->AddSubGroupSet(
            std::make_unique<SubGroupSet>(name, ToConstraint(sg.topology_constraint)));
        frontier.push_back(name);
      } else {
        if (!sg.min_member) {
          if (error) *error = "spec.subGroups: subgroup <" + name + "> minMember is required";
          root_ = std::make_unique<SubGroupSet>("", std::nullopt);
          pod_sets_.clear();
          return;
        }
        sets[parent]->AddPodSet(std::make_unique<PodSet>(name, std::max(*sg.min_member, 1),
                                                         ToConstraint(sg.topology_constraint)));
      }
    }
  }
  if (placed.size() != by_name.size()) {
    for (const auto& [name, sg] : by_name) {
      if (placed.count(name) == 0) {
        if (error) {
          *error = "spec.subGroups: parent subgroup <" + sg->parent.value_or("") + "> of <" + name +
                   "> not found (or the parent chain has a cycle)";
        }
        break;
      }
    }
    root_ = std::make_unique<SubGroupSet>("", std::nullopt);
    return;
  }
  IndexPodSets();
}

PodGroupInfo::PodGroupInfo(const PodGroupInfo& other, const std::vector<PodInfo*>& tasks) {
  CopyAttributesFrom(other);
  root_ = other.root_->CloneStructure();
  IndexPodSets();
  for (PodInfo* t : tasks) AddTask(t);
}

std::unique_ptr<PodGroupInfo> PodGroupInfo::CloneWithTasks(
    const std::vector<PodInfo*>& by_slot) const {
  auto out = std::make_unique<PodGroupInfo>(*this, std::vector<PodInfo*>{});
  out->CopyTasksFrom(*this, by_slot);
  return out;
}

void PodGroupInfo::AssignFrom(const PodGroupInfo& o, const std::vector<PodInfo*>& by_slot) {
  // Every member, as the copy constructor and CloneWithTasks set them.
  CopyAttributesFrom(o);
  if (!root_->AssignStructureFrom(*o.root_)) {
    root_ = o.root_->CloneStructure();
    IndexPodSets();
  }
  // Same shape: pod_sets_ still indexes this tree's PodSets by the same names.
  tasks_.clear();
  invalid_tasks_.clear();
  CopyTasksFrom(o, by_slot);
  // Session memos start empty.
  cached_queue = nullptr;
  queue_resolved = false;
  for (TasksToAllocateMemo& m : tasks_to_allocate_memo) {
    m.valid = false;
    m.has_init_resource = false;
  }
  signature_.clear();
}

void PodGroupInfo::CopyAttributesFrom(const PodGroupInfo& o) {
  pg_ = o.pg_;
  uid_ = o.uid_;
  priority_ = o.priority_;
  preemptible_ = o.preemptible_;
  creation_time_ = o.creation_time_;
  last_start_timestamp = o.last_start_timestamp;
  stale_timestamp = o.stale_timestamp;
  stale = o.stale;
  implicit = o.implicit;
}

void PodGroupInfo::CopyTasksFrom(const PodGroupInfo& o, const std::vector<PodInfo*>& by_slot) {
  tasks_.reserve(o.tasks_.size());
  for (const PodInfo* t : o.tasks_) {
    PodInfo* copy = by_slot[t->snapshot_slot];
    PodSetOf(*copy)->AddTask(copy);
    tasks_.push_back(copy);
  }
  for (const PodInfo* t : o.invalid_tasks_) invalid_tasks_.push_back(by_slot[t->snapshot_slot]);
  job_fit_errors = o.job_fit_errors;
  task_fit_errors = o.task_fit_errors;
}

void PodGroupInfo::IndexPodSets() {
  pod_sets_.clear();
  for (PodSet* p : root_->DescendantPodSets()) pod_sets_[p->name()] = p;
}

PodSet* PodGroupInfo::FindPodSet(std::string_view name) const {
  auto it = pod_sets_.find(name);
  return it == pod_sets_.end() ? nullptr : it->second;
}

PodSet* PodGroupInfo::PodSetOf(const PodInfo& task) const {
  return FindPodSet(task.subgroup_name().empty() ? kDefaultSubGroup
                                                 : std::string_view(task.subgroup_name()));
}

bool PodGroupInfo::AddTask(PodInfo* task) {
  PodSet* ps = PodSetOf(*task);
  if (ps == nullptr) {
    invalid_tasks_.push_back(task);
    TaskFitErrors e;
    e.SetError(
        "Pod references subgroup \"" +
        (task->subgroup_name().empty() ? std::string(kDefaultSubGroup) : task->subgroup_name()) +
        "\", which does not exist in PodGroup " + namespace_() + "/" + name());
    AddTaskFitErrors(*task, e);
    return false;
  }
  ps->AddTask(task);
  tasks_.push_back(task);
  return true;
}

int PodGroupInfo::NumActiveAllocated() const { return CountTasks(tasks_, IsActiveAllocatedStatus); }
int PodGroupInfo::NumActiveUsed() const { return CountTasks(tasks_, IsActiveUsedStatus); }
int PodGroupInfo::NumAlive() const { return CountTasks(tasks_, IsAliveStatus); }
int PodGroupInfo::NumAllocated() const { return CountTasks(tasks_, IsAllocatedStatus); }
int PodGroupInfo::NumPending() const {
  return CountTasks(tasks_, [](PodStatus s) { return s == PodStatus::kPending; });
}
bool PodGroupInfo::HasPendingTasks() const {
  for (const PodInfo* t : tasks_) {
    if (t->status == PodStatus::kPending) return true;
  }
  return false;
}
int PodGroupInfo::NumGated() const {
  return CountTasks(tasks_, [](PodStatus s) { return s == PodStatus::kGated; });
}
int PodGroupInfo::NumSucceeded() const {
  return CountTasks(tasks_, [](PodStatus s) { return s == PodStatus::kSucceeded; });
}

bool PodGroupInfo::IsReadyForScheduling() const {
  if (pod_sets_.empty()) return false;
  return root_->IsReadyForScheduling();
}

bool PodGroupInfo::IsGangSatisfied() const {
  if (pod_sets_.empty()) return false;
  return root_->IsGangSatisfied();
}

bool PodGroupInfo::IsElastic() const {
  for (const auto& [n, ps] : pod_sets_) {
    if (ps->IsElastic()) return true;
  }
  return false;
}

bool PodGroupInfo::IsStale() const {
  if (NumSucceeded() > 0) return false;
  if (NumActiveUsed() == 0) return false;
  return !IsGangSatisfied();
}

bool PodGroupInfo::ShouldPipelineJob() const {
  for (const auto& [n, ps] : pod_sets_) {
    bool has_pipelined = false;
    int active_allocated = 0;
    for (const PodInfo* t : ps->tasks()) {
      if (t->status == PodStatus::kPipelined) {
        has_pipelined = true;
      } else if (IsActiveAllocatedStatus(t->status)) {
        ++active_allocated;
      }
    }
    if (has_pipelined && active_allocated < ps->min_available()) return true;
  }
  return false;
}

int32_t PodGroupInfo::DefaultMinAvailable() const {
  if (PodSet* ps = FindPodSet(std::string(kDefaultSubGroup))) return ps->min_available();
  int32_t sum = 0;
  for (const auto& [n, ps] : pod_sets_) sum += ps->min_available();
  return sum;
}

ResourceVector PodGroupInfo::AllocatedResources(int vector_size) const {
  ResourceVector v(vector_size);
  for (const PodInfo* t : tasks_) {
    if (IsAllocatedStatus(t->status)) v.Add(t->res_req);
  }
  return v;
}

std::vector<PodInfo*> PodGroupInfo::PendingTasks() const {
  std::vector<PodInfo*> out;
  for (PodInfo* t : tasks_) {
    if (t->status == PodStatus::kPending) out.push_back(t);
  }
  return out;
}

const std::string& PodGroupInfo::SchedulingConstraintsSignature() const {
  if (!signature_.empty()) return signature_;
  std::vector<std::string> sigs;
  for (const auto& [n, ps] : pod_sets_) {
    std::set<std::string> task_sigs;
    for (const PodInfo* t : ps->tasks()) task_sigs.insert(t->SchedulingConstraintsSignature());
    std::string s = "ps:";
    for (const auto& ts : task_sigs) s += ts + "#";
    sigs.push_back(std::move(s));
  }
  std::sort(sigs.begin(), sigs.end());
  std::string out;
  for (const auto& s : sigs) out += s + "||";
  signature_ = out.empty() ? std::string("empty") : out;
  return signature_;
}

void PodGroupInfo::AddJobFitError(std::string reason, std::string message,
                                  std::optional<QueueDetails> details) {
  if (fit_errors_muted > 0) return;
  job_fit_errors.push_back(JobFitError{std::move(reason), std::move(message), std::move(details)});
}

void PodGroupInfo::AddTaskNodeError(const PodInfo& task, const NodeFitError& error) {
  if (fit_errors_muted > 0) return;
  task_fit_errors[task.uid()].AddNodeError(error);
}

void PodGroupInfo::AddTaskFitErrors(const PodInfo& task, const TaskFitErrors& errors) {
  if (fit_errors_muted > 0) return;
  auto it = task_fit_errors.find(task.uid());
  if (it == task_fit_errors.end()) {
    task_fit_errors.emplace(task.uid(), errors);
  } else {
    it->second.Merge(errors);
  }
}

}  // namespace kai::scheduler
