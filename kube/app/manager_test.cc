#include "kube/app/manager.h"

#include <curl/curl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "api/codec.h"
#include "api/event.h"
#include "api/lease.h"
#include "api/pod.h"
#include "kube/app/informers_runnable.h"
#include "kube/base/fake_clock.h"
#include "kube/cache/factory.h"
#include "kube/controller/controller.h"
#include "kube/metrics/registry.h"
#include "kube/record/event_broadcaster.h"
#include "kube/rest/errors.h"
#include "kube/rest/fake_client.h"
#include "kube/rest/resource.h"
#include "kube/server/http_server.h"
#include "kube/testing/eventually.h"

namespace kai::app {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using ::kai::testing::Eventually;

// An ordered log shared by runnables and fake API reactors.
class EventLog {
 public:
  void Add(std::string e) {
    std::lock_guard<std::mutex> l(mu_);
    events_.push_back(std::move(e));
  }
  std::vector<std::string> events() const {
    std::lock_guard<std::mutex> l(mu_);
    return events_;
  }
  bool Has(const std::string& e) const {
    auto v = events();
    return std::find(v.begin(), v.end(), e) != v.end();
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

class FakeRunnable final : public controller::Runnable {
 public:
  FakeRunnable(std::string name, bool leader, EventLog* log)
      : name_(std::move(name)), leader_(leader), log_(log) {}
  std::string name() const override { return name_; }
  Status Start() override {
    log_->Add("start " + name_);
    return start_status;
  }
  bool Stop(MonoTime) override {
    log_->Add("stop " + name_);
    return stop_in_time;
  }
  bool NeedLeaderElection() const override { return leader_; }

  Status start_status;
  bool stop_in_time = true;

 private:
  std::string name_;
  bool leader_;
  EventLog* log_;
};

struct Reply {
  long code = 0;
  std::string body;
};

size_t Append(char* p, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(p, size * n);
  return size * n;
}

Reply Get(uint16_t port, const std::string& path) {
  CURL* curl = curl_easy_init();
  Reply r;
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + path;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 20L);
  if (curl_easy_perform(curl) == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.code);
  }
  curl_easy_cleanup(curl);
  return r;
}

ManagerOptions Options(metrics::Registry* registry) {
  return {.name = "test",
          .metrics_addr = "127.0.0.1:0",
          .health_addr = "127.0.0.1:0",
          .identity = "me",
          .registry = registry};
}

TEST(ManagerTest, ServesProbesAndMetricsRunsRunnablesAndShutsDownInOrder) {
  metrics::Registry registry;
  EventLog log;
  FakeRunnable webhook("webhook", /*leader=*/false, &log);
  std::atomic<int> reconciles{0};
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  controller::Controller ctrl({.name = "binder", .registry = &registry},
                              [&](const controller::Request&) -> controller::Result {
                                ++reconciles;
                                std::unique_lock<std::mutex> l(mu);
                                cv.wait(l, [&] { return release; });
                                log.Add("reconcile finished");
                                return controller::Result::Done();
                              });
  Manager m(Options(&registry));
  m.Add(&webhook);
  m.Add(&ctrl);
  m.AddReadyzCheck("informers", [] { return Status::OK(); });
  ShutdownSignal shutdown;
  std::atomic<int> code{-1};
  std::thread run([&] { code = m.Run(&shutdown); });
  ASSERT_TRUE(Eventually([&] { return m.IsLeader() && m.health_port() != 0; }));

  EXPECT_EQ(Get(m.health_port(), "/healthz").body, "ok");
  EXPECT_EQ(Get(m.health_port(), "/readyz?verbose").body,
            "[+]informers ok\n[+]ping ok\nhealthz check passed\n");
  ctrl.Enqueue({"ns", "a"});
  ASSERT_TRUE(Eventually([&] { return reconciles.load() == 1; }));
  const Reply metrics = Get(m.metrics_port(), "/metrics");
  EXPECT_EQ(metrics.code, 200);
  EXPECT_THAT(metrics.body,
              HasSubstr("controller_runtime_active_workers{controller=\"binder\"} 1\n"));
  EXPECT_THAT(metrics.body, HasSubstr("workqueue_adds_total{name=\"binder\"} 1\n"));

  // SIGTERM while a reconcile runs: Run waits for it, and the probes answer until the end.
  shutdown.Trigger("received SIGTERM");
  ASSERT_TRUE(Eventually([&] { return ctrl.stopping(); }));
  EXPECT_EQ(code.load(), -1);
  EXPECT_EQ(Get(m.health_port(), "/healthz").code, 200);
  {
    std::lock_guard<std::mutex> l(mu);
    release = true;
  }
  cv.notify_all();
  run.join();
  EXPECT_EQ(code.load(), 0);
  EXPECT_THAT(log.events(), ElementsAre("start webhook", "reconcile finished", "stop webhook"));
  EXPECT_EQ(Get(m.health_port(), "/healthz").code, 0) << "servers are stopped last";
}

TEST(ManagerTest, RunnableThatFailsToStartEndsRunWithOne) {
  metrics::Registry registry;
  EventLog log;
  FakeRunnable a("informers", false, &log);
  FakeRunnable b("ctrl", true, &log);
  b.start_status = DeadlineExceededError("timed out waiting for caches to sync");
  Manager m(Options(&registry));
  m.Add(&a);
  m.Add(&b);
  ShutdownSignal shutdown;
  EXPECT_EQ(m.Run(&shutdown), 1);
  EXPECT_THAT(shutdown.reason(), HasSubstr("starting ctrl: timed out"));
  EXPECT_THAT(log.events(),
              ElementsAre("start informers", "start ctrl", "stop ctrl", "stop informers"));
}

TEST(ManagerTest, ShutdownOverrunningItsTimeoutExitsOne) {
  metrics::Registry registry;
  EventLog log;
  FakeRunnable a("ctrl", true, &log);
  a.stop_in_time = false;
  Manager m(Options(&registry));
  m.Add(&a);
  ShutdownSignal shutdown;
  std::atomic<int> code{-1};
  std::thread run([&] { code = m.Run(&shutdown); });
  ASSERT_TRUE(Eventually([&] { return log.Has("start ctrl"); }));
  shutdown.Trigger("received SIGTERM");
  run.join();
  EXPECT_EQ(code.load(), 1);
}

// A port nobody listens on (bound and released), for tests that need to know it up front.
uint16_t FreePort() {
  server::HttpServer probe({.name = "probe", .bind_address = "127.0.0.1:0"});
  if (!probe.Start().ok()) return 0;
  const uint16_t port = probe.port();
  probe.Stop();
  return port;
}

// KAI's scheduler serves /metrics, /healthz and /readyz on one address (--listen-address).
TEST(ManagerTest, MetricsAndProbesShareOneAddress) {
  metrics::Registry registry;
  const uint16_t port = FreePort();
  ManagerOptions o = Options(&registry);
  o.metrics_addr = o.health_addr = "127.0.0.1:" + std::to_string(port);
  Manager m(o);
  m.AddHealthRoute("/debug", [](const server::HttpRequest&) {
    server::HttpResponse r;
    r.body = "debug";
    return r;
  });
  ShutdownSignal shutdown;
  std::atomic<int> code{-1};
  std::thread run([&] { code = m.Run(&shutdown); });
  ASSERT_TRUE(Eventually([&] { return m.IsLeader() && m.metrics_port() != 0; }));
  EXPECT_EQ(m.metrics_port(), port);
  EXPECT_EQ(m.health_port(), port);
  EXPECT_EQ(Get(port, "/healthz").body, "ok");
  EXPECT_EQ(Get(port, "/readyz").code, 200);
  EXPECT_EQ(Get(port, "/metrics").code, 200);
  EXPECT_EQ(Get(port, "/debug").body, "debug");
  shutdown.Trigger("received SIGTERM");
  run.join();
  EXPECT_EQ(code.load(), 0);
  EXPECT_EQ(Get(port, "/healthz").code, 0);

  // Asked for explicitly, also on "any free port".
  ManagerOptions any = Options(&registry);
  any.probes_on_metrics_server = true;
  Manager m2(any);
  ShutdownSignal shutdown2;
  std::thread run2([&] { m2.Run(&shutdown2); });
  ASSERT_TRUE(Eventually([&] { return m2.IsLeader() && m2.metrics_port() != 0; }));
  EXPECT_EQ(m2.health_port(), m2.metrics_port());
  EXPECT_EQ(Get(m2.metrics_port(), "/readyz").code, 200);
  shutdown2.Trigger("received SIGTERM");
  run2.join();
}

TEST(ManagerTest, BadAddressIsAnError) {
  metrics::Registry registry;
  ManagerOptions o = Options(&registry);
  o.metrics_addr = "nonsense";
  Manager m(o);
  ShutdownSignal shutdown;
  EXPECT_EQ(m.Run(&shutdown), 1);
  EXPECT_THAT(shutdown.reason(), HasSubstr("nonsense"));
}

class ManagerLeaderTest : public ::testing::Test {
 protected:
  ManagerOptions LeaderOptions() {
    ManagerOptions o = Options(&registry_);
    o.health_addr = "0";
    o.metrics_addr = "0";
    o.leader_elect = true;
    o.leader_election_id = "2ad35f9c.kai.scheduler";
    o.leader_election_namespace = "kai";
    o.client = &fake_;
    o.clock = &clock_;
    return o;
  }
  std::optional<api::Lease> Lease() {
    auto json = fake_.Get(kube::GvrOf<api::Lease>(), "kai", "2ad35f9c.kai.scheduler");
    if (!json.ok()) return std::nullopt;
    return api::Decode<api::Lease>(*json).value_or(api::Lease());
  }

