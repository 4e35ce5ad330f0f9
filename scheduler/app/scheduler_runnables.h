// kai-scheduler's two Manager runnables: the informers (every replica, so a new leader starts
// from a warm cache, as KAI's scheduler runs its cache before the election) and the scheduling
// loop (the leader only).
#pragma once

#include <mutex>
#include <string>
#include <thread>

#include "kube/controller/runnable.h"
#include "scheduler/app/live_scheduler.h"

namespace kai::scheduler {

class SchedulerInformers final : public controller::Runnable {
 public:
  explicit SchedulerInformers(LiveScheduler* scheduler) : scheduler_(scheduler) {}
  std::string name() const override { return "informers"; }
  Status Start() override;
  // A replica that never led; the leader's loop stopped the informers already.
  bool Stop(MonoTime deadline) override;
  bool NeedLeaderElection() const override { return false; }

 private:
  LiveScheduler* const scheduler_;
};

// Stopping ends the cycles and the informers and, when there is time left, writes the status
// updates still queued (a lost lease leaves none: another replica writes them now).
class SchedulingLoop final : public controller::Runnable {
 public:
  explicit SchedulingLoop(LiveScheduler* scheduler, Clock* clock = nullptr);
  ~SchedulingLoop() override;
  std::string name() const override { return "scheduling loop"; }
  // Cancelled once Stop() was called: a loop started after its stop would run unseen.
  Status Start() override;
  bool Stop(MonoTime deadline) override;

 private:
  LiveScheduler* const scheduler_;
  Clock* const clock_;
  std::mutex mu_;  // Start() and Stop() may overlap (runnable.h)
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace kai::scheduler
