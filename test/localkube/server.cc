#include "test/localkube/server.h"

#include <glog/logging.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "kube/base/base64.h"
#include "kube/base/file.h"
#include "kube/base/strings.h"
#include "test/localkube/api_handler.h"
#include "test/localkube/crd.h"
#include "test/localkube/http_server.h"
#include "test/localkube/json.h"
#include "test/localkube/persistence.h"
#include "test/localkube/tls.h"
#include "test/localkube/types.h"
#include "test/localkube/webhooks.h"

namespace kai::localkube {
namespace {

// kube-apiserver --token-auth-file: token,user,uid[,"group1,group2"] per line.
StatusOr<std::map<std::string, UserInfo>> ReadTokenFile(const std::string& path,
                                                        std::string* first_token) {
  KAI_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::map<std::string, UserInfo> out;
  int line_no = 0;
  for (const std::string& raw : StrSplit(text, '\n')) {
    ++line_no;
    const std::string line(StripWhitespace(raw));
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    fields.push_back(cur);
    if (fields.size() < 3) {
      return InvalidArgumentError(path + ":" + std::to_string(line_no) +
                                  ": expected token,user,uid[,\"groups\"]");
    }
    UserInfo u;
    u.username = fields[1];
    u.uid = fields[2];
    u.groups.clear();
    if (fields.size() > 3) {
      for (const std::string& g : StrSplit(fields[3], ',')) {
        if (!StripWhitespace(g).empty()) u.groups.emplace_back(StripWhitespace(g));
      }
    }
    u.groups.push_back("system:authenticated");
    if (first_token->empty()) *first_token = fields[0];
    out[fields[0]] = std::move(u);
  }
  return out;
}

Status MakeDataDir(const std::string& dir) {
  std::string cur;
  for (const std::string& part : StrSplit(dir, '/')) {
    cur += part + "/";
    if (part.empty()) continue;
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) {
      return InternalError("mkdir " + cur + ": " + std::strerror(errno));
    }
  }
  return Status::OK();
}

Status CreateIfMissing(Store* store, const GroupVersionResource& gvr, const std::string& ns,
                       const std::string& json) {
  WriteOptions wo;
  wo.field_manager = "kube-apiserver";
  auto r = store->Create(gvr, ns, json, wo);
  if (!r.ok() && !IsAlreadyExists(r.status())) return r.status();
  return Status::OK();
}

}  // namespace

LocalKube::LocalKube(LocalKubeOptions options, Clock* clock, Random* random)
    : options_(std::move(options)), clock_(clock), random_(random) {}

LocalKube::~LocalKube() { Stop(); }

std::string LocalKube::url() const {
  const bool https = options_.tls;
  std::string host = host_;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return std::string(https ? "https://" : "http://") + host + ":" + std::to_string(port());
}

uint16_t LocalKube::port() const { return http_ ? http_->port() : 0; }

std::string LocalKube::Kubeconfig() const {
  std::string y = "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n";
  if (options_.tls) y += "    certificate-authority-data: " + kube::Base64Encode(ca_pem_) + "\n";
  y += "    server: " + url() +
       "\n  name: localkube\ncontexts:\n- context:\n"
       "    cluster: localkube\n    namespace: default\n    user: localkube\n  name: localkube\n"
       "current-context: localkube\npreferences: {}\nusers:\n- name: localkube\n  user:";
  if (!token_.empty()) {
    y += "\n    token: " + token_ + "\n";
  } else {
    y += " {}\n";
  }
  return y;
}