  FakeClock clock_;
  metrics::Registry registry_;
  kube::FakeClient fake_{{.clock = &clock_}};
  EventLog log_;
};

TEST_F(ManagerLeaderTest, LeaderWorkStartsWhenLeadingAndTheLeaseIsReleasedAfterItStops) {
  FakeRunnable informers("informers", false, &log_);
  FakeRunnable ctrl("ctrl", true, &log_);
  fake_.PrependReactor("update", "leases",
                       [&](const kube::FakeAction& a) -> std::optional<StatusOr<std::string>> {
                         if (a.body.find("\"holderIdentity\":\"\"") != std::string::npos)
                           log_.Add("lease released");
                         return std::nullopt;
                       });
  Manager m(LeaderOptions());
  m.Add(&informers);
  m.Add(&ctrl);
  ShutdownSignal shutdown;
  std::atomic<int> code{-1};
  std::thread run([&] { code = m.Run(&shutdown); });
  ASSERT_TRUE(Eventually([&] { return log_.Has("start ctrl"); }));
  EXPECT_TRUE(m.IsLeader());
  ASSERT_TRUE(Lease().has_value());
  EXPECT_EQ(Lease()->spec.holder_identity, "me");
  shutdown.Trigger("received SIGTERM");
  run.join();
  EXPECT_EQ(code.load(), 0);
  EXPECT_THAT(log_.events(), ElementsAre("start informers", "start ctrl", "stop ctrl",
                                         "lease released", "stop informers"));
  EXPECT_EQ(Lease()->spec.holder_identity, std::optional<std::string>(""));
  EXPECT_FALSE(m.IsLeader());
}

TEST_F(ManagerLeaderTest, NonLeaderRunsOnlyTheOtherRunnables) {
  api::Lease held;
  held.metadata.namespace_ = "kai";
  held.metadata.name = "2ad35f9c.kai.scheduler";
  held.spec.holder_identity = "someone-else";
  held.spec.lease_duration_seconds = 15;
  ASSERT_TRUE(fake_.Create(kube::GvrOf<api::Lease>(), "kai", api::EncodeJson(held)).ok());
  FakeRunnable informers("informers", false, &log_);
  FakeRunnable ctrl("ctrl", true, &log_);
  Manager m(LeaderOptions());
  m.Add(&informers);
  m.Add(&ctrl);
  ShutdownSignal shutdown;
  std::atomic<int> code{-1};
  std::thread run([&] { code = m.Run(&shutdown); });
  ASSERT_TRUE(Eventually([&] { return clock_.NumWaiters() > 0 && log_.Has("start informers"); }));
  clock_.Advance(seconds(5));  // well within the other holder's lease
  shutdown.Trigger("received SIGTERM");
  run.join();
  EXPECT_EQ(code.load(), 0);
  EXPECT_THAT(log_.events(), ElementsAre("start informers", "stop informers"));
  EXPECT_EQ(Lease()->spec.holder_identity, "someone-else") << "never held, never released";
}

TEST_F(ManagerLeaderTest, LostLeadershipStopsWorkAtOnceAndExitsOne) {
  FakeRunnable ctrl("ctrl", true, &log_);
  Manager m(LeaderOptions());
  m.Add(&ctrl);
  ShutdownSignal shutdown;
  std::atomic<int> code{-1};
  std::thread run([&] { code = m.Run(&shutdown); });
  ASSERT_TRUE(Eventually([&] { return log_.Has("start ctrl"); }));
  fake_.PrependReactor("*", "leases",
                       [](const kube::FakeAction&) -> std::optional<StatusOr<std::string>> {
                         return StatusOr<std::string>(kube::NewServiceUnavailable("etcd down"));
                       });
  while (code.load() == -1) {
    clock_.Advance(milliseconds(250));
    std::this_thread::yield();
  }
  run.join();
  EXPECT_EQ(code.load(), 1);
  EXPECT_EQ(shutdown.reason(), "leader election lost");
  // Stopped once: by the lost lease, not again by the shutdown that follows it.
  EXPECT_THAT(log_.events(), ElementsAre("start ctrl", "stop ctrl"));
  EXPECT_FALSE(m.IsLeader());
}

TEST_F(ManagerLeaderTest, BecomingLeaderIsRecordedAsAnEventOnTheLease) {
  record::ClientEventSink sink(&fake_);
  record::EventBroadcaster broadcaster(&sink, {.clock = &clock_});
  auto recorder = broadcaster.NewRecorder({.component = "kai-binder"});
  FakeRunnable ctrl("ctrl", true, &log_);
  ManagerOptions o = LeaderOptions();
  o.recorder = recorder.get();
  Manager m(o);
  m.Add(&ctrl);
  ShutdownSignal shutdown;
  std::thread run([&] { m.Run(&shutdown); });
  ASSERT_TRUE(Eventually([&] { return log_.Has("start ctrl"); }));
  shutdown.Trigger("received SIGTERM");
  run.join();
  broadcaster.Flush();
  auto list = fake_.List(kube::GvrOf<api::Event>(), "kai");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->items.size(), 1u);
  auto event = api::Decode<api::Event>(list->items[0]);
  ASSERT_TRUE(event.ok());
  EXPECT_EQ(event->reason, "LeaderElection");
  EXPECT_EQ(event->message, "me became leader");
  EXPECT_EQ(event->involved_object.kind, "Lease");
  EXPECT_EQ(event->involved_object.name, "2ad35f9c.kai.scheduler");
  EXPECT_EQ(event->source.component, "kai-binder");
}

