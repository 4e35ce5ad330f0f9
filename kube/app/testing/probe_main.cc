// kai_kube_app_probe: a minimal component built on the process runtime, for the integration
// tests of flags, signals, probes, leader election and graceful shutdown against localkube.
//
// It runs one controller ("probe") that reconciles the key "tick" (re-enqueued every
// --probe-tick-ms), and prints one line per lifecycle event on stdout:
//   SERVING metrics=<port> health=<port>   servers up (a non-leader runnable started)
//   LEADING <identity>                      leader work started
//   RECONCILE START / RECONCILE END         around each reconcile (--probe-reconcile-ms long)
//   STOPPED                                 leader work stopped (in-flight reconciles done)
//   EXIT <code>
#include <gflags/gflags.h>
#include <glog/logging.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "kube/app/flags.h"
#include "kube/app/manager.h"
#include "kube/app/shutdown_signal.h"
#include "kube/controller/controller.h"
#include "kube/metrics/registry.h"
#include "kube/rest/rest_client.h"

DEFINE_int32(probe_reconcile_ms, 0, "How long each reconcile takes (real time).");
DEFINE_int32(probe_tick_ms, 200, "How often the ticker enqueues work.");

namespace {

void Say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// Announces the servers' ports once they are bound (non-leader runnables start after them).
class Announcer final : public kai::controller::Runnable {
 public:
  explicit Announcer(kai::app::Manager* m) : m_(m) {}
  std::string name() const override { return "announcer"; }
  kai::Status Start() override {
    Say("SERVING metrics=" + std::to_string(m_->metrics_port()) +
        " health=" + std::to_string(m_->health_port()));
    return kai::Status::OK();
  }
  bool Stop(kai::MonoTime) override { return true; }
  bool NeedLeaderElection() const override { return false; }

 private:
  kai::app::Manager* m_;
};

// Leader work: feeds the controller and reports start/stop.
class Ticker final : public kai::controller::Runnable {
 public:
  Ticker(kai::controller::Controller* c, std::string identity)
      : c_(c), identity_(std::move(identity)) {}
  ~Ticker() override { Join(); }
  std::string name() const override { return "ticker"; }
  kai::Status Start() override {
    Say("LEADING " + identity_);
    std::lock_guard<std::mutex> l(mu_);  // Stop() may overlap (runnable.h)
    if (stop_) return kai::CancelledError("stopped before it started");
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> l(mu_);
      while (!stop_) {
        c_->Enqueue({"", "tick"});
        cv_.wait_for(l, std::chrono::milliseconds(FLAGS_probe_tick_ms));
      }
    });
    return kai::Status::OK();
  }
  bool Stop(kai::MonoTime) override {
    Join();
    Say("STOPPED");
    return true;
  }

 private:
  void Join() {
    std::thread t;
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
      cv_.notify_all();
      t = std::move(thread_);
    }
    if (t.joinable()) t.join();
  }
  kai::controller::Controller* c_;
  std::string identity_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  kai::app::InitProcess(&argc, &argv, "probe for the process runtime integration tests");
  kai::app::ShutdownSignal* shutdown = kai::app::ShutdownSignal::InstallProcessSignals();
  auto flags = kai::app::ReadProcessFlags();
  if (!flags.ok()) {
    LOG(ERROR) << flags.status();
    kai::app::ExitProcess(2);
  }
  auto client = kai::app::NewClient(*flags, "probe");
  if (!client.ok()) {
    LOG(ERROR) << client.status();
    kai::app::ExitProcess(2);
  }
  kai::app::ManagerOptions options =
      kai::app::ManagerOptionsFromFlags(*flags, "probe", client->get());
  kai::app::Manager manager(options);
  kai::controller::Controller controller(
      {.name = "probe", .registry = kai::metrics::Registry::Default()},
      [](const kai::controller::Request&) -> kai::controller::Result {
        Say("RECONCILE START");
        std::this_thread::sleep_for(std::chrono::milliseconds(FLAGS_probe_reconcile_ms));
        Say("RECONCILE END");
        return kai::controller::Result::Done();
      });
  Announcer announcer(&manager);
  Ticker ticker(&controller, manager.identity());
  manager.Add(&announcer);
  manager.Add(&ticker);
  manager.Add(&controller);
  const int code = manager.Run(shutdown);
  Say("EXIT " + std::to_string(code));
  kai::app::ExitProcess(code);
}
