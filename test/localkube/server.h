// LocalKube: the in-memory Kubernetes API server (store + REST API + HTTP(S) listener).
// Embeddable in tests (in-process) or run as the `localkube` binary.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "kube/base/statusor.h"
#include "test/localkube/faults.h"
#include "test/localkube/resource.h"
#include "test/localkube/simulated_cluster.h"
#include "test/localkube/store.h"

namespace kai::localkube {

class ApiHandler;
class HttpServer;
class CrdController;
class WebhookAdmission;

struct LocalKubeOptions {
  std::string listen = "127.0.0.1:0";
  // Serve TLS (a self-signed CA and certificate are generated unless cert/key files are given).
  // Plain HTTP is accepted on the same port as well, unless tls_only.
  bool tls = true;
  bool tls_only = false;
  std::string tls_cert_file;
  std::string tls_key_file;
  // Token file in kube-apiserver --token-auth-file CSV format: token,user,uid,"group1,group2".
  std::string token_auth_file;
  // Allow requests without a token (always true when no token file is given).
  bool anonymous = true;
  std::string kubeconfig_out;
  StoreOptions store;
  Duration bookmark_interval = std::chrono::seconds(60);
  // Fault rules from flags (see faults.h).
  std::vector<std::string> faults;
  int latency_ms = 0;
  // Webhook service resolution: "namespace/name:port=host:port" overrides; by default a
  // service reference resolves to 127.0.0.1:<service port>.
  std::vector<std::string> webhook_service_map;
  size_t max_connections = 4096;
  // Simulated nodes, kubelet and workload controllers.
  SimulationOptions simulation;
};

class LocalKube {
 public:
  explicit LocalKube(LocalKubeOptions options, Clock* clock = RealClock::Get(),
                     Random* random = SeededRandom::Default());
  ~LocalKube();

  Status Start();
  void Stop();

  // "https://127.0.0.1:PORT" (or http://).
  std::string url() const;
  uint16_t port() const;
  const std::string& ca_pem() const { return ca_pem_; }
  // A bearer token clients can use ("" when anonymous).
  const std::string& token() const { return token_; }
  // kubeconfig YAML for this server.
  std::string Kubeconfig() const;

  Store* store() { return store_.get(); }
  ResourceRegistry* registry() { return &registry_; }
  Faults* faults() { return &faults_; }
  SimulatedCluster* cluster() { return cluster_.get(); }

 private:
  LocalKubeOptions options_;
  Clock* clock_;
  Random* random_;
  ResourceRegistry registry_;
  std::unique_ptr<Store> store_;
  Faults faults_;
  std::unique_ptr<CrdController> crds_;
  std::unique_ptr<WebhookAdmission> admission_;
  std::unique_ptr<ApiHandler> handler_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<SimulatedCluster> cluster_;
  std::string ca_pem_;
  std::string token_;
  std::string host_;
  bool started_ = false;
};

}  // namespace kai::localkube