TEST(InformersRunnableTest, StartsInformersWaitsForSyncAndStops) {
  kube::FakeClient fake;
  api::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.name = "p";
  ASSERT_TRUE(fake.Seed(kube::GvrOf<api::Pod>(), api::EncodeJson(pod)).ok());
  kube::SharedInformerFactory factory(&fake);
  kube::SharedInformer* pods = factory.InformerFor<api::Pod>();
  InformersRunnable informers(&factory);
  EXPECT_FALSE(informers.NeedLeaderElection());
  EXPECT_TRUE(informers.Synced().ok()) << "nothing started: nothing to wait for";
  ASSERT_TRUE(informers.Start().ok());
  EXPECT_TRUE(pods->HasSynced());
  EXPECT_EQ(pods->store().List().size(), 1u);
  EXPECT_TRUE(informers.Synced().ok());
  EXPECT_TRUE(informers.Stop(RealClock::Get()->NowMonotonic()));
}

// A shutdown during the wait for the first lists ends Start() as cancelled, not as a timeout.
TEST(InformersRunnableTest, StopDuringTheWaitForCachesCancelsStart) {
  FakeClock clock;
  kube::FakeClient fake({.clock = &clock});
  fake.PrependReactor("list", "pods",
                      [](const kube::FakeAction&) -> std::optional<StatusOr<std::string>> {
                        return StatusOr<std::string>(kube::NewServiceUnavailable("etcd down"));
                      });
  kube::SharedInformerFactory factory(&fake, {.clock = &clock});
  factory.InformerFor<api::Pod>();
  InformersRunnable informers(&factory, std::chrono::hours(1));
  Status started;
  std::thread start([&] { started = informers.Start(); });
  ASSERT_TRUE(Eventually([&] { return clock.NumWaiters() > 0; }));  // listing, backing off
  EXPECT_TRUE(informers.Stop(clock.NowMonotonic()));
  start.join();
  EXPECT_EQ(started.code(), StatusCode::kCancelled) << started;
}

TEST_F(ManagerLeaderTest, LeaderElectionNeedsIdAndNamespace) {
  ManagerOptions o = LeaderOptions();
  o.leader_election_namespace = "";
  Manager m(o);
  ShutdownSignal shutdown;
  EXPECT_EQ(m.Run(&shutdown), 1);
  EXPECT_THAT(shutdown.reason(), HasSubstr("needs a client, an id and a namespace"));
}

}  // namespace
}  // namespace kai::app
