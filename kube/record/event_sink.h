// EventSink: where recorded events are written (client-go record.EventSink). ClientEventSink
// writes core/v1 Events through a kube::Client: POST to create, strategic-merge PATCH to bump
// count / lastTimestamp / message of a repeated event.
#pragma once

#include <string_view>

#include "api/event.h"
#include "kube/base/statusor.h"

namespace kai::kube {
class Client;
}

namespace kai::record {

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual StatusOr<api::Event> Create(const api::Event& event) = 0;
  virtual StatusOr<api::Event> Patch(const api::Event& event, std::string_view patch) = 0;
};

class ClientEventSink final : public EventSink {
 public:
  explicit ClientEventSink(kube::Client* client) : client_(client) {}
  StatusOr<api::Event> Create(const api::Event& event) override;
  StatusOr<api::Event> Patch(const api::Event& event, std::string_view patch) override;

 private:
  kube::Client* const client_;
};

}  // namespace kai::record
