// Informers against a real localkube under faults: watches dropped mid-stream, history
// compacted behind a lagging reflector, 429/500 answers, and a server restart.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "api/pod.h"
#include "kube/cache/factory.h"
#include "kube/cache/informer.h"
#include "kube/cache/typed.h"
#include "kube/rest/errors.h"
#include "kube/rest/rest_client.h"
#include "kube/testing/eventually.h"
#include "test/localkube/testing/localkube_process.h"

namespace kai::kube {
namespace {

using localkube::testing::LocalKubeProcess;

const GroupVersionResource kPods{"", "v1", "pods"};

std::string PodJson(std::string_view name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) +
         R"("},"spec":{"containers":[{"name":"c","image":"busybox"}]}})";
}

using ::kai::testing::Eventually;

std::unique_ptr<RestClient> NewTestClient(const LocalKubeProcess& kube, int max_retries = 0) {
  auto cfg = LoadKubeconfig({.path = kube.kubeconfig_path()});
  EXPECT_TRUE(cfg.ok()) << cfg.status();
  cfg->qps = 0;
  auto c = RestClient::New(*cfg, {.max_retries = max_retries,
                                  .retry_base = std::chrono::milliseconds(10),
                                  .retry_cap = std::chrono::milliseconds(100)});
  EXPECT_TRUE(c.ok()) << c.status();
  return std::move(c).value();
}

InformerOptions FastOptions(Decoder decoder = TypedDecoder<api::Pod>()) {
  InformerOptions o;
  o.reflector.decoder = std::move(decoder);
  o.reflector.backoff = {.initial = std::chrono::milliseconds(5),
                         .cap = std::chrono::milliseconds(50)};
  o.reflector.page_size = 50;
  return o;
}

// key -> resourceVersion of everything the server has in `ns`.
std::map<std::string, std::string> ServerState(Client& client, std::string_view ns) {
  std::map<std::string, std::string> out;
  auto list = ListAll(client, kPods, ns);
  EXPECT_TRUE(list.ok()) << list.status();
  if (!list.ok()) return out;
  for (const std::string& item : list->items) {
    auto obj = RawDecoder()(item);
    if (obj.ok()) out[(*obj)->key()] = (*obj)->resource_version();
  }
  return out;
}

std::map<std::string, std::string> CacheState(const SharedInformer& informer) {
  std::map<std::string, std::string> out;
  for (const ObjectPtr& o : informer.store().List()) out[o->key()] = o->resource_version();
  return out;
}

// What handlers saw: the state they would reconstruct, and any (key, rv) delivered twice.
class Mirror {
 public:
  ResourceEventHandler Handler() {
    return {.on_add = [this](const ObjectPtr& o, bool) { Apply(o, false); },
            .on_update = [this](const ObjectPtr&, const ObjectPtr& o) { Apply(o, false); },
            .on_delete =
                [this](const ObjectPtr& o, bool unknown) {
                  std::lock_guard<std::mutex> l(mu_);
                  state_.erase(o->key());
                  if (unknown) ++tombstones_;
                }};
  }
  std::map<std::string, std::string> state() {
    std::lock_guard<std::mutex> l(mu_);
    return state_;
  }
  int duplicates() {
    std::lock_guard<std::mutex> l(mu_);
    return duplicates_;
  }
  int tombstones() {
    std::lock_guard<std::mutex> l(mu_);
    return tombstones_;
  }

 private:
  void Apply(const ObjectPtr& o, bool) {
    std::lock_guard<std::mutex> l(mu_);
    if (!seen_.insert(o->key() + "@" + o->resource_version()).second) ++duplicates_;
    state_[o->key()] = o->resource_version();
  }
  std::mutex mu_;
  std::map<std::string, std::string> state_;
  std::set<std::string> seen_;
  int duplicates_ = 0;
  int tombstones_ = 0;
};

