#include "api/pod_resources.h"

namespace kai::api {
namespace {

constexpr std::string_view kRestartPolicyAlways = "Always";

void AddResourceList(ResourceList* to, const ResourceList& from) {
  for (const auto& [name, q] : from) {
    auto it = to->find(name);
    if (it == to->end()) {
      to->emplace(name, q);
    } else {
      it->second.Add(q);
    }
  }
}

// to[name] = max(to[name], from[name]) for every resource of `from`.
void MaxResourceList(ResourceList* to, const ResourceList& from) {
  for (const auto& [name, q] : from) {
    auto it = to->find(name);
    if (it == to->end()) {
      to->emplace(name, q);
    } else if (q.Cmp(it->second) > 0) {
      it->second = q;
    }
  }
}

ResourceList WithNonMissing(const ResourceList& reqs, const ResourceList& non_missing) {
  if (non_missing.empty()) return reqs;
  ResourceList out = reqs;
  for (const auto& [name, q] : non_missing) {
    if (reqs.find(name) == reqs.end()) out[name].Add(q);
  }
  return out;
}

// The aggregation shared by requests and limits (AggregateContainerRequests/Limits).
template <class Get>
ResourceList Aggregate(const PodSpec& spec, Get get) {
  ResourceList total;
  for (const Container& c : spec.containers) AddResourceList(&total, get(c));
  ResourceList sidecars;   // cumulative restartable init containers so far
  ResourceList init_peak;  // max over init containers of their start-up use
  for (const Container& c : spec.init_containers) {
    const ResourceList own = get(c);
    if (c.restart_policy == kRestartPolicyAlways) {
      AddResourceList(&total, own);
      AddResourceList(&sidecars, own);
      MaxResourceList(&init_peak, sidecars);
    } else {
      ResourceList use = own;
      AddResourceList(&use, sidecars);
      MaxResourceList(&init_peak, use);
    }
  }
  MaxResourceList(&total, init_peak);
  return total;
}

}  // namespace

ResourceList PodRequests(const PodSpec& spec, const PodResourcesOptions& options) {
  ResourceList reqs = Aggregate(spec, [&](const Container& c) {
    return WithNonMissing(c.resources.requests, options.non_missing_container_requests);
  });
  if (!options.exclude_overhead) AddResourceList(&reqs, spec.overhead);
  return reqs;
}

ResourceList PodLimits(const PodSpec& spec, const PodResourcesOptions& options) {
  ResourceList limits = Aggregate(spec, [](const Container& c) { return c.resources.limits; });
  if (!options.exclude_overhead) {
    for (const auto& [name, q] : spec.overhead) {
      auto it = limits.find(name);
      if (it != limits.end()) it->second.Add(q);
    }
  }
  return limits;
}

}  // namespace kai::api
