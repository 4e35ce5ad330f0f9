// localkube: a single-binary, in-memory Kubernetes API server for tests, benchmarks and the
// quickstart. See docs/localkube.md.
#include <gflags/gflags.h>
#include <glog/logging.h>
#include <signal.h>

#include <cstdio>
#include <iostream>

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
