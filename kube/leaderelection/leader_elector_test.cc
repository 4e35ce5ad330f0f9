#include "kube/leaderelection/leader_elector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <thread>

#include "api/codec.h"
#include "kube/base/fake_clock.h"
#include "kube/metrics/registry.h"
#include "kube/rest/errors.h"
#include "kube/rest/fake_client.h"
#include "kube/testing/eventually.h"

namespace kai::leaderelection {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::HasSubstr;

// No jitter: retries exactly every RetryPeriod.
class ZeroRandom final : public Random {
 public:
  uint64_t Uniform(uint64_t) override { return 0; }
  double UniformDouble() override { return 0; }
};

using ::kai::testing::Eventually;

// A FakeClock that also knows when every waiting thread has seen the current time: Step()
// advances only once `n` threads are blocked in WaitUntil on a deadline still ahead, having
// entered it after the last advance. So a test moves time only when the electors have reacted
// to the previous instant, however slowly the machine schedules them.
class SteppedClock final : public Clock {
 public:
  WallTime Now() const override { return inner_.Now(); }
  MonoTime NowMonotonic() const override { return inner_.NowMonotonic(); }
  bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 MonoTime deadline) override {
    const auto id = std::this_thread::get_id();
    {
      std::lock_guard<std::mutex> l(mu_);
      waits_[id] = {inner_.NowMonotonic(), deadline, true};
    }
    const bool r = inner_.WaitUntil(cv, lock, deadline);
    {
      std::lock_guard<std::mutex> l(mu_);
      waits_[id].inside = false;
    }
    return r;
  }
  void Advance(Duration d) { inner_.Advance(d); }
  int NumWaiters() const { return inner_.NumWaiters(); }
  int Settled() const {
    const MonoTime now = inner_.NowMonotonic();
    std::lock_guard<std::mutex> l(mu_);
    int n = 0;
    for (const auto& [id, w] : waits_) n += w.inside && w.entered == now && w.deadline > now;
    return n;
  }
  // Waits until `n` threads settled, then advances (unless `done` turned true meanwhile).
  void Step(int n, Duration d, const std::function<bool()>& done = nullptr) {
    const auto give_up = std::chrono::steady_clock::now() + seconds(60);
    while (Settled() < n) {
      if (done && done()) return;
      ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "threads never settled";
      std::this_thread::yield();
    }
    Advance(d);
  }

 private:
  struct Wait {
    MonoTime entered;
    MonoTime deadline;
    bool inside;
  };
  FakeClock inner_;
  mutable std::mutex mu_;
  std::map<std::thread::id, Wait> waits_;
};

WallTime Micro(WallTime t) { return std::chrono::time_point_cast<std::chrono::microseconds>(t); }

class LeaderElectorTest : public ::testing::Test {
 protected:
  std::unique_ptr<LeaderElector> Elector(LeaseLock* lock, bool release_on_cancel = true) {
    LeaderElectionConfig c;
    c.lock = lock;
    c.release_on_cancel = release_on_cancel;
    c.clock = &clock_;
    c.random = &random_;
    c.registry = &registry_;
    c.name = "kai-scheduler";
    c.callbacks.on_started_leading = [this] { ++started_; };
    c.callbacks.on_stopped_leading = [this] {
      stopped_at_ = clock_.NowMonotonic();
      ++stopped_;
    };
    auto e = LeaderElector::New(std::move(c));
    EXPECT_TRUE(e.ok()) << e.status();
    return std::move(e).value();
  }
  api::Lease ReadLease() {
    auto json = fake_.Get(kube::GvrOf<api::Lease>(), "kai", "lock");
    EXPECT_TRUE(json.ok()) << json.status();
    auto lease = api::Decode<api::Lease>(json.value_or("{}"));
    EXPECT_TRUE(lease.ok());
    return lease.value_or(api::Lease());
  }
  // Another writer changes the lease (a different process renewing or taking it).
  void WriteLease(const std::string& holder, int transitions = 0, int renew_offset = 0) {
    api::Lease lease;
    auto json = fake_.Get(kube::GvrOf<api::Lease>(), "kai", "lock");
    if (json.ok()) lease = *api::Decode<api::Lease>(*json);
    lease.metadata.namespace_ = "kai";
    lease.metadata.name = "lock";
    lease.spec.holder_identity = holder;
    lease.spec.lease_duration_seconds = 15;
    // A renewTime far in the past: never compared with our clock.
    lease.spec.renew_time = api::MicroTime{WallTime(seconds(946684800 + renew_offset))};
    lease.spec.lease_transitions = transitions;
    auto r = json.ok()
                 ? fake_.Update(kube::GvrOf<api::Lease>(), "kai", "lock", api::EncodeJson(lease))
                 : fake_.Create(kube::GvrOf<api::Lease>(), "kai", api::EncodeJson(lease));
    ASSERT_TRUE(r.ok()) << r.status();
  }
  int CountActions(const std::string& verb) {
    int n = 0;
    for (const auto& a : fake_.actions()) n += a.verb == verb;
    return n;
  }

