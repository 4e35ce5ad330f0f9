// HttpServer: the HTTP(S) server every component runs for /healthz, /readyz and /metrics, and
// the TLS server of the admission webhooks (Boost.Beast on Asio, a few threads, keep-alive).
//
//   HttpServer server({.name = "health", .bind_address = ":8081"});
//   health_checks.Register(server.router(), "/healthz");
//   server.Handle("/validate--v1-pod", [&](const HttpRequest& r) { return Review(r); });
//   KAI_RETURN_IF_ERROR(server.Start());
//
// With TLS options the server only speaks HTTPS (TLS 1.2+). A certificate given as files is
// re-read when either file changes (checked at each new connection, so rotated Secret volumes
// take effect without a restart); a broken new pair is logged and the previous one kept.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "kube/base/clock.h"
#include "kube/base/statusor.h"
#include "kube/server/http.h"

namespace kai::server {

struct TlsOptions {
  // PEM files (certificate chain, then private key); watched for changes.
  std::string cert_file;
  std::string key_file;
  // Or PEM in memory (used when cert_file is empty).
  std::string cert_pem;
  std::string key_pem;
};

struct HttpServerOptions {
  std::string name = "http";           // for logs
  std::string bind_address = ":8081";  // host:port; ":p" = all interfaces; port 0 = any free
  std::optional<TlsOptions> tls;
  int threads = 2;
  size_t max_body_bytes = 3 * 1024 * 1024;              // larger bodies get 413
  Duration request_timeout = std::chrono::seconds(30);  // per read/write and idle keep-alive
};

class HttpServer {
 public:
  explicit HttpServer(HttpServerOptions options);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Routes (Go ServeMux rules, see Router). Register before Start().
  void Handle(std::string pattern, Handler handler);
  Router* router();

  // Binds and starts serving; errors name the address or the certificate file.
  Status Start();
  // Stops accepting, closes connections and joins the threads. Idempotent.
  void Stop();

  bool running() const;
  uint16_t port() const;  // the bound port (useful with port 0)
  const HttpServerOptions& options() const;
  // How many times a TLS certificate was loaded (1 after Start, +1 per reload).
  int certificate_loads() const;

  struct Impl;  // opaque (Asio state); public only so that .cc-local sessions can name it

 private:
  std::unique_ptr<Impl> impl_;
};

// Splits "host:port" (":8080", "127.0.0.1:0", "[::1]:9443", "localhost:8081"); empty host means
// all interfaces.
StatusOr<std::pair<std::string, uint16_t>> ParseBindAddress(std::string_view address);
// "0" (or empty) disables a server, as controller-runtime's --metrics-bind-address=0.
bool IsDisabledAddress(std::string_view address);
// A bind-address flag's value: host:port or disabled; the error names the flag ("--<flag>: ...").
Status ValidateBindAddressFlag(std::string_view flag, std::string_view value);

}  // namespace kai::server
