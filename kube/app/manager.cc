#include "kube/app/manager.h"

#include <glog/logging.h>

#include "kube/leaderelection/leader_elector.h"
#include "kube/leaderelection/resource_lock.h"
#include "kube/metrics/registry.h"
#include "kube/record/event_broadcaster.h"
#include "kube/server/http_server.h"
#include "kube/server/metrics_handler.h"

namespace kai::app {

Manager::Manager(ManagerOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? options_.clock : RealClock::Get()),
      random_(options_.random != nullptr ? options_.random : SeededRandom::Default()),
      registry_(options_.registry != nullptr ? options_.registry : metrics::Registry::Default()),
      identity_(options_.identity.empty() ? leaderelection::DefaultIdentity(random_)
                                          : options_.identity) {
  healthz_.Add("ping", server::Ping);
  readyz_.Add("ping", server::Ping);
}

Manager::~Manager() {
  if (elector_) elector_->Stop();
  if (elector_thread_.joinable()) elector_thread_.join();
}

void Manager::Add(controller::Runnable* runnable) {
  std::lock_guard<std::mutex> l(mu_);
  runnables_.push_back(runnable);
}

void Manager::AddHealthzCheck(std::string name, server::HealthChecker check) {
  healthz_.Add(std::move(name), std::move(check));
}

void Manager::AddReadyzCheck(std::string name, server::HealthChecker check) {
  readyz_.Add(std::move(name), std::move(check));
}

void Manager::AddHealthRoute(std::string pattern, server::Handler handler) {
  health_routes_.emplace_back(std::move(pattern), std::move(handler));
}

bool Manager::IsLeader() const { return leading_.load(); }

uint16_t Manager::metrics_port() const {
  return metrics_server_ != nullptr ? metrics_server_->port() : 0;
}

uint16_t Manager::health_port() const {
  if (health_server_ != nullptr) return health_server_->port();
  return SharedAddress() ? metrics_port() : 0;
}

bool Manager::SharedAddress() const {
  const std::string& a = options_.metrics_addr;
  // "host:0" asks for any free port: two such addresses are two servers.
  const bool any_port = a.ends_with(":0");
  if (server::IsDisabledAddress(a)) return false;
  return options_.probes_on_metrics_server || (!any_port && a == options_.health_addr);
}

Status Manager::StartServers() {
  auto add_health = [this](server::HttpServer* s) {
    healthz_.Register(s->router(), "/healthz");
    readyz_.Register(s->router(), "/readyz");
    for (auto& [pattern, handler] : health_routes_) s->Handle(pattern, handler);
  };
  if (!server::IsDisabledAddress(options_.metrics_addr)) {
    metrics_server_ = std::make_unique<server::HttpServer>(
        server::HttpServerOptions{.name = options_.name + (SharedAddress() ? "" : " metrics"),
                                  .bind_address = options_.metrics_addr});
    metrics_server_->Handle("/metrics", server::MetricsHandler(registry_));
    // One address for both (KAI's scheduler serves /metrics and the probes on :8080).
    if (SharedAddress()) add_health(metrics_server_.get());
    KAI_RETURN_IF_ERROR(metrics_server_->Start());
  }
  if (!server::IsDisabledAddress(options_.health_addr) && !SharedAddress()) {
    health_server_ = std::make_unique<server::HttpServer>(server::HttpServerOptions{
        .name = options_.name + " health", .bind_address = options_.health_addr});
    add_health(health_server_.get());
    KAI_RETURN_IF_ERROR(health_server_->Start());
  }
  return Status::OK();
}

Status Manager::StartRunnables(bool leader) {
  std::vector<controller::Runnable*> todo;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto* r : runnables_) {
      if (r->NeedLeaderElection() == leader) todo.push_back(r);
    }
  }
  for (auto* r : todo) {
    {
      // Listed before Start() so that a shutdown can interrupt a Start() that waits for caches.
      std::lock_guard<std::mutex> l(mu_);
      if (shutting_down_) return CancelledError("shutting down");
      started_.push_back(r);
    }
    KAI_RETURN_IF_ERROR(r->Start().WithPrefix("starting " + r->name()));
  }
  return Status::OK();
}

bool Manager::StopRunnables(bool leader, MonoTime deadline) {
  std::vector<controller::Runnable*> todo;
  {
    // Taken out of started_: a lost lease and a signal at the same moment both stop the leader
    // runnables, and each must be stopped once.
    std::lock_guard<std::mutex> l(mu_);
    for (auto it = started_.rbegin(); it != started_.rend(); ++it) {
      if ((*it)->NeedLeaderElection() == leader) todo.push_back(*it);
    }
    std::erase_if(started_,
                  [leader](controller::Runnable* r) { return r->NeedLeaderElection() == leader; });
  }
  bool in_time = true;
  for (auto* r : todo) {
    if (!r->Stop(deadline)) {
      LOG(WARNING) << options_.name << ": " << r->name() << " did not stop in time";
      in_time = false;
    }
  }
  return in_time;
}

