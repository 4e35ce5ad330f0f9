// kai-binder's process (KAI cmd/binder, reference §14.1): flags, the BindRequest controller
// (rate-limited work queue, N workers, exponential per-item backoff 1 s .. 60 s), the informers
// that feed it and trigger reservation syncs, events, health and metrics servers, leader
// election.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "controllers/binder/binder_options.h"
#include "controllers/binder/reconciler.h"
#include "controllers/binder/rest_binder_client.h"
#include "kube/base/command_line.h"
#include "kube/cache/factory.h"
#include "kube/cache/registrations.h"
#include "kube/controller/controller.h"
#include "kube/controller/runnable.h"
#include "kube/record/event_broadcaster.h"
#include "kube/record/event_sink.h"
#include "kube/rest/client.h"

namespace kai::metrics {
class Registry;
}

namespace kai::binder {

inline constexpr std::string_view kBinderLeaderElectionId = "2ad35f9c.kai.scheduler";

struct BinderRunOptions {
  std::string kubeconfig;
  BinderOptions binder;
  double qps = 50;
  int burst = 300;
  int max_concurrent_reconciles = 10;
  int rate_limiter_base_delay_seconds = 1;
  int rate_limiter_max_delay_seconds = 60;
  bool leader_elect = false;
  std::string leader_election_namespace = "kai-scheduler";
  std::string metrics_bind_address = ":8080";
  std::string health_probe_bind_address = ":8081";

  bool operator==(const BinderRunOptions&) const = default;
};

// KAI's binder flags; unknown flags are errors naming the flag.
StatusOr<BinderRunOptions> ParseBinderArgs(const std::vector<std::string>& args);

// The flags as --help lists them, and the whole help text.
const std::vector<FlagHelp>& BinderFlags();
std::string BinderUsage();

// The BindRequest controller and its informers: one Runnable, started by the Manager while this
// replica leads (every write is the leader's).
class BinderApp final : public controller::Runnable {
 public:
  // Events go through `event_client` when given: a client of their own, with its own rate limit,
  // as controller-runtime's event recorder has, so that events never take the QPS of binds.
  BinderApp(kube::Client* client, BinderRunOptions options, Clock* clock,
            metrics::Registry* registry, kube::Client* event_client = nullptr);
  ~BinderApp() override;
  std::string name() const override { return "kai-binder"; }
  // Syncs every GPU group, starts the watches and the controller's workers.
  Status Start() override;
  // Stops the watches, lets reconciles in flight finish until `deadline`, flushes the events.
  bool Stop(MonoTime deadline) override;
  bool HasSynced() const;
  BindRequestReconciler& reconciler() { return reconciler_; }

 private:
  controller::Result Reconcile(const controller::Request& r);
  void Enqueue(const kube::ObjectPtr& obj);

  BinderRunOptions options_;
  Clock* clock_;
  record::ClientEventSink event_sink_;
  record::EventBroadcaster broadcaster_;
  std::unique_ptr<record::EventRecorder> recorder_;
  RestBinderClient binder_client_;
  BindRequestReconciler reconciler_;
  std::unique_ptr<controller::Controller> controller_;
  kube::SharedInformerFactory factory_;
  kube::Registrations registrations_;
};

// Runs until SIGTERM/SIGINT; returns the process exit code.
int BinderMain(const std::vector<std::string>& args);

}  // namespace kai::binder
