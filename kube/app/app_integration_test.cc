// The process runtime end to end against localkube: two probe processes electing a leader on a
// real Lease (one leads; the other takes over after a SIGKILL, no earlier than the lease
// duration), graceful SIGTERM (reconcile in flight finishes, lease released, exit 0), a second
// signal (exit 1), an overrun shutdown timeout (exit 1), and the HTTP probes.
#include <curl/curl.h>
#include <fcntl.h>
#include <glog/logging.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "kube/base/time.h"
#include "test/localkube/testing/localkube_process.h"

namespace kai::app {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// The environment for a child that exits (by design) while one of its threads still runs: a
// shutdown past its deadline, or a second signal, ends the process with _exit and abandons the
// stuck reconcile, which ThreadSanitizer would report as a leaked thread (exit code 66).
std::vector<std::string> EnvironmentAbandoningThreads() {
  std::vector<std::string> env;
  std::string tsan = "TSAN_OPTIONS=report_thread_leaks=0";
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string var = *e;
    if (var.rfind("TSAN_OPTIONS=", 0) == 0) {
      tsan = var + ":report_thread_leaks=0";
    } else {
      env.push_back(var);
    }
  }
  env.push_back(tsan);
  return env;
}

// A child process with its stdout read line by line.
class Process {
 public:
  enum class Threads { kJoined, kAbandonedAtExit };

  explicit Process(std::vector<std::string> args, Threads threads = Threads::kJoined) {
    std::vector<std::string> env_vars;  // built before fork: the child may only exec
    if (threads == Threads::kAbandonedAtExit) env_vars = EnvironmentAbandoningThreads();
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(KAI_PROBE_BIN));
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    envp.reserve(env_vars.size() + 1);
    for (auto& e : env_vars) envp.push_back(e.data());
    envp.push_back(nullptr);
    int out[2];
    PCHECK(pipe(out) == 0);
    pid_ = fork();
    PCHECK(pid_ >= 0);
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      execve(KAI_PROBE_BIN, argv.data(), env_vars.empty() ? environ : envp.data());
      _exit(127);
    }
    close(out[1]);
    fd_ = out[0];
  }
  ~Process() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      Wait();
    }
    if (fd_ >= 0) close(fd_);
  }

  // Reads lines until one starts with `prefix`; "" when `seconds` pass or stdout closes. The
  // bound only turns a hang into a failure.
  std::string WaitForLine(const std::string& prefix, double seconds = 60) {
    const auto give_up = Clock::now() + std::chrono::duration<double>(seconds);
    while (true) {
      const size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        lines_.push_back(line);
        if (line.rfind(prefix, 0) == 0) return line;
        continue;
      }
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(give_up - Clock::now());
      if (left.count() <= 0) return "";
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[4096];
      const ssize_t n = read(fd_, buf, sizeof(buf));
      if (n <= 0) return "";
      buffer_.append(buf, n);
    }
  }
  // Every line read so far, plus whatever is left until EOF.
  std::vector<std::string> DrainLines() {
    WaitForLine("\x01never", 30);
    return lines_;
  }
  void Signal(int sig) { kill(pid_, sig); }
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    exited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  bool exited_ = false;
  std::string buffer_;
  std::vector<std::string> lines_;
};

size_t Append(char* p, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(p, size * n);
  return size * n;
}

std::pair<long, std::string> HttpGet(int port, const std::string& path) {
  CURL* curl = curl_easy_init();
  std::string body;
  long code = 0;
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + path;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 20L);
  if (curl_easy_perform(curl) == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_cleanup(curl);
  return {code, body};
}

int PortOf(const std::string& serving, const std::string& key) {
  const size_t p = serving.find(key + "=");
  return p == std::string::npos ? 0 : std::atoi(serving.c_str() + p + key.size() + 1);
}

class AppIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto kube = localkube::testing::LocalKubeProcess::Start();
    ASSERT_TRUE(kube.ok()) << kube.status();
    kube_ = std::move(kube).value();
  }
  std::vector<std::string> Args(std::vector<std::string> extra) {
    std::vector<std::string> a = {"--kubeconfig=" + kube_->kubeconfig_path(),
                                  "--metrics-addr=127.0.0.1:0", "--health-addr=127.0.0.1:0"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::string LeaseField(const std::string& jsonpath) {
    auto r = kube_->Kubectl(
        {"get", "lease", "probe-lock", "-n", "default", "-o", "jsonpath={" + jsonpath + "}"});
    EXPECT_TRUE(r.ok()) << r.err;
    return r.out;
  }
  WallTime LeaseTime(const std::string& jsonpath) {
    auto t = ParseRfc3339(LeaseField(jsonpath));
    EXPECT_TRUE(t.ok()) << t.status();
    return t.value_or(WallTime());
  }

  std::unique_ptr<localkube::testing::LocalKubeProcess> kube_;
};

const std::vector<std::string> kElection = {"--leader-elect",
                                            "--leader-elect-resource-name=probe-lock",
                                            "--leader-elect-resource-namespace=default",
                                            "--leader-elect-lease-duration=4s",
                                            "--leader-elect-renew-deadline=3s",
                                            "--leader-elect-retry-period=500ms"};

TEST_F(AppIntegrationTest, TwoProcessesOneLeaderTakeoverAfterKillAndReleaseOnSigterm) {
  std::vector<std::string> args_a = Args(kElection);
  Process a(args_a);
  const std::string a_leading = a.WaitForLine("LEADING ");
  ASSERT_FALSE(a_leading.empty()) << "A never became leader";
  const std::string a_id = a_leading.substr(8);
  EXPECT_EQ(LeaseField(".spec.holderIdentity"), a_id);

  Process b(Args(kElection));
  ASSERT_FALSE(b.WaitForLine("SERVING").empty());
  // Two lease durations with A renewing: B stays a candidate.
  EXPECT_EQ(b.WaitForLine("LEADING ", 8), "") << "B led while A was renewing";
  EXPECT_EQ(LeaseField(".spec.holderIdentity"), a_id);
  EXPECT_EQ(LeaseField(".spec.leaseTransitions"), "0");

  // Kill A: no release, its lease just stops being renewed.
  a.Signal(SIGKILL);
  EXPECT_EQ(a.Wait(), 128 + SIGKILL);
  const WallTime a_last_renew = LeaseTime(".spec.renewTime");
  const std::string b_leading = b.WaitForLine("LEADING ", 60);
  ASSERT_FALSE(b_leading.empty()) << "B never took over";
  const std::string b_id = b_leading.substr(8);
  EXPECT_NE(b_id, a_id);
  EXPECT_EQ(LeaseField(".spec.holderIdentity"), b_id);
  EXPECT_EQ(LeaseField(".spec.leaseTransitions"), "1");
  EXPECT_EQ(LeaseField(".spec.leaseDurationSeconds"), "4");
  const auto waited = LeaseTime(".spec.acquireTime") - a_last_renew;
  // B counts the lease duration from when it saw A's last renewal, never from less.
  EXPECT_GE(waited, std::chrono::milliseconds(3990));
  // And takes over within the lease duration plus its (jittered) retry period, with slack for
  // a loaded machine.
  EXPECT_LE(waited, std::chrono::seconds(4 + 10));

  // Graceful stop of the leader: work stops, the lease is released, exit 0.
  b.Signal(SIGTERM);
  ASSERT_FALSE(b.WaitForLine("STOPPED").empty());
  ASSERT_EQ(b.WaitForLine("EXIT "), "EXIT 0");
  EXPECT_EQ(b.Wait(), 0);
  EXPECT_EQ(LeaseField(".spec.holderIdentity"), "");
  EXPECT_EQ(LeaseField(".spec.leaseDurationSeconds"), "1");
}

TEST_F(AppIntegrationTest, ProbesMetricsAndGracefulShutdownFinishesTheReconcileInFlight) {
  Process p(Args({"--probe-reconcile-ms=1500"}));
  const std::string serving = p.WaitForLine("SERVING");
  ASSERT_FALSE(serving.empty());
  const int health = PortOf(serving, "health");
  const int metrics = PortOf(serving, "metrics");
  ASSERT_FALSE(p.WaitForLine("LEADING ").empty()) << "without --leader-elect it leads at once";
  EXPECT_EQ(HttpGet(health, "/healthz"), std::make_pair(200L, std::string("ok")));
  EXPECT_EQ(HttpGet(health, "/readyz/ping"), std::make_pair(200L, std::string("ok")));
  ASSERT_FALSE(p.WaitForLine("RECONCILE START").empty());
  const auto m = HttpGet(metrics, "/metrics");
  EXPECT_EQ(m.first, 200);
  EXPECT_THAT(m.second, HasSubstr("controller_runtime_active_workers{controller=\"probe\"} 1\n"));
  EXPECT_THAT(m.second, HasSubstr("# TYPE workqueue_depth gauge\n"));
  p.Signal(SIGTERM);
  const std::vector<std::string> lines = p.DrainLines();
  EXPECT_EQ(p.Wait(), 0);
  // The reconcile that was running finished before leader work was reported stopped, and no
  // new reconcile started after the signal.
  auto at = [&](const std::string& s) {
    return std::find(lines.begin(), lines.end(), s) - lines.begin();
  };
  const auto last_start = std::find(lines.rbegin(), lines.rend(), "RECONCILE START");
  const auto last_end = std::find(lines.rbegin(), lines.rend(), "RECONCILE END");
  ASSERT_NE(last_end, lines.rend());
  EXPECT_LT(last_end - lines.rbegin(), last_start - lines.rbegin()) << "an unfinished reconcile";
  EXPECT_LT(lines.rend() - last_end, at("STOPPED") + 1);
  EXPECT_EQ(lines.back(), "EXIT 0");
}

TEST_F(AppIntegrationTest, SecondSignalExitsOneAndOverrunTimeoutExitsOne) {
  {
    Process p(Args({"--probe-reconcile-ms=600000"}), Process::Threads::kAbandonedAtExit);
    ASSERT_FALSE(p.WaitForLine("RECONCILE START").empty());
    p.Signal(SIGTERM);
    // Give the first signal time to be seen; the shutdown now waits for the stuck reconcile.
    ASSERT_EQ(p.WaitForLine("EXIT", 1), "");
    p.Signal(SIGINT);
    EXPECT_EQ(p.Wait(), 1);
  }
  {
    Process p(Args({"--probe-reconcile-ms=600000", "--graceful-shutdown-timeout=1s"}),
              Process::Threads::kAbandonedAtExit);
    ASSERT_FALSE(p.WaitForLine("RECONCILE START").empty());
    p.Signal(SIGTERM);
    EXPECT_EQ(p.WaitForLine("EXIT "), "EXIT 1");
    EXPECT_EQ(p.Wait(), 1);
  }
}

TEST_F(AppIntegrationTest, BadFlagsExitTwoWithAClearMessage) {
  Process p(Args({"--leader-elect"}));
  EXPECT_EQ(p.Wait(), 2);
}

}  // namespace
}  // namespace kai::app
