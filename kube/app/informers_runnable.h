// InformersRunnable: a process's SharedInformerFactory as a Manager runnable (controller-runtime's
// cache). It runs on every replica (leader or not), starts the informers and waits for their
// first lists, so leader work started afterwards sees full caches; Synced() is the readyz check.
#pragma once

#include <string>

#include "kube/cache/factory.h"
#include "kube/controller/runnable.h"

namespace kai::app {

class InformersRunnable final : public controller::Runnable {
 public:
  // `sync_timeout`: Start() fails when the caches did not sync in time (controller-runtime's
  // CacheSyncTimeout, 2 min).
  explicit InformersRunnable(kube::SharedInformerFactory* factory,
                             Duration sync_timeout = std::chrono::minutes(2))
      : factory_(factory), sync_timeout_(sync_timeout) {}

  std::string name() const override { return "informers"; }
  Status Start() override;
  bool Stop(MonoTime deadline) override;
  bool NeedLeaderElection() const override { return false; }

  // OK once every started informer synced (for Manager::AddReadyzCheck).
  Status Synced() const;

 private:
  kube::SharedInformerFactory* const factory_;
  const Duration sync_timeout_;
};

}  // namespace kai::app
