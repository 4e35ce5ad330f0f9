#include "scheduler/actions/common/allocation.h"

#include <glog/logging.h>

#include <algorithm>

#include "scheduler/framework/job_state_generation.h"

namespace kai::scheduler {

namespace {

std::vector<PodSet*> OrderedPodSets(const Session& ssn, std::vector<PodSet*> sets) {
  std::sort(sets.begin(), sets.end(),
            [&ssn](PodSet* l, PodSet* r) { return ssn.SubGroupOrderLess(*l, *r); });
  return sets;
}

std::vector<PodInfo*> OrderedTasks(const Session& ssn, std::vector<PodInfo*> tasks) {
  ssn.SortTasks(&tasks, /*reverse=*/false);
  return tasks;
}

std::vector<PodInfo*> EligibleTasks(const PodSet& ps, bool real_allocation) {
  std::vector<PodInfo*> out;
  for (PodInfo* t : ps.tasks()) {
    if (t->ShouldAllocate(real_allocation)) out.push_back(t);
  }
  return out;
}

}  // namespace

bool HasTasksToAllocate(const PodGroupInfo& job, bool real_allocation) {
  for (const PodInfo* t : job.tasks()) {
    if (t->ShouldAllocate(real_allocation)) return true;
  }
  return false;
}

namespace {

std::vector<PodInfo*> ComputeTasksToAllocate(const Session& ssn, const PodGroupInfo& job,
                                             bool real_allocation) {
  std::vector<PodSet*> sets;
  int unsatisfied = 0;
  for (const auto& [name, ps] : job.pod_sets()) {
    sets.push_back(ps);
    if (ps->NumActiveAllocated() < ps->min_available()) ++unsatisfied;
  }
  sets = OrderedPodSets(ssn, std::move(sets));
  std::vector<PodInfo*> result;
  if (unsatisfied > 0) {
    // Gang phase: complete every PodSet that is below its minimum.
    for (PodSet* ps : sets) {
      int active = ps->NumActiveAllocated();
      if (active >= ps->min_available()) continue;
      std::vector<PodInfo*> eligible = OrderedTasks(ssn, EligibleTasks(*ps, real_allocation));
      size_t take = std::min<size_t>(eligible.size(), ps->min_available() - active);
      result.insert(result.end(), eligible.begin(), eligible.begin() + take);
    }
    return result;
  }
  // Elastic phase: one more task of the first PodSet that has one.
  for (PodSet* ps : sets) {
    std::vector<PodInfo*> eligible = EligibleTasks(*ps, real_allocation);
    if (eligible.empty()) continue;
    result.push_back(OrderedTasks(ssn, std::move(eligible)).front());
    return result;
  }
  return result;
}

// The memo key: what the result depends on besides the session's (static) order functions.
uint16_t TaskKey(const PodInfo& t) {
  return static_cast<uint16_t>(static_cast<int>(t.status) << 1 | (t.is_virtual_status ? 1 : 0));
}
uint16_t PodSetKey(const PodSet& ps) {
  return static_cast<uint16_t>(0x8000 | (ps.min_available() & 0x7fff));
}

void MemoKey(const PodGroupInfo& job, std::vector<uint16_t>* key) {
  key->clear();
  key->reserve(job.tasks().size() + job.pod_sets().size());
  for (const PodInfo* t : job.tasks()) key->push_back(TaskKey(*t));
  for (const auto& [name, ps] : job.pod_sets()) key->push_back(PodSetKey(*ps));
}

// MemoKey(job) == key, without building it (the job-order comparisons ask on every call).
bool MemoKeyMatches(const PodGroupInfo& job, const std::vector<uint16_t>& key) {
  if (key.size() != job.tasks().size() + job.pod_sets().size()) return false;
  size_t i = 0;
  for (const PodInfo* t : job.tasks()) {
    if (key[i++] != TaskKey(*t)) return false;
  }
  for (const auto& [name, ps] : job.pod_sets()) {
    if (key[i++] != PodSetKey(*ps)) return false;
  }
  return true;
}

PodGroupInfo::TasksToAllocateMemo& Memo(const Session& ssn, const PodGroupInfo& job,
                                        bool real_allocation) {
  PodGroupInfo::TasksToAllocateMemo& m = job.tasks_to_allocate_memo[real_allocation ? 1 : 0];
  if (m.valid && JobStateStampHolds(job, m.stamp)) {
    // Nothing the key reads changed since it last matched (the job-order heaps ask for the same
    // jobs many times between two status changes).
    DCHECK(MemoKeyMatches(job, m.key)) << "stale tasks-to-allocate memo of job " << job.uid();
    return m;
  }
  if (!m.valid || !MemoKeyMatches(job, m.key)) {
    m.tasks = ComputeTasksToAllocate(ssn, job, real_allocation);
    MemoKey(job, &m.key);
    m.valid = true;
    m.has_init_resource = false;
  }
  m.stamp = CurrentJobStateStamp(job);
  return m;
}

}  // namespace

std::vector<PodInfo*> GetTasksToAllocate(const Session& ssn, const PodGroupInfo& job,
                                         bool real_allocation) {
  return Memo(ssn, job, real_allocation).tasks;
}

const ResourceVector& GetTasksToAllocateInitResource(const Session& ssn, const PodGroupInfo& job,
                                                     bool real_allocation) {
  PodGroupInfo::TasksToAllocateMemo& m = Memo(ssn, job, real_allocation);
  if (m.has_init_resource) return m.init_resource;
  const ClusterInfo& c = ssn.cluster();
  ResourceVector result(c.vector_map->size());
  for (const PodInfo* t : m.tasks) {
    if (!t->ShouldAllocate(real_allocation)) continue;
    result.Add(t->res_req);
    if (t->IsGpuMemoryRequest() && c.min_node_gpu_memory) {
      result.Set(kGpuIndex, result.gpu() + t->gpu_req.GpuMemoryAsFraction(*c.min_node_gpu_memory));
    }
  }
  m.init_resource = std::move(result);
  m.has_init_resource = true;
  return m.init_resource;
}

std::pair<double, int64_t> GetTasksToAllocateRequestedGpus(const Session& ssn,
                                                           const PodGroupInfo& job,
                                                           bool real_allocation) {
  double gpus = 0;
  int64_t memory = 0;
  for (const PodInfo* t : GetTasksToAllocate(ssn, job, real_allocation)) {
    gpus += t->gpu_req.Gpus();
    memory += t->gpu_req.GpuMemory();
    for (const auto& [name, quantity] : t->gpu_req.MigResources()) {
      int64_t g = 0, m = 0;
      if (!ParseMigResourceName(name, &g, &m)) continue;
      gpus += static_cast<double>(g * quantity);
      memory += m * quantity;
    }
  }
  return {gpus, memory};
}

std::pair<std::vector<PodInfo*>, bool> GetTasksToEvict(const Session& ssn,
                                                       const PodGroupInfo& job) {
  std::vector<PodSet*> sets;
  int max_sets = 0;
  for (const auto& [name, ps] : job.pod_sets()) sets.push_back(ps);
  max_sets = static_cast<int>(sets.size());
  for (PodSet* ps : sets) {
    if (ps->NumActiveAllocated() > ps->min_available()) {
      max_sets = 1;
      break;
    }
  }
  // Reverse PodSet order and reverse task order: the least important victims first.
  std::sort(sets.begin(), sets.end(),
            [&ssn](PodSet* l, PodSet* r) { return ssn.SubGroupOrderLess(*r, *l); });
  std::vector<PodInfo*> out;
  int taken_sets = 0;
  for (PodSet* ps : sets) {
    if (taken_sets >= max_sets) break;
    std::vector<PodInfo*> active;
    for (PodInfo* t : ps->tasks()) {
      if (IsActiveAllocatedStatus(t->status)) active.push_back(t);
    }
    ssn.SortTasks(&active, /*reverse=*/true);
    size_t max_tasks = static_cast<int>(active.size()) > ps->min_available() ? 1 : active.size();
    for (size_t i = 0; i < active.size() && i < max_tasks; ++i) out.push_back(active[i]);
    ++taken_sets;
  }
  bool more = static_cast<int>(out.size()) < job.NumActiveAllocated();
  return {out, more};
}

namespace {

class JobAllocator {
 public:
  JobAllocator(Session* ssn, Statement* stmt, PodGroupInfo* job, bool pipeline_only)
      : ssn_(ssn), stmt_(stmt), job_(job), pipeline_only_(pipeline_only) {}

