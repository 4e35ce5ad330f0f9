// ApiHandler: the Kubernetes REST API over a Store (routing, discovery, verbs, subresources,
// tables, watch streaming, errors as metav1.Status). Transport-neutral: the Beast server feeds
// it HttpRequests.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "test/localkube/faults.h"
#include "test/localkube/http.h"
#include "test/localkube/request_stats.h"
#include "test/localkube/store.h"

namespace kai::localkube {

struct TokenUser {
  UserInfo user;
};

struct ApiHandlerOptions {
  // Bearer tokens accepted (token -> user). Empty with allow_anonymous: no authentication.
  std::map<std::string, UserInfo> tokens;
  bool allow_anonymous = true;
  // Address clients use ("127.0.0.1:6443"), reported by /api.
  std::string server_address;
  size_t max_body_bytes = 3 * 1024 * 1024;
  Duration bookmark_interval = std::chrono::seconds(60);
  // Default watch timeout when the client sets none (real server: 30-60 min).
  Duration default_watch_timeout = std::chrono::minutes(30);
  std::string version_git = "v1.32.0";
  // Called after a successful API write before the response goes out (persistence: wait until
  // the write is in the write-ahead log).
  std::function<void()> after_write;
};

class ApiHandler {
 public:
  ApiHandler(Store* store, Faults* faults, ApiHandlerOptions options);
  HttpResponse Handle(const HttpRequest& req);

  size_t ActiveRequests() const { return active_.load(); }
  // The address /api reports (known once the listener is bound).
  void SetServerAddress(std::string address) {
    std::lock_guard l(address_mu_);
    server_address_ = std::move(address);
  }

 private:
  struct Route;
  // What a resource request addressed, for the request counters (verb empty: not routed).
  struct RequestKey {
    std::string verb, resource, subresource;
  };
  HttpResponse HandleResource(const HttpRequest& req, const UserInfo& user, RequestKey* key);
  HttpResponse HandleControl(const HttpRequest& req);
  HttpResponse Discovery(const HttpRequest& req, bool* handled);
  HttpResponse OpenApi(const HttpRequest& req, bool* handled);

  Store* store_;
  Faults* faults_;
  ApiHandlerOptions options_;
  std::atomic<size_t> active_{0};
  RequestStats requests_;  // served by GET /localkube/stats
  // Tokens issued through serviceaccounts/token (TokenRequest).
  mutable std::mutex tokens_mu_;
  std::map<std::string, UserInfo> issued_tokens_;
  mutable std::mutex address_mu_;
  std::string server_address_;
};

// metav1.Status JSON for an error, with the details a real API server adds (kube::StatusToJson).
std::string StatusJson(const Status& s);
HttpResponse ErrorResponse(const Status& s);

}  // namespace kai::localkube
