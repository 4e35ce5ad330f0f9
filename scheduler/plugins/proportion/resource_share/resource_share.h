// ResourceShare: one queue's numbers for one resource during a scheduling session.
#pragma once

namespace kai::proportion {

struct ResourceShare {
  // Queue quota (guaranteed amount); kUnlimited = deserves everything.
  double deserved = 0;
  // Result of the resource division for this session.
  double fair_share = 0;
  // Queue limit; kUnlimited = no cap. 0 caps the queue at nothing (KAI's literal semantics).
  double max_allowed = 0;
  double over_quota_weight = 0;
  // Accepted resources of the queue's (and descendants') allocated pods, kept in sync with the
  // session's allocate / evict events.
  double allocated = 0;
  double allocated_not_preemptible = 0;
  // Allocated plus pending requests.
  double request = 0;
  // Normalized historical usage from the usage database (0 without one).
  double usage = 0;

  // What the queue could use: its request, capped by its limit.
  double RequestableShare() const;
  // What the queue may hold without being reclaimed: max(deserved, fair share) capped by the
  // limit; the limit itself when deserved is unlimited.
  double AllocatableShare() const;

  bool operator==(const ResourceShare&) const = default;
};

}  // namespace kai::proportion