TEST(CacheIntegrationTest, WatchDroppedMidStreamMissesAndDuplicatesNothing) {
  auto kube = LocalKubeProcess::Start();
  ASSERT_TRUE(kube.ok()) << kube.status();
  auto client = NewTestClient(**kube);
  auto writer_client = NewTestClient(**kube, 10);
  SharedInformer informer(client.get(), kPods, FastOptions());
  Mirror mirror;
  informer.AddEventHandler(mirror.Handler());
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::minutes(1)));

  for (int i = 0; i < 300; ++i) {
    const std::string name = "p" + std::to_string(i % 100);
    if (i < 100) {
      ASSERT_TRUE(writer_client->Create(kPods, "default", PodJson(name)).ok());
    } else if (i < 250) {
      ASSERT_TRUE(writer_client
                      ->Patch(kPods, "default", name, PatchType::kMerge,
                              R"({"metadata":{"labels":{"i":")" + std::to_string(i) + R"("}}})")
                      .ok());
    } else {
      ASSERT_TRUE(writer_client->Delete(kPods, "default", name, {.grace_period_seconds = 0}).ok());
    }
    if (i % 25 == 0) {
      ASSERT_EQ((*kube)->Request("POST", "/localkube/watches/drop").code, 200);
    }
  }
  const auto server = ServerState(*writer_client, "");
  EXPECT_EQ(server.size(), 50u);
  EXPECT_TRUE(Eventually([&] { return CacheState(informer) == server; }));
  EXPECT_TRUE(Eventually([&] { return mirror.state() == server; }));
  EXPECT_EQ(mirror.duplicates(), 0);
  EXPECT_GE(informer.reflector_stats().watches, 2);
  informer.Stop();
}

TEST(CacheIntegrationTest, HistoryCompactedBehindTheReflectorRelistsAndConverges) {
  auto kube = LocalKubeProcess::Start();
  ASSERT_TRUE(kube.ok()) << kube.status();
  auto client = NewTestClient(**kube);
  auto writer = NewTestClient(**kube, 10);
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(writer->Create(kPods, "default", PodJson("p" + std::to_string(i))).ok());
  }
  // A decoder that holds the reflector on the pod named "gate" until the test opens it.
  std::mutex gate;
  Decoder typed = TypedDecoder<api::Pod>();
  Decoder gated = [&](std::string json) {
    if (json.find(R"("name":"gate")") != std::string::npos) std::lock_guard<std::mutex> l(gate);
    return typed(std::move(json));
  };
  SharedInformer informer(client.get(), kPods, FastOptions(gated));
  Mirror mirror;
  informer.AddEventHandler(mirror.Handler());
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::minutes(1)));
  ASSERT_TRUE(Eventually([&] { return informer.reflector_stats().watches == 1; }));

  gate.lock();
  ASSERT_TRUE(writer->Create(kPods, "default", PodJson("gate")).ok());
  // The reflector is now stuck on "gate". End its watch, change things it will never see as
  // events, and forget the history.
  ASSERT_EQ((*kube)->Request("POST", "/localkube/watches/drop").code, 200);
  ASSERT_TRUE(writer->Delete(kPods, "default", "p0", {.grace_period_seconds = 0}).ok());
  ASSERT_TRUE(writer
                  ->Patch(kPods, "default", "p1", PatchType::kMerge,
                          R"({"metadata":{"labels":{"changed":"yes"}}})")
                  .ok());
  ASSERT_TRUE(writer->Create(kPods, "default", PodJson("late")).ok());
  ASSERT_EQ((*kube)->Request("POST", "/localkube/history/compact").code, 200);
  gate.unlock();

  const auto server = ServerState(*writer, "");
  EXPECT_TRUE(Eventually([&] { return CacheState(informer) == server; }));
  EXPECT_TRUE(Eventually([&] { return mirror.state() == server; }));
  EXPECT_GE(informer.reflector_stats().expired, 1);
  EXPECT_GE(informer.reflector_stats().lists, 2);
  EXPECT_EQ(mirror.tombstones(), 1);  // p0, noticed by the relist
  EXPECT_EQ(mirror.duplicates(), 0);
  informer.Stop();
}

