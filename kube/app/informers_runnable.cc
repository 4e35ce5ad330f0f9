#include "kube/app/informers_runnable.h"

namespace kai::app {

Status InformersRunnable::Start() {
  factory_->Start();
  if (!factory_->WaitForCacheSync(sync_timeout_)) {
    if (factory_->IsShutDown()) return CancelledError("stopped before the informer caches synced");
    return DeadlineExceededError("timed out waiting for informer caches to sync");
  }
  return Status::OK();
}

bool InformersRunnable::Stop(MonoTime) {
  factory_->Shutdown();
  return true;
}

Status InformersRunnable::Synced() const {
  if (!factory_->WaitForCacheSync(Duration::zero())) {
    return UnavailableError("informer caches not synced");
  }
  return Status::OK();
}

}  // namespace kai::app
