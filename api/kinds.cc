#include "api/kinds.h"

#include <array>

#include "api/bind_request.h"
#include "api/binding.h"
#include "api/config_map.h"
#include "api/event.h"
#include "api/kai_config.h"
#include "api/lease.h"
#include "api/node.h"
#include "api/pod.h"
#include "api/podgroup.h"
#include "api/priority_class.h"
#include "api/queue.h"
#include "api/scheduling_shard.h"
#include "api/topology.h"

namespace kai::api {
namespace {

constexpr std::array kKinds = {
    Pod::kTypeInfo,
    Node::kTypeInfo,
    PriorityClass::kTypeInfo,
    Lease::kTypeInfo,
    Event::kTypeInfo,
    ConfigMap::kTypeInfo,
    Binding::kTypeInfo,
    Eviction::kTypeInfo,
    Queue::kTypeInfo,
    PodGroup::kTypeInfo,
    BindRequest::kTypeInfo,
    Topology::kTypeInfo,
    SchedulingShard::kTypeInfo,
    Config::kTypeInfo,
};

// "group/version" or "version" split into its parts.
void SplitApiVersion(std::string_view api_version, std::string_view* group,
                     std::string_view* version) {
  const size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) {
    *group = {};
    *version = api_version;
  } else {
    *group = api_version.substr(0, slash);
    *version = api_version.substr(slash + 1);
  }
}

}  // namespace

std::span<const TypeInfo> AllKinds() { return kKinds; }

const TypeInfo* FindKind(std::string_view api_version, std::string_view kind) {
  std::string_view group, version;
  SplitApiVersion(api_version, &group, &version);
  for (const TypeInfo& t : kKinds) {
    if (t.group == group && t.version == version && t.kind == kind) return &t;
  }
  return nullptr;
}

const TypeInfo* FindResource(std::string_view group, std::string_view resource,
                             std::string_view version) {
  for (const TypeInfo& t : kKinds) {
    if (t.group == group && t.plural == resource && (version.empty() || t.version == version)) {
      return &t;
    }
  }
  return nullptr;
}

}  // namespace kai::api
