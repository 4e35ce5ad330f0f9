// SchedulerWriter: every API write the scheduler makes, as one narrow interface (the I/O seam of
// KAI's cache: BindRequest client, evictor, status updater, event recorder). The live
// implementation goes through the REST client; FakeSchedulerWriter records the calls for tests.
//
// Patch bodies are complete request bodies in the patch type the method names, so the real
// implementation only sends them.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "api/bind_request.h"
#include "kube/base/statusor.h"

namespace kai::scheduler {

// The object an event is about (core/v1 ObjectReference fields client-go's recorder fills).
struct EventTarget {
  std::string kind;         // Pod, PodGroup
  std::string api_version;  // v1, scheduling.run.ai/v2alpha2
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
  bool operator==(const EventTarget&) const = default;
};

// One event as client-go's EventRecorder.(Annotated)Eventf gets it. Aggregation, naming and
// counting are the recorder's business.
struct EventRecord {
  EventTarget object;
  std::string type;  // Normal | Warning
  std::string reason;
  std::string message;
  std::map<std::string, std::string> annotations;  // AnnotatedEventf (eviction events)
  bool operator==(const EventRecord&) const = default;
};

class SchedulerWriter {
 public:
  virtual ~SchedulerWriter() = default;

  // POST scheduling.run.ai/v1alpha2 bindrequests; returns the created object.
  virtual StatusOr<api::BindRequest> CreateBindRequest(const api::BindRequest& br) = 0;
  // With the uid as a precondition (ours: a BindRequest created since under the same name is
  // another one, answered 409 Conflict instead of deleted).
  virtual Status DeleteBindRequest(const std::string& ns, const std::string& name,
                                   const std::string& uid) = 0;
  // GET of one BindRequest: the answer to a create whose outcome is unknown.
  virtual StatusOr<api::BindRequest> GetBindRequest(const std::string& ns,
                                                    const std::string& name) = 0;
  // Eviction is a DELETE of the pod (KAI default_evictor), default grace period, with the
  // victim's uid as a precondition (ours: a pod created again under the victim's name since the
  // snapshot is another pod, answered 409 Conflict instead of deleted).
  virtual Status DeletePod(const std::string& ns, const std::string& name,
                           const std::string& uid) = 0;
  // application/strategic-merge-patch+json on the pod (labels).
  virtual Status PatchPod(const std::string& ns, const std::string& name,
                          std::string_view patch) = 0;
  // application/strategic-merge-patch+json on pods/status (conditions).
  virtual Status PatchPodStatus(const std::string& ns, const std::string& name,
                                std::string_view patch) = 0;
  // application/json-patch+json on the PodGroup with this uid (annotations); returns the new
  // resourceVersion. A PodGroup created since under the name is not patched: 409 Conflict.
  virtual StatusOr<std::string> PatchPodGroup(const std::string& ns, const std::string& name,
                                              const std::string& uid, std::string_view patch) = 0;
  // The same on podgroups/status (scheduling conditions).
  virtual StatusOr<std::string> PatchPodGroupStatus(const std::string& ns, const std::string& name,
                                                    const std::string& uid,
                                                    std::string_view patch) = 0;
  // Hands an event to the recorder (never fails: the recorder drops on overload, as client-go).
  virtual void RecordEvent(const EventRecord& event) = 0;
};

}  // namespace kai::scheduler
