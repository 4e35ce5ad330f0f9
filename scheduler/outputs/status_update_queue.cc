#include "scheduler/outputs/status_update_queue.h"

#include <glog/logging.h>

#include <algorithm>
#include <cstdlib>

#include "api/well_known.h"

namespace kai::scheduler {

namespace {

// resourceVersions are opaque in Kubernetes; every real server (and localkube) uses decimal
// integers, which is all the overlay needs to know "the informer caught up".
std::optional<uint64_t> ParseVersion(const std::string& rv) {
  if (rv.empty()) return std::nullopt;
  char* end = nullptr;
  unsigned long long v = std::strtoull(rv.c_str(), &end, 10);
  if (*end != '\0') return std::nullopt;
  return v;
}

bool Reflects(const api::PodGroup& observed, const std::string& written_rv) {
  auto o = ParseVersion(observed.metadata.resource_version);
  auto w = ParseVersion(written_rv);
  if (o && w) return *o >= *w;
  return observed.metadata.resource_version == written_rv;
}

// The object the write was for no longer exists.
bool Gone(const Status& s) { return IsNotFound(s) || s.reason() == "NotFound"; }

// A failure the same write can get past by trying again: no HTTP answer (or not an API error),
// throttling, a timeout, a server error. Other 4xx are the server's refusals (gone, conflicting,
// forbidden, invalid) and come back the same every time.
bool Retryable(const Status& s) {
  if (Gone(s) || s.reason() == "Conflict") return false;
  const int code = s.http_code();
  if (code < 400 || code >= 500) return true;
  return code == 401 || code == 408 || code == 429;
}

Duration Backoff(int failed_attempts) {
  Duration d = StatusUpdateQueue::kInitialBackoff;
  for (int i = 1; i < failed_attempts && d < StatusUpdateQueue::kMaxBackoff; ++i) d *= 2;
  return std::min(d, StatusUpdateQueue::kMaxBackoff);
}

std::string PodGroupKey(const api::PodGroup& pg) {
  return pg.metadata.namespace_ + "/" + pg.metadata.name + "_" + pg.metadata.uid;
}

void Apply(const api::PodGroup& desired, bool status, api::PodGroup* out) {
  for (std::string_view k :
       {api::kLastStartTimestampAnnotation, api::kStalePodGroupTimestampAnnotation}) {
    std::string key(k);
    auto it = desired.metadata.annotations.find(key);
    if (it == desired.metadata.annotations.end()) {
      out->metadata.annotations.erase(key);
    } else {
      out->metadata.annotations[key] = it->second;
    }
  }
  if (status) out->status.scheduling_conditions = desired.status.scheduling_conditions;
}

}  // namespace

std::string StatusUpdate::Key() const {
  std::string key = namespace_ + "/" + name + "_" + uid;
  switch (kind) {
    case Kind::kPodStatus:
      return key + "-Status";
    case Kind::kPodLabels:
      return key + "-Labels";
    case Kind::kPodGroup:
      return key;
  }
  return key;
}

void StatusUpdateQueue::Push(StatusUpdate update) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::string key = update.Key();
    auto it = pending_.find(key);
    if (it != pending_.end()) {
      // Keeps its place and its backoff: a newer write of a failing object waits like the old.
      update.failed_attempts = it->second.update.failed_attempts;
      it->second.update = std::move(update);
      return;
    }
    uint64_t seq = next_seq_++;
    order_[seq] = key;
    pending_.emplace(key, Entry{seq, std::move(update)});
  }
  cv_.notify_one();
}

bool StatusUpdateQueue::PerformNext(SchedulerWriter* writer, Duration timeout) {
  CHECK(clock_ != nullptr) << "PerformNext needs the queue's clock";
  std::optional<StatusUpdate> u;
  {
    std::unique_lock<std::mutex> lock(mu_);
    const MonoTime deadline = clock_->NowMonotonic() + timeout;
    while (true) {
      const MonoTime now = clock_->NowMonotonic();
      u = ClaimLocked(now);
      if (u || closed_ || now >= deadline) break;
      const std::optional<MonoTime> due = NextDueLocked();
      clock_->WaitUntil(cv_, lock, due ? std::min(*due, deadline) : deadline);
    }
    if (!u) return false;
  }
  PerformClaimed(*u, writer);
  return true;
}

std::optional<StatusUpdate> StatusUpdateQueue::ClaimLocked(std::optional<MonoTime> now) {
  std::optional<StatusUpdate> u = PopLocked(now);
  if (u) ++in_flight_;
  return u;
}

std::optional<MonoTime> StatusUpdateQueue::NextDueLocked() const {
  std::optional<MonoTime> due;
  for (const auto& [key, e] : pending_) {
    if (!due || e.not_before < *due) due = e.not_before;
  }
  return due;
}

void StatusUpdateQueue::PerformClaimed(const StatusUpdate& update, SchedulerWriter* writer) {
  Perform(update, writer);  // a retried failure is queued again before it stops being in flight
  std::lock_guard<std::mutex> lock(mu_);
  if (--in_flight_ == 0) idle_cv_.notify_all();
}

void StatusUpdateQueue::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

void StatusUpdateQueue::PreBind(const std::string& ns, const std::string& name,
                                const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  StatusUpdate probe;
  probe.kind = StatusUpdate::Kind::kPodStatus;
  probe.namespace_ = ns;
  probe.name = name;
  probe.uid = uid;
  auto it = pending_.find(probe.Key());
  if (it == pending_.end()) return;
  order_.erase(it->second.seq);
  pending_.erase(it);
}

