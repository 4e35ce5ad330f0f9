// ResourceLock: where the leader-election record lives (client-go tools/leaderelection/
// resourcelock). LeaseLock keeps it in a coordination.k8s.io/v1 Lease through a kube::Client.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "api/lease.h"
#include "kube/base/clock.h"
#include "kube/base/statusor.h"

namespace kai::kube {
class Client;
}

namespace kai::leaderelection {

// resourcelock.LeaderElectionRecord.
struct LeaderElectionRecord {
  std::string holder_identity;  // "" = nobody (released)
  int lease_duration_seconds = 0;
  std::optional<WallTime> acquire_time;
  std::optional<WallTime> renew_time;
  int leader_transitions = 0;
  bool operator==(const LeaderElectionRecord&) const = default;
};

LeaderElectionRecord RecordFromLeaseSpec(const api::LeaseSpec& spec);
api::LeaseSpec LeaseSpecFromRecord(const LeaderElectionRecord& record);

class ResourceLock {
 public:
  virtual ~ResourceLock() = default;
  // The current record; a NotFound error when the lock object does not exist.
  virtual StatusOr<LeaderElectionRecord> Get() = 0;
  virtual Status Create(const LeaderElectionRecord& record) = 0;
  // Optimistic: against the object last read or written (409 Conflict = someone else wrote).
  virtual Status Update(const LeaderElectionRecord& record) = 0;
  virtual void RecordEvent(std::string_view message) {}
  virtual std::string Identity() const = 0;
  virtual std::string Describe() const = 0;  // "namespace/name"
};

class LeaseLock final : public ResourceLock {
 public:
  // `record_event` (optional) receives "<identity> became leader" (for an Event on the Lease).
  LeaseLock(kube::Client* client, std::string lease_namespace, std::string lease_name,
            std::string identity,
            std::function<void(const api::Lease&, std::string_view)> record_event = nullptr);

  StatusOr<LeaderElectionRecord> Get() override;
  Status Create(const LeaderElectionRecord& record) override;
  Status Update(const LeaderElectionRecord& record) override;
  void RecordEvent(std::string_view message) override;
  std::string Identity() const override { return identity_; }
  std::string Describe() const override { return namespace_ + "/" + name_; }

 private:
  kube::Client* const client_;
  const std::string namespace_;
  const std::string name_;
  const std::string identity_;
  const std::function<void(const api::Lease&, std::string_view)> record_event_;
  std::mutex mu_;
  std::optional<api::Lease> lease_;  // last read or written (its resourceVersion)
};

}  // namespace kai::leaderelection
