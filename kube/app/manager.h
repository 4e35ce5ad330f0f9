// Manager: runs one component process (controller-runtime manager): the health and metrics
// servers, runnables (controllers, informers, webhook servers), leader election and the
// graceful shutdown sequence.
//
// Run():
//   1. start the metrics server (/metrics) and the health server (/healthz, /readyz);
//   2. start the runnables that do not need leader election (webhook servers, informers);
//   3. with leader election: campaign for the Lease and start the leader runnables once
//      leading; without it: start them at once;
//   4. wait for the shutdown signal (SIGTERM/SIGINT), a runnable that failed to start, or lost
//      leadership;
//   5. stop taking work: stop the leader runnables, letting reconciles in flight finish until
//      graceful_shutdown_timeout; release the Lease; stop the other runnables; stop the HTTP
//      servers last, so probes stay truthful until the end.
// Lost leadership stops the leader runnables at once (no drain wait) and makes Run() return 1
// (client-go users exit; the replica restarts as a candidate).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/app/shutdown_signal.h"
#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "kube/controller/runnable.h"
#include "kube/server/healthz.h"

namespace kai::kube {
class Client;
}
namespace kai::metrics {
class Registry;
}
namespace kai::server {
class HttpServer;
}
namespace kai::record {
class EventRecorder;
}
namespace kai::leaderelection {
class LeaderElector;
class LeaseLock;
}  // namespace kai::leaderelection

namespace kai::app {

struct ManagerOptions {
  std::string name;                    // component name, for logs
  std::string metrics_addr = ":8080";  // "0" disables
  // "0" disables; the same address as metrics_addr (not "host:0"): one server serves both.
  std::string health_addr = ":8081";
  // /healthz, /readyz and the health routes on the metrics server, health_addr unused (KAI's
  // scheduler serves everything on --listen-address, also when that is "host:0").
  bool probes_on_metrics_server = false;
  bool leader_elect = false;
  std::string leader_election_id;         // Lease name (required with leader_elect)
  std::string leader_election_namespace;  // Lease namespace (required with leader_elect)
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  bool release_on_cancel = true;
  Duration graceful_shutdown_timeout = std::chrono::seconds(30);
  std::string identity;            // default: DefaultIdentity (hostname_uuid)
  kube::Client* client = nullptr;  // required with leader_elect
  Clock* clock = nullptr;
  Random* random = nullptr;
  metrics::Registry* registry = nullptr;  // default: metrics::Registry::Default()
  // Optional: records "<identity> became leader" (reason LeaderElection) on the Lease.
  record::EventRecorder* recorder = nullptr;
};

class Manager {
 public:
  explicit Manager(ManagerOptions options);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // Registers a runnable (not owned; it must outlive Run()). Before Run().
  void Add(controller::Runnable* runnable);
  // Named checks for /healthz and /readyz ("ping" is always there).
  void AddHealthzCheck(std::string name, server::HealthChecker check);
  void AddReadyzCheck(std::string name, server::HealthChecker check);
  // Extra routes on the health server, e.g. debug endpoints. Before Run().
  void AddHealthRoute(std::string pattern, server::Handler handler);

  // Runs until `shutdown` triggers (or a failure); returns the process exit code: 0 after a
  // clean shutdown, 1 after a failure, lost leadership, or a shutdown that overran its timeout.
  int Run(ShutdownSignal* shutdown);

  bool IsLeader() const;
  // Bound ports (after the servers started; 0 when disabled).
  uint16_t metrics_port() const;
  uint16_t health_port() const;
  const std::string& identity() const { return identity_; }

 private:
  bool SharedAddress() const;
  Status StartServers();
  Status StartRunnables(bool leader);
  bool StopRunnables(bool leader, MonoTime deadline);
  void OnStartedLeading(ShutdownSignal* shutdown);
  void OnStoppedLeading(ShutdownSignal* shutdown);

  ManagerOptions options_;
  Clock* const clock_;
  Random* const random_;
  metrics::Registry* const registry_;
  std::string identity_;
  server::HealthChecks healthz_;
  server::HealthChecks readyz_;
  std::vector<std::pair<std::string, server::Handler>> health_routes_;
  std::unique_ptr<server::HttpServer> metrics_server_;
  std::unique_ptr<server::HttpServer> health_server_;
  std::unique_ptr<leaderelection::LeaseLock> lock_;
  std::unique_ptr<leaderelection::LeaderElector> elector_;
  std::thread elector_thread_;

  std::mutex mu_;
  std::vector<controller::Runnable*> runnables_;
  std::vector<controller::Runnable*> started_;  // in start order
  bool shutting_down_ = false;
  std::atomic<bool> leading_{false};
  std::atomic<bool> failed_{false};
};

}  // namespace kai::app
