#include "test/localkube/faults.h"

#include "kube/base/strings.h"
#include "test/localkube/errors.h"

namespace kai::localkube {

void Faults::Add(FaultRule rule) {
  std::lock_guard l(mu_);
  rules_.push_back(std::move(rule));
}

void Faults::Clear() {
  std::lock_guard l(mu_);
  rules_.clear();
  global_latency_ = std::chrono::milliseconds(0);
}

void Faults::SetGlobalLatency(std::chrono::milliseconds d) {
  std::lock_guard l(mu_);
  global_latency_ = d;
}

std::vector<FaultRule> Faults::Rules() const {
  std::lock_guard l(mu_);
  return rules_;
}

std::optional<Status> Faults::Match(const std::string& verb, const std::string& resource,
                                    const std::string& subresource, const std::string& ns,
                                    std::chrono::milliseconds* latency) {
  std::lock_guard l(mu_);
  *latency = global_latency_;
  const std::string full = subresource.empty() ? resource : resource + "/" + subresource;
  for (auto it = rules_.begin(); it != rules_.end(); ++it) {
    FaultRule& r = *it;
    if (r.verb != "*" && !r.verb.empty() && r.verb != verb) continue;
    if (r.resource != "*" && !r.resource.empty() && r.resource != full && r.resource != resource) {
      continue;
    }
    if (!r.ns.empty() && r.ns != ns) continue;
    if (r.latency_ms > 0) *latency += std::chrono::milliseconds(r.latency_ms);
    if (r.code == 0) continue;
    Status s;
    const std::string msg = r.message.empty() ? "injected fault" : r.message;
    switch (r.code) {
      case 429:
        s = kube::NewTooManyRequests(msg, r.retry_after_seconds > 0 ? r.retry_after_seconds : 1);
        break;
      case 409:
        s = kube::NewConflict(full, "", msg);
        break;
      case 503:
        s = kube::NewServiceUnavailable(msg);
        if (r.retry_after_seconds > 0) s.SetRetryAfterSeconds(r.retry_after_seconds);
        break;
      case 504:
        s = kube::NewTimeout(msg);
        break;
      case 410:
        s = kube::NewExpired(msg);
        break;
      case 404:
        s = kube::NewNotFound(full, msg);
        break;
      default: {
        s = kube::NewInternalError(msg);
        s.SetHttpCode(r.code);
        if (r.retry_after_seconds > 0) s.SetRetryAfterSeconds(r.retry_after_seconds);
      }
    }
    if (r.remaining > 0 && --r.remaining == 0) rules_.erase(it);
    return s;
  }
  return std::nullopt;
}

StatusOr<FaultRule> ParseFaultRule(const std::string& spec) {
  FaultRule r;
  r.verb = "*";
  r.resource = "*";
  for (const std::string& kv : StrSplit(spec, ',')) {
    if (StripWhitespace(kv).empty()) continue;
    const size_t eq = kv.find('=');
    if (eq == std::string::npos)
      return InvalidArgumentError("fault rule: expected key=value: " + kv);
    const std::string k(StripWhitespace(kv.substr(0, eq)));
    const std::string v(StripWhitespace(kv.substr(eq + 1)));
    auto to_int = [&](int* out) -> Status {
      try {
        size_t pos = 0;
        *out = std::stoi(v, &pos);
        if (pos != v.size()) throw std::invalid_argument(v);
      } catch (...) {
        return InvalidArgumentError(StrCat("fault rule: ", k, " must be an integer: ", v));
      }
      return Status::OK();
    };
    if (k == "verb") {
      r.verb = v;
    } else if (k == "resource") {
      r.resource = v;
    } else if (k == "namespace") {
      r.ns = v;
    } else if (k == "code") {
      KAI_RETURN_IF_ERROR(to_int(&r.code));
    } else if (k == "count") {
      KAI_RETURN_IF_ERROR(to_int(&r.remaining));
    } else if (k == "retryAfter") {
      KAI_RETURN_IF_ERROR(to_int(&r.retry_after_seconds));
    } else if (k == "latencyMs") {
      KAI_RETURN_IF_ERROR(to_int(&r.latency_ms));
    } else if (k == "message") {
      r.message = v;
    } else {
      return InvalidArgumentError("fault rule: unknown key " + k);
    }
  }
  if (r.latency_ms > 0 && spec.find("code=") == std::string::npos) r.code = 0;
  return r;
}

}  // namespace kai::localkube
