#include "scheduler/outputs/bind_request_builder.h"

#include "api/json_quote.h"
#include "api/validation.h"
#include "api/well_known.h"
#include "scheduler/outputs/json_patch.h"

namespace kai::scheduler {

api::BindRequest BuildBindRequest(const BindDecision& d, const api::Pod& pod,
                                  const SchedulerParams& params) {
  api::BindRequest br;
  br.metadata.name = pod.metadata.name;
  br.metadata.namespace_ = pod.metadata.namespace_;
  api::OwnerReference owner;
  owner.api_version = "v1";
  owner.kind = "Pod";
  owner.name = pod.metadata.name;
  owner.uid = pod.metadata.uid;
  br.metadata.owner_references.push_back(std::move(owner));
  br.metadata.annotations = d.annotations;
  // A node name is a DNS subdomain of up to 253 characters; a label value holds 63. KAI labels
  // every BindRequest, so the API server refuses the ones for longer names and their pods never
  // bind. Nothing reads the label back (spec.selectedNode is the node), so it is left out then.
  if (api::IsValidLabelValue(d.node).empty()) {
    br.metadata.labels[std::string(api::kSelectedNodeLabel)] = d.node;
  }
  if (!params.node_pool_label_key.empty() && !params.partition_label_value.empty()) {
    br.metadata.labels[params.node_pool_label_key] = params.partition_label_value;
  }
  br.spec.pod_name = pod.metadata.name;
  br.spec.selected_node = d.node;
  br.spec.selected_gpu_groups = d.gpu_groups;
  br.spec.received_resource_type = d.received_resource_type;
  br.spec.received_gpu = api::ReceivedGpu{d.gpu_count, d.gpu_portion};
  return br;
}

std::string NodePoolName(const SchedulerParams& params) {
  return params.partition_label_value.empty() ? "default" : params.partition_label_value;
}

std::string NodePoolNameFromLabels(const std::map<std::string, std::string>& labels,
                                   const std::string& key) {
  auto it = labels.find(key);
  return it == labels.end() || it->second.empty() ? "default" : it->second;
}

std::optional<std::string> NodePoolLabelPatch(const api::Pod& pod, const SchedulerParams& params) {
  if (params.node_pool_label_key.empty() || params.partition_label_value.empty()) {
    return std::nullopt;
  }
  auto it = pod.metadata.labels.find(params.node_pool_label_key);
  if (it != pod.metadata.labels.end() && it->second == params.partition_label_value) {
    return std::nullopt;
  }
  return "{\"metadata\":{\"labels\":{" + api::JsonQuote(params.node_pool_label_key) + ":" +
         api::JsonQuote(params.partition_label_value) + "}}}";
}

}  // namespace kai::scheduler