  bool AllocateSubGroupSet(const SubGroupSet& sgs, const NodeSet& nodes,
                           const std::vector<PodInfo*>& tasks) {
    SubGroupRef ref{sgs.name(), &sgs.topology(), sgs.parent() == nullptr};
    auto node_sets = ssn_->SubsetNodes(*job_, ref, sgs.DescendantPodSets(), tasks, nodes);
    if (!node_sets.ok()) {
      LOG(ERROR) << "SubsetNodes failed for job " << job_->uid() << ": " << node_sets.status();
      return false;
    }
    for (const NodeSet& ns : *node_sets) {
      Statement::Checkpoint cp = stmt_->MakeCheckpoint();
      if (AllocateSubGroupSetOnNodes(sgs, ns, tasks)) return true;
      stmt_->Rollback(cp).IgnoreError();
    }
    return false;
  }

 private:
  static std::vector<PodInfo*> FilterTasks(const std::vector<PodSet*>& sets,
                                           const std::vector<PodInfo*>& tasks) {
    std::vector<PodInfo*> out;
    for (PodInfo* t : tasks) {
      std::string name =
          t->subgroup_name().empty() ? std::string(kDefaultSubGroup) : t->subgroup_name();
      for (const PodSet* ps : sets) {
        if (ps->name() == name) {
          out.push_back(t);
          break;
        }
      }
    }
    return out;
  }

