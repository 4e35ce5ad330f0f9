#include "scheduler/framework/statement.h"

#include <glog/logging.h>

#include <cstdio>

#include "scheduler/framework/job_state_generation.h"
#include "scheduler/framework/session.h"

namespace kai::scheduler {

namespace {

// The task's status or virtual flag changed: both are inputs of its job's memos
// (framework/job_state_generation.h).
void JobStateChanged(Session* ssn, const PodInfo& task) {
  BumpJobState(ssn->cluster().JobOf(task));
}

}  // namespace

Status Statement::Evict(PodInfo* task, const std::string& message, const EvictionMetadata& meta) {
  Op op;
  op.message = message;
  return EvictWith(task, std::move(op), std::make_shared<const EvictionMetadata>(meta));
}

Status Statement::Evict(PodInfo* task, std::shared_ptr<const DeferredEvictionMessages> messages,
                        size_t index, std::shared_ptr<const EvictionMetadata> meta) {
  Op op;
  op.deferred_messages = std::move(messages);
  op.deferred_index = index;
  return EvictWith(task, std::move(op), std::move(meta));
}

Status Statement::EvictWith(PodInfo* task, Op op, std::shared_ptr<const EvictionMetadata> meta) {
  op.kind = Kind::kEvict;
  op.task = task;
  if (meta == nullptr) meta = std::make_shared<const EvictionMetadata>();
  op.meta = std::move(meta);
  SaveGpuState(task->node_name, &op);
  KAI_RETURN_IF_ERROR(DoEvict(&op));
  ops_.push_back(std::move(op));
  return Status::OK();
}

void Statement::SaveState(const PodInfo& task, Op* op) {
  op->prev_status = task.status;
  op->prev_node = task.node_name;
  op->prev_groups = task.gpu_groups;
  op->prev_virtual = task.is_virtual_status;
  op->prev_received = task.received_type;
  op->prev_accepted = task.accepted;
  op->prev_accepted_gpu = task.accepted_gpu;
}

void Statement::RestoreAccepted(const Op& op, PodInfo* task) {
  task->received_type = op.prev_received;
  task->accepted = op.prev_accepted;
  task->accepted_gpu = op.prev_accepted_gpu;
}

Status Statement::DoEvict(Op* op) {
  PodInfo* task = op->task;
  ClusterInfo& c = ssn_->cluster();
  if (c.JobOf(*task) == nullptr) {
    return NotFoundError("failed to find job " + task->job() + " in session");
  }
  NodeInfo* node = c.FindNode(task->node_name);
  if (node == nullptr) {
    return NotFoundError("node " + task->node_name + " of " + task->key() + " is not in session");
  }
  SaveState(*task, op);
  task->status = PodStatus::kReleasing;
  task->is_virtual_status = true;
  JobStateChanged(ssn_, *task);
  if (!node->UpdateTask(task)) {
    task->status = op->prev_status;
    task->is_virtual_status = op->prev_virtual;
    JobStateChanged(ssn_, *task);
    return InternalError("failed to update task " + task->key() + " on node " + node->name());
  }
  ssn_->FireDeallocate(*task);
  return Status::OK();
}

void Statement::ReverseEvict(Op& op) {
  PodInfo* task = op.task;
  task->status = op.prev_status;
  task->gpu_groups = op.prev_groups;
  task->is_virtual_status = op.prev_virtual;
  JobStateChanged(ssn_, *task);
  task->node_name = op.prev_node;
  if (NodeInfo* node = ssn_->cluster().FindNode(op.prev_node)) {
    if (!node->UpdateTask(task)) node->AddTask(task);  // one lookup of the task's entry
  }
  ssn_->FireAllocate(*task);
}

Status Statement::Pipeline(PodInfo* task, const std::string& node_name,
                           bool update_if_exists_on_node,
                           const std::vector<std::string>* gpu_groups) {
  ClusterInfo& c = ssn_->cluster();
  NodeInfo* node = c.FindNode(node_name);
  if (node == nullptr || c.JobOf(*task) == nullptr) {
    return NotFoundError("failed to find node " + node_name + " or job " + task->job());
  }
  const std::vector<std::string>& groups = gpu_groups ? *gpu_groups : task->gpu_groups;
  const NodeInfo::Entry* entry = node->FindEntry(*task);
  bool found = entry != nullptr;
  bool moved = false;
  if (found) {
    moved = !groups.empty() && task->IsSharedGpuAllocation() &&
            !(groups.size() == 1 && groups[0] == "-1") && groups != entry->groups;
  }
  if (found && !update_if_exists_on_node && !moved) {
    task->gpu_groups = entry->groups;
    return Unevict(task);
  }
  Op op;
  op.kind = Kind::kPipeline;
  op.task = task;
  op.node = node_name;
  if (gpu_groups != nullptr) op.new_groups = *gpu_groups;
  op.existed_on_node = found && !moved;
  op.moved_gpu = moved;
  SaveGpuState(node_name, &op);
  KAI_RETURN_IF_ERROR(DoPipeline(&op));
  char msg[512];
  std::snprintf(msg, sizeof(msg), "Pod %s/%s was pipelined to node %s", task->namespace_().c_str(),
                task->name().c_str(), node_name.c_str());
  op.message = msg;
  ops_.push_back(std::move(op));
  return Status::OK();
}

Status Statement::DoPipeline(Op* op) {
  PodInfo* task = op->task;
  NodeInfo* node = ssn_->cluster().FindNode(op->node);
  if (node == nullptr) return NotFoundError("node " + op->node + " is not in session");
  SaveState(*task, op);
  const NodeInfo::Entry* entry = node->FindEntry(*task);
  if (op->moved_gpu && entry != nullptr) op->prev_groups = entry->groups;
  if (op->new_groups) task->gpu_groups = *op->new_groups;
  task->status = PodStatus::kPipelined;
  JobStateChanged(ssn_, *task);
  task->node_name = op->node;
  bool ok = true;
  if (op->moved_gpu) {
    ok = node->ConsolidateSharedTaskToDifferentGpu(task);
  } else if (entry != nullptr) {
    op->existed_on_node = true;
    ok = node->UpdateTask(task);
  } else {
    op->existed_on_node = false;
    ok = node->AddTask(task);
  }
  if (!ok) {
    task->status = op->prev_status;
    JobStateChanged(ssn_, *task);
    task->node_name = op->prev_node;
    task->gpu_groups = op->prev_groups;
    return InternalError("failed to pipeline task " + task->key() + " to node " + op->node);
  }
  ssn_->FireAllocate(*task);
  task->is_virtual_status = true;
  JobStateChanged(ssn_, *task);
  return Status::OK();
}

void Statement::ReversePipeline(Op& op) {
  PodInfo* task = op.task;
  NodeInfo* node = ssn_->cluster().FindNode(task->node_name);
  task->status = op.prev_status;
  task->gpu_groups = op.prev_groups;
  task->is_virtual_status = op.prev_virtual;
  JobStateChanged(ssn_, *task);
  if (node != nullptr) {
    if (op.moved_gpu) {
      node->RestoreConsolidatedSharedTask(*task);
    } else if (op.existed_on_node) {
      // Back to what the node held before (KAI drops the task from the node here; we restore
      // it so that a rollback between an eviction and this pipeline stays consistent).
      node->UpdateTask(task);
    } else {
      node->RemoveTask(*task);
    }
  }
  // The event handlers subtract what the task held, so its accepted resources are restored
  // only afterwards.
  ssn_->FireDeallocate(*task);
  if (node != nullptr && !op.moved_gpu && !op.existed_on_node) RestoreAccepted(op, task);
  task->node_name = op.prev_node;
}

Status Statement::Allocate(PodInfo* task, const std::string& node_name,
                           const std::vector<std::string>* gpu_groups) {
  Op op;
  op.kind = Kind::kAllocate;
  op.task = task;
  op.node = node_name;
  if (gpu_groups != nullptr) op.new_groups = *gpu_groups;
  SaveGpuState(node_name, &op);
  KAI_RETURN_IF_ERROR(DoAllocate(&op));
  ops_.push_back(std::move(op));
  return Status::OK();
}

Status Statement::DoAllocate(Op* op) {
  PodInfo* task = op->task;
  ClusterInfo& c = ssn_->cluster();
  if (c.JobOf(*task) == nullptr) return NotFoundError("failed to find job " + task->job());
  NodeInfo* node = c.FindNode(op->node);
  if (node == nullptr) return NotFoundError("failed to find node " + op->node);
  SaveState(*task, op);
  if (op->new_groups) task->gpu_groups = *op->new_groups;
  task->status = PodStatus::kAllocated;
  JobStateChanged(ssn_, *task);
  task->node_name = op->node;
  if (!node->AddTask(task)) {
    task->status = op->prev_status;
    JobStateChanged(ssn_, *task);
    task->node_name = op->prev_node;
    task->gpu_groups = op->prev_groups;
    return InternalError("task " + task->key() + " is already on node " + op->node);
  }
  ssn_->FireAllocate(*task);
  task->is_virtual_status = true;
  JobStateChanged(ssn_, *task);
  return Status::OK();
}

void Statement::ReverseAllocate(Op& op) { UndoAllocation(ssn_, op); }

void Statement::UndoAllocation(Session* ssn, const Op& op) {
  PodInfo* task = op.task;
  task->status = PodStatus::kPending;
  if (NodeInfo* node = ssn->cluster().FindNode(task->node_name)) node->RemoveTask(*task);
  task->is_virtual_status = op.prev_virtual;
  JobStateChanged(ssn, *task);
  ssn->FireDeallocate(*task);
  task->node_name.clear();
  task->gpu_groups = op.prev_groups;
  RestoreAccepted(op, task);
}

void Statement::SaveGpuState(const std::string& node_name, Op* op) const {
  NodeInfo* node = ssn_->cluster().FindNode(node_name);
  if (node == nullptr) return;
  op->gpu_state =
      NodeGpuState{node, node->idle.gpu(), node->releasing.gpu(), node->releasing_shared_gpus};
}

void Statement::RestoreGpuState(const Op& op) {
  if (!op.gpu_state) return;
  NodeInfo* node = op.gpu_state->node;
  node->idle.Set(kGpuIndex, op.gpu_state->idle_gpu);
  node->releasing.Set(kGpuIndex, op.gpu_state->releasing_gpu);
  node->releasing_shared_gpus = op.gpu_state->releasing_shared_gpus;
  node->MarkAccountingChanged();
}

void Statement::Reverse(Op& op, bool exact) {
  switch (op.kind) {
    case Kind::kEvict:
      ReverseEvict(op);
      break;
    case Kind::kPipeline:
      ReversePipeline(op);
      break;
    case Kind::kAllocate:
      ReverseAllocate(op);
      break;
    case Kind::kUndo: {
      // Re-apply the operation the marker had reverted.
      Op& ref = ops_[op.undo_of];
      Status s;
      switch (ref.kind) {
        case Kind::kEvict:
          s = DoEvict(&ref);
          break;
        case Kind::kPipeline:
          s = DoPipeline(&ref);
          break;
        case Kind::kAllocate:
          s = DoAllocate(&ref);
          break;
        case Kind::kUndo:
          break;
      }
      if (!s.ok()) LOG(ERROR) << "statement: failed to redo an operation: " << s;
      ref.undone = false;
      break;
    }
  }
  if (exact) RestoreGpuState(op);
}

void Statement::UndoOperation(size_t i) {
  if (ops_[i].undone) return;
  Op marker;
  marker.kind = Kind::kUndo;
  marker.task = ops_[i].task;
  marker.undo_of = i;
  SaveGpuState(ops_[i].kind == Kind::kEvict ? ops_[i].prev_node : ops_[i].node, &marker);
  // Later operations still stand: the accounting is reversed, not restored.
  Reverse(ops_[i], /*exact=*/false);
  ops_[i].undone = true;
  ops_.push_back(std::move(marker));
}

Status Statement::Unevict(PodInfo* task) {
  // The latest eviction is the one that left the task releasing on its current node (a task can
  // be evicted again after being pipelined elsewhere).
  for (size_t i = ops_.size(); i > 0; --i) {
    const Op& op = ops_[i - 1];
    if (op.undone || op.kind != Kind::kEvict || op.task->uid() != task->uid()) continue;
    UndoOperation(i - 1);
    return Status::OK();
  }
  return NotFoundError("no eviction found for task " + task->key());
}

Status Statement::Rollback(Checkpoint cp) {
  if (cp > ops_.size()) {
    return InvalidArgumentError("invalid checkpoint " + std::to_string(cp) + ", statement has " +
                                std::to_string(ops_.size()) + " operations");
  }
  for (size_t i = ops_.size(); i > cp; --i) {
    Op& op = ops_[i - 1];
    if (op.undone) continue;
    Reverse(op, /*exact=*/true);
  }
  ops_.resize(cp);
  return Status::OK();
}

void Statement::Discard() { Rollback(0).IgnoreError(); }

Status Statement::ConvertAllAllocatedToPipelined(const PodGroupId& job) {
  // Every allocate operation of the job becomes, in place, a pipeline operation to the same node
  // (as KAI replaces the operation): undoing it restores the state from before the allocation.
  for (Op& op : ops_) {
    if (op.kind != Kind::kAllocate || op.undone || op.task->job() != job) continue;
    PodInfo* task = op.task;
    const std::string node = task->node_name;
    // Un-allocate keeping the virtual flag, then pipeline to the same node.
    task->status = PodStatus::kPending;
    if (NodeInfo* n = ssn_->cluster().FindNode(node)) n->RemoveTask(*task);
    task->is_virtual_status = true;
    JobStateChanged(ssn_, *task);
    ssn_->FireDeallocate(*task);
    task->node_name.clear();
    Op pipeline;
    pipeline.kind = Kind::kPipeline;
    pipeline.task = task;
    pipeline.node = node;
    KAI_RETURN_IF_ERROR(DoPipeline(&pipeline));
    pipeline.message =
        "Pod " + task->namespace_() + "/" + task->name() + " was pipelined to node " + node;
    pipeline.prev_status = op.prev_status;
    pipeline.prev_node = op.prev_node;
    pipeline.prev_groups = op.prev_groups;
    pipeline.prev_virtual = op.prev_virtual;
    pipeline.prev_received = op.prev_received;
    pipeline.prev_accepted = op.prev_accepted;
    pipeline.prev_accepted_gpu = op.prev_accepted_gpu;
    pipeline.gpu_state = std::move(op.gpu_state);
    op = std::move(pipeline);
  }
  return Status::OK();
}

Status Statement::CommitAllocate(PodInfo* task) {
  BindDecision d;
  d.pod_key = task->key();
  d.node = task->node_name;
  d.received_resource_type = std::string(ReceivedTypeName(task->received_type));
  if (d.received_resource_type.empty()) d.received_resource_type = "Regular";
  d.gpu_count = static_cast<int>(task->accepted_gpu.NumDevices());
  char portion[32];
  std::snprintf(portion, sizeof(portion), "%.2f", task->accepted_gpu.Portion());
  d.gpu_portion = portion;
  if (task->IsFractionAllocation()) d.gpu_groups = task->gpu_groups;
  d.annotations = ssn_->MutateBindRequestAnnotations(*task, task->node_name);
  d.task = task;
  if (NodeInfo* node = ssn_->cluster().FindNode(task->node_name)) {
    if (task->IsFractionAllocation()) {
      for (const auto& g : task->gpu_groups) node->used_shared_gpus_memory.try_emplace(g, 0);
    }
  }
  KAI_RETURN_IF_ERROR(ssn_->sink()->Bind(d));  // Commit undoes the failed allocation
  return ssn_->BindTask(task);
}

Status Statement::CommitDeferredAllocate(const Op& op) {
  PodInfo* task = op.task;
  KAI_RETURN_IF_ERROR(CommitAllocate(task));
  // The BindRequest's creation is answered later (Session::JoinBinds); if refused, the
  // allocation is undone then, as a failed synchronous commit undoes it now.
  Session* ssn = ssn_;
  Op saved = op;
  ssn_->AddDeferredBind(task, [ssn, saved] { UndoAllocation(ssn, saved); });
  return Status::OK();
}

void Statement::UndoUncommitted(size_t first, bool exact) {
  // Nothing of operations [first, end) was written: reverse them, latest first, so that the rest
  // of the session sees the cluster as written. (KAI only unallocates the failed task and leaves
  // the later operations applied: a gang's other pods stay Allocated in the session, and later
  // actions of the cycle take them for placed pods, e.g. consolidation victims that it deletes.)
  // Undo markers are skipped: the operation a marker reverted stays reverted (it was not
  // committed either). The node's saved GPU counters are only restored (as a rollback does) when
  // no marker sits in between and the commit reverted nothing before `first`: else the saved
  // counters include effects that are gone.
  for (size_t j = first; j < ops_.size(); ++j) {
    if (ops_[j].kind == Kind::kUndo) exact = false;
  }
  for (size_t j = ops_.size(); j > first; --j) {
    Op& op = ops_[j - 1];
    if (op.undone || op.kind == Kind::kUndo) continue;
    Reverse(op, exact);
    op.undone = true;
  }
}

Status Statement::Commit() {
  if (ops_.empty()) return Status::OK();
  bool reverted_evictions = false;
  for (size_t i = 0; i < ops_.size(); ++i) {
    Op& op = ops_[i];
    if (op.undone || op.kind == Kind::kUndo) continue;
    PodInfo* task = op.task;
    switch (op.kind) {
      case Kind::kEvict: {
        if (op.prev_status == PodStatus::kPipelined) {
          // A pipelined task is a decision of this session that was never written (the pod is
          // Pending in the cluster): evicting it only moves the decision. Deleting the pod, as
          // KAI's commit would, kills a pod that runs nowhere.
          task->is_virtual_status = false;
          JobStateChanged(ssn_, *task);
          break;
        }
        PodGroupInfo* job = ssn_->cluster().JobOf(*task);
        std::string message = op.deferred_messages != nullptr
                                  ? op.deferred_messages->Message(op.deferred_index)
                                  : op.message;
        Status s = ssn_->sink()->Evict(EvictDecision{task->key(), job ? job->uid() : task->job(),
                                                     std::move(message), *op.meta, task});
        if (!s.ok()) {
          LOG(ERROR) << "failed to evict " << task->key() << ": " << s;
          ReverseEvict(op);
          reverted_evictions = true;
        } else {
          task->is_virtual_status = false;
          JobStateChanged(ssn_, *task);
        }
        break;
      }
      case Kind::kPipeline:
        ssn_->sink()->Pipelined(PipelineDecision{task->key(), op.node, op.message, task});
        break;
      case Kind::kAllocate: {
        Status s =
            ssn_->sink()->BindsDeferred() ? CommitDeferredAllocate(op) : CommitAllocate(task);
        if (!s.ok()) {
          LOG(ERROR) << "failed to allocate " << task->key() << ": " << s;
          UndoUncommitted(i, /*exact=*/!reverted_evictions);
          ops_.clear();
          return s;
        }
        break;
      }
      case Kind::kUndo:
        break;
    }
  }
  ops_.clear();
  return Status::OK();
}

}  // namespace kai::scheduler
