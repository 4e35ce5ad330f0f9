// StatusUpdateQueue: the scheduler's asynchronous status writes with KAI's "in-flight update"
// semantics (pkg/scheduler/cache/status_updater, reference §21.1):
//
//  - one pending update per object key; a newer update for the same key replaces the queued one
//    and keeps its place in the queue;
//  - a pod's pending PodScheduled update is dropped when the pod gets a BindRequest (PreBind);
//  - failures the same write can get past (no answer, 429, 5xx, timeouts) are retried, each key
//    after a backoff of its own (100 ms doubling to 30 s); KAI requeues at once, which spins on
//    a lasting failure and spends the client's QPS that BindRequests need. What the server
//    refuses (NotFound, Conflict, Forbidden, Invalid, ...) is dropped: the next cycle computes
//    the write again from the state it then observes;
//  - a PodGroup update stays visible to the next snapshots (Overlay) from the moment it is queued
//    until the informer delivers a PodGroup at least as new as the one the write produced, so the
//    scheduler never re-decides on status it has already written.
//
// Workers (threads in the live scheduler) take and write updates with PerformNext; Drain writes
// what is queued and waits for the workers' writes in flight (flushes, tests). Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "api/podgroup.h"
#include "kube/base/clock.h"
#include "scheduler/outputs/scheduler_writer.h"

namespace kai::scheduler {

struct StatusUpdate {
  enum class Kind { kPodStatus, kPodLabels, kPodGroup };
  Kind kind = Kind::kPodStatus;
  std::string namespace_;
  std::string name;
  std::string uid;
  // kPodStatus / kPodLabels: strategic-merge patch. kPodGroup: RFC 6902 patch on the PodGroup
  // (annotations), possibly empty.
  std::string patch;
  // kPodGroup: RFC 6902 patch on podgroups/status, possibly empty.
  std::string status_patch;
  // kPodGroup: the PodGroup as it is meant to be once the patches apply.
  std::shared_ptr<const api::PodGroup> desired;
  // The queue's bookkeeping: failed attempts of this key's writes so far (sets its backoff).
  int failed_attempts = 0;

  // KAI's payload keys: "<ns>/<name>_<uid>" plus "-Status" / "-Labels" for pods.
  std::string Key() const;
};

class StatusUpdateQueue {
 public:
  static constexpr Duration kInitialBackoff = std::chrono::milliseconds(100);
  static constexpr Duration kMaxBackoff = std::chrono::seconds(30);

  // `clock` times the workers' waits and the retry backoff; without one, failures are retried
  // at once (tests that drive the queue by hand).
  explicit StatusUpdateQueue(Clock* clock = nullptr) : clock_(clock) {}

  void Push(StatusUpdate update);
  // Drops the pod's queued PodScheduled update.
  void PreBind(const std::string& ns, const std::string& name, const std::string& uid);
  // The oldest queued update (it leaves the queue), backoffs ignored; nullopt when empty.
  std::optional<StatusUpdate> Pop();
  // A worker's body: waits up to `timeout` for an update whose backoff has passed, performs it
  // through `writer` and reports it. False on timeout or Close(). Needs the clock. The write
  // counts as in flight for Drain from the moment it leaves the queue.
  bool PerformNext(SchedulerWriter* writer, Duration timeout);
  // Wakes every PerformNext waiting for an update (shutdown).
  void Close();
  // Reports the outcome of a popped update. `resource_version` is the PodGroup's version after
  // a successful write.
  void Done(const StatusUpdate& update, const Status& result,
            const std::string& resource_version = "");
  // Performs one popped update through `writer` and reports it with Done.
  void Perform(const StatusUpdate& update, SchedulerWriter* writer);
  // Pops and performs until the queue is empty and no PerformNext write is in flight; failures
  // that are retried are attempted again at most `max_rounds` times, backoffs ignored (a
  // flush). Returns the number of writes this call attempted.
  int Drain(SchedulerWriter* writer, int max_rounds = 3);

  // `observed` with the scheduler's pending or not yet observed writes applied (annotations
  // last-start / stale timestamps and status.schedulingConditions). Returns `observed` itself
  // when there is nothing to apply. Forgets applied writes the observed object already reflects.
  std::shared_ptr<const api::PodGroup> Overlay(std::shared_ptr<const api::PodGroup> observed);

  // The PodGroup is gone: forget its written-but-unobserved update (the overlay would otherwise
  // be kept forever, as no newer version will ever arrive).
  void ForgetPodGroup(const std::string& ns, const std::string& name, const std::string& uid);

  size_t size() const;
  size_t num_applied_overlays() const;

 private:
  struct Entry {
    uint64_t seq;
    StatusUpdate update;
    MonoTime not_before{};  // a retried failure's backoff
  };
  struct Applied {
    std::shared_ptr<const api::PodGroup> desired;
    bool status;  // the update set status.schedulingConditions
    std::string resource_version;
  };
  // The oldest update whose backoff has passed at `now` (every one without `now`); mu_ held.
  std::optional<StatusUpdate> PopLocked(std::optional<MonoTime> now);
  // PopLocked, counting the update in flight until PerformClaimed reports it (mu_ held).
  std::optional<StatusUpdate> ClaimLocked(std::optional<MonoTime> now);
  // When the first backed-off update becomes due; nullopt when none waits (mu_ held).
  std::optional<MonoTime> NextDueLocked() const;
  // Performs a claimed update, then stops counting it in flight.
  void PerformClaimed(const StatusUpdate& update, SchedulerWriter* writer);

  Clock* clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;  // in_flight_ reached 0
  int in_flight_ = 0;                // claimed by PerformNext or Drain, not yet reported
  bool closed_ = false;
  uint64_t next_seq_ = 0;
  std::map<std::string, Entry> pending_;    // by key
  std::map<uint64_t, std::string> order_;   // seq -> key
  std::map<std::string, Applied> applied_;  // podgroup key -> last successful write
};

}  // namespace kai::scheduler
