#include "test/localkube/reconcile_loop.h"

#include <glog/logging.h>

#include <algorithm>

namespace kai::localkube {
namespace {

// client-go's default per-item backoff: 5 ms doubling, capped (here at 30 s).
Duration Backoff(int failures) {
  const int shift = std::min(failures, 13);
  return std::min<Duration>(std::chrono::milliseconds(5) * (1 << shift), std::chrono::seconds(30));
}

}  // namespace

ReconcileLoop::ReconcileLoop(std::string name, Clock* clock, Reconcile reconcile)
    : name_(std::move(name)), clock_(clock), reconcile_(std::move(reconcile)) {}

ReconcileLoop::~ReconcileLoop() { Stop(); }

void ReconcileLoop::Start() {
  std::lock_guard l(mu_);
  if (started_) return;
  started_ = true;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void ReconcileLoop::Stop() {
  {
    std::lock_guard l(mu_);
    if (!started_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard l(mu_);
  started_ = false;
  queue_.clear();
  queued_.clear();
  timers_.clear();
  timer_of_.clear();
  cv_.notify_all();
}

void ReconcileLoop::Add(const std::string& key) {
  std::lock_guard l(mu_);
  if (!queued_.insert(key).second) return;
  queue_.push_back(key);
  cv_.notify_all();
}

void ReconcileLoop::AddAt(const std::string& key, MonoTime when) {
  std::lock_guard l(mu_);
  auto it = timer_of_.find(key);
  if (it != timer_of_.end()) {
    if (it->second <= when) return;
    timers_.erase({it->second, key});
    it->second = when;
  } else {
    timer_of_.emplace(key, when);
  }
  timers_.emplace(when, key);
  cv_.notify_all();
}

bool ReconcileLoop::IdleLocked() const {
  if (!queue_.empty() || busy_) return false;
  return timers_.empty() || timers_.begin()->first > clock_->NowMonotonic();
}

bool ReconcileLoop::Idle() const {
  std::lock_guard l(mu_);
  return IdleLocked();
}

void ReconcileLoop::WaitIdle() {
  std::unique_lock l(mu_);
  while (started_ && !stop_ && !IdleLocked()) {
    // Bounded waits: a FakeClock advanced by another thread makes timers due without
    // notifying this condition variable.
    cv_.wait_for(l, std::chrono::milliseconds(5));
  }
}

uint64_t ReconcileLoop::processed() const {
  std::lock_guard l(mu_);
  return processed_;
}

void ReconcileLoop::Run() {
  std::unique_lock l(mu_);
  while (!stop_) {
    const MonoTime now = clock_->NowMonotonic();
    while (!timers_.empty() && timers_.begin()->first <= now) {
      std::string key = timers_.begin()->second;
      timers_.erase(timers_.begin());
      timer_of_.erase(key);
      if (queued_.insert(key).second) queue_.push_back(std::move(key));
    }
    if (queue_.empty()) {
      cv_.notify_all();  // WaitIdle
      if (timers_.empty()) {
        cv_.wait(l);
      } else {
        clock_->WaitUntil(cv_, l, timers_.begin()->first);
      }
      continue;
    }
    std::string key = std::move(queue_.front());
    queue_.pop_front();
    queued_.erase(key);
    busy_ = true;
    l.unlock();
    Status s = reconcile_(key);
    l.lock();
    busy_ = false;
    ++processed_;
    if (s.ok()) {
      failures_.erase(key);
    } else if (!stop_) {
      const int n = failures_[key]++;
      VLOG(1) << name_ << ": " << key << ": " << s << " (retry " << n + 1 << ")";
      const MonoTime when = clock_->NowMonotonic() + Backoff(n);
      auto it = timer_of_.find(key);
      if (it == timer_of_.end() || it->second > when) {
        if (it != timer_of_.end()) timers_.erase({it->second, key});
        timer_of_[key] = when;
        timers_.emplace(when, key);
      }
    }
  }
  cv_.notify_all();
}

}  // namespace kai::localkube
