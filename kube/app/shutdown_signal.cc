#include "kube/app/shutdown_signal.h"

#include <glog/logging.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <thread>

namespace kai::app {

namespace {

int g_pipe[2] = {-1, -1};
std::atomic<int> g_signals{0};

// Async-signal-safe: counts, exits on the second signal, otherwise wakes the watcher thread.
void OnSignal(int signo) {
  if (g_signals.fetch_add(1) >= 1) _exit(1);
  const unsigned char b = static_cast<unsigned char>(signo);
  const int saved = errno;
  [[maybe_unused]] const ssize_t n = write(g_pipe[1], &b, 1);
  errno = saved;
}

}  // namespace

ShutdownSignal* ShutdownSignal::InstallProcessSignals() {
  static ShutdownSignal* const instance = [] {
    auto* s = new ShutdownSignal();
    PCHECK(pipe(g_pipe) == 0) << "pipe for signal handling";
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    PCHECK(sigaction(SIGTERM, &sa, nullptr) == 0);
    PCHECK(sigaction(SIGINT, &sa, nullptr) == 0);
    // The watcher lives as long as the process.
    std::thread([s] {
      unsigned char b = 0;
      while (true) {
        const ssize_t n = read(g_pipe[0], &b, 1);
        if (n == 1) break;
        if (n < 0 && errno == EINTR) continue;
        return;
      }
      const std::string name = b == SIGINT ? "SIGINT" : "SIGTERM";
      LOG(INFO) << "received " << name << ": shutting down gracefully (send it again to exit now)";
      s->Trigger("received " + name);
    }).detach();
    return s;
  }();
  return instance;
}

void ShutdownSignal::Trigger(const std::string& reason) {
  std::lock_guard<std::mutex> l(mu_);
  if (triggered_) return;
  triggered_ = true;
  reason_ = reason;
  cv_.notify_all();
}

bool ShutdownSignal::triggered() const {
  std::lock_guard<std::mutex> l(mu_);
  return triggered_;
}

std::string ShutdownSignal::reason() const {
  std::lock_guard<std::mutex> l(mu_);
  return reason_;
}

void ShutdownSignal::Wait() {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [this] { return triggered_; });
}

bool ShutdownSignal::WaitUntil(Clock* clock, MonoTime deadline) {
  std::unique_lock<std::mutex> l(mu_);
  while (!triggered_) {
    if (clock->WaitUntil(cv_, l, deadline)) return triggered_;
  }
  return true;
}

void ExitProcess(int code) {
  google::FlushLogFiles(google::GLOG_INFO);
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(code);
}

}  // namespace kai::app
