// Test helpers: terse construction of queues and tables.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "kube/base/statusor.h"
#include "scheduler/plugins/proportion/resource_share/queue_table.h"

namespace kai::proportion::testing {

// A fixed epoch plus `minutes`, so that creation order is explicit in tests.
inline WallTime Minute(int minutes) {
  return WallTime{} + std::chrono::hours(24 * 365 * 55) + std::chrono::minutes(minutes);
}

class QueueBuilder {
 public:
  explicit QueueBuilder(const std::string& uid) {
    q_.uid = uid;
    q_.name = uid;
  }
  QueueBuilder& Parent(std::string parent) {
    q_.parent = std::move(parent);
    return *this;
  }
  QueueBuilder& Priority(int priority) {
    q_.priority = priority;
    return *this;
  }
  QueueBuilder& Created(int minute) {
    q_.creation_time = Minute(minute);
    return *this;
  }
  QueueBuilder& Name(std::string name) {
    q_.name = std::move(name);
    return *this;
  }
  // deserved, over-quota weight, limit, request of one resource.
  QueueBuilder& Res(ResourceName r, double deserved, double weight, double limit, double request) {
    ResourceShare& s = q_.share(r);
    s.deserved = deserved;
    s.over_quota_weight = weight;
    s.max_allowed = limit;
    s.request = request;
    return *this;
  }
  QueueBuilder& Gpu(double deserved, double weight, double limit, double request) {
    return Res(ResourceName::kGpu, deserved, weight, limit, request);
  }
  QueueBuilder& Share(ResourceName r, const ResourceShare& s) {
    q_.share(r) = s;
    return *this;
  }
  QueueBuilder& Allocated(const ResourceQuantities& a) {
    for (ResourceName r : kAllResources) q_.share(r).allocated = a[r];
    return *this;
  }
  QueueBuilder& AllocatedNonPreemptible(const ResourceQuantities& a) {
    for (ResourceName r : kAllResources) q_.share(r).allocated_not_preemptible = a[r];
    return *this;
  }
  QueueBuilder& FairShare(const ResourceQuantities& f) {
    for (ResourceName r : kAllResources) q_.share(r).fair_share = f[r];
    return *this;
  }
  QueueBuilder& Deserved(const ResourceQuantities& d) {
    for (ResourceName r : kAllResources) q_.share(r).deserved = d[r];
    return *this;
  }
  QueueBuilder& MaxAllowed(const ResourceQuantities& m) {
    for (ResourceName r : kAllResources) q_.share(r).max_allowed = m[r];
    return *this;
  }
  QueueBuilder& Usage(ResourceName r, double usage) {
    q_.share(r).usage = usage;
    return *this;
  }
  operator QueueAttributes() const { return q_; }  // NOLINT(google-explicit-constructor)
  QueueAttributes Build() const { return q_; }

 private:
  QueueAttributes q_;
};

inline QueueTable MakeTable(std::vector<QueueAttributes> queues) {
  StatusOr<QueueTable> t = QueueTable::Build(std::move(queues));
  CHECK(t.ok()) << t.status();
  return std::move(t).value();
}

// The table indices of `uids`, in the given order.
inline std::vector<QueueIndex> Indices(const QueueTable& t, const std::vector<std::string>& uids) {
  std::vector<QueueIndex> out;
  for (const std::string& uid : uids) {
    QueueIndex i = t.Find(uid);
    CHECK_NE(i, kNoQueue) << uid;
    out.push_back(i);
  }
  return out;
}

inline double GpuFairShare(const QueueTable& t, const std::string& uid) {
  return t[t.Find(uid)].share(ResourceName::kGpu).fair_share;
}

}  // namespace kai::proportion::testing