  bool AllocateSubGroupSetOnNodes(const SubGroupSet& sgs, const NodeSet& nodes,
                                  const std::vector<PodInfo*>& tasks) {
    std::vector<const SubGroupSet*> children;
    for (const auto& c : sgs.child_sets()) children.push_back(c.get());
    // No built-in plugin orders SubGroupSets: siblings are tried by name (§6.7).
    std::sort(children.begin(), children.end(),
              [](const SubGroupSet* l, const SubGroupSet* r) { return l->name() < r->name(); });
    for (const SubGroupSet* child : children) {
      if (!AllocateSubGroupSet(*child, nodes, FilterTasks(child->DescendantPodSets(), tasks))) {
        return false;
      }
    }
    std::vector<PodSet*> sets;
    for (const auto& p : sgs.pod_sets()) sets.push_back(p.get());
    for (PodSet* ps : OrderedPodSets(*ssn_, std::move(sets))) {
      if (!AllocatePodSet(*ps, nodes, FilterTasks({ps}, tasks))) return false;
    }
    return true;
  }

  bool AllocatePodSet(const PodSet& ps, const NodeSet& nodes, const std::vector<PodInfo*>& tasks) {
    SubGroupRef ref{ps.name(), &ps.topology(), false};
    PodSet* self = const_cast<PodSet*>(&ps);
    auto node_sets = ssn_->SubsetNodes(*job_, ref, {self}, tasks, nodes);
    if (!node_sets.ok()) {
      LOG(ERROR) << "SubsetNodes failed for job " << job_->uid() << ": " << node_sets.status();
      return false;
    }
    for (const NodeSet& ns : *node_sets) {
      Statement::Checkpoint cp = stmt_->MakeCheckpoint();
      if (AllocateTasksOnNodeSet(ns, tasks)) return true;
      stmt_->Rollback(cp).IgnoreError();
    }
    return false;
  }

  bool AllocateTasksOnNodeSet(const NodeSet& nodes, const std::vector<PodInfo*>& tasks) {
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (!AllocateTask(nodes, tasks[i])) {
        HandleFailedTaskAllocation(tasks[i], static_cast<int>(i));
        return false;
      }
    }
    return true;
  }

  bool AllocateTask(const NodeSet& nodes, PodInfo* task) {
    PodGroupInfo* real_job = ssn_->cluster().JobOf(*task);
    if (real_job == nullptr) return false;
    if (auto err = ssn_->PrePredicate(*task, *real_job)) {
      TaskFitErrors e;
      e.SetError(*err);
      real_job->AddTaskFitErrors(*task, e);
      return false;
    }
    // Nothing to order when no node has room (a full cluster): the same errors are recorded.
    // Simulations record no fit errors, so FittingNode skips a node without room with no trace:
    // they order only the nodes with room (often a few victims' nodes out of thousands).
    const std::vector<uint8_t>* room = nullptr;
    if (ssn_->NoNodeHasRoom(*task, real_job, nodes, !pipeline_only_,
                            pipeline_only_ ? &room : nullptr)) {
      return false;
    }
    Session::NodeOrder ordered = ssn_->LazyOrderedNodesByTask(nodes, *task, room);
    for (NodeInfo* node = ordered.Next(); node != nullptr; node = ordered.Next()) {
      if (!ssn_->FittingNode(*task, *node, !pipeline_only_)) continue;
      if (AllocateTaskToNode(task, node)) return true;
    }
    return false;
  }

  bool AllocateTaskToNode(PodInfo* task, NodeInfo* node) {
    if (task->IsFractionRequest() || task->IsGpuMemoryRequest()) {
      return AllocateFractionalGpuTaskToNode(task, node);
    }
    if (!pipeline_only_ && node->IsTaskAllocatable(*task)) {
      return stmt_->Allocate(task, node->name()).ok();
    }
    return stmt_->Pipeline(task, node->name(), !pipeline_only_).ok();
  }

