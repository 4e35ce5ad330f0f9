// FakeBinderClient: an in-memory API server for the binder's tests. Objects get UIDs,
// resourceVersions and creation times; writes are logged in order; any write can be made to
// fail before it happens or after it happened (the answer is lost), to test that reconciling
// again converges.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "controllers/binder/binder_client.h"
#include "kube/base/clock.h"

namespace kai::binder {

// RFC 7386: applies a merge patch to a JSON document.
StatusOr<std::string> ApplyMergePatch(std::string_view doc, std::string_view patch);

class FakeBinderClient : public BinderClient {
 public:
  explicit FakeBinderClient(Clock* clock) : clock_(clock) {}

  struct Call {
    std::string verb;  // CreatePod, DeletePod, MergePatchPod, PatchPodStatus, CreateBinding,
                       // CreateConfigMap, MergePatchConfigMap, DeleteConfigMap,
                       // UpdateBindRequestStatus, DeleteBindRequest
    std::string key;
    std::string body;
  };
  enum class When { kBefore, kAfter };
  // The next call of `verb` fails with `s`; kAfter performs the write first (lost answer).
  void FailNext(const std::string& verb, Status s, When when = When::kBefore) {
    failures_[verb].push_back({std::move(s), when});
  }
  // The n-th write attempt from now on (1-based, any verb) fails.
  void FailWriteNumber(int n, Status s, When when) {
    numbered_failures_[write_attempts_ + n] = Failure{std::move(s), when};
  }
  int write_attempts() const { return write_attempts_; }
  // Runs before every write attempt with its verb: lets a test change the world mid-reconcile.
  std::function<void(const std::string& verb)> before_write;
  // Fails every read of `verb` (GetPod, ListPods, ...) while set.
  void FailReads(const std::string& verb, Status s) { read_failures_[verb] = std::move(s); }
  void ClearReadFailures() { read_failures_.clear(); }

  // Seeding (no log, no failure injection).
  void AddPod(api::Pod pod);
  void AddNode(api::Node node);
  void AddBindRequest(api::BindRequest br);
  void AddConfigMap(api::ConfigMap cm);
  // The simulated kubelet: every reservation pod (namespace `ns`) without a GPU gets
  // run.ai/reserve_for_gpu_index = "GPU-<node>-<k>" (k distinct per node) and phase Running.
  int ReportReservedGpus(const std::string& ns);

  // BinderClient.
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
  void RecordEvent(const BinderEvent& event) override { events.push_back(event); }

  std::vector<Call> CallsOf(const std::string& verb) const;

  std::map<std::string, api::Pod> pods;  // namespace/name
  std::map<std::string, api::Node> nodes;
  std::map<std::string, api::BindRequest> bind_requests;
  std::map<std::string, api::ConfigMap> config_maps;
  std::vector<Call> calls;
  std::vector<BinderEvent> events;
  // Successful bindings per pod key (a pod bound twice is a bug).
  std::map<std::string, int> bindings;

 private:
  struct Failure {
    Status status;
    When when;
  };
  // Runs `write` with failure injection; logs it when it happened.
  Status Write(const std::string& verb, const std::string& key, std::string body,
               const std::function<Status()>& write);
  Status ReadFailure(const std::string& verb) const;
  template <class T>
  void Stamp(T* obj, bool created);

  Clock* clock_;
  int64_t rv_ = 100;
  int64_t uid_ = 0;
  std::map<std::string, std::deque<Failure>> failures_;
  std::map<std::string, Status> read_failures_;
  int write_attempts_ = 0;
  std::map<int, Failure> numbered_failures_;
};

}  // namespace kai::binder