std::optional<StatusUpdate> StatusUpdateQueue::Pop() {
  std::lock_guard<std::mutex> lock(mu_);
  return PopLocked(std::nullopt);
}

std::optional<StatusUpdate> StatusUpdateQueue::PopLocked(std::optional<MonoTime> now) {
  auto first = order_.begin();
  auto it = pending_.end();
  for (; first != order_.end(); ++first) {
    it = pending_.find(first->second);
    if (!now || it->second.not_before <= *now) break;
  }
  if (first == order_.end()) return std::nullopt;
  order_.erase(first);
  StatusUpdate u = std::move(it->second.update);
  pending_.erase(it);
  if (u.kind == StatusUpdate::Kind::kPodGroup) {
    // While the write is in flight the overlay keeps showing it.
    applied_[u.Key()] = Applied{u.desired, !u.status_patch.empty(), ""};
  }
  return u;
}

void StatusUpdateQueue::Done(const StatusUpdate& u, const Status& result,
                             const std::string& resource_version) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = u.Key();
  bool is_pg = u.kind == StatusUpdate::Kind::kPodGroup;
  if (result.ok()) {
    if (is_pg) {
      auto it = applied_.find(key);
      if (it != applied_.end() && it->second.desired == u.desired) {
        it->second.resource_version = resource_version;
      }
    }
    return;
  }
  if (is_pg) {
    auto it = applied_.find(key);
    if (it != applied_.end() && it->second.desired == u.desired) applied_.erase(it);
  }
  if (!Retryable(result)) {
    if (!Gone(result)) {
      LOG(WARNING) << "Status write for " << key << " refused, not retried: " << result;
    }
    return;
  }
  const int failed = u.failed_attempts + 1;
  const MonoTime due = clock_ != nullptr ? clock_->NowMonotonic() + Backoff(failed) : MonoTime{};
  if (auto newer = pending_.find(key); newer != pending_.end()) {
    // A newer update supersedes this one's content; it inherits the backoff.
    newer->second.update.failed_attempts = failed;
    newer->second.not_before = std::max(newer->second.not_before, due);
    return;
  }
  uint64_t seq = next_seq_++;
  order_[seq] = key;
  StatusUpdate retry = u;
  retry.failed_attempts = failed;
  pending_.emplace(key, Entry{seq, std::move(retry), due});
  cv_.notify_one();
}

void StatusUpdateQueue::Perform(const StatusUpdate& u, SchedulerWriter* writer) {
  Status result;
  std::string rv;
  switch (u.kind) {
    case StatusUpdate::Kind::kPodStatus:
      result = writer->PatchPodStatus(u.namespace_, u.name, u.patch);
      break;
    case StatusUpdate::Kind::kPodLabels:
      result = writer->PatchPod(u.namespace_, u.name, u.patch);
      break;
    case StatusUpdate::Kind::kPodGroup: {
      if (!u.patch.empty()) {
        auto r = writer->PatchPodGroup(u.namespace_, u.name, u.uid, u.patch);
        if (r.ok()) {
          rv = *r;
        } else {
          result = r.status();
        }
      }
      if (result.ok() && !u.status_patch.empty()) {
        auto r = writer->PatchPodGroupStatus(u.namespace_, u.name, u.uid, u.status_patch);
        if (r.ok()) {
          rv = *r;
        } else {
          result = r.status();
        }
      }
      break;
    }
  }
  Done(u, result, rv);
}

int StatusUpdateQueue::Drain(SchedulerWriter* writer, int max_rounds) {
  int attempts = 0;
  for (int round = 0; round < max_rounds; ++round) {
    // A round takes what is queued now: a failure requeued during it waits for the next round.
    for (size_t n = size(); n > 0; --n) {
      std::optional<StatusUpdate> u;
      {
        std::lock_guard<std::mutex> lock(mu_);
        u = ClaimLocked(std::nullopt);
        if (!u) break;
      }
      PerformClaimed(*u, writer);
      ++attempts;
    }
    // A worker may hold an update it took before this call: its write (or its requeued
    // failure) must land before Drain reports the queue written.
    std::unique_lock<std::mutex> lock(mu_);
    idle_cv_.wait(lock, [&] { return in_flight_ == 0; });
    if (pending_.empty()) break;
  }
  return attempts;
}

std::shared_ptr<const api::PodGroup> StatusUpdateQueue::Overlay(
    std::shared_ptr<const api::PodGroup> observed) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = PodGroupKey(*observed);
  auto pending = pending_.find(key);
  auto applied = applied_.find(key);
  if (applied != applied_.end() && !applied->second.resource_version.empty() &&
      Reflects(*observed, applied->second.resource_version)) {
    applied_.erase(applied);
    applied = applied_.end();
  }
  if (pending == pending_.end() && applied == applied_.end()) return observed;
  auto merged = std::make_shared<api::PodGroup>(*observed);
  if (applied != applied_.end() && applied->second.desired) {
    Apply(*applied->second.desired, applied->second.status, merged.get());
  }
  if (pending != pending_.end() && pending->second.update.desired) {
    Apply(*pending->second.update.desired, !pending->second.update.status_patch.empty(),
          merged.get());
  }
  return merged;
}

void StatusUpdateQueue::ForgetPodGroup(const std::string& ns, const std::string& name,
                                       const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  applied_.erase(ns + "/" + name + "_" + uid);
}

size_t StatusUpdateQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_.size();
}

size_t StatusUpdateQueue::num_applied_overlays() const {
  std::lock_guard<std::mutex> lock(mu_);
  return applied_.size();
}

}  // namespace kai::scheduler
