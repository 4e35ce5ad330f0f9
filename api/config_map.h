// ConfigMap (core/v1): read by the scheduler's ConfigMap predicate, written by the binder for
// GPU sharing.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "api/codec.h"
#include "api/meta.h"
#include "api/type_info.h"

namespace kai::api {

struct ConfigMap {
  static constexpr TypeInfo kTypeInfo{"", "v1", "ConfigMap", "configmaps", true};
  ObjectMeta metadata;
  std::map<std::string, std::string> data;
  std::map<std::string, std::string> binary_data;  // base64 text, kept as is
  std::optional<bool> immutable;
  RawDocument raw;
  bool operator==(const ConfigMap&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("data", s.data);
    v("binaryData", s.binary_data);
    v("immutable", s.immutable);
  }
};
KAI_API_DECLARE_CODEC(ConfigMap);

}  // namespace kai::api
