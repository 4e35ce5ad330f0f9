#include "scheduler/app/scheduler_runnables.h"

#include <glog/logging.h>

#include <utility>

namespace kai::scheduler {

Status SchedulerInformers::Start() {
  scheduler_->Start();
  return Status::OK();
}

bool SchedulerInformers::Stop(MonoTime) {
  scheduler_->Stop();
  return true;
}

SchedulingLoop::SchedulingLoop(LiveScheduler* scheduler, Clock* clock)
    : scheduler_(scheduler), clock_(clock != nullptr ? clock : RealClock::Get()) {}

SchedulingLoop::~SchedulingLoop() {
  std::lock_guard<std::mutex> l(mu_);
  if (thread_.joinable()) thread_.join();
}

Status SchedulingLoop::Start() {
  std::lock_guard<std::mutex> l(mu_);
  if (stopped_) return CancelledError("scheduling loop stopped before it started");
  LOG(INFO) << "scheduling";
  thread_ = std::thread([this] { scheduler_->Run(); });
  return Status::OK();
}

bool SchedulingLoop::Stop(MonoTime deadline) {
  std::thread loop;
  {
    std::lock_guard<std::mutex> l(mu_);
    stopped_ = true;
    loop = std::move(thread_);
  }
  scheduler_->Stop();
  if (loop.joinable()) loop.join();
  if (clock_->NowMonotonic() < deadline) scheduler_->FlushStatusUpdates();
  return true;
}

}  // namespace kai::scheduler
