#include "scheduler/plugins/proportion/usage/usage_lister.h"

#include <glog/logging.h>

#include <algorithm>

namespace kai::proportion {

UsageLister::UsageLister(UsageClient* client, Clock* clock, Duration fetch_interval,
                         Duration staleness, Duration wait_timeout)
    : client_(client),
      clock_(clock),
      fetch_interval_(fetch_interval),
      staleness_(std::max(staleness, fetch_interval)),
      wait_timeout_(wait_timeout) {}

UsageLister::~UsageLister() { Stop(); }

Status UsageLister::FetchOnce() {
  const WallTime now = clock_->Now();
  const MonoTime start = clock_->NowMonotonic();
  StatusOr<ClusterUsage> usage = client_->GetResourceUsage();
  if (!usage.ok()) {
    LOG(ERROR) << "failed to fetch usage data: " << usage.status();
    return usage.status();
  }
  if (on_query_latency_) on_query_latency_(clock_->NowMonotonic() - start);
  std::lock_guard<std::mutex> l(mu_);
  last_ = std::move(usage).value();
  last_time_ = now;
  cv_.notify_all();
  return Status::OK();
}

void UsageLister::Start() {
  std::lock_guard<std::mutex> l(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void UsageLister::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void UsageLister::Loop() {
  while (true) {
    FetchOnce().IgnoreError();  // logged; the previous data stays
    std::unique_lock<std::mutex> lock(mu_);
    const MonoTime next = clock_->NowMonotonic() + fetch_interval_;
    while (!stopping_ && !clock_->WaitUntil(cv_, lock, next)) {
    }
    if (stopping_) return;
  }
}

bool UsageLister::WaitForFirstData() {
  std::unique_lock<std::mutex> lock(mu_);
  const MonoTime deadline = clock_->NowMonotonic() + wait_timeout_;
  while (!last_.has_value() && !stopping_) {
    if (clock_->WaitUntil(cv_, lock, deadline)) {
      if (!last_.has_value()) {
        LOG(WARNING) << "usage data fetch timed out";
      }
      break;
    }
  }
  return last_.has_value();
}

std::optional<UsageLister::Snapshot> UsageLister::GetResourceUsage() const {
  std::lock_guard<std::mutex> l(mu_);
  if (!last_.has_value()) return std::nullopt;
  Snapshot s;
  s.usage = *last_;
  s.fetched_at = last_time_;
  s.stale = clock_->Now() - last_time_ > staleness_;
  return s;
}

}  // namespace kai::proportion
