// RateLimitingQueue: a Queue whose failed keys come back after a RateLimiter's delay
// (client-go rate_limiting_queue.go).
#pragma once

#include <memory>
#include <string>

#include "kube/workqueue/queue.h"
#include "kube/workqueue/rate_limiter.h"

namespace kai::workqueue {

class RateLimitingQueue : public Queue {
 public:
  // `limiter` null = DefaultControllerRateLimiter on the queue's clock.
  explicit RateLimitingQueue(const QueueOptions& options = {},
                             std::unique_ptr<RateLimiter> limiter = nullptr);

  // AddAfter(item, limiter.When(item)).
  void AddRateLimited(const std::string& item);
  // Clears the item's failure history (call after it was processed successfully).
  void Forget(const std::string& item);
  int NumRequeues(const std::string& item);

  RateLimiter& rate_limiter() { return *limiter_; }

 private:
  std::unique_ptr<RateLimiter> limiter_;
};

}  // namespace kai::workqueue