  SteppedClock clock_;
  ZeroRandom random_;
  metrics::Registry registry_;
  kube::FakeClient fake_{{.clock = &clock_}};
  std::atomic<int> started_{0}, stopped_{0};
  std::atomic<MonoTime> stopped_at_{};
};

TEST(ValidateConfigTest, TimingRulesAndRequiredFields) {
  kube::FakeClient fake;
  LeaseLock lock(&fake, "ns", "l", "me");
  LeaderElectionConfig c;
  c.lock = &lock;
  c.callbacks.on_started_leading = [] {};
  c.callbacks.on_stopped_leading = [] {};
  EXPECT_TRUE(ValidateConfig(c).ok());  // 15 s / 10 s / 2 s
  auto bad = [&](auto mutate) {
    LeaderElectionConfig b = c;
    mutate(b);
    return std::string(ValidateConfig(b).message());
  };
  EXPECT_THAT(bad([](auto& b) { b.renew_deadline = seconds(15); }),
              HasSubstr("leaseDuration must be greater than renewDeadline"));
  EXPECT_THAT(bad([](auto& b) { b.retry_period = milliseconds(8334); }),
              HasSubstr("renewDeadline must be greater than retryPeriod*JitterFactor"));
  EXPECT_TRUE(ValidateConfig([&] {
                LeaderElectionConfig b = c;
                b.retry_period = milliseconds(8333);  // 1.2 x 8.333 s < 10 s
                return b;
              }())
                  .ok());
  EXPECT_THAT(bad([](auto& b) { b.retry_period = Duration::zero(); }),
              HasSubstr("retryPeriod must be greater than zero"));
  EXPECT_THAT(bad([](auto& b) { b.callbacks.on_started_leading = nullptr; }),
              HasSubstr("OnStartedLeading"));
  EXPECT_THAT(bad([](auto& b) { b.callbacks.on_stopped_leading = nullptr; }),
              HasSubstr("OnStoppedLeading"));
  EXPECT_THAT(bad([](auto& b) { b.lock = nullptr; }), HasSubstr("Lock must not be nil"));
  LeaseLock anonymous(&fake, "ns", "l", "");
  EXPECT_THAT(bad([&](auto& b) { b.lock = &anonymous; }), HasSubstr("identity is empty"));
  EXPECT_FALSE(LeaderElector::New(LeaderElectionConfig{}).ok());
}

TEST(IdentityTest, HostnameUnderscoreUuid) {
  SeededRandom random(1);
  const std::string id = DefaultIdentity(&random);
  const size_t us = id.rfind('_');
  ASSERT_NE(us, std::string::npos);
  EXPECT_GT(us, 0u);
  EXPECT_EQ(id.size() - us - 1, 36u);
}

