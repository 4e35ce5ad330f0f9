// RequestStats: how many API requests localkube answered, by client program (the User-Agent's
// product, "kubectl", "kai-scheduler", "kai-binder"...), verb and resource (with subresource),
// and how many of them failed. Served by GET /localkube/stats so benchmarks can count the writes
// each component costs. In-process writers (simulated kubelet, workload controllers) do not go
// through HTTP and are not counted.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

namespace kai::localkube {

struct RequestCount {
  int64_t count = 0;
  int64_t errors = 0;  // answered with a status >= 400
};

class RequestStats {
 public:
  // `resource` is the plural ("pods"), `subresource` may be empty ("binding", "status").
  void Record(std::string_view user_agent, std::string_view verb, std::string_view resource,
              std::string_view subresource, int http_status);

  // [{"userAgent":"kai-binder","verb":"create","resource":"pods/binding","count":3,"errors":0},
  //  ...] sorted by user agent, verb, resource.
  std::string Json() const;

  // The product of a User-Agent: "kubectl/v1.32.0 (linux/amd64) kubernetes/abc" -> "kubectl";
  // "" when absent.
  static std::string Product(std::string_view user_agent);

 private:
  using Key = std::tuple<std::string, std::string, std::string>;  // agent, verb, resource
  mutable std::mutex mu_;
  std::map<Key, RequestCount> counts_;
};

}  // namespace kai::localkube
