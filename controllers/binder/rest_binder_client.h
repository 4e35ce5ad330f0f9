// RestBinderClient: the BinderClient over the REST client (kube/rest). Reads are GET/LIST
// requests (the informer-backed variant replaces the cached ones once kube/cache is in);
// `fresh` reads always go to the API server. Events go to an EventSink (the recorder).
#pragma once

#include <functional>

#include "controllers/binder/binder_client.h"
#include "kube/rest/client.h"

namespace kai::binder {

// "a=b,c" (label equality, label existence) and "spec.nodeName=n" for a PodQuery.
std::string LabelSelectorOf(const PodQuery& q);
std::string FieldSelectorOf(const PodQuery& q);

class RestBinderClient final : public BinderClient {
 public:
  using EventSink = std::function<void(const BinderEvent&)>;
  RestBinderClient(kube::Client* client, EventSink events)
      : client_(client), events_(std::move(events)) {}

  StatusOr<api::BindRequest> GetBindRequest(const std::string& ns,
                                            const std::string& name) override;
  StatusOr<std::vector<api::BindRequest>> ListBindRequests() override;
  StatusOr<api::Pod> GetPod(const std::string& ns, const std::string& name, bool fresh) override;
  StatusOr<std::vector<api::Pod>> ListPods(const PodQuery& query) override;
  StatusOr<api::Node> GetNode(const std::string& name) override;
  StatusOr<api::ConfigMap> GetConfigMap(const std::string& ns, const std::string& name) override;
  StatusOr<api::Pod> CreatePod(const api::Pod& pod) override;
  Status DeletePod(const std::string& ns, const std::string& name,
                   std::optional<int64_t> grace_period_seconds) override;
  Status MergePatchPod(const std::string& ns, const std::string& name,
                       std::string_view patch) override;
  Status PatchPodStatus(const std::string& ns, const std::string& name,
                        std::string_view patch) override;
  Status CreateBinding(const std::string& ns, const std::string& pod_name,
                       const std::string& pod_uid, const std::string& node) override;
  Status CreateConfigMap(const api::ConfigMap& cm) override;
  Status MergePatchConfigMap(const std::string& ns, const std::string& name,
                             std::string_view patch) override;
  Status DeleteConfigMap(const std::string& ns, const std::string& name) override;
  Status MergePatchBindRequestStatus(const std::string& ns, const std::string& name,
                                     std::string_view patch) override;
  Status DeleteBindRequest(const std::string& ns, const std::string& name) override;
  void RecordEvent(const BinderEvent& event) override {
    if (events_) events_(event);
  }

 private:
  kube::Client* client_;
  EventSink events_;
};

}  // namespace kai::binder
