#include "kube/leaderelection/leader_elector.h"

#include <glog/logging.h>
#include <unistd.h>

#include "kube/metrics/registry.h"
#include "kube/rest/errors.h"

namespace kai::leaderelection {

using std::chrono::duration_cast;
using std::chrono::seconds;

struct LeaderElector::Metrics {
  Metrics(metrics::Registry* r, const std::string& name)
      : master(r->RegisterGauge("leader_election_master_status",
                                "Gauge of if the reporting system is master of the relevant "
                                "lease, 0 indicates backup, 1 indicates master. 'name' is the "
                                "string used to identify the lease. Please make sure to group by "
                                "name.",
                                {"name"})
                   .WithLabelValues({name})),
        slowpath(r->RegisterCounter("leader_election_slowpath_total",
                                    "Total number of slow path exercised in renewing leader "
                                    "leases. 'name' is the string used to identify the lease. "
                                    "Please make sure to group by name.",
                                    {"name"})
                     .WithLabelValues({name})) {}
  metrics::Gauge& master;
  metrics::Counter& slowpath;
};

Status ValidateConfig(const LeaderElectionConfig& c) {
  if (c.lease_duration <= c.renew_deadline) {
    return InvalidArgumentError(
        "leader election: leaseDuration must be greater than renewDeadline");
  }
  if (c.renew_deadline <= duration_cast<Duration>(c.retry_period * kJitterFactor)) {
    return InvalidArgumentError(
        "leader election: renewDeadline must be greater than retryPeriod*JitterFactor (1.2)");
  }
  if (c.lease_duration <= Duration::zero()) {
    return InvalidArgumentError("leader election: leaseDuration must be greater than zero");
  }
  if (c.renew_deadline <= Duration::zero()) {
    return InvalidArgumentError("leader election: renewDeadline must be greater than zero");
  }
  if (c.retry_period <= Duration::zero()) {
    return InvalidArgumentError("leader election: retryPeriod must be greater than zero");
  }
  if (!c.callbacks.on_started_leading) {
    return InvalidArgumentError("leader election: OnStartedLeading callback must not be nil");
  }
  if (!c.callbacks.on_stopped_leading) {
    return InvalidArgumentError("leader election: OnStoppedLeading callback must not be nil");
  }
  if (c.lock == nullptr) return InvalidArgumentError("leader election: Lock must not be nil");
  if (c.lock->Identity().empty()) {
    return InvalidArgumentError("leader election: Lock identity is empty");
  }
  return Status::OK();
}

std::string DefaultIdentity(Random* random) {
  char host[256] = {0};
  if (::gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return std::string(host) + "_" + random->Uuid();
}

StatusOr<std::unique_ptr<LeaderElector>> LeaderElector::New(LeaderElectionConfig config) {
  KAI_RETURN_IF_ERROR(ValidateConfig(config));
  return std::unique_ptr<LeaderElector>(new LeaderElector(std::move(config)));
}

LeaderElector::LeaderElector(LeaderElectionConfig config)
    : config_(std::move(config)),
      clock_(config_.clock != nullptr ? config_.clock : RealClock::Get()),
      random_(config_.random != nullptr ? config_.random : SeededRandom::Default()),
      identity_(config_.lock->Identity()) {
  if (config_.name.empty()) config_.name = config_.lock->Describe();
  if (config_.registry != nullptr) {
    metrics_ = std::make_unique<Metrics>(config_.registry, config_.name);
  }
}

LeaderElector::~LeaderElector() {
  Stop();
  if (started_thread_.joinable()) started_thread_.join();
}

void LeaderElector::Stop() {
  std::lock_guard<std::mutex> l(mu_);
  stopped_ = true;
  cv_.notify_all();
}

bool LeaderElector::WaitFor(Duration d) {
  std::unique_lock<std::mutex> l(mu_);
  const MonoTime deadline = clock_->NowMonotonic() + d;
  while (!stopped_) {
    if (clock_->WaitUntil(cv_, l, deadline)) return !stopped_;
  }
  return false;
}

Duration LeaderElector::Jittered(Duration d) {
  // wait.Jitter(d, maxFactor): d + rand[0,1) * maxFactor * d.
  return d + duration_cast<Duration>(d * (random_->UniformDouble() * kJitterFactor));
}

void LeaderElector::SetObservedRecord(const LeaderElectionRecord& record) {
  std::lock_guard<std::mutex> l(mu_);
  observed_record_ = record;
  observed_time_ = clock_->NowMonotonic();
}

LeaderElectionRecord LeaderElector::ObservedRecord() const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_record_;
}

bool LeaderElector::IsLeader() const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_record_.holder_identity == identity_;
}

std::string LeaderElector::GetLeader() const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_record_.holder_identity;
}

bool LeaderElector::IsLeaseValid(MonoTime now) const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_time_ + seconds(observed_record_.lease_duration_seconds) > now;
}

Status LeaderElector::Check(Duration tolerance) const {
  std::lock_guard<std::mutex> l(mu_);
  if (observed_record_.holder_identity != identity_) return Status::OK();
  const MonoTime now = clock_->NowMonotonic();
  if (observed_time_ + config_.lease_duration + tolerance < now) {
    return UnavailableError("failed election to renew leadership on lease " + config_.name);
  }
  return Status::OK();
}

namespace {

// Lease times are MicroTime on the wire; keeping microseconds here makes a record we wrote
// compare equal to the same record read back.
WallTime MicroNow(Clock* clock) {
  return std::chrono::time_point_cast<std::chrono::microseconds>(clock->Now());
}

}  // namespace

