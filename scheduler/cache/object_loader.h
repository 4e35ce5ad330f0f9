// Reads Kubernetes objects (multi-document YAML or JSON, `kind: List` included, as `kubectl get
// -o yaml` prints them) into typed api objects plus the numbers the scheduler derives from them
// (effective pod requests, node allocatable), with errors that name the document, the object and
// the field.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/bind_request.h"
#include "api/config_map.h"
#include "api/kai_config.h"
#include "api/node.h"
#include "api/pod.h"
#include "api/podgroup.h"
#include "api/priority_class.h"
#include "api/queue.h"
#include "api/scheduling_shard.h"
#include "api/topology.h"
#include "kube/base/statusor.h"

namespace kai::scheduler {

// Resource amounts in scheduler units: "cpu" in millicores, everything else in base units.
using ResourceAmounts = std::map<std::string, double>;

struct LoadedPod {
  std::shared_ptr<const api::Pod> pod;
  // Effective requests (max(sum of containers + sidecars, each init container) + overhead).
  ResourceAmounts requests;
};

struct LoadedNode {
  std::shared_ptr<const api::Node> node;
  ResourceAmounts allocatable;
  ResourceAmounts capacity;
};

struct LoadedObjects {
  std::vector<LoadedNode> nodes;
  std::vector<LoadedPod> pods;
  std::vector<std::shared_ptr<const api::PodGroup>> podgroups;
  std::vector<std::shared_ptr<const api::Queue>> queues;
  std::vector<std::shared_ptr<const api::PriorityClass>> priority_classes;
  std::vector<std::shared_ptr<const api::Topology>> topologies;
  std::vector<std::shared_ptr<const api::ConfigMap>> config_maps;
  std::vector<std::shared_ptr<const api::BindRequest>> bind_requests;
  std::vector<std::shared_ptr<const api::SchedulingShard>> shards;
  std::vector<std::shared_ptr<const api::Config>> configs;
};

// Parses a snapshot. Malformed documents, unknown kinds and invalid fields are errors naming the
// document index, the object and the field.
StatusOr<LoadedObjects> LoadObjects(std::string_view yaml_or_json);
// One JSON object (or List) as the API server sends it: no YAML pass.
StatusOr<LoadedObjects> LoadObjectJson(std::string_view json);
// The same; errors start with `where` ("rawObjects.pods[3]") instead of "object".
StatusOr<LoadedObjects> LoadObjectJson(std::string_view json, const std::string& where);

}  // namespace kai::scheduler
