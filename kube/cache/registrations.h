// Registrations: the event-handler registrations of one component, safe to add to while a
// readiness probe asks whether they all synced (client-go's HasSynced over a controller's
// handlers). A probe's thread and the Start() that registers run concurrently.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "kube/cache/informer.h"

namespace kai::kube {

class Registrations {
 public:
  void Add(std::shared_ptr<HandlerRegistration> r) {
    std::lock_guard<std::mutex> l(mu_);
    list_.push_back(std::move(r));
  }
  // False until something was registered: a component that has not started is not synced.
  bool AllSynced() const {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& r : list_) {
      if (!r->HasSynced()) return false;
    }
    return !list_.empty();
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<HandlerRegistration>> list_;
};

}  // namespace kai::kube
