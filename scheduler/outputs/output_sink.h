// OutputSink: the live scheduler's DecisionSink. Turns committed decisions and the session's
// final state into API writes exactly as KAI's cache does (reference §2.3, §6.8, §21):
//
//  - Bind: drop the pod's queued PodScheduled update, create the BindRequest (synchronously: a
//    failure aborts the rest of the statement), then queue the node-pool label patch and record
//    a Scheduled event; on failure a FailedBinding event and PodScheduled=False/BindingError.
//  - Evict: PodGroup Evict event (annotated with the eviction metadata), optionally
//    DisruptionTarget=True on the pod, then DELETE of the pod.
//  - Pipelined: a Pipelined event; nothing else is persisted.
//  - RecordJobStatuses (session close): per job, see job_status.h; pod and PodGroup status
//    writes go through the StatusUpdateQueue, events straight to the recorder.
//  - CleanStaleBindRequests (after each snapshot): deletes failed BindRequests and those whose
//    node is gone.
//  - Deferred binds (SetBindRequestWorkers(n > 1) and set_defer_binds(true), which the cycle
//    does for the allocate action): Bind() queues the creation to n workers and returns; the
//    creations run concurrently (the API server sees them in any order) and JoinBinds() waits
//    for all of them, then handles each answer in issue order exactly as the synchronous path
//    does (events, conditions, in doubt, counters) and returns the refused pods.
//  - A BindRequest creation whose outcome is unknown (no HTTP answer, or a 5xx: the server may
//    have stored it) is held "in doubt": the decision stands in the session and the model (the
//    pod's GPUs stay taken) until ResolveInDoubtBindRequests reads the object back; absent, the
//    model drops it and the pod is Pending again. An AlreadyExists answer means the model missed
//    a BindRequest (an earlier attempt's answer was lost): it is read back into the model.
//
// Writes happen in a deterministic order: statement operation order during actions, then jobs
// by id and pods by name at session close.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kube/base/clock.h"
#include "scheduler/api/cluster_info.h"
#include "scheduler/conf/scheduler_conf.h"
#include "scheduler/framework/interfaces.h"
#include "scheduler/outputs/scheduler_writer.h"
#include "scheduler/outputs/status_update_queue.h"

namespace kai::scheduler {

class OutputSink : public DecisionSink {
 public:
  OutputSink(SchedulerParams params, SchedulerWriter* writer, StatusUpdateQueue* updates,
             Clock* clock);

  // Every BindRequest the API server accepted, so that the next snapshot sees its pod as Binding
  // even before the informer delivers it (KAI adds it to the informer store).
  void set_on_bind_request_created(std::function<void(const api::BindRequest&)> f) {
    on_bind_request_created_ = std::move(f);
  }

  // BindRequests found not to exist after an unknown outcome (namespace/name), to remove from
  // the model.
  void set_on_bind_request_dropped(std::function<void(const std::string&)> f) {
    on_bind_request_dropped_ = std::move(f);
  }
  // Stale BindRequests deleted (namespace/name, uid), or found gone (404, or 409: the name holds
  // another), so that the model forgets them before the informer says so.
  void set_on_bind_request_deleted(
      std::function<void(const std::string& key, const std::string& uid)> f) {
    on_bind_request_deleted_ = std::move(f);
  }
  // Every pod evicted (deleted, or already gone), with its job and the eviction's metadata
  // (pod_group_evicted_pods_total).
  void set_on_pod_evicted(std::function<void(const PodGroupInfo&, const EvictionMetadata&)> f) {
    on_pod_evicted_ = std::move(f);
  }
  // The timing of one answered bind attempt (KAI's task latency histograms).
  struct BindTiming {
    // From Bind() to its answer handled: PreBind, the BindRequest's creation, then the label
    // patch queued and the events recorded, or the failure recorded (KAI's Cache.Bind,
    // task_bind_latency_milliseconds). A deferred bind's wait for JoinBinds is not counted.
    Duration bind{};
    // From the pod's creationTimestamp to the creation's answer, when the API server accepted the
    // BindRequest (KAI's Session.BindPod, task_scheduling_latency_milliseconds); absent for a
    // refused or in-doubt creation, or a pod without creationTimestamp.
    std::optional<Duration> since_pod_creation;
  };
  // Called on the cycle's thread once per answered bind attempt, in issue order.
  void set_on_bind_timed(std::function<void(const BindTiming&)> f) {
    on_bind_timed_ = std::move(f);
  }
  // Reads back every BindRequest in doubt (before a cycle's decisions). Returns how many remain
  // in doubt (the API server still does not answer).
  int ResolveInDoubtBindRequests();
  int num_in_doubt() const { return static_cast<int>(in_doubt_.size()); }

