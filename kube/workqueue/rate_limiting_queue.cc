#include "kube/workqueue/rate_limiting_queue.h"

namespace kai::workqueue {

RateLimitingQueue::RateLimitingQueue(const QueueOptions& options,
                                     std::unique_ptr<RateLimiter> limiter)
    : Queue(options),
      limiter_(limiter != nullptr ? std::move(limiter) : DefaultControllerRateLimiter(clock())) {}

void RateLimitingQueue::AddRateLimited(const std::string& item) {
  AddAfter(item, limiter_->When(item));
}

void RateLimitingQueue::Forget(const std::string& item) { limiter_->Forget(item); }

int RateLimitingQueue::NumRequeues(const std::string& item) { return limiter_->NumRequeues(item); }

}  // namespace kai::workqueue
