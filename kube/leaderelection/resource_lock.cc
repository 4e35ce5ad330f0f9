#include "kube/leaderelection/resource_lock.h"

#include "kube/rest/client.h"
#include "kube/rest/resource.h"

namespace kai::leaderelection {

LeaderElectionRecord RecordFromLeaseSpec(const api::LeaseSpec& spec) {
  LeaderElectionRecord r;
  r.holder_identity = spec.holder_identity.value_or("");
  r.lease_duration_seconds = spec.lease_duration_seconds.value_or(0);
  r.leader_transitions = spec.lease_transitions.value_or(0);
  if (spec.acquire_time) r.acquire_time = spec.acquire_time->value;
  if (spec.renew_time) r.renew_time = spec.renew_time->value;
  return r;
}

api::LeaseSpec LeaseSpecFromRecord(const LeaderElectionRecord& record) {
  api::LeaseSpec spec;
  spec.holder_identity = record.holder_identity;
  spec.lease_duration_seconds = record.lease_duration_seconds;
  spec.lease_transitions = record.leader_transitions;
  if (record.acquire_time) spec.acquire_time = api::MicroTime{*record.acquire_time};
  if (record.renew_time) spec.renew_time = api::MicroTime{*record.renew_time};
  return spec;
}

LeaseLock::LeaseLock(kube::Client* client, std::string lease_namespace, std::string lease_name,
                     std::string identity,
                     std::function<void(const api::Lease&, std::string_view)> record_event)
    : client_(client),
      namespace_(std::move(lease_namespace)),
      name_(std::move(lease_name)),
      identity_(std::move(identity)),
      record_event_(std::move(record_event)) {}

StatusOr<LeaderElectionRecord> LeaseLock::Get() {
  KAI_ASSIGN_OR_RETURN(std::string json,
                       client_->Get(kube::GvrOf<api::Lease>(), namespace_, name_));
  KAI_ASSIGN_OR_RETURN(api::Lease lease, api::Decode<api::Lease>(json));
  LeaderElectionRecord record = RecordFromLeaseSpec(lease.spec);
  std::lock_guard<std::mutex> l(mu_);
  lease_ = std::move(lease);
  return record;
}

Status LeaseLock::Create(const LeaderElectionRecord& record) {
  api::Lease lease;
  lease.metadata.namespace_ = namespace_;
  lease.metadata.name = name_;
  lease.spec = LeaseSpecFromRecord(record);
  KAI_ASSIGN_OR_RETURN(std::string json, client_->Create(kube::GvrOf<api::Lease>(), namespace_,
                                                         api::EncodeJson(lease)));
  KAI_ASSIGN_OR_RETURN(api::Lease created, api::Decode<api::Lease>(json));
  std::lock_guard<std::mutex> l(mu_);
  lease_ = std::move(created);
  return Status::OK();
}

Status LeaseLock::Update(const LeaderElectionRecord& record) {
  std::string body;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!lease_.has_value()) {
      return FailedPreconditionError("lease " + Describe() +
                                     " not initialized, call get or create first");
    }
    api::Lease lease = *lease_;
    lease.spec = LeaseSpecFromRecord(record);
    // Carries the resourceVersion we read: a concurrent writer makes this a 409.
    body = api::EncodeJson(lease);
  }
  KAI_ASSIGN_OR_RETURN(std::string json,
                       client_->Update(kube::GvrOf<api::Lease>(), namespace_, name_, body));
  KAI_ASSIGN_OR_RETURN(api::Lease updated, api::Decode<api::Lease>(json));
  std::lock_guard<std::mutex> l(mu_);
  lease_ = std::move(updated);
  return Status::OK();
}

void LeaseLock::RecordEvent(std::string_view message) {
  if (!record_event_) return;
  api::Lease lease;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (lease_.has_value()) {
      lease = *lease_;
    } else {
      lease.metadata.namespace_ = namespace_;
      lease.metadata.name = name_;
    }
  }
  record_event_(lease, identity_ + " " + std::string(message));
}

}  // namespace kai::leaderelection
