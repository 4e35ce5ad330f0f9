#include "kube/record/event_sink.h"

#include "api/codec.h"
#include "kube/rest/client.h"
#include "kube/rest/resource.h"

namespace kai::record {

StatusOr<api::Event> ClientEventSink::Create(const api::Event& event) {
  KAI_ASSIGN_OR_RETURN(std::string json,
                       client_->Create(kube::GvrOf<api::Event>(), event.metadata.namespace_,
                                       api::EncodeJson(event)));
  return api::Decode<api::Event>(json);
}

StatusOr<api::Event> ClientEventSink::Patch(const api::Event& event, std::string_view patch) {
  KAI_ASSIGN_OR_RETURN(
      std::string json,
      client_->Patch(kube::GvrOf<api::Event>(), event.metadata.namespace_, event.metadata.name,
                     kube::PatchType::kStrategicMerge, patch));
  return api::Decode<api::Event>(json);
}

}  // namespace kai::record
