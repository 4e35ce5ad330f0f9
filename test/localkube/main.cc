// localkube: a single-binary, in-memory Kubernetes API server for tests, benchmarks and the
// quickstart. See docs/localkube.md.
#include <gflags/gflags.h>
#include <glog/logging.h>
#include <signal.h>

#include <cstdio>
#include <iostream>
#include <tuple>

#include "kube/base/file.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "test/localkube/server.h"

DEFINE_string(listen, "127.0.0.1:6443", "HOST:PORT to listen on; port 0 picks a free port");
DEFINE_string(kubeconfig_out, "", "write a kubeconfig for this server to this file");
DEFINE_bool(tls, true, "serve HTTPS (plain HTTP is accepted on the same port too)");
DEFINE_bool(tls_only, false, "refuse plain HTTP");
DEFINE_string(tls_cert_file, "", "serving certificate (PEM chain); generated when empty");
DEFINE_string(tls_private_key_file, "", "serving private key (PEM)");
DEFINE_string(token_auth_file, "",
              "kube-apiserver style token file (token,user,uid,\"groups\"); requests then need "
              "a bearer token unless --anonymous");
DEFINE_bool(anonymous, false, "with --token-auth-file, also accept requests without a token");
DEFINE_int64(watch_history, 10000,
             "watch events kept per resource; watching from an older resourceVersion gets 410");
DEFINE_string(bookmark_interval, "1m", "how often watches with allowWatchBookmarks get a BOOKMARK");
DEFINE_string(fault, "",
              "fault rules separated by ';', e.g. \"verb=create,resource=pods,code=500,count=2\" "
              "(keys: verb, resource, namespace, code, count, retryAfter, latencyMs, message)");
DEFINE_int32(latency_ms, 0, "delay every API request by this many milliseconds");
DEFINE_string(webhook_service_map, "",
              "comma-separated namespace/name:port=host:port mappings for webhook services "
              "(default: a service resolves to 127.0.0.1:<port>)");
DEFINE_int32(max_connections, 4096, "maximum concurrent connections");

// Simulated cluster.
DEFINE_int32(nodes, 0, "simulated GPU nodes to create (named <node-name-prefix><i>)");
DEFINE_int32(gpus_per_node, 8, "nvidia.com/gpu capacity of each --nodes node (0: CPU-only)");
DEFINE_int64(gpu_memory, 81920, "GPU memory in MiB (label nvidia.com/gpu.memory)");
DEFINE_string(gpu_product, "NVIDIA-A100-SXM4-80GB", "GPU product (label nvidia.com/gpu.product)");
DEFINE_string(cpu, "64", "cpu capacity of each --nodes node");
DEFINE_string(memory, "512Gi", "memory capacity of each --nodes node");
DEFINE_int32(max_pods, 110, "pods capacity of each --nodes node");
DEFINE_string(node_labels, "", "extra labels of the --nodes nodes: k=v,k2=v2");
DEFINE_string(node_taints, "", "taints of the --nodes nodes: key=value:Effect,...");
DEFINE_string(node_name_prefix, "node-", "name prefix of the --nodes nodes");
DEFINE_string(node_pools, "",
              "YAML file of node pools ({nodePools: [{namePrefix, count, gpus, gpuMemory, "
              "gpuProduct, cpu, memory, maxPods, labels, taints}]}), in addition to --nodes");
DEFINE_string(node_status_interval, "1m",
              "how often the simulated kubelet refreshes a node's Ready heartbeat");
DEFINE_string(node_lease_interval, "10s",
              "how often the simulated kubelet renews a node's lease in kube-node-lease");
DEFINE_bool(controllers, true,
            "run the Deployment, ReplicaSet and Job controllers (kube-controller-manager's part)");
DEFINE_string(resource_reservation_namespace, "kai-resource-reservation",
              "namespace of KAI's GPU reservation pods (they get run.ai/reserve_for_gpu_index)");

