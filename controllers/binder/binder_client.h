// BinderClient: every read and write kai-binder makes, as one narrow interface (KAI's
// controller-runtime client as the binder uses it, reference §12.4, §14, §20). The live
// implementation reads from informer caches (or the API server when `fresh`) and writes through
// the REST client; FakeBinderClient is an in-memory API server for tests.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/bind_request.h"
#include "api/config_map.h"
#include "api/json_quote.h"
#include "api/node.h"
#include "api/pod.h"
#include "kube/base/statusor.h"

namespace kai::binder {

// A pod list query: every condition set must hold.
struct PodQuery {
  std::string namespace_;                     // empty = all namespaces
  std::map<std::string, std::string> labels;  // label == value
  std::vector<std::string> has_labels;        // label exists
  std::string node_name;                      // spec.nodeName == (field selector)
};

// One event as client-go's recorder gets it.
struct BinderEvent {
  std::string kind;  // Pod
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string type;  // Normal | Warning
  std::string reason;
  std::string message;
  bool operator==(const BinderEvent&) const = default;
};

// A BindRequest's status as JSON, zero fields left out (Go's omitempty).
inline std::string BindRequestStatusJson(const api::BindRequestStatus& s) {
  std::string out = "{";
  auto add = [&out](std::string_view member) {
    if (out.size() > 1) out += ",";
    out += member;
  };
  if (!s.phase.empty()) add("\"phase\":" + api::JsonQuote(s.phase));
  if (!s.reason.empty()) add("\"reason\":" + api::JsonQuote(s.reason));
  if (s.failed_attempts != 0) add("\"failedAttempts\":" + std::to_string(s.failed_attempts));
  return out + "}";
}

class BinderClient {
 public:
  virtual ~BinderClient() = default;

  // Reads. `fresh` asks for the API server's current state (a GET), not a possibly lagging
  // cache; used where acting on stale data would be wrong.
  virtual StatusOr<api::BindRequest> GetBindRequest(const std::string& ns,
                                                    const std::string& name) = 0;
  virtual StatusOr<std::vector<api::BindRequest>> ListBindRequests() = 0;
  virtual StatusOr<api::Pod> GetPod(const std::string& ns, const std::string& name,
                                    bool fresh = false) = 0;
  virtual StatusOr<std::vector<api::Pod>> ListPods(const PodQuery& query) = 0;
  virtual StatusOr<api::Node> GetNode(const std::string& name) = 0;
  virtual StatusOr<api::ConfigMap> GetConfigMap(const std::string& ns, const std::string& name) = 0;

  // Writes.
  virtual StatusOr<api::Pod> CreatePod(const api::Pod& pod) = 0;
  // grace_period_seconds: nullopt = the pod's default.
  virtual Status DeletePod(const std::string& ns, const std::string& name,
                           std::optional<int64_t> grace_period_seconds) = 0;
  // application/merge-patch+json on the pod (labels, annotations; null removes).
  virtual Status MergePatchPod(const std::string& ns, const std::string& name,
                               std::string_view patch) = 0;
  // application/strategic-merge-patch+json on pods/status (conditions).
  virtual Status PatchPodStatus(const std::string& ns, const std::string& name,
                                std::string_view patch) = 0;
  // POST pods/{name}/binding; the pod's uid is a precondition and `annotations` are merged into
  // the pod's by the binding itself.
  virtual Status CreateBinding(const std::string& ns, const std::string& pod_name,
                               const std::string& pod_uid, const std::string& node,
                               const std::map<std::string, std::string>& annotations) = 0;
  virtual Status CreateConfigMap(const api::ConfigMap& cm) = 0;
  // application/merge-patch+json on the ConfigMap.
  virtual Status MergePatchConfigMap(const std::string& ns, const std::string& name,
                                     std::string_view patch) = 0;
  virtual Status DeleteConfigMap(const std::string& ns, const std::string& name) = 0;
  // Writes bindrequests/status of the BindRequest with this uid. One the scheduler created since
  // under the same name is not written: kAborted (409-like), as for a gone one's NotFound.
  virtual Status UpdateBindRequestStatus(const std::string& ns, const std::string& name,
                                         const std::string& uid,
                                         const api::BindRequestStatus& status) = 0;
  // With the uid as a precondition: a BindRequest the scheduler created since under the same
  // name is another one (409 Conflict, not deleted).
  virtual Status DeleteBindRequest(const std::string& ns, const std::string& name,
                                   const std::string& uid) = 0;
  virtual void RecordEvent(const BinderEvent& event) = 0;
};

}  // namespace kai::binder
