// RestClient: the Client over HTTPS with libcurl and OpenSSL.
//
// - TLS from memory (CA, client certificate and key as PEM blobs), tls-server-name, insecure.
// - Auth: bearer token, token file (re-read every minute), basic, exec plugins (cached until
//   expiry, re-run once after a 401).
// - Connection reuse: a pool of curl handles, each keeping its own connection, sharing DNS and
//   TLS sessions (never connections: libcurl does not support that across threads).
// - Client-side throttling: a token bucket (qps/burst from the config, settable).
// - Retries (client-go rest/request.go): a 429, or a 5xx on an idempotent verb (GET, LIST, PUT,
//   DELETE; watches at connect time), is retried up to max_retries times, waiting Retry-After
//   when the server sends it, else an exponential backoff. Transport failures are retried the
//   same way for idempotent verbs.
// - Watches have no total timeout; a stalled stream is detected by low-speed limits; Stop()
//   aborts them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kube/base/clock.h"
#include "kube/base/random.h"
#include "kube/base/statusor.h"
#include "kube/rest/client.h"
#include "kube/rest/config.h"

namespace kai::kube {

struct RestClientOptions {
  Clock* clock = nullptr;    // default RealClock
  Random* random = nullptr;  // default SeededRandom::Default()
  // Retries of 429 / 5xx / transport errors (client-go: 10).
  int max_retries = 10;
  // Backoff when the server gives no Retry-After: base * 2^attempt, capped.
  Duration retry_base{std::chrono::milliseconds(500)};
  Duration retry_cap{std::chrono::seconds(30)};
  // Connect timeout (all requests).
  Duration connect_timeout{std::chrono::seconds(30)};
  // A watch whose stream delivers fewer than 1 byte/s for this long is considered dead
  // (servers send bookmarks or data well within it). 0 = off.
  Duration watch_stall_timeout{std::chrono::minutes(10)};
  // Appended to the User-Agent ("leader-election").
  std::string user_agent_suffix;
};

// Per-client counters (for tests and metrics).
struct RestClientStats {
  int64_t requests = 0;      // HTTP requests sent (including retries)
  int64_t retries = 0;       // requests that were retries
  int64_t throttled = 0;     // requests that waited for the client-side rate limiter
  int64_t exec_runs = 0;     // exec plugin invocations
  int64_t unauthorized = 0;  // 401 answers
  int64_t connections = 0;   // new connections opened (other requests reused pooled ones)
};

class RestClient final : public Client {
 public:
  static StatusOr<std::unique_ptr<RestClient>> New(RestConfig config,
                                                   RestClientOptions options = {});
  ~RestClient() override;

  StatusOr<std::string> Get(const GroupVersionResource& gvr, std::string_view ns,
                            std::string_view name, const GetOptions& options = {}) override;
  StatusOr<ObjectList> List(const GroupVersionResource& gvr, std::string_view ns,
                            const ListOptions& options = {}) override;
  StatusOr<std::string> Create(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view body, const WriteOptions& options = {}) override;
  StatusOr<std::string> Update(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view name, std::string_view body,
                               const WriteOptions& options = {}) override;
  StatusOr<std::string> Patch(const GroupVersionResource& gvr, std::string_view ns,
                              std::string_view name, PatchType type, std::string_view patch,
                              const PatchOptions& options = {}) override;
  StatusOr<std::string> Delete(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view name, const DeleteOptions& options = {}) override;
  StatusOr<std::string> CreateSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                          std::string_view name, std::string_view subresource,
                                          std::string_view body,
                                          const WriteOptions& options = {}) override;
  StatusOr<std::unique_ptr<Watcher>> Watch(const GroupVersionResource& gvr, std::string_view ns,
                                           const WatchOptions& options = {}) override;

  // Any request (discovery, /version, /healthz ...). `path` may carry a query. Errors are
  // typed like the verbs'; the body of a 2xx answer is returned.
  StatusOr<std::string> Raw(std::string_view method, std::string_view path,
                            std::string_view body = {}, std::string_view content_type = {});

  // Client-side throttling; qps <= 0 disables it.
  void SetRateLimit(double qps, int burst);

  const RestConfig& config() const;
  RestClientStats stats() const;

  class Impl;

 private:
  explicit RestClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Default User-Agent, as client-go: "<command>/<version> (linux/amd64) kai" (+ " <suffix>"),
// e.g. "kai-binder/v0.1.0 (linux/amd64) kai".
std::string DefaultUserAgent(std::string_view suffix = {});

}  // namespace kai::kube
