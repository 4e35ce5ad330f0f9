// Health checks served as /healthz and /readyz, with controller-runtime's pkg/healthz behaviour:
//
//   GET /healthz               200 "ok" when every check passes; otherwise 500 and one line per
//                              check ("[+]name ok" / "[-]name failed: reason withheld") ending
//                              in "healthz check failed"
//   GET /healthz?verbose       the per-check listing also on success ("healthz check passed")
//   GET /healthz?exclude=a     skips check a ("[+]a excluded: ok"); unknown names are warned
//   GET /healthz/<check>       runs one check: 200 "ok" or 500 "internal server error: <err>"
//
// With no check registered, a "ping" check that always passes is reported.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "kube/base/status.h"
#include "kube/server/http.h"

namespace kai::server {

using HealthChecker = std::function<Status()>;

// Always healthy (controller-runtime healthz.Ping).
Status Ping();

class HealthChecks {
 public:
  // Adds or replaces a named check; thread-safe (checks can be added after the server started).
  void Add(std::string name, HealthChecker check);

  // Serves `root` ("/healthz") and `root`/<check>.
  HttpResponse Serve(const HttpRequest& request, std::string_view root) const;
  // Registers `root` and `root`/ on a router.
  void Register(Router* router, const std::string& root) const;

 private:
  HttpResponse ServeAggregated(const HttpRequest& request) const;
  HttpResponse ServeOne(std::string_view name) const;

  mutable std::mutex mu_;
  std::map<std::string, HealthChecker> checks_;  // sorted: output order is by name
};

}  // namespace kai::server
