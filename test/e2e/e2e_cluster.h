// Test fixture for end-to-end tests: localkube with simulated GPU nodes, the kai-scheduler and
// kai-binder binaries as child processes, kubectl as the client, deadline polling, and the
// invariants every fault test checks (no GPU over-committed, no pod decided twice, no gang left
// below its minimum).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kube/base/strings.h"
#include "kube/testing/binaries.h"
#include "test/localkube/testing/localkube_process.h"
#include "test/manifests/rbac_grants.h"

extern char** environ;

namespace kai::e2e {

using localkube::testing::CommandResult;
using localkube::testing::LocalKubeProcess;

// A child process, stopped with SIGTERM (then SIGKILL) when destroyed.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::string& log_path) : log_(log_path) {
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    ok_ = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ) == 0;
    posix_spawn_file_actions_destroy(&fa);
  }
  ~Child() { Stop(); }
  // SIGTERM, then SIGKILL after 5 s.
  void Stop() {
    if (!ok_ || exited_) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        exited_ = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    Kill();
  }
  // SIGKILL: no cleanup at all (a crash).
  void Kill() {
    if (!ok_ || exited_) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    exited_ = true;
  }
  bool ok() const { return ok_; }
  bool alive() {
    if (!ok_ || exited_) return false;
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) exited_ = true;
    return !exited_;
  }
  const std::string& log() const { return log_; }

 private:
  pid_t pid_ = -1;
  bool ok_ = false;
  bool exited_ = false;
  std::string log_;
};

// Polls `done` every 100 ms until it holds or `seconds` pass.
inline bool Eventually(const std::function<bool()>& done, int seconds = 45) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

inline bool LogContains(const Child* c, const std::string& text) {
  std::ifstream in(c->log());
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return all.find(text) != std::string::npos;
}

inline std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

inline std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; in >> f;) out.push_back(f);
  return out;
}

inline std::string Queue(const std::string& name, int gpu_quota, int over_quota_weight = 1) {
  return "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: " + name +
         "}\nspec:\n  resources:\n    gpu: {quota: " + std::to_string(gpu_quota) +
         ", limit: -1, overQuotaWeight: " + std::to_string(over_quota_weight) +
         "}\n    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}\n"
         "    memory: {quota: -1, limit: -1, overQuotaWeight: 1}\n---\n";
}

inline std::string PriorityClass(const std::string& name, int value) {
  return "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: " + name +
         "}\nvalue: " + std::to_string(value) + "\n---\n";
}

struct PodSpec {
  std::string ns = "team";
  std::string podgroup;  // empty: a bare pod (a job of one)
  std::string queue;     // the kai.scheduler/queue label, if set
  std::string priority_class;
  int gpus = 1;
  std::string annotations;  // extra "    k: v" lines
};

inline std::string Pod(const std::string& name, const PodSpec& s) {
  std::string y =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: " + s.ns + "\n";
  std::string annotations = s.annotations;
  if (!s.podgroup.empty()) annotations += "    pod-group-name: " + s.podgroup + "\n";
  if (!annotations.empty()) y += "  annotations:\n" + annotations;
  if (!s.queue.empty()) y += "  labels:\n    kai.scheduler/queue: " + s.queue + "\n";
  y += "spec:\n  schedulerName: kai-scheduler\n  terminationGracePeriodSeconds: 0\n";
  if (!s.priority_class.empty()) y += "  priorityClassName: " + s.priority_class + "\n";
  y += "  containers:\n  - name: main\n    image: busybox\n    resources:\n"
       "      requests: {cpu: 100m}\n";
  if (s.gpus > 0) y += "      limits: {nvidia.com/gpu: \"" + std::to_string(s.gpus) + "\"}\n";
  return y + "---\n";
}

// A PodGroup and its `pods` pods named <name>-<i>.
inline std::string Gang(const std::string& name, const std::string& queue, int pods, int gpus,
                        int min_member, const std::string& ns = "team") {
  std::string y =
      "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata: {name: " + name +
      ", namespace: " + ns + "}\nspec: {minMember: " + std::to_string(min_member) +
      ", queue: " + queue + "}\n---\n";
  for (int i = 0; i < pods; ++i) {
    y += Pod(name + "-" + std::to_string(i),
             PodSpec{.ns = ns, .podgroup = name, .queue = queue, .gpus = gpus});
  }
  return y;
}

class E2eCluster : public ::testing::Test {
 protected:
  // localkube with `nodes` simulated nodes of `gpus` GPUs each, the CRDs, namespaces team,
  // kai-scheduler and kai-resource-reservation, and `objects` (queues, priority classes...).
  void StartCluster(int nodes, int gpus, const std::string& objects,
                    std::vector<std::string> extra_args = {}) {
    std::vector<std::string> args{"--nodes=" + std::to_string(nodes),
                                  "--gpus-per-node=" + std::to_string(gpus), "--gpu-memory=40000"};
    for (auto& a : extra_args) args.push_back(std::move(a));
    auto k = LocalKubeProcess::Start({.args = args});
    ASSERT_TRUE(k.ok()) << k.status();
    kube_ = std::move(*k);
    Apply("", {"-f", "crds/"});
    Apply(R"(apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: Namespace
metadata: {name: kai-scheduler}
---
apiVersion: v1
kind: Namespace
metadata: {name: kai-resource-reservation}
)");
    if (!objects.empty()) Apply(objects);
  }