TEST_F(LeaderElectorTest, CreatesTheLeaseWhenAbsent) {
  LeaseLock lock(&fake_, "kai", "lock", "me");
  auto e = Elector(&lock);
  EXPECT_FALSE(e->IsLeader());
  EXPECT_TRUE(e->TryAcquireOrRenew());
  EXPECT_TRUE(e->IsLeader());
  EXPECT_EQ(e->GetLeader(), "me");
  const api::Lease lease = ReadLease();
  EXPECT_EQ(lease.spec.holder_identity, "me");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 15);
  EXPECT_EQ(lease.spec.lease_transitions, 0);
  EXPECT_EQ(lease.spec.acquire_time->value, Micro(clock_.Now()));
  EXPECT_EQ(lease.spec.renew_time->value, Micro(clock_.Now()));
}

TEST_F(LeaderElectorTest, RenewalOnTheFastPathKeepsAcquireTime) {
  LeaseLock lock(&fake_, "kai", "lock", "me");
  auto e = Elector(&lock);
  ASSERT_TRUE(e->TryAcquireOrRenew());
  const WallTime acquired = Micro(clock_.Now());
  clock_.Advance(seconds(2));
  fake_.ClearActions();
  EXPECT_TRUE(e->TryAcquireOrRenew());
  EXPECT_EQ(CountActions("get"), 0) << "the leader updates without reading first";
  EXPECT_EQ(CountActions("update"), 1);
  const api::Lease lease = ReadLease();
  EXPECT_EQ(lease.spec.acquire_time->value, acquired);
  EXPECT_EQ(lease.spec.renew_time->value, Micro(clock_.Now()));
  EXPECT_EQ(lease.spec.lease_transitions, 0);
}

TEST_F(LeaderElectorTest, CandidateTakesOverOnlyAfterLeaseDurationOfUnchangedRecordByItsClock) {
  WriteLease("other", 3);
  LeaseLock lock(&fake_, "kai", "lock", "me");
  auto e = Elector(&lock);
  // The renewTime is 26 years old, but we only just observed the record.
  EXPECT_FALSE(e->TryAcquireOrRenew());
  EXPECT_EQ(e->GetLeader(), "other");
  clock_.Advance(seconds(10));
  WriteLease("other", 3, 1);  // the holder renews: expiry restarts from this observation
  EXPECT_FALSE(e->TryAcquireOrRenew());
  clock_.Advance(seconds(14));
  EXPECT_FALSE(e->TryAcquireOrRenew());
  clock_.Advance(seconds(1));
  EXPECT_TRUE(e->TryAcquireOrRenew());
  const api::Lease lease = ReadLease();
  EXPECT_EQ(lease.spec.holder_identity, "me");
  EXPECT_EQ(lease.spec.lease_transitions, 4);
  EXPECT_EQ(lease.spec.acquire_time->value, Micro(clock_.Now()));
}

TEST_F(LeaderElectorTest, ConflictMeansTheRaceWasLost) {
  WriteLease("other");
  LeaseLock lock(&fake_, "kai", "lock", "me");
  auto e = Elector(&lock);
  EXPECT_FALSE(e->TryAcquireOrRenew());
  clock_.Advance(seconds(15));
  fake_.InjectError(
      "update", "leases",
      kube::NewConflict("leases.coordination.k8s.io", "lock", "the object has been modified"));
  EXPECT_FALSE(e->TryAcquireOrRenew());
  EXPECT_FALSE(e->IsLeader());
  EXPECT_TRUE(e->TryAcquireOrRenew());  // the next attempt succeeds
}

TEST_F(LeaderElectorTest, LeaderNoticesAnotherHolder) {
  LeaseLock lock(&fake_, "kai", "lock", "me");
  auto e = Elector(&lock);
  ASSERT_TRUE(e->TryAcquireOrRenew());
  WriteLease("thief", 1);  // e.g. our renewals were lost and someone took it
  clock_.Advance(seconds(2));
  fake_.ClearActions();
  EXPECT_FALSE(e->TryAcquireOrRenew());
  EXPECT_EQ(CountActions("update"), 1) << "optimistic update got 409";
  EXPECT_EQ(CountActions("get"), 1) << "then the slow path read the new holder";
  EXPECT_FALSE(e->IsLeader());
  EXPECT_EQ(e->GetLeader(), "thief");
  EXPECT_THAT(registry_.Expose(),
              HasSubstr("leader_election_slowpath_total{name=\"kai-scheduler\"} 0\n"));
}

