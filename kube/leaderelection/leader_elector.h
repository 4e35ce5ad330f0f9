// LeaderElector: client-go's leader election (tools/leaderelection/leaderelection.go) on a
// ResourceLock (a coordination.k8s.io/v1 Lease).
//
// - A candidate GETs the lease; when absent it CREATEs it as holder. A lease held by someone
//   else may be taken once its record has not changed for the holder's leaseDurationSeconds as
//   measured by *our* monotonic clock from when *we* observed the change (renewTime written by
//   the holder is never compared with our clock, so clock skew does not matter).
// - Taking or renewing is an UPDATE carrying the resourceVersion we read: a 409 means another
//   candidate won the race. leaseTransitions increments when the holder changes; acquireTime is
//   kept across renewals.
// - The leader renews every RetryPeriod; when it cannot renew for RenewDeadline it stops
//   leading: on_stopped_leading runs at once (the process runtime then stops all work).
// - Retries while not leading are jittered: RetryPeriod * [1, 2.2).
// - Stop() ends Run(); with release_on_cancel the lease is then written as released (holder
//   "", leaseDurationSeconds 1) so another replica takes over without waiting.
// - Validation as client-go: LeaseDuration > RenewDeadline > 1.2 x RetryPeriod > 0.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "kube/base/statusor.h"
#include "kube/leaderelection/resource_lock.h"

namespace kai::metrics {
class Registry;
class Gauge;
class Counter;
}  // namespace kai::metrics

namespace kai::leaderelection {

inline constexpr double kJitterFactor = 1.2;

struct LeaderCallbacks {
  // Runs on its own thread when this process becomes leader; start the leader's work here.
  std::function<void()> on_started_leading;
  // Runs on Run()'s thread when Run() ends: leadership lost, or Stop(). Always called, even
  // when this process never led (as client-go).
  std::function<void()> on_stopped_leading;
  // Optional: the observed leader changed (identity may be this process's).
  std::function<void(const std::string& identity)> on_new_leader;
};

struct LeaderElectionConfig {
  ResourceLock* lock = nullptr;  // required; not owned
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  bool release_on_cancel = true;
  LeaderCallbacks callbacks;
  std::string name;          // metrics label (the lease name); default: lock->Describe()
  Clock* clock = nullptr;    // RealClock when null
  Random* random = nullptr;  // SeededRandom::Default() when null
  metrics::Registry* registry = nullptr;
};

// Checks the timing rules and the required fields.
Status ValidateConfig(const LeaderElectionConfig& config);

// "<hostname>_<uuid>", the identity client-go users build.
std::string DefaultIdentity(Random* random);

class LeaderElector {
 public:
  static StatusOr<std::unique_ptr<LeaderElector>> New(LeaderElectionConfig config);
  ~LeaderElector();

  // Blocks: acquires, starts leading, renews until lost or Stop(), releases when configured,
  // then calls on_stopped_leading and returns.
  void Run();
  // Makes Run() return (thread-safe, idempotent).
  void Stop();

  // The observed record names this process as holder.
  bool IsLeader() const;
  std::string GetLeader() const;
  // Health check (client-go HealthzAdaptor): an error when this process believes it leads but
  // has not renewed for longer than lease duration + `tolerance`.
  Status Check(Duration tolerance = std::chrono::seconds(20)) const;

  // One step of the algorithm (public for tests): true when this process holds the lease after
  // it.
  bool TryAcquireOrRenew();
  // Writes the released record if this process is the leader; true on success or if not leader.
  bool Release();

 private:
  struct Metrics;
  explicit LeaderElector(LeaderElectionConfig config);
  // Waits `d` on the clock or until Stop(); false when stopped.
  bool WaitFor(Duration d);
  bool Acquire();
  void Renew();
  void MaybeReportTransition();
  void SetObservedRecord(const LeaderElectionRecord& record);
  LeaderElectionRecord ObservedRecord() const;
  bool IsLeaseValid(MonoTime now) const;
  Duration Jittered(Duration d);

  LeaderElectionConfig config_;
  Clock* const clock_;
  Random* const random_;
  const std::string identity_;
  std::unique_ptr<Metrics> metrics_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  LeaderElectionRecord observed_record_;
  MonoTime observed_time_{};
  std::string reported_leader_;
  std::thread started_thread_;
};

}  // namespace kai::leaderelection