void Manager::OnStartedLeading(ShutdownSignal* shutdown) {
  leading_ = true;
  LOG(INFO) << options_.name << ": became leader (" << identity_ << "), starting controllers";
  const Status s = StartRunnables(/*leader=*/true);
  if (!s.ok() && !shutdown->triggered()) {
    LOG(ERROR) << options_.name << ": " << s;
    failed_ = true;
    shutdown->Trigger(std::string(s.message()));
  }
}

void Manager::OnStoppedLeading(ShutdownSignal* shutdown) {
  const bool was_leading = leading_.exchange(false);
  {
    std::lock_guard<std::mutex> l(mu_);
    if (shutting_down_) return;  // our own Stop(): the shutdown sequence goes on
  }
  if (!was_leading) return;
  LOG(ERROR) << options_.name << ": leader election lost";
  failed_ = true;
  // Stop taking work at once; what is in flight is abandoned when the process exits.
  StopRunnables(/*leader=*/true, clock_->NowMonotonic());
  shutdown->Trigger("leader election lost");
}

int Manager::Run(ShutdownSignal* shutdown) {
  std::thread starter;
  Status s = StartServers();
  if (s.ok()) s = StartRunnables(/*leader=*/false);
  if (s.ok() && options_.leader_elect) {
    if (options_.client == nullptr || options_.leader_election_id.empty() ||
        options_.leader_election_namespace.empty()) {
      s = InvalidArgumentError(options_.name +
                               ": leader election needs a client, an id and a namespace");
    } else {
      std::function<void(const api::Lease&, std::string_view)> record_event;
      if (options_.recorder != nullptr) {
        record_event = [recorder = options_.recorder](const api::Lease& lease,
                                                      std::string_view message) {
          recorder->Event(record::ReferenceTo(lease), record::kEventTypeNormal, "LeaderElection",
                          message);
        };
      }
      lock_ = std::make_unique<leaderelection::LeaseLock>(
          options_.client, options_.leader_election_namespace, options_.leader_election_id,
          identity_, std::move(record_event));
      leaderelection::LeaderElectionConfig config;
      config.lock = lock_.get();
      config.lease_duration = options_.lease_duration;
      config.renew_deadline = options_.renew_deadline;
      config.retry_period = options_.retry_period;
      config.release_on_cancel = options_.release_on_cancel;
      config.name = options_.leader_election_id;
      config.clock = clock_;
      config.random = random_;
      config.registry = registry_;
      config.callbacks.on_started_leading = [this, shutdown] { OnStartedLeading(shutdown); };
      config.callbacks.on_stopped_leading = [this, shutdown] { OnStoppedLeading(shutdown); };
      config.callbacks.on_new_leader = [this](const std::string& id) {
        LOG(INFO) << options_.name << ": the leader is now " << (id.empty() ? "(none)" : id);
      };
      auto elector = leaderelection::LeaderElector::New(std::move(config));
      if (!elector.ok()) {
        s = elector.status();
      } else {
        elector_ = std::move(elector).value();
        healthz_.Add("leaderElection", [this] { return elector_->Check(); });
        elector_thread_ = std::thread([this] { elector_->Run(); });
      }
    }
  } else if (s.ok()) {
    leading_ = true;
    // On its own thread: a controller's Start() waits for caches, and a signal must still
    // be able to interrupt it.
    starter = std::thread([this, shutdown] {
      const Status st = StartRunnables(/*leader=*/true);
      if (!st.ok() && !shutdown->triggered()) {
        LOG(ERROR) << options_.name << ": " << st;
        failed_ = true;
        shutdown->Trigger(std::string(st.message()));
      }
    });
  }
  if (!s.ok()) {
    LOG(ERROR) << options_.name << ": " << s;
    failed_ = true;
    shutdown->Trigger(std::string(s.message()));
  }

  shutdown->Wait();
  LOG(INFO) << options_.name << ": shutting down (" << shutdown->reason() << ")";
  const MonoTime deadline = clock_->NowMonotonic() + options_.graceful_shutdown_timeout;
  const bool lost = !leading_.load() && failed_.load() && elector_ != nullptr;
  {
    std::lock_guard<std::mutex> l(mu_);
    shutting_down_ = true;
  }
  // 1. Leader work first: stop taking keys, let reconciles in flight finish.
  bool in_time = StopRunnables(/*leader=*/true, lost ? clock_->NowMonotonic() : deadline);
  if (starter.joinable()) starter.join();
  // 2. Then give the lease away (only now: nobody else may act while our work still runs).
  if (elector_) {
    elector_->Stop();
    if (elector_thread_.joinable()) elector_thread_.join();
  }
  leading_ = false;
  // 3. The rest (informers, webhook servers).
  in_time = StopRunnables(/*leader=*/false, deadline) && in_time;
  // 4. HTTP servers last, so probes answer until the end.
  if (health_server_) health_server_->Stop();
  if (metrics_server_) metrics_server_->Stop();
  if (!in_time) LOG(ERROR) << options_.name << ": graceful shutdown timed out";
  LOG(INFO) << options_.name << ": shutdown complete";
  return failed_.load() || !in_time ? 1 : 0;
}

}  // namespace kai::app
