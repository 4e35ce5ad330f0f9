// LiveScheduler: kai-scheduler against an API server (KAI Scheduler.Run, reference §6.3). It
// keeps the ClusterModel current from shared informers (kube/cache) of Nodes, Pods, PodGroups,
// Queues, PriorityClasses, BindRequests, Topologies and ConfigMaps, runs a SchedulingCycle every
// schedule period on a consistent snapshot, writes through RestSchedulerWriter, performs status
// updates on `status_workers` threads and records events through kube/record.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "kube/cache/factory.h"
#include "kube/cache/registrations.h"
#include "kube/record/event_broadcaster.h"
#include "kube/record/event_sink.h"
#include "kube/rest/client.h"
#include "scheduler/app/cycle.h"
#include "scheduler/app/debug_snapshot.h"
#include "scheduler/app/unconfirmed_bind_requests.h"
#include "scheduler/cache/cluster_model.h"
#include "scheduler/outputs/output_sink.h"
#include "scheduler/outputs/rest_scheduler_writer.h"
#include "scheduler/outputs/status_update_queue.h"

namespace kai::metrics {
class Registry;
}

namespace kai::scheduler {

struct LiveSchedulerOptions {
  SchedulerParams params;
  SchedulerConfiguration conf = DefaultSchedulerConfiguration();
  int status_workers = 5;  // --num-of-status-recording-workers
  // --bind-request-workers: concurrent BindRequest creations of the allocate action (1: one
  // synchronous round trip each, as KAI).
  int bind_request_workers = 8;
  std::string metrics_namespace = "kai";
  metrics::Registry* registry = nullptr;  // no metrics when null
  Clock* clock = nullptr;                 // RealClock when null
  Random* random = nullptr;               // SeededRandom::Default() when null
  // A BindRequest this scheduler created that the informer has not delivered after this long is
  // read back (UnconfirmedBindRequests); at most kMaxReadBacksPerCycle per cycle.
  Duration unconfirmed_bind_request_read_back = std::chrono::minutes(1);
};

class LiveScheduler {
 public:
  LiveScheduler(kube::Client* client, LiveSchedulerOptions options);
  ~LiveScheduler();  // Stop()
  LiveScheduler(const LiveScheduler&) = delete;
  LiveScheduler& operator=(const LiveScheduler&) = delete;

  // Starts the informers and the status workers.
  void Start();
  // Every informer's initial list reached the model.
  bool HasSynced() const;
  // One scheduling cycle on the current state.
  CycleResult RunOnce();
  // Cycles every schedule period until Stop() (waits for the caches first).
  void Run();
  void Stop();

  // Performs every queued status update now, and writes queued events (tests, shutdown).
  void FlushStatusUpdates();
  size_t pending_status_updates() const { return updates_.size(); }

  // The cached objects behind the model, copied under the model lock the cycle's snapshot takes
  // (shared pointers to the cached JSON only), so they are one cluster state.
  RawObjectLists RawObjects() const;
  // /get-snapshot: the zip with snapshot.json (configuration, flags, RawObjects()), serialized
  // outside the lock.
  StatusOr<std::string> DebugSnapshotZip() const;
  int64_t cycles() const { return cycles_.load(); }
  // Created BindRequests the informer has not delivered yet.
  size_t unconfirmed_bind_requests() const {
    std::lock_guard<std::mutex> lock(model_mu_);
    return unconfirmed_.size();
  }

 private:
  void Upsert(const std::string& resource, const kube::ObjectPtr& obj);
  void Remove(const std::string& resource, const kube::ObjectPtr& obj);
  // Reads back BindRequests the informer has not confirmed in time; forgets those that are gone.
  void ReadBackUnconfirmedBindRequests();
  // BindRequests learned from this scheduler's own requests, into the model and the dump in
  // step (model_mu_ held).
  void LearnBindRequestLocked(const api::BindRequest& br, std::shared_ptr<const std::string> json);
  void ForgetDeletedBindRequestLocked(const std::string& key, const std::string& uid);
  static constexpr size_t kMaxReadBacksPerCycle = 20;
  void StatusWorker();

  LiveSchedulerOptions options_;
  Clock* clock_;
  Random* random_;
  record::ClientEventSink event_sink_;
  record::EventBroadcaster broadcaster_;
  std::unique_ptr<record::EventRecorder> recorder_;
  RestSchedulerWriter writer_;
  StatusUpdateQueue updates_;
  OutputSink sink_;
  SchedulingCycle cycle_;

  mutable std::mutex model_mu_;
  ClusterModel model_;
  // resource -> key -> the JSON of every object in the model (guarded by model_mu_).
  std::map<std::string, std::map<std::string, std::shared_ptr<const std::string>>> raw_;
  UnconfirmedBindRequests unconfirmed_;                          // guarded by model_mu_
  const kube::SharedInformer* bind_request_informer_ = nullptr;  // set by Start()

  kube::SharedInformerFactory factory_;
  kube::Registrations registrations_;
  std::vector<std::thread> workers_;
  std::mutex run_mu_;
  std::condition_variable run_cv_;
  bool stopping_ = false;
  std::atomic<int64_t> cycles_{0};
  // The previous cycle's snapshot warnings: a warning is logged when it first appears, not every
  // cycle (only the cycle thread touches it).
  std::set<std::string> last_warnings_;
  struct Metrics;
  std::unique_ptr<Metrics> metrics_;
};

}  // namespace kai::scheduler
