#include "scheduler/api/queue_info.h"

#include <algorithm>

namespace kai::scheduler {

namespace {

constexpr double kMbToBytes = 1000000;

QueueResourceQuota ToQuota(const api::QueueResource& r, double scale) {
  QueueResourceQuota q;
  q.quota = r.quota;
  q.limit = r.limit;
  q.over_quota_weight = r.over_quota_weight;
  if (scale != 1) {
    q.quota = std::max(q.quota * scale, -1.0);
    q.limit = std::max(q.limit * scale, -1.0);
  }
  return q;
}

}  // namespace

QueueInfo::QueueInfo(std::shared_ptr<const api::Queue> queue) : queue_(std::move(queue)) {
  const api::ObjectMeta& meta = queue_->metadata;
  uid_ = meta.name;
  name_ = queue_->spec.display_name.empty() ? meta.name : queue_->spec.display_name;
  parent_ = queue_->spec.parent_queue;
  priority_ = queue_->spec.priority.value_or(api::kDefaultQueuePriority);
  if (meta.creation_timestamp) creation_time_ = *meta.creation_timestamp;
  if (queue_->spec.resources) {
    quota_.gpu = ToQuota(queue_->spec.resources->gpu, 1);
    quota_.cpu = ToQuota(queue_->spec.resources->cpu, 1);
    quota_.memory = ToQuota(queue_->spec.resources->memory, kMbToBytes);
  }
  preempt_min_runtime_ = queue_->spec.preempt_min_runtime;
  reclaim_min_runtime_ = queue_->spec.reclaim_min_runtime;
}

QueueInfo::QueueInfo(std::string uid, std::string parent, QueueQuota quota, int priority)
    : uid_(uid),
      name_(std::move(uid)),
      parent_(std::move(parent)),
      priority_(priority),
      quota_(quota) {}

}  // namespace kai::scheduler