Status LocalKube::Start() {
  if (started_) return Status::OK();
  // Listen address.
  const size_t colon = options_.listen.rfind(':');
  if (colon == std::string::npos) {
    return InvalidArgumentError("--listen must be HOST:PORT, got \"" + options_.listen + "\"");
  }
  host_ = options_.listen.substr(0, colon);
  if (host_.size() > 2 && host_.front() == '[' && host_.back() == ']') {
    host_ = host_.substr(1, host_.size() - 2);
  }
  int port = 0;
  try {
    size_t pos = 0;
    port = std::stoi(options_.listen.substr(colon + 1), &pos);
    if (pos != options_.listen.size() - colon - 1 || port < 0 || port > 65535) throw 1;
  } catch (...) {
    return InvalidArgumentError("--listen: invalid port in \"" + options_.listen + "\"");
  }

  std::map<std::string, UserInfo> tokens;
  if (!options_.token_auth_file.empty()) {
    KAI_ASSIGN_OR_RETURN(tokens, ReadTokenFile(options_.token_auth_file, &token_));
  }
  const bool anonymous = options_.anonymous || tokens.empty();
  if (token_.empty()) {
    // kubectl prompts for a password when a secure server's kubeconfig user has no credentials,
    // so the kubeconfig always carries a token: an admin token generated at start (kept in the
    // data directory, so kubeconfigs stay valid across restarts).
    token_ = "localkube-" + random_->AlphaNumeric(32);
    if (!options_.data_dir.empty()) {
      auto saved = ReadFile(options_.data_dir + "/admin-token");
      if (saved.ok() && !StripWhitespace(*saved).empty()) {
        token_ = std::string(StripWhitespace(*saved));
      } else {
        KAI_RETURN_IF_ERROR(MakeDataDir(options_.data_dir));
        KAI_RETURN_IF_ERROR(WriteFileAtomic(options_.data_dir + "/admin-token", token_, 0600));
      }
    }
    UserInfo admin;
    admin.username = "kubernetes-admin";
    admin.groups = {"system:masters", "system:authenticated"};
    tokens[token_] = admin;
  }

  RegisterBuiltins(&registry_);
  CrdController::RegisterCrdResource(&registry_);
  StoreOptions store_options = options_.store;
  // Pods on simulated nodes are confirmed terminated by the simulated kubelet.
  store_options.node_has_kubelet = [this](std::string_view node) {
    return cluster_ != nullptr && cluster_->ManagesNode(node);
  };
  store_ = std::make_unique<Store>(&registry_, clock_, random_, store_options);
  cluster_ = std::make_unique<SimulatedCluster>(store_.get(), options_.simulation);
  crds_ = std::make_unique<CrdController>(store_.get());
  admission_ = std::make_unique<WebhookAdmission>(store_.get(), options_.webhook_service_map);
  store_->SetAdmission(admission_.get());

  for (const std::string& f : options_.faults) {
    KAI_ASSIGN_OR_RETURN(FaultRule rule, ParseFaultRule(f));
    faults_.Add(rule);
  }
  if (options_.latency_ms > 0)
    faults_.SetGlobalLatency(std::chrono::milliseconds(options_.latency_ms));

  // TLS material.
  std::string cert, key;
  if (options_.tls) {
    if (!options_.tls_cert_file.empty() || !options_.tls_key_file.empty()) {
      KAI_ASSIGN_OR_RETURN(cert, ReadFile(options_.tls_cert_file));
      KAI_ASSIGN_OR_RETURN(key, ReadFile(options_.tls_key_file));
      // The CA for clients: the last certificate of the chain.
      const size_t last = cert.rfind("-----BEGIN CERTIFICATE-----");
      ca_pem_ = last == std::string::npos ? cert : cert.substr(last);
    } else {
      std::vector<std::string> hosts = {"127.0.0.1", "localhost", "::1"};
      if (host_ != "127.0.0.1" && host_ != "localhost" && host_ != "::1" && host_ != "0.0.0.0") {
        hosts.push_back(host_);
      }
      // With a data directory the generated certificates are kept (for the same listen host).
      const std::string pki = options_.data_dir.empty() ? "" : options_.data_dir + "/pki";
      bool loaded = false;
      if (!pki.empty()) {
        auto h = ReadFile(pki + "/host");
        auto c = ReadFile(pki + "/tls.crt");
        auto k = ReadFile(pki + "/tls.key");
        auto ca = ReadFile(pki + "/ca.crt");
        if (h.ok() && *h == host_ && c.ok() && k.ok() && ca.ok()) {
          cert = *c;
          key = *k;
          ca_pem_ = *ca;
          loaded = true;
        }
      }
      if (!loaded) {
        KAI_ASSIGN_OR_RETURN(CertBundle b, GenerateCerts(hosts));
        cert = b.cert_pem;
        key = b.key_pem;
        ca_pem_ = b.ca_pem;
        if (!pki.empty()) {
          KAI_RETURN_IF_ERROR(MakeDataDir(pki));
          KAI_RETURN_IF_ERROR(WriteFileAtomic(pki + "/tls.crt", cert, 0644));
          KAI_RETURN_IF_ERROR(WriteFileAtomic(pki + "/tls.key", key, 0600));
          KAI_RETURN_IF_ERROR(WriteFileAtomic(pki + "/ca.crt", ca_pem_, 0644));
          KAI_RETURN_IF_ERROR(WriteFileAtomic(pki + "/host", host_, 0644));
        }
      }
    }
  }

  // Cluster bootstrap objects, as a fresh cluster has them.
  store_->AddObserver([this](const GroupResource& gr, const ObjectPtr& old, const ObjectPtr& now) {
    if (gr.group.empty() && gr.resource == "namespaces" && !old && now) {
      const std::string ns = now->name();
      CreateIfMissing(store_.get(), {"", "v1", "serviceaccounts"}, ns,
                      "{\"metadata\":{\"name\":\"default\"}}")
          .IgnoreError();
      std::string ca;
      AppendQuoted(&ca, ca_pem_);
      CreateIfMissing(
          store_.get(), {"", "v1", "configmaps"}, ns,
          "{\"metadata\":{\"name\":\"kube-root-ca.crt\",\"annotations\":{\"kubernetes.io/"
          "description\":\"Contains a CA bundle that can be used to verify the "
          "kube-apiserver when using internal endpoints such as the internal service "
          "IP or kubernetes.default.svc. No other usage is guaranteed across "
          "distributions of Kubernetes clusters.\"}},\"data\":{\"ca.crt\":" +
              ca + "}}")
          .IgnoreError();
    }
  });
  // Persistence: reload, then log every commit (before any controller or client writes).
  if (!options_.data_dir.empty()) {
    PersistenceOptions po;
    po.fsync_interval = options_.data_fsync_interval;
    KAI_ASSIGN_OR_RETURN(persistence_, Persistence::Open(options_.data_dir, clock_, po));
    KAI_RETURN_IF_ERROR(
        persistence_->Restore(store_.get(), [this](const ObjectPtr& crd) { crds_->Serve(crd); }));
    KAI_RETURN_IF_ERROR(persistence_->Start(store_.get()));
    LOG(INFO) << "localkube: restored " << persistence_->stats().restored_objects
              << " objects from " << options_.data_dir << " (resourceVersion "
              << persistence_->stats().restored_rv << ")";
  }
  crds_->Start();
  store_->Start();
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    KAI_RETURN_IF_ERROR(CreateIfMissing(store_.get(), {"", "v1", "namespaces"}, "",
                                        std::string("{\"metadata\":{\"name\":\"") + ns + "\"}}"));
  }
  KAI_RETURN_IF_ERROR(CreateIfMissing(
      store_.get(), {"scheduling.k8s.io", "v1", "priorityclasses"}, "",
      "{\"metadata\":{\"name\":\"system-cluster-critical\"},\"value\":2000000000,"
      "\"description\":\"Used for system critical pods that must run in the cluster, but can be "
      "moved to another node if necessary.\"}"));
  KAI_RETURN_IF_ERROR(CreateIfMissing(
      store_.get(), {"scheduling.k8s.io", "v1", "priorityclasses"}, "",
      "{\"metadata\":{\"name\":\"system-node-critical\"},\"value\":2000001000,"
      "\"description\":\"Used for system critical pods that must not be moved from their current "
      "node.\"}"));
  KAI_RETURN_IF_ERROR(CreateIfMissing(
      store_.get(), {"", "v1", "services"}, "default",
      "{\"metadata\":{\"name\":\"kubernetes\",\"labels\":{\"component\":\"apiserver\","
      "\"provider\":\"kubernetes\"}},\"spec\":{\"clusterIP\":\"10.96.0.1\",\"ports\":[{\"name\":"
      "\"https\",\"port\":443,\"targetPort\":6443}]}}"));

  KAI_RETURN_IF_ERROR(cluster_->Start());

  ApiHandlerOptions hopts;
  hopts.tokens = tokens;
  hopts.allow_anonymous = anonymous;
  hopts.bookmark_interval = options_.bookmark_interval;
  if (persistence_) {
    hopts.after_write = [this] { persistence_->WaitWritten(store_->CurrentResourceVersion()); };
  }
  handler_ = std::make_unique<ApiHandler>(store_.get(), &faults_, hopts);

  HttpServerOptions sopts;
  sopts.host = host_;
  sopts.port = static_cast<uint16_t>(port);
  sopts.tls = options_.tls;
  sopts.tls_only = options_.tls_only;
  sopts.cert_pem = cert;
  sopts.key_pem = key;
  sopts.max_connections = options_.max_connections;
  http_ = std::make_unique<HttpServer>(
      sopts, [this](const HttpRequest& r) { return handler_->Handle(r); });
  KAI_RETURN_IF_ERROR(http_->Start());
  // Now that the port is known, tell clients the real address.
  hopts.server_address = host_ + ":" + std::to_string(http_->port());
  handler_->SetServerAddress(hopts.server_address);
  if (!options_.kubeconfig_out.empty()) {
    KAI_RETURN_IF_ERROR(WriteFileAtomic(options_.kubeconfig_out, Kubeconfig(), 0600));
  }
  started_ = true;
  return Status::OK();
}

void LocalKube::Stop() {
  if (http_) http_->Stop();
  if (cluster_) cluster_->Stop();
  if (store_) store_->Shutdown();
  if (persistence_) {
    Status s = persistence_->Close();
    if (!s.ok()) LOG(ERROR) << "localkube: persistence: " << s;
  }
  started_ = false;
}

}  // namespace kai::localkube
