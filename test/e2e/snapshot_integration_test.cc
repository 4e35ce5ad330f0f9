// The scheduler's debug endpoint on a live cluster: kai-scheduler and kai-binder against
// localkube (kubectl as the client), GET /get-snapshot on the plugin server with curl, and the
// zip replayed offline with `kai-scheduler simulate --snapshot` to the live decisions.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>

#include "api/rapidjson_util.h"
#include "kube/testing/binaries.h"
#include "test/e2e/e2e_cluster.h"

namespace kai::e2e {
namespace {

using localkube::testing::RunCommand;

class SnapshotIntegrationTest : public E2eCluster {
 protected:
  // The plugin server's port, from the scheduler's log line "plugin server: /get-snapshot on
  // 127.0.0.1:<port>" (the test passes --plugin-server-port=0).
  int PluginPort(const Child* c) {
    static const std::regex kLine(R"(plugin server: /get-snapshot on 127\.0\.0\.1:(\d+))");
    int port = 0;
    Eventually(
        [&] {
          std::ifstream in(c->log());
          std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
          std::smatch m;
          if (!std::regex_search(all, m, kLine)) return false;
          port = std::stoi(m[1]);
          return true;
        },
        30);
    return port;
  }
  std::string Jsonpath(const std::string& pod, const std::string& path) {
    return K({"get", "pod", pod, "-n", "team", "-o", "jsonpath=" + path}).out;
  }
};

TEST_F(SnapshotIntegrationTest, LiveSnapshotReplaysToTheLiveDecisions) {
  StartCluster(2, 2, Queue("q", 4));
  Child* scheduler = StartScheduler();
  StartBinder();
  Apply(Pod("fits", PodSpec{.queue = "q", .gpus = 1}) +
        Pod("too-big", PodSpec{.queue = "q", .gpus = 8}));

  // Stable: the pod that fits runs on a node; the other has its Unschedulable condition.
  std::string live_node, live_message;
  ASSERT_TRUE(Eventually([&] {
    if (Jsonpath("fits", "{.status.phase}") != "Running") return false;
    live_node = Jsonpath("fits", "{.spec.nodeName}");
    live_message =
        Jsonpath("too-big", R"({.status.conditions[?(@.type=="PodScheduled")].message})");
    return !live_node.empty() && !live_message.empty();
  }));
  EXPECT_EQ(Jsonpath("too-big", "{.status.phase}"), "Pending");

  const int port = PluginPort(scheduler);
  ASSERT_GT(port, 0) << "no plugin server port in " << scheduler->log();
  const std::string zip = kube_->dir() + "/snapshot.zip";
  auto got = RunCommand({"curl", "-sS", "--fail", "-o", zip, "-w", "%{content_type}",
                         "http://127.0.0.1:" + std::to_string(port) + "/get-snapshot"},
                        {}, "", 30);
  ASSERT_TRUE(got.ok()) << got.err;
  EXPECT_EQ(got.out, "application/zip");
  // Any method but GET is refused.
  auto post = RunCommand({"curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                          "http://127.0.0.1:" + std::to_string(port) + "/get-snapshot"},
                         {}, "", 30);
  EXPECT_EQ(post.out, "405");

  auto sim = RunCommand(
      {kai::testing::KaiBinary("kai-scheduler"), "simulate", "--snapshot", zip, "-o", "json"}, {},
      "", 60);
  ASSERT_TRUE(sim.ok()) << sim.err;
  auto doc = api::ParseJsonDocument(sim.out);
  ASSERT_TRUE(doc.ok()) << sim.out;
  int seen = 0;
  for (const auto& p : (*doc)["pods"].GetArray()) {
    const std::string name = p["name"].GetString();
    if (std::string(p["namespace"].GetString()) != "team") continue;
    ++seen;
    if (name == "fits") {
      EXPECT_EQ(std::string(p["before"].GetString()), "Running");
      EXPECT_EQ(std::string(p["after"].GetString()), "Running");
      EXPECT_EQ(std::string(p["node"].GetString()), live_node);
    } else {
      EXPECT_EQ(name, "too-big");
      EXPECT_EQ(std::string(p["after"].GetString()), "Pending");
      ASSERT_TRUE(p.HasMember("unschedulableMessage")) << sim.out;
      EXPECT_EQ(std::string(p["unschedulableMessage"].GetString()), live_message);
    }
  }
  EXPECT_EQ(seen, 2) << sim.out;
}

// What `kubectl get -o yaml` prints of several kinds (one `kind: List`) is a snapshot simulate
// reads as it is, the way the README tells users to replay their cluster.
TEST_F(SnapshotIntegrationTest, KubectlExportIsASnapshot) {
  StartCluster(2, 2, Queue("q", 4));
  Apply(Pod("fits", PodSpec{.queue = "q", .gpus = 1}) +
        Pod("too-big", PodSpec{.queue = "q", .gpus = 8}));
  auto exported =
      K({"get", "nodes,pods,podgroups,queues,priorityclasses,bindrequests", "-A", "-o", "yaml"});
  ASSERT_TRUE(exported.ok()) << exported.err;
  const std::string path = kube_->dir() + "/export.yaml";
  std::ofstream(path) << exported.out;

  auto sim = RunCommand(
      {kai::testing::KaiBinary("kai-scheduler"), "simulate", "--snapshot", path, "-o", "json"}, {},
      "", 60);
  ASSERT_TRUE(sim.ok()) << sim.err;
  auto doc = api::ParseJsonDocument(sim.out);
  ASSERT_TRUE(doc.ok()) << sim.out;
  std::map<std::string, std::string> after, node;
  for (const auto& p : (*doc)["pods"].GetArray()) {
    if (std::string(p["namespace"].GetString()) != "team") continue;
    after[p["name"].GetString()] = p["after"].GetString();
    node[p["name"].GetString()] = p["node"].GetString();
  }
  EXPECT_EQ(after["fits"], "Bound") << sim.out;
  EXPECT_TRUE(node["fits"] == "node-0" || node["fits"] == "node-1") << node["fits"];
  EXPECT_EQ(after["too-big"], "Pending") << sim.out;
  EXPECT_EQ(after.size(), 2u) << sim.out;
}

// A plugin server port that cannot be bound is a startup error naming the flag, not a crash.
TEST_F(SnapshotIntegrationTest, PortInUseIsAClearStartupError) {
  StartCluster(1, 1, "");
  Child* first = StartScheduler({}, "first");
  const int port = PluginPort(first);
  ASSERT_GT(port, 0);
  auto second = RunCommand(
      {kai::testing::KaiBinary("kai-scheduler"), "run", "--kubeconfig=" + kube_->kubeconfig_path(),
       "--listen-address=127.0.0.1:0", "--plugin-server-port=" + std::to_string(port)},
      {}, "", 60);
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("--plugin-server-port=" + std::to_string(port)), std::string::npos)
      << second.err;
}

}  // namespace
}  // namespace kai::e2e
