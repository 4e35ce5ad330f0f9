// Binding (POST pods/{name}/binding) and Eviction (POST pods/{name}/eviction, policy/v1).
#pragma once

#include "api/codec.h"
#include "api/meta.h"
#include "api/type_info.h"

namespace kai::api {

struct Binding {
  static constexpr TypeInfo kTypeInfo{"", "v1", "Binding", "bindings", true};
  ObjectMeta metadata;
  ObjectReference target;  // kind Node, name <node>
  RawDocument raw;
  bool operator==(const Binding&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("target", s.target);
  }
};
KAI_API_DECLARE_CODEC(Binding);

struct Eviction {
  static constexpr TypeInfo kTypeInfo{"policy", "v1", "Eviction", "evictions", true};
  ObjectMeta metadata;
  RawJson delete_options;
  RawDocument raw;
  bool operator==(const Eviction&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("deleteOptions", s.delete_options);
  }
};
KAI_API_DECLARE_CODEC(Eviction);

}  // namespace kai::api
