#include "test/localkube/request_stats.h"

#include "test/localkube/json.h"

namespace kai::localkube {

std::string RequestStats::Product(std::string_view user_agent) {
  size_t end = user_agent.find_first_of("/ ");
  return std::string(user_agent.substr(0, end));
}

void RequestStats::Record(std::string_view user_agent, std::string_view verb,
                          std::string_view resource, std::string_view subresource,
                          int http_status) {
  std::string r(resource);
  if (!subresource.empty()) r += "/" + std::string(subresource);
  Key key{Product(user_agent), std::string(verb), std::move(r)};
  std::lock_guard l(mu_);
  RequestCount& c = counts_[key];
  ++c.count;
  if (http_status >= 400) ++c.errors;
}

std::string RequestStats::Json() const {
  std::lock_guard l(mu_);
  std::string out = "[";
  for (const auto& [key, c] : counts_) {
    if (out.size() > 1) out += ",";
    const auto& [agent, verb, resource] = key;
    out += "{\"userAgent\":" + Quoted(agent) + ",\"verb\":" + Quoted(verb) +
           ",\"resource\":" + Quoted(resource) + ",\"count\":" + std::to_string(c.count) +
           ",\"errors\":" + std::to_string(c.errors) + "}";
  }
  return out + "]";
}

}  // namespace kai::localkube
