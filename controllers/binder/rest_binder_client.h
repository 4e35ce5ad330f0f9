// RestBinderClient: the BinderClient over the REST client (kube/rest). Reads are served from the
// informers' stores once UseCaches() gave synced ones (KAI's controller-runtime client reads its
// cache the same way), else they are GET/LIST requests; `fresh` reads always go to the API
// server, and so does a Get the cache misses (an object newer than the watch). Events go to an
// EventSink (the recorder).
#pragma once

#include <functional>

#include "controllers/binder/binder_client.h"
#include "kube/rest/client.h"

namespace kai::kube {
class SharedInformer;
class SharedInformerFactory;
}  // namespace kai::kube

namespace kai::binder {

// Informers whose stores serve the non-fresh reads (each may be null: that kind is read from the
// API server). The pod and BindRequest informers are the ones PodCacheInformer and
// BindRequestCacheInformer make.
struct BinderCaches {
  const kube::SharedInformer* bind_requests = nullptr;
  const kube::SharedInformer* pods = nullptr;
  const kube::SharedInformer* nodes = nullptr;
};

// Index of pods by spec.nodeName (the pod informer's, for PodQuery::node_name).
inline constexpr char kPodNodeNameIndex[] = "spec.nodeName";

// The pod cache decodes a pod into api::Pod only when a read needs it typed (the BindRequest's
// pod, the pods a query matches): the binder sees every pod event of the cluster and needs few of
// them. These fields and the labels are read from every event with its metadata
// (kube::Object::field / label), so the event handlers, the node index and the query filters
// never decode.
enum PodCacheField : size_t { kPodCacheNodeName = 0, kPodCacheSchedulerName, kPodCachePhase };
// The pod informer of `factory` with that decoder and kPodNodeNameIndex (call before Start()).
StatusOr<kube::SharedInformer*> PodCacheInformer(kube::SharedInformerFactory* factory);

// The BindRequest cache decodes lazily as well; metadata.generation is read from every event
// (the binder's own status writes change nothing else it looks at on an update).
enum BindRequestCacheField : size_t { kBindRequestCacheGeneration = 0 };
kube::SharedInformer* BindRequestCacheInformer(kube::SharedInformerFactory* factory);

// "a=b,c" (label equality, label existence) and "spec.nodeName=n" for a PodQuery.
std::string LabelSelectorOf(const PodQuery& q);
std::string FieldSelectorOf(const PodQuery& q);

class RestBinderClient final : public BinderClient {
 public:
  using EventSink = std::function<void(const BinderEvent&)>;
  RestBinderClient(kube::Client* client, EventSink events)
      : client_(client), events_(std::move(events)) {}

  // Serve reads from these informers while they are synced. Call before reads run concurrently.
  void UseCaches(BinderCaches caches) { caches_ = caches; }

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
                       const std::string& pod_uid, const std::string& node,
                       const std::map<std::string, std::string>& annotations) override;
  Status CreateConfigMap(const api::ConfigMap& cm) override;
  Status MergePatchConfigMap(const std::string& ns, const std::string& name,
                             std::string_view patch) override;
  Status DeleteConfigMap(const std::string& ns, const std::string& name) override;
  Status UpdateBindRequestStatus(const std::string& ns, const std::string& name,
                                 const std::string& uid,
                                 const api::BindRequestStatus& status) override;
  Status DeleteBindRequest(const std::string& ns, const std::string& name,
                           const std::string& uid) override;
  void RecordEvent(const BinderEvent& event) override {
    if (events_) events_(event);
  }

 private:
  kube::Client* client_;
  EventSink events_;
  BinderCaches caches_;
};

}  // namespace kai::binder
