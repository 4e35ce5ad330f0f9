// Lease (coordination.k8s.io/v1), used for leader election.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/codec.h"
#include "api/meta.h"
#include "api/type_info.h"

namespace kai::api {

struct LeaseSpec {
  std::optional<std::string> holder_identity;
  std::optional<int32_t> lease_duration_seconds;
  std::optional<MicroTime> acquire_time;
  std::optional<MicroTime> renew_time;
  std::optional<int32_t> lease_transitions;
  bool operator==(const LeaseSpec&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("holderIdentity", s.holder_identity);
    v("leaseDurationSeconds", s.lease_duration_seconds);
    v("acquireTime", s.acquire_time);
    v("renewTime", s.renew_time);
    v("leaseTransitions", s.lease_transitions);
  }
};

struct Lease {
  static constexpr TypeInfo kTypeInfo{"coordination.k8s.io", "v1", "Lease", "leases", true};
  ObjectMeta metadata;
  LeaseSpec spec;
  RawDocument raw;
  bool operator==(const Lease&) const = default;

  template <class S, class V>
  static void Fields(S& s, V& v) {
    v("metadata", s.metadata);
    v("spec", s.spec);
  }
};
KAI_API_DECLARE_CODEC(Lease);

}  // namespace kai::api
