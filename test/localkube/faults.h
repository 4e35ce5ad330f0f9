// Fault injection for tests: fail the next N requests matching a verb/resource with a status,
// add latency. Driven by flags and the loopback-only /localkube/faults endpoint.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kube/base/statusor.h"

namespace kai::localkube {

struct FaultRule {
  std::string verb;      // get, list, watch, create, update, patch, delete, deletecollection, "*"
  std::string resource;  // plural, "pods/binding", or "*"
  std::string ns;        // namespace or "" for any
  int code = 500;        // 500, 429, 409, 503, ...
  int remaining = 1;     // how many matching requests fail; -1 = until cleared
  int retry_after_seconds = 0;
  std::string message;
  int latency_ms = 0;  // with code 0: only delay matching requests
};

class Faults {
 public:
  void Add(FaultRule rule);
  void Clear();
  // Returns the error to answer with (and sets *latency) for a request, consuming one use.
  std::optional<Status> Match(const std::string& verb, const std::string& resource,
                              const std::string& subresource, const std::string& ns,
                              std::chrono::milliseconds* latency);
  std::vector<FaultRule> Rules() const;
  void SetGlobalLatency(std::chrono::milliseconds d);

 private:
  mutable std::mutex mu_;
  std::vector<FaultRule> rules_;
  std::chrono::milliseconds global_latency_{0};
};

// Parses "verb=create,resource=pods,code=429,count=3,retryAfter=2" (the flag syntax).
StatusOr<FaultRule> ParseFaultRule(const std::string& spec);

}  // namespace kai::localkube
