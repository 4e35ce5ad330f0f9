// HttpServer: HTTP/1.1 (keep-alive, chunked streaming) over plain TCP and TLS on one port (the
// first byte of a connection tells which). One thread per connection, so a long watch never
// blocks other requests; connections beyond max_connections get 429.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "kube/base/status.h"
#include "test/localkube/http.h"

namespace kai::localkube {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0 picks a free port
  bool tls = true;    // accept TLS (plain HTTP is always accepted too unless tls_only)
  bool tls_only = false;
  std::string cert_pem;  // server certificate chain
  std::string key_pem;
  size_t max_connections = 4096;
  size_t max_body_bytes = 3 * 1024 * 1024;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  HttpServer(HttpServerOptions options, Handler handler);
  ~HttpServer();

  Status Start();
  void Stop();
  uint16_t port() const { return port_; }
  size_t connections() const { return connections_.load(); }

 private:
  struct Impl;
  void AcceptLoop();
  void Serve(int fd, bool loopback, std::string remote);

  HttpServerOptions options_;
  Handler handler_;
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<size_t> connections_{0};
  std::thread accept_thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<int> fds_;
};

}  // namespace kai::localkube