bool LeaderElector::TryAcquireOrRenew() {
  const WallTime now = MicroNow(clock_);
  const MonoTime mono_now = clock_->NowMonotonic();
  LeaderElectionRecord record;
  record.holder_identity = identity_;
  record.lease_duration_seconds =
      static_cast<int>(duration_cast<seconds>(config_.lease_duration).count());
  record.renew_time = now;
  record.acquire_time = now;

  // 1. Fast path: the leader updates optimistically against the lease it last wrote.
  if (IsLeader() && IsLeaseValid(mono_now)) {
    const LeaderElectionRecord old = ObservedRecord();
    record.acquire_time = old.acquire_time;
    record.leader_transitions = old.leader_transitions;
    const Status s = config_.lock->Update(record);
    if (s.ok()) {
      SetObservedRecord(record);
      return true;
    }
    LOG(ERROR) << "Failed to update lock optimistically: " << s << ", falling back to slow path";
  }

  // 2. Get or create the record.
  StatusOr<LeaderElectionRecord> old = config_.lock->Get();
  if (!old.ok()) {
    if (!kube::IsNotFound(old.status())) {
      LOG(ERROR) << "error retrieving resource lock " << config_.lock->Describe() << ": "
                 << old.status();
      return false;
    }
    const Status s = config_.lock->Create(record);
    if (!s.ok()) {
      LOG(ERROR) << "error initially creating leader election record: " << s;
      return false;
    }
    SetObservedRecord(record);
    return true;
  }

  // 3. A record changed since we last looked restarts its expiry from now (our clock).
  if (*old != ObservedRecord()) SetObservedRecord(*old);
  if (!old->holder_identity.empty() && IsLeaseValid(mono_now) && !IsLeader()) {
    VLOG(4) << "lock is held by " << old->holder_identity << " and has not yet expired";
    return false;
  }

  // 4. Take it (or renew on the slow path).
  if (IsLeader()) {
    record.acquire_time = old->acquire_time;
    record.leader_transitions = old->leader_transitions;
    if (metrics_) metrics_->slowpath.Inc();
  } else {
    record.leader_transitions = old->leader_transitions + 1;
  }
  const Status s = config_.lock->Update(record);
  if (!s.ok()) {
    // 409 Conflict: another candidate updated it first.
    LOG(ERROR) << "Failed to update lock: " << s;
    return false;
  }
  SetObservedRecord(record);
  return true;
}

bool LeaderElector::Release() {
  if (!IsLeader()) return true;
  const WallTime now = MicroNow(clock_);
  LeaderElectionRecord record;
  record.leader_transitions = ObservedRecord().leader_transitions;
  record.lease_duration_seconds = 1;
  record.renew_time = now;
  record.acquire_time = now;
  const Status s = config_.lock->Update(record);
  if (!s.ok()) {
    LOG(ERROR) << "Failed to release lock " << config_.lock->Describe() << ": " << s;
    return false;
  }
  SetObservedRecord(record);
  LOG(INFO) << "released lease " << config_.lock->Describe();
  return true;
}

void LeaderElector::MaybeReportTransition() {
  std::string holder;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (observed_record_.holder_identity == reported_leader_) return;
    reported_leader_ = observed_record_.holder_identity;
    holder = reported_leader_;
  }
  if (config_.callbacks.on_new_leader) config_.callbacks.on_new_leader(holder);
}

bool LeaderElector::Acquire() {
  const std::string desc = config_.lock->Describe();
  LOG(INFO) << "attempting to acquire leader lease " << desc << "...";
  while (true) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopped_) return false;
    }
    const bool succeeded = TryAcquireOrRenew();
    MaybeReportTransition();
    if (succeeded) {
      config_.lock->RecordEvent("became leader");
      if (metrics_) metrics_->master.Set(1);
      LOG(INFO) << "successfully acquired lease " << desc;
      return true;
    }
    VLOG(4) << "failed to acquire lease " << desc;
    if (!WaitFor(Jittered(config_.retry_period))) return false;
  }
}

void LeaderElector::Renew() {
  const std::string desc = config_.lock->Describe();
  while (true) {
    // PollImmediateUntil(RetryPeriod, tryAcquireOrRenew, RenewDeadline).
    const MonoTime deadline = clock_->NowMonotonic() + config_.renew_deadline;
    bool renewed = false;
    bool stopped = false;
    while (true) {
      if (TryAcquireOrRenew()) {
        renewed = true;
        break;
      }
      const MonoTime now = clock_->NowMonotonic();
      if (now >= deadline) break;
      if (!WaitFor(std::min(config_.retry_period, deadline - now))) {
        stopped = true;
        break;
      }
      if (clock_->NowMonotonic() >= deadline) break;
    }
    MaybeReportTransition();
    if (stopped) return;
    if (!renewed) {
      if (metrics_) metrics_->master.Set(0);
      LOG(INFO) << "failed to renew lease " << desc << ": timed out waiting for the condition";
      return;
    }
    VLOG(5) << "successfully renewed lease " << desc;
    if (!WaitFor(config_.retry_period)) return;
  }
}

void LeaderElector::Run() {
  if (Acquire()) {
    started_thread_ = std::thread([this] { config_.callbacks.on_started_leading(); });
    Renew();
    bool stopped;
    {
      std::lock_guard<std::mutex> l(mu_);
      stopped = stopped_;
    }
    if (stopped && config_.release_on_cancel) Release();
    if (metrics_) metrics_->master.Set(0);
  }
  config_.callbacks.on_stopped_leading();
  if (started_thread_.joinable()) started_thread_.join();
}

}  // namespace kai::leaderelection
