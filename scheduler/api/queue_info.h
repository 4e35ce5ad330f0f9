// QueueInfo: a queue of the n-level hierarchy (KAI pkg/scheduler/api/queue_info).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/queue.h"
#include "kube/base/clock.h"

namespace kai::scheduler {

// One resource of a queue in scheduler units (GPU devices, CPU millicores, memory bytes).
struct QueueResourceQuota {
  double quota = 0;  // deserved; -1 = unlimited
  double over_quota_weight = 0;
  double limit = 0;  // max allowed; -1 = unlimited
};

struct QueueQuota {
  QueueResourceQuota gpu;
  QueueResourceQuota cpu;
  QueueResourceQuota memory;
};

class QueueInfo {
 public:
  // From a Queue object; memory quota and limit are converted from MB (10^6 bytes) to bytes and
  // clamped to >= -1, as KAI does.
  explicit QueueInfo(std::shared_ptr<const api::Queue> queue);
  // A synthetic queue (the "default" parent used with --full-hierarchy-fairness=false).
  QueueInfo(std::string uid, std::string parent, QueueQuota quota, int priority);

  const std::string& uid() const { return uid_; }
  // Display name when set (used in messages), else the object name.
  const std::string& name() const { return name_; }
  const std::string& parent() const { return parent_; }
  void set_parent(std::string p) { parent_ = std::move(p); }
  const std::vector<std::string>& children() const { return children_; }
  std::vector<std::string>& mutable_children() { return children_; }
  bool IsLeafQueue() const { return children_.empty(); }
  int priority() const { return priority_; }
  WallTime creation_time() const { return creation_time_; }
  const QueueQuota& quota() const { return quota_; }
  std::optional<Duration> preempt_min_runtime() const { return preempt_min_runtime_; }
  std::optional<Duration> reclaim_min_runtime() const { return reclaim_min_runtime_; }
  const api::Queue* queue() const { return queue_.get(); }

  // Set for every queue of a session's cluster when the session opens (ClusterInfo::IndexQueues):
  // a dense index and the parent queue, so that the structures a victim simulation builds by the
  // thousand are vectors and pointer links instead of maps keyed by queue name.
  int session_index() const { return session_index_; }
  const QueueInfo* session_parent() const { return session_parent_; }
  void set_session_links(int index, const QueueInfo* parent) {
    session_index_ = index;
    session_parent_ = parent;
  }

 private:
  std::shared_ptr<const api::Queue> queue_;
  std::string uid_;
  std::string name_;
  std::string parent_;
  std::vector<std::string> children_;
  int priority_ = api::kDefaultQueuePriority;
  WallTime creation_time_{};
  QueueQuota quota_;
  std::optional<Duration> preempt_min_runtime_;
  std::optional<Duration> reclaim_min_runtime_;
  int session_index_ = -1;
  const QueueInfo* session_parent_ = nullptr;
};

}  // namespace kai::scheduler