  // gpu_sharing.AllocateFractionalGPUTaskToNode (§12.3).
  bool AllocateFractionalGpuTaskToNode(PodInfo* task, NodeInfo* node) {
    std::vector<std::string> fitting = ssn_->FittingGpus(*node, *task);
    std::vector<std::string> groups;
    bool releasing = false;
    bool found = false;
    int64_t devices = task->gpu_req.NumDevices();
    for (const std::string& g : fitting) {
      if (g == kWholeGpuIndicator) {
        bool whole_releasing = true;
        if (!pipeline_only_ && node->IsTaskAllocatable(*task)) whole_releasing = false;
        releasing = releasing || whole_releasing;
        groups.push_back(ssn_->NewGpuGroupName(*task, *node, groups.size(), groups));
      } else {
        releasing = releasing || !node->EnoughIdleResourcesOnGpu(task->gpu_req, g) ||
                    !node->IsTaskAllocatable(*task);
        groups.push_back(g);
      }
      if (static_cast<int64_t>(groups.size()) == devices) {
        found = true;
        break;
      }
    }
    if (!found) return false;
    // A new group also needs a slot for its reservation pod: when Idle has no room for it the
    // pod waits for releasing pods like any other pipelined pod (KAI binds it and the binder
    // cannot create the reservation pod; see docs/scheduler-behaviour.md).
    int64_t new_groups = std::count(fitting.begin(), fitting.begin() + groups.size(),
                                    std::string(kWholeGpuIndicator));
    if (new_groups > 0 && node->idle.pods() - node->NumGroupsWithoutReservationPod() <
                              static_cast<double>(1 + new_groups)) {
      releasing = true;
    }
    bool pipeline = pipeline_only_ || releasing;
    return pipeline ? stmt_->Pipeline(task, node->name(), false, &groups).ok()
                    : stmt_->Allocate(task, node->name(), &groups).ok();
  }

  void HandleFailedTaskAllocation(PodInfo* task, int num_schedulable) {
    std::string err = std::string(kDefaultPodError);
    if (PodGroupInfo* real = ssn_->cluster().JobOf(*task)) {
      auto it = real->task_fit_errors.find(task->uid());
      if (it != real->task_fit_errors.end()) err = it->second.Message();
    }
    bool gang = false;
    for (const auto& [n, ps] : job_->pod_sets()) {
      if (ps->min_available() > 1) gang = true;
    }
    PodSet* ps = job_->PodSetOf(*task);
    if (ps == nullptr || !gang || ps->NumActiveUsed() >= ps->min_available()) {
      job_->AddJobFitError(std::string(kReasonPodSchedulingErrors),
                           "Resources were not found for pod " + task->key() + " due to: " + err);
      return;
    }
    if (job_->pod_sets().size() == 1 && ps->name() == kDefaultSubGroup) {
      job_->AddJobFitError(std::string(kReasonPodSchedulingErrors),
                           "Resources were found for " + std::to_string(num_schedulable) +
                               " pods while " + std::to_string(ps->min_available()) +
                               " are required for gang scheduling. Additional pods cannot be "
                               "scheduled due to: " +
                               err);
      return;
    }
    job_->AddJobFitError(std::string(kReasonPodSchedulingErrors),
                         "Resources were found for " + std::to_string(num_schedulable) +
                             " pods from all sub-groups while sub-group " + ps->name() +
                             " requires " + std::to_string(ps->min_available()) +
                             " pods for gang scheduling. Additional pods cannot be scheduled in "
                             "this sub-group due to: " +
                             err);
  }

  Session* ssn_;
  Statement* stmt_;
  PodGroupInfo* job_;
  bool pipeline_only_;
};

}  // namespace

bool AllocateJob(Session* ssn, Statement* stmt, const NodeSet& nodes, PodGroupInfo* job,
                 bool pipeline_only) {
  ssn->PreJobAllocation(*job);
  std::vector<PodInfo*> tasks = GetTasksToAllocate(*ssn, *job, !pipeline_only);
  SchedulableResult cap = ssn->IsJobOverQueueCapacity(*job, tasks);
  if (!cap.schedulable) {
    if (!pipeline_only) job->AddJobFitError(cap.reason, cap.message, cap.details);
    return false;
  }
  JobAllocator allocator(ssn, stmt, job, pipeline_only);
  return allocator.AllocateSubGroupSet(*job->root(), nodes, tasks);
}

}  // namespace kai::scheduler