TEST(CacheIntegrationTest, ThrottlingAndServerErrorsBackOffThenSync) {
  auto kube = LocalKubeProcess::Start();
  ASSERT_TRUE(kube.ok()) << kube.status();
  auto client = NewTestClient(**kube);
  auto writer = NewTestClient(**kube, 10);
  ASSERT_TRUE(writer->Create(kPods, "default", PodJson("a")).ok());
  ASSERT_EQ((*kube)
                ->Request("POST", "/localkube/faults",
                          R"({"verb":"list","resource":"pods","code":500,"count":3})")
                .code,
            200);
  SharedInformer informer(client.get(), kPods, FastOptions());
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::minutes(1)));
  EXPECT_EQ(informer.reflector_stats().errors, 3);
  ASSERT_TRUE(Eventually([&] { return informer.reflector_stats().watches == 1; }));

  // 429 on re-watch: back off and watch again, without relisting.
  ASSERT_EQ(
      (*kube)
          ->Request("POST", "/localkube/faults",
                    R"({"verb":"watch","resource":"pods","code":429,"count":2,"retryAfter":1})")
          .code,
      200);
  ASSERT_TRUE(writer->Create(kPods, "default", PodJson("b")).ok());
  ASSERT_TRUE(Eventually([&] { return informer.store().size() == 2; }));
  ASSERT_EQ((*kube)->Request("POST", "/localkube/watches/drop").code, 200);
  ASSERT_TRUE(writer->Create(kPods, "default", PodJson("c")).ok());
  EXPECT_TRUE(Eventually([&] { return informer.store().size() == 3; }));
  EXPECT_TRUE(Eventually([&] { return informer.reflector_stats().watches >= 2; }));
  EXPECT_EQ(informer.reflector_stats().lists, 1);
  informer.Stop();
}

TEST(CacheIntegrationTest, InformersRecoverWhenTheServerRestarts) {
  auto first = LocalKubeProcess::Start({.args = {"--tls=false"}});
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string url = (*first)->url();
  const std::string port = url.substr(url.rfind(':') + 1);
  RestConfig cfg;
  cfg.host = url;
  cfg.qps = 0;
  auto client = RestClient::New(cfg, {.max_retries = 0});
  ASSERT_TRUE(client.ok());
  auto writer1 = RestClient::New(cfg);
  ASSERT_TRUE(writer1.ok());
  for (const char* n : {"a", "b", "c"}) {
    ASSERT_TRUE((*writer1)->Create(kPods, "default", PodJson(n)).ok());
  }
  SharedInformerFactory factory(client->get(), {.backoff = {.initial = std::chrono::milliseconds(5),
                                                            .cap = std::chrono::milliseconds(50)}});
  SharedInformer* pods = factory.InformerFor<api::Pod>();
  Mirror mirror;
  pods->AddEventHandler(mirror.Handler());
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(std::chrono::minutes(1)));
  EXPECT_EQ(pods->store().size(), 3u);

  // The server goes away and a new one (fresh history, other objects) takes its port.
  first->reset();
  auto second = LocalKubeProcess::Start({.args = {"--tls=false", "--listen=127.0.0.1:" + port}});
  ASSERT_TRUE(second.ok()) << second.status();
  auto writer2 = RestClient::New(cfg);
  ASSERT_TRUE(writer2.ok());
  ASSERT_TRUE((*writer2)->Create(kPods, "default", PodJson("b")).ok());
  ASSERT_TRUE((*writer2)->Create(kPods, "default", PodJson("d")).ok());
  const auto server = ServerState(**writer2, "");
  ASSERT_EQ(server.size(), 2u);
  EXPECT_TRUE(Eventually([&] { return CacheState(*pods) == server; }));
  EXPECT_TRUE(Eventually([&] { return mirror.state() == server; }));
  EXPECT_GE(mirror.tombstones(), 2);  // a and c vanished while nobody watched
  // And it keeps following the new server.
  ASSERT_TRUE((*writer2)->Create(kPods, "default", PodJson("e")).ok());
  EXPECT_TRUE(Eventually([&] { return pods->store().Get("default/e") != nullptr; }));
  factory.Shutdown();
}

}  // namespace
}  // namespace kai::kube