  // A kai-scheduler process (schedule period 200 ms); its log is <dir>/<name>.log.
  Child* StartScheduler(std::vector<std::string> extra = {},
                        const std::string& name = "scheduler") {
    std::vector<std::string> argv{kai::testing::KaiBinary("kai-scheduler"),
                                  "run",
                                  "--kubeconfig=" + kube_->kubeconfig_path(),
                                  "--listen-address=127.0.0.1:0",
                                  "--plugin-server-port=0",
                                  "--schedule-period=200ms"};
    for (auto& a : extra) argv.push_back(std::move(a));
    children_[name] = std::make_unique<Child>(argv, kube_->dir() + "/" + name + ".log");
    EXPECT_TRUE(children_[name]->ok());
    return children_[name].get();
  }
  Child* StartBinder(const std::string& name = "binder") {
    children_[name] = std::make_unique<Child>(
        std::vector<std::string>{kai::testing::KaiBinary("kai-binder"),
                                 "--kubeconfig=" + kube_->kubeconfig_path(),
                                 "--metrics-bind-address=0", "--health-probe-bind-address=0"},
        kube_->dir() + "/" + name + ".log");
    EXPECT_TRUE(children_[name]->ok());
    return children_[name].get();
  }
  Child* child(const std::string& name) { return children_.at(name).get(); }

  void TearDown() override {
    if (HasFailure() && kube_) {
      for (const auto& [name, c] : children_) {
        auto r = localkube::testing::RunCommand({"tail", "-n", "40", c->log()}, {}, "", 10);
        std::cerr << "---- " << name << ".log\n" << r.out;
      }
    }
    children_.clear();
    if (kube_) ExpectRequestsGrantedByRbac();
    kube_.reset();
  }

  // Least privilege, checked from what the components were seen doing: every request kai-scheduler
  // and kai-binder made (localkube counts them by User-Agent) is granted by one of the roles of
  // config/rbac/<program>.yaml, so the manifests work on a cluster that enforces RBAC.
  void ExpectRequestsGrantedByRbac() {
    auto stats = kube_->Request("GET", "/localkube/stats");
    if (stats.code != 200) return;  // localkube is down (a restart test failed earlier)
    static const std::regex kEntry(
        R"re(\{"userAgent":"(kai-scheduler|kai-binder)","verb":"([a-z]+)","resource":"([a-z/]+)")re");
    for (std::sregex_iterator it(stats.body.begin(), stats.body.end(), kEntry), end; it != end;
         ++it) {
      const std::string program = (*it)[1], verb = (*it)[2], resource = (*it)[3];
      auto roles = testing::RoleGrants("config/rbac/" + program + ".yaml");
      ASSERT_TRUE(roles.ok()) << roles.status();
      auto group = testing::GroupOfResource(resource);
      ASSERT_TRUE(group.ok()) << group.status();
      const std::string want = StrCat(*group, "/", resource, ":", verb);
      bool granted = false;
      for (const auto& [role, grants] : *roles) granted = granted || grants.count(want) > 0;
      EXPECT_TRUE(granted) << program << " did " << verb << " " << resource << " but config/rbac/"
                           << program << ".yaml grants no " << want;
    }
  }

  CommandResult K(const std::vector<std::string>& args, std::string_view in = "") {
    return kube_->Kubectl(args, in);
  }
  void Apply(std::string_view yaml, std::vector<std::string> args = {"-f", "-"}) {
    args.insert(args.begin(), "apply");
    auto r = K(args, yaml);
    ASSERT_TRUE(r.ok()) << r.err;
  }
  // A POST to localkube's fault-injection control endpoint.
  void Control(const std::string& path, const std::string& body = "") {
    auto r = kube_->Request("POST", path, body);
    ASSERT_EQ(r.code, 200) << path << ": " << r.body;
  }

