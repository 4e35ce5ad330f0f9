// Statement: the transaction through which every tentative change of a session goes (KAI
// pkg/scheduler/framework/statement.go, reference §6.8). Operations change the snapshot at once
// and are recorded so that they can be rolled back to a checkpoint, discarded, or committed
// (which hands the decisions to the session's DecisionSink).
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kube/base/status.h"
#include "scheduler/framework/interfaces.h"

namespace kai::scheduler {

class Session;

// Messages of a batch of evictions, made only for the evictions that are committed: a victim
// search evicts in thousands of simulations and commits a few. What a message says must be fixed
// when the batch is made (Message may run after later changes).
class DeferredEvictionMessages {
 public:
  virtual ~DeferredEvictionMessages() = default;
  virtual std::string Message(size_t i) const = 0;
};

class Statement {
 public:
  using Checkpoint = size_t;

  // Room for a victim scenario's operations up front: growing the vector moved every operation
  // recorded so far, several times per scenario.
  explicit Statement(Session* ssn) : ssn_(ssn) { ops_.reserve(kInitialOps); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Virtual eviction: the task becomes Releasing on its node.
  Status Evict(PodInfo* task, const std::string& message, const EvictionMetadata& meta);
  // The same, with the message `messages->Message(index)`, made if the eviction is committed.
  // The metadata is shared, too: a batch's evictions carry the same (null: none).
  Status Evict(PodInfo* task, std::shared_ptr<const DeferredEvictionMessages> messages,
               size_t index, std::shared_ptr<const EvictionMetadata> meta);
  // The task will run on `node` once releasing resources are freed. When the task already sits
  // on that node (it was evicted in this statement) it is un-evicted instead, unless
  // `update_if_exists_on_node` or it is a shared-GPU task moving to another GPU group.
  // `gpu_groups`, when given, are the shared GPU groups the task gets on the node (fractional
  // tasks); the task's previous groups are restored when the operation is undone.
  Status Pipeline(PodInfo* task, const std::string& node, bool update_if_exists_on_node,
                  const std::vector<std::string>* gpu_groups = nullptr);
  Status Allocate(PodInfo* task, const std::string& node,
                  const std::vector<std::string>* gpu_groups = nullptr);
  // Undoes the latest still-valid eviction of the task.
  Status Unevict(PodInfo* task);
  // Turns the job's Allocated tasks into Pipelined ones (never start part of a gang).
  Status ConvertAllAllocatedToPipelined(const PodGroupId& job);

  Checkpoint MakeCheckpoint() const { return ops_.size(); }
  Status Rollback(Checkpoint cp);
  void Discard();
  // Hands the decisions to the sink in operation order. A failed bind undoes its allocation and
  // every later operation in the session (none of them was written), and is returned. While the
  // sink defers binds (the allocate action, see SchedulingCycle), a bind's failure is known only
  // at Session::JoinBinds, which undoes that allocation alone: the statement's later binds were
  // issued too.
  Status Commit();

  bool empty() const { return ops_.empty(); }
  size_t num_operations() const { return ops_.size(); }

 private:
  enum class Kind { kEvict, kPipeline, kAllocate, kUndo };
  // The whole-GPU counters of a node that KAI's shared-GPU accounting changes under conditions
  // that are not always undone by the inverse operation (e.g. a fraction pipelined into a GPU
  // whose pods are all releasing): saved before every operation and restored when a rollback
  // undoes it, so that a discarded statement leaves the node exactly as it was.
  struct NodeGpuState {
    NodeInfo* node = nullptr;  // nodes stay put for the session the statement belongs to
    double idle_gpu = 0;
    double releasing_gpu = 0;
    std::set<std::string> releasing_shared_gpus;
  };
  struct Op {
    Kind kind;
    PodInfo* task = nullptr;
    // State before the operation.
    PodStatus prev_status = PodStatus::kPending;
    std::string prev_node;
    std::vector<std::string> prev_groups;
    ResourceReceivedType prev_received = ResourceReceivedType::kNone;
    bool prev_virtual = false;
    ResourceVector prev_accepted;
    GpuRequirement prev_accepted_gpu;
    // Forward data.
    std::string node;
    std::optional<std::vector<std::string>> new_groups;
    bool existed_on_node = false;  // pipeline: task was already on the node (update path)
    bool moved_gpu = false;        // pipeline: shared task moved to another GPU group
    std::string message;
    std::shared_ptr<const DeferredEvictionMessages> deferred_messages;  // evict: see Evict
    size_t deferred_index = 0;
    std::shared_ptr<const EvictionMetadata> meta;  // evict
    size_t undo_of = 0;                            // kUndo: the operation it reverted
    bool undone = false;
    std::optional<NodeGpuState> gpu_state;  // of the node the operation changes, before it
  };

  // Evict with `op`'s message (or deferred messages) already set.
  Status EvictWith(PodInfo* task, Op op, std::shared_ptr<const EvictionMetadata> meta);
  // Records the task's scheduling state before an operation.
  static void SaveState(const PodInfo& task, Op* op);
  static void RestoreAccepted(const Op& op, PodInfo* task);
  Status DoEvict(Op* op);
  Status DoPipeline(Op* op);
  Status DoAllocate(Op* op);
  // Undoes `op`; `exact` (rollbacks, which run in reverse order) also restores the node's saved
  // GPU counters.
  void Reverse(Op& op, bool exact);
  void SaveGpuState(const std::string& node, Op* op) const;
  void RestoreGpuState(const Op& op);
  void ReverseEvict(Op& op);
  void ReversePipeline(Op& op);
  void ReverseAllocate(Op& op);
  static void UndoAllocation(Session* ssn, const Op& op);
  // Reverts op i and records an undo marker.
  void UndoOperation(size_t i);
  Status CommitAllocate(PodInfo* task);
  // CommitAllocate while the sink defers binds: registers the undo with the session.
  Status CommitDeferredAllocate(const Op& op);
  // Reverses operations [first, end) after a failed commit of operation `first`; `exact`
  // restores the nodes' saved GPU counters too (when nothing before `first` was reverted).
  void UndoUncommitted(size_t first, bool exact);

  Session* ssn_;
  static constexpr size_t kInitialOps = 64;
  std::vector<Op> ops_;
};

}  // namespace kai::scheduler