  // The snapshot the decisions refer to (PodGroups of evicted pods); set before the actions run.
  void BeginSession(const ClusterInfo* cluster) { cluster_ = cluster; }

  // Starts `n` creation workers (at most one per pod in flight); n <= 1 keeps every bind
  // synchronous. Call before the first cycle.
  void SetBindRequestWorkers(int n);
  int bind_request_workers() const { return static_cast<int>(workers_.size()); }
  // Whether Bind() may defer (only with workers); the cycle turns it on for non-evicting actions.
  void set_defer_binds(bool defer) { defer_binds_ = defer && !workers_.empty(); }

  ~OutputSink() override;

  Status Bind(const BindDecision& d) override;
  bool BindsDeferred() const override { return defer_binds_; }
  std::vector<std::string> JoinBinds() override;
  Status Evict(const EvictDecision& d) override;
  void Pipelined(const PipelineDecision& d) override;

  // RecordJobStatusEvent for every job of the snapshot, in id order.
  void RecordJobStatuses(const ClusterInfo& cluster);
  // Deletes the snapshot's stale BindRequests (already gone counts as done). Errors are joined.
  Status CleanStaleBindRequests(const ClusterInfo& cluster);

  struct Counters {
    int bind_requests_created = 0;
    int bind_request_failures = 0;
    // Creations with an unknown outcome, held in doubt (see above).
    int bind_requests_in_doubt = 0;
    int pods_evicted = 0;
    int stale_bind_requests_deleted = 0;
  };
  const Counters& counters() const { return counters_; }

 private:
  // When a bind attempt started and when its creation was answered (BindTiming).
  struct BindTimes {
    MonoTime started{};
    MonoTime answered{};
    WallTime answered_wall{};
  };
  // A creation queued by a deferred Bind(); the worker fills `result` and the answer times.
  struct PendingCreate {
    const PodInfo* task = nullptr;
    std::string node;
    api::BindRequest attempted;
    StatusOr<api::BindRequest> result = InternalError("not answered");
    BindTimes times;
  };

  static bool OutcomeUnknown(const Status& s);
  // Everything after the creation's answer (synchronous and deferred binds alike), then the
  // attempt's timing to on_bind_timed_.
  Status FinishBind(const PodInfo& task, const std::string& node, const api::BindRequest& attempted,
                    StatusOr<api::BindRequest> created, const BindTimes& times);
  Status HandleBindAnswer(const PodInfo& task, const std::string& node,
                          const api::BindRequest& attempted, StatusOr<api::BindRequest> created);
  void CreateWorker();
  const PodInfo* FindTask(const std::string& key, const PodInfo* hint) const;

  SchedulerParams params_;
  SchedulerWriter* writer_;
  StatusUpdateQueue* updates_;
  Clock* clock_;
  const ClusterInfo* cluster_ = nullptr;
  std::function<void(const api::BindRequest&)> on_bind_request_created_;
  std::function<void(const std::string&)> on_bind_request_dropped_;
  std::function<void(const std::string&, const std::string&)> on_bind_request_deleted_;
  std::function<void(const PodGroupInfo&, const EvictionMetadata&)> on_pod_evicted_;
  std::function<void(const BindTiming&)> on_bind_timed_;
  std::map<std::string, api::BindRequest> in_doubt_;  // namespace/name -> what was sent
  Counters counters_;

  bool defer_binds_ = false;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable work_cv_;                     // a creation was queued, or closing
  std::condition_variable done_cv_;                     // a creation was answered
  std::deque<PendingCreate*> queue_;                    // guarded by mu_
  std::vector<std::unique_ptr<PendingCreate>> issued_;  // cycle thread; `done` under mu_
  size_t answered_ = 0;                                 // guarded by mu_
  bool closing_ = false;                                // guarded by mu_
};

}  // namespace kai::scheduler
