// RestSchedulerWriter: the SchedulerWriter over the REST client (kube/rest), i.e. the real API
// writes of kai-scheduler. Events go to an EventSink (the event recorder in the run mode).
#pragma once

#include <functional>

#include "kube/rest/client.h"
#include "scheduler/outputs/scheduler_writer.h"

namespace kai::scheduler {

class RestSchedulerWriter final : public SchedulerWriter {
 public:
  using EventSink = std::function<void(const EventRecord&)>;
  RestSchedulerWriter(kube::Client* client, EventSink events)
      : client_(client), events_(std::move(events)) {}

  StatusOr<api::BindRequest> CreateBindRequest(const api::BindRequest& br) override;
  Status DeleteBindRequest(const std::string& ns, const std::string& name,
                           const std::string& uid) override;
  StatusOr<api::BindRequest> GetBindRequest(const std::string& ns,
                                            const std::string& name) override;
  Status DeletePod(const std::string& ns, const std::string& name, const std::string& uid) override;
  Status PatchPod(const std::string& ns, const std::string& name, std::string_view patch) override;
  Status PatchPodStatus(const std::string& ns, const std::string& name,
                        std::string_view patch) override;
  StatusOr<std::string> PatchPodGroup(const std::string& ns, const std::string& name,
                                      const std::string& uid, std::string_view patch) override;
  StatusOr<std::string> PatchPodGroupStatus(const std::string& ns, const std::string& name,
                                            const std::string& uid,
                                            std::string_view patch) override;
  void RecordEvent(const EventRecord& event) override {
    if (events_) events_(event);
  }

 private:
  kube::Client* client_;
  EventSink events_;
};

}  // namespace kai::scheduler