TEST_F(LeaderElectorTest, GetErrorsOtherThanNotFoundFail) {
  LeaseLock lock(&fake_, "kai", "lock", "me");
  auto e = Elector(&lock);
  fake_.InjectError("get", "leases", kube::NewInternalError("etcd down"));
  EXPECT_FALSE(e->TryAcquireOrRenew());
  EXPECT_EQ(CountActions("create"), 0);
}

TEST_F(LeaderElectorTest, ReleaseWritesAnEmptyHolderAndOthersTakeOverAtOnce) {
  LeaseLock lock(&fake_, "kai", "lock", "me");
  auto e = Elector(&lock);
  ASSERT_TRUE(e->TryAcquireOrRenew());
  EXPECT_TRUE(e->Release());
  api::Lease lease = ReadLease();
  EXPECT_EQ(lease.spec.holder_identity, std::optional<std::string>(""));
  EXPECT_EQ(lease.spec.lease_duration_seconds, 1);
  EXPECT_EQ(lease.spec.lease_transitions, 0);
  EXPECT_FALSE(e->IsLeader());
  EXPECT_TRUE(e->Release()) << "not leader: nothing to do";

  LeaseLock other_lock(&fake_, "kai", "lock", "other");
  auto other = Elector(&other_lock);
  EXPECT_TRUE(other->TryAcquireOrRenew());
  lease = ReadLease();
  EXPECT_EQ(lease.spec.holder_identity, "other");
  EXPECT_EQ(lease.spec.lease_transitions, 1);
}

TEST_F(LeaderElectorTest, HealthCheckFailsWhenLeaderStopsRenewing) {
  LeaseLock lock(&fake_, "kai", "lock", "me");
  auto e = Elector(&lock);
  EXPECT_TRUE(e->Check().ok());
  ASSERT_TRUE(e->TryAcquireOrRenew());
  clock_.Advance(seconds(35));
  EXPECT_TRUE(e->Check().ok());
  clock_.Advance(seconds(1));
  EXPECT_FALSE(e->Check().ok());
}

TEST_F(LeaderElectorTest, RunLeadsAndReleasesOnStop) {
  LeaseLock lock(&fake_, "kai", "lock", "me");
  auto e = Elector(&lock);
  std::thread run([&] { e->Run(); });
  ASSERT_TRUE(Eventually([&] { return started_.load() == 1; }));
  EXPECT_THAT(registry_.Expose(),
              HasSubstr("leader_election_master_status{name=\"kai-scheduler\"} 1\n"));
  // Renewals every RetryPeriod.
  clock_.Step(1, seconds(2));
  ASSERT_TRUE(Eventually([&] { return CountActions("update") >= 1; }));
  e->Stop();
  run.join();
  EXPECT_EQ(stopped_.load(), 1);
  EXPECT_EQ(ReadLease().spec.holder_identity, std::optional<std::string>(""));
  EXPECT_THAT(registry_.Expose(),
              HasSubstr("leader_election_master_status{name=\"kai-scheduler\"} 0\n"));
}

TEST_F(LeaderElectorTest, StopWhileWaitingToAcquireNeverLeads) {
  WriteLease("other");
  LeaseLock lock(&fake_, "kai", "lock", "me");
  auto e = Elector(&lock);
  std::thread run([&] { e->Run(); });
  ASSERT_TRUE(Eventually([&] { return clock_.NumWaiters() > 0; }));
  e->Stop();
  run.join();
  EXPECT_EQ(started_.load(), 0);
  EXPECT_EQ(stopped_.load(), 1) << "OnStoppedLeading always runs, as in client-go";
  EXPECT_EQ(ReadLease().spec.holder_identity, "other");
}