namespace {
volatile sig_atomic_t g_signals = 0;
void OnSignal(int) {
  g_signals = g_signals + 1;
  if (g_signals > 1) _exit(1);
}
}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage("localkube --listen 127.0.0.1:0 --kubeconfig-out FILE [flags]");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);

  kai::localkube::LocalKubeOptions o;
  o.listen = FLAGS_listen;
  o.kubeconfig_out = FLAGS_kubeconfig_out;
  o.tls = FLAGS_tls;
  o.tls_only = FLAGS_tls_only;
  o.tls_cert_file = FLAGS_tls_cert_file;
  o.tls_key_file = FLAGS_tls_private_key_file;
  o.token_auth_file = FLAGS_token_auth_file;
  o.anonymous = FLAGS_anonymous;
  if (FLAGS_watch_history < 1) {
    std::cerr << "localkube: --watch-history must be >= 1\n";
    return 2;
  }
  o.store.watch_history = static_cast<size_t>(FLAGS_watch_history);
  auto bi = kai::ParseGoDuration(FLAGS_bookmark_interval);
  if (!bi.ok() || bi->count() <= 0) {
    std::cerr << "localkube: --bookmark-interval: invalid duration \"" << FLAGS_bookmark_interval
              << "\"\n";
    return 2;
  }
  o.bookmark_interval = *bi;
  for (const std::string& f : kai::StrSplit(FLAGS_fault, ';')) {
    if (!kai::StripWhitespace(f).empty()) o.faults.push_back(f);
  }
  o.latency_ms = FLAGS_latency_ms;
  for (const std::string& m : kai::StrSplit(FLAGS_webhook_service_map, ',')) {
    if (!kai::StripWhitespace(m).empty()) o.webhook_service_map.push_back(m);
  }
  o.max_connections = static_cast<size_t>(std::max(1, FLAGS_max_connections));

  // Simulated cluster.
  auto fail = [](const std::string& msg) {
    std::cerr << "localkube: " << msg << "\n";
    return 2;
  };
  if (FLAGS_nodes > 0) {
    kai::localkube::NodePool pool;
    pool.name_prefix = FLAGS_node_name_prefix;
    pool.count = FLAGS_nodes;
    pool.gpus = FLAGS_gpus_per_node;
    pool.gpu_memory_mib = FLAGS_gpu_memory;
    pool.gpu_product = FLAGS_gpu_product;
    pool.cpu = FLAGS_cpu;
    pool.memory = FLAGS_memory;
    pool.max_pods = FLAGS_max_pods;
    auto labels = kai::localkube::ParseNodeLabels(FLAGS_node_labels);
    if (!labels.ok()) return fail(std::string(labels.status().message()));
    pool.labels = *labels;
    auto taints = kai::localkube::ParseNodeTaints(FLAGS_node_taints);
    if (!taints.ok()) return fail(std::string(taints.status().message()));
    pool.taints = *taints;
    kai::Status v = kai::localkube::ValidateNodePool(pool, "--nodes");
    if (!v.ok()) return fail(std::string(v.message()));
    o.simulation.node_pools.push_back(pool);
  } else if (FLAGS_nodes < 0) {
    return fail("--nodes must not be negative");
  }
  if (!FLAGS_node_pools.empty()) {
    auto text = kai::ReadFile(FLAGS_node_pools);
    if (!text.ok()) return fail("--node-pools: " + std::string(text.status().message()));
    auto pools = kai::localkube::ParseNodePools(*text, FLAGS_node_pools);
    if (!pools.ok()) return fail(std::string(pools.status().message()));
    for (const auto& p : *pools) {
      for (const auto& q : o.simulation.node_pools) {
        if (p.name_prefix == q.name_prefix) {
          return fail("--node-pools: namePrefix \"" + p.name_prefix +
                      "\" is also used by --nodes (--node-name-prefix)");
        }
      }
      o.simulation.node_pools.push_back(p);
    }
  }
  for (auto [flag, value, out] : {std::tuple{"--node-status-interval", &FLAGS_node_status_interval,
                                             &o.simulation.kubelet.node_status_interval},
                                  std::tuple{"--node-lease-interval", &FLAGS_node_lease_interval,
                                             &o.simulation.kubelet.lease_renew_interval}}) {
    auto d = kai::ParseGoDuration(*value);
    if (!d.ok() || d->count() <= 0) {
      return fail(std::string(flag) + ": invalid duration \"" + *value + "\"");
    }
    *out = *d;
  }
  o.simulation.kubelet.reservation_namespace = FLAGS_resource_reservation_namespace;
  o.simulation.controllers = FLAGS_controllers;

  signal(SIGPIPE, SIG_IGN);
  kai::localkube::LocalKube server(o);
  kai::Status s = server.Start();
  if (!s.ok()) {
    std::cerr << "localkube: " << s.message() << "\n";
    return 1;
  }
  std::printf("localkube: serving on %s\n", server.url().c_str());
  std::fflush(stdout);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  while (g_signals == 0) pause();
  server.Stop();
  return 0;
}
