// PriorityClass (scheduling.k8s.io/v1).
#pragma once

#include <cstdint>
#include <string>

#include "api/codec.h"
#include "api/meta.h"
#include "api/type_info.h"

namespace kai::api {

struct PriorityClass {
  static constexpr TypeInfo kTypeInfo{"scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses",
                                      false};
  ObjectMeta metadata;
  int32_t value = 0;
  bool global_default = false;
  std::string description;
  std::string preemption_policy;
  RawDocument raw;
  bool operator==(const PriorityClass&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("value", s.value);
    v("globalDefault", s.global_default);
    v("description", s.description);
    v("preemptionPolicy", s.preemption_policy);
  }
};
KAI_API_DECLARE_CODEC(PriorityClass);

}  // namespace kai::api