TEST_F(LeaderElectorTest, LeadershipIsLostWhenRenewalsFailForTheRenewDeadline) {
  LeaseLock lock(&fake_, "kai", "lock", "me");
  auto e = Elector(&lock);
  std::thread run([&] { e->Run(); });
  ASSERT_TRUE(Eventually([&] { return started_.load() == 1; }));
  const MonoTime last_success = clock_.NowMonotonic();
  std::atomic<bool> failing{true};
  fake_.PrependReactor("*", "leases",
                       [&](const kube::FakeAction&) -> std::optional<StatusOr<std::string>> {
                         if (!failing) return std::nullopt;
                         return StatusOr<std::string>(kube::NewInternalError("etcd down"));
                       });
  fake_.ClearActions();
  while (stopped_.load() == 0) {
    clock_.Step(1, milliseconds(250), [&] { return stopped_.load() > 0; });
  }
  run.join();
  failing = false;
  EXPECT_GE(stopped_at_.load() - last_success, seconds(10)) << "gave up before RenewDeadline";
  // Attempts at +2 s (the next renewal) and then every 2 s until +12 s: never more.
  EXPECT_LE(CountActions("update"), 6);
  EXPECT_GE(CountActions("update"), 1);
  EXPECT_EQ(ReadLease().spec.holder_identity, "me") << "a lost lease is not released";
}

TEST_F(LeaderElectorTest, TwoCandidatesExactlyOneLeadsAndTheOtherTakesOverAfterExpiry) {
  std::atomic<int> a_started{0}, b_started{0}, a_stopped{0}, b_stopped{0};
  std::atomic<MonoTime> b_started_at{};
  auto make = [&](LeaseLock* lock, std::atomic<int>* started, std::atomic<int>* stopped,
                  std::atomic<MonoTime>* started_at) {
    LeaderElectionConfig c;
    c.lock = lock;
    c.release_on_cancel = false;  // stopping A below simulates a crash
    c.clock = &clock_;
    c.random = &random_;
    c.callbacks.on_started_leading = [=, this] {
      if (started_at != nullptr) *started_at = clock_.NowMonotonic();
      ++*started;
    };
    c.callbacks.on_stopped_leading = [=] { ++*stopped; };
    return std::move(LeaderElector::New(std::move(c))).value();
  };
  LeaseLock lock_a(&fake_, "kai", "lock", "a");
  LeaseLock lock_b(&fake_, "kai", "lock", "b");
  auto a = make(&lock_a, &a_started, &a_stopped, nullptr);
  std::thread run_a([&] { a->Run(); });
  ASSERT_TRUE(Eventually([&] { return a_started.load() == 1; }));
  auto b = make(&lock_b, &b_started, &b_stopped, &b_started_at);
  std::thread run_b([&] { b->Run(); });
  // Time passes with A renewing: B never leads.
  for (int i = 0; i < 40; ++i) clock_.Step(2, milliseconds(500));
  EXPECT_EQ(b_started.load(), 0);
  EXPECT_TRUE(a->IsLeader());
  EXPECT_FALSE(b->IsLeader());
  EXPECT_EQ(b->GetLeader(), "a");

  // A dies (stops renewing without releasing).
  a->Stop();
  run_a.join();
  const api::Lease last = ReadLease();
  ASSERT_EQ(last.spec.holder_identity, "a");
  const MonoTime a_died = clock_.NowMonotonic();
  while (b_started.load() == 0) {
    clock_.Step(1, milliseconds(250), [&] { return b_started.load() > 0; });
  }
  EXPECT_GE(b_started_at.load() - a_died, seconds(13))
      << "B must wait until A's last renewal is a lease duration old";
  const api::Lease taken = ReadLease();
  EXPECT_EQ(taken.spec.holder_identity, "b");
  EXPECT_EQ(taken.spec.lease_transitions, 1);
  b->Stop();
  run_b.join();
  EXPECT_EQ(a_stopped.load(), 1);
  EXPECT_EQ(b_stopped.load(), 1);
}

}  // namespace
}  // namespace kai::leaderelection