  // namespace/name -> {node, phase} of every pod in `ns` ("" for all namespaces).
  struct PodState {
    std::string node;
    std::string phase;
    std::string podgroup;
  };
  std::map<std::string, PodState> Pods(const std::string& ns = "team") {
    std::vector<std::string> args{"get", "pods"};
    if (ns.empty()) {
      args.push_back("-A");
    } else {
      args.insert(args.end(), {"-n", ns});
    }
    args.insert(args.end(),
                {"-o",
                 "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} "
                 "{.status.phase} _{.metadata.annotations.pod-group-name} _{.spec.nodeName}"
                 "{\"\\n\"}{end}"});
    std::map<std::string, PodState> out;
    auto r = K(args);
    for (const auto& line : Lines(r.out)) {
      auto f = Fields(line);
      if (f.size() < 4) continue;
      out[f[0]] = PodState{f[3].substr(1), f[1], f[2].substr(1)};
      // No pod is ever bound twice: once seen on a node, it stays there (tests do not recreate
      // pods under the same name).
      const std::string& node = out[f[0]].node;
      if (node.empty()) continue;
      auto [it, added] = first_node_.emplace(f[0], node);
      EXPECT_TRUE(added || it->second == node)
          << "pod " << f[0] << " seen on " << it->second << ", then on " << node;
    }
    return out;
  }
  int CountRunning(const std::string& prefix, const std::string& ns = "team") {
    int n = 0;
    const std::string key_prefix = StrCat(ns, "/", prefix);
    for (const auto& [key, p] : Pods(ns)) {
      if (key.rfind(key_prefix, 0) == 0 && p.phase == "Running") ++n;
    }
    return n;
  }
  bool AllRunning(const std::vector<std::string>& names, const std::string& ns = "team") {
    auto pods = Pods(ns);
    for (const auto& n : names) {
      auto it = pods.find(StrCat(ns, "/", n));
      if (it == pods.end() || it->second.phase != "Running") return false;
    }
    return true;
  }

  // The invariants of issue 6 after faults:
  // - no node's GPUs over-committed: the whole GPUs of live pods bound to a node (reservation
  //   pods hold the shared ones) fit its allocatable, and no pod was rejected by the kubelet
  //   for lack of a resource (status.reason OutOf<resource>);
  // - no pod bound twice: every bound pod's BindRequest selects the pod's node, and no pod was
  //   ever seen on two nodes (Pods() checks that on every poll);
  // - no gang below its minimum: a PodGroup has no live bound pod or at least minMember.
  void CheckInvariants() {
    std::map<std::string, int> allocatable;
    for (const auto& line : Lines(K({"get", "nodes", "-o",
                                     "jsonpath={range .items[*]}{.metadata.name} "
                                     "{.status.allocatable.nvidia\\.com/gpu}{\"\\n\"}{end}"})
                                      .out)) {
      auto f = Fields(line);
      if (f.size() == 2) allocatable[f[0]] = std::stoi(f[1]);
    }
    std::map<std::string, int> used;
    std::map<std::string, std::string> bound;  // pod -> node
    std::map<std::string, int> gang_live;      // ns/podgroup -> live bound pods
    const std::string pod_columns =
        "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} "
        "{.status.phase} _{.spec.nodeName} _{.metadata.annotations.pod-group-name} "
        "_{.status.reason} "
        "{.spec.containers[*].resources.limits.nvidia\\.com/gpu}{\"\\n\"}{end}";
    for (const auto& line : Lines(K({"get", "pods", "-A", "-o", pod_columns}).out)) {
      auto f = Fields(line);
      ASSERT_GE(f.size(), 5u) << line;
      std::string node = f[2].substr(1);
      // The (simulated) kubelet rejects a pod the node has no room for: the scheduler
      // over-committed it.
      EXPECT_NE(f[4].rfind("_OutOf", 0), 0u) << "pod " << f[0] << " rejected by " << node;
      if (node.empty() || f[1] == "Succeeded" || f[1] == "Failed") continue;
      bound[f[0]] = node;
      for (size_t i = 5; i < f.size(); ++i) used[node] += std::stoi(f[i]);
      if (f[3].size() > 1) {
        gang_live[f[0].substr(0, f[0].find('/')) + "/" + f[3].substr(1)]++;
      }
    }
    Pods("");  // the node history check
    for (const auto& [node, gpus] : used) {
      EXPECT_LE(gpus, allocatable[node]) << "GPUs of node " << node << " over-committed";
    }
    const std::string bind_request_columns =
        "jsonpath={range .items[*]}{.metadata.namespace}/{.spec.podName} "
        "{.spec.selectedNode}{\"\\n\"}{end}";
    for (const auto& line :
         Lines(K({"get", "bindrequests", "-A", "-o", bind_request_columns}).out)) {
      auto f = Fields(line);
      if (f.size() != 2) continue;
      auto it = bound.find(f[0]);
      if (it != bound.end()) {
        EXPECT_EQ(it->second, f[1]) << "pod " << f[0] << " bound elsewhere than its BindRequest";
      }
    }
    const std::string podgroup_columns =
        "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} "
        "{.spec.minMember}{\"\\n\"}{end}";
    for (const auto& line : Lines(K({"get", "podgroups", "-A", "-o", podgroup_columns}).out)) {
      auto f = Fields(line);
      if (f.size() != 2) continue;
      int live = gang_live[f[0]];
      EXPECT_TRUE(live == 0 || live >= std::stoi(f[1]))
          << "gang " << f[0] << " has " << live << " bound pods, minMember " << f[1];
    }
  }

  std::unique_ptr<LocalKubeProcess> kube_;
  std::map<std::string, std::unique_ptr<Child>> children_;
  std::map<std::string, std::string> first_node_;  // pod -> the first node it was seen on
};

}  // namespace kai::e2e
