// Event (core/v1), as client-go's recorder writes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/codec.h"
#include "api/meta.h"
#include "api/type_info.h"

namespace kai::api {

struct EventSource {
  std::string component;
  std::string host;
  bool operator==(const EventSource&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("component", s.component);
    v("host", s.host);
  }
};

struct Event {
  static constexpr TypeInfo kTypeInfo{"", "v1", "Event", "events", true};
  ObjectMeta metadata;
  ObjectReference involved_object;
  std::string reason;
  std::string message;
  EventSource source;
  std::optional<WallTime> first_timestamp;
  std::optional<WallTime> last_timestamp;
  int32_t count = 0;
  std::string type;  // Normal, Warning
  std::optional<MicroTime> event_time;
  std::string action;
  std::string reporting_component;
  std::string reporting_instance;
  RawDocument raw;
  bool operator==(const Event&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("involvedObject", s.involved_object);
    v("reason", s.reason);
    v("message", s.message);
    v("source", s.source);
    v("firstTimestamp", s.first_timestamp);
    v("lastTimestamp", s.last_timestamp);
    v("count", s.count);
    v("type", s.type);
    v("eventTime", s.event_time);
    v("action", s.action);
    v("reportingComponent", s.reporting_component);
    v("reportingInstance", s.reporting_instance);
  }
};
KAI_API_DECLARE_CODEC(Event);

}  // namespace kai::api
