// RestClient against a real localkube process: verbs, typed errors, pagination, watches, fault
// injection (409, 429 + Retry-After, 500 bursts), TLS verification and authentication.
#include <errno.h>  // program_invocation_short_name
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "api/codec.h"
#include "api/pod.h"
#include "api/podgroup.h"
#include "kube/base/fake_clock.h"
#include "kube/base/file.h"
#include "kube/patch/json_patch.h"
#include "kube/patch/strategic_merge_patch.h"
#include "kube/rest/errors.h"
#include "kube/rest/rest_client.h"
#include "kube/rest/retry.h"
#include "kube/testing/temp_dir.h"
#include "test/localkube/testing/localkube_process.h"

namespace kai::kube {
namespace {

using localkube::testing::LocalKubeProcess;

const GroupVersionResource kPods{"", "v1", "pods"};
const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

std::string PodJson(std::string_view name, std::string_view labels = "{}") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) +
         R"(","labels":)" + std::string(labels) +
         R"(},"spec":{"containers":[{"name":"c","image":"busybox"}]}})";
}

std::string ConfigMapJson(std::string_view name) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + std::string(name) +
         R"("},"data":{"k":"v"}})";
}

using kai::testing::TempDir;

// Advances `clock` whenever a thread waits on it, until `done`.
void DriveClock(FakeClock& clock, const std::atomic<bool>& done, Duration step) {
  while (!done.load()) {
    if (clock.NumWaiters() > 0) clock.Advance(step);
    std::this_thread::yield();
  }
}

class RestIntegrationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto kube = LocalKubeProcess::Start({.args = {"--bookmark-interval=1s"}});
    ASSERT_TRUE(kube.ok()) << kube.status();
    kube_ = std::move(kube).value().release();
  }
  static void TearDownTestSuite() {
    delete kube_;
    kube_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(kube_, nullptr);
    kube_->Request("POST", "/localkube/faults/clear");
  }

  static std::unique_ptr<RestClient> NewClient(RestClientOptions options = {}, double qps = 0) {
    auto cfg = LoadKubeconfig({.path = kube_->kubeconfig_path()});
    EXPECT_TRUE(cfg.ok()) << cfg.status();
    cfg->qps = qps;
    auto c = RestClient::New(*cfg, std::move(options));
    EXPECT_TRUE(c.ok()) << c.status();
    return std::move(c).value();
  }

  static void Fault(const std::string& json) {
    auto r = kube_->Request("POST", "/localkube/faults", json);
    ASSERT_EQ(r.code, 200) << r.body;
  }

  static LocalKubeProcess* kube_;
};
LocalKubeProcess* RestIntegrationTest::kube_ = nullptr;

TEST_F(RestIntegrationTest, VerbsAndTypedErrors) {
  auto client = NewClient();
  auto created = client->Create(kPods, "default", PodJson("verbs"));
  ASSERT_TRUE(created.ok()) << created.status();
  auto pod = api::Decode<api::Pod>(*created);
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_FALSE(pod->metadata.uid.empty());

  Status dup = client->Create(kPods, "default", PodJson("verbs")).status();
  EXPECT_TRUE(IsAlreadyExists(dup)) << dup;
  EXPECT_EQ(dup.http_code(), 409);
  Status missing = client->Get(kPods, "default", "nope").status();
  EXPECT_TRUE(IsNotFound(missing)) << missing;
  EXPECT_EQ(missing.http_code(), 404);
  Status invalid =
      client->Create(kPods, "default", R"({"metadata":{"name":"Bad_Name"},"spec":{}})").status();
  EXPECT_TRUE(IsInvalid(invalid)) << invalid;
  EXPECT_FALSE(invalid.causes().empty());

  // Update with the current RV works; with a stale one it conflicts.
  api::Pod p = *pod;
  p.metadata.labels["x"] = "1";
  auto updated = client->Update(kPods, "default", "verbs", api::EncodeJson(p));
  ASSERT_TRUE(updated.ok()) << updated.status();
  p.metadata.labels["x"] = "2";
  Status stale = client->Update(kPods, "default", "verbs", api::EncodeJson(p)).status();
  EXPECT_TRUE(IsConflict(stale)) << stale;
  EXPECT_FALSE(IsAlreadyExists(stale));

  // Patches of every type.
  ASSERT_TRUE(client
                  ->Patch(kPods, "default", "verbs", PatchType::kMerge,
                          R"({"metadata":{"labels":{"m":"1"}}})")
                  .ok());
  ASSERT_TRUE(client
                  ->Patch(kPods, "default", "verbs", PatchType::kJson,
                          R"([{"op":"add","path":"/metadata/labels/j","value":"1"}])")
                  .ok());
  auto applied = client->Patch(
      kPods, "default", "verbs", PatchType::kApply,
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"verbs","labels":{"a":"1"}}})",
      {{.field_manager = "kai-test"}, /*force=*/true});
  ASSERT_TRUE(applied.ok()) << applied.status();
  auto labels = api::Decode<api::Pod>(*applied)->metadata.labels;
  EXPECT_EQ(labels.count("m") + labels.count("j") + labels.count("a"), 3u);

  // A strategic merge patch of pod conditions computed by kube/patch: the server's result is
  // what our own applier predicts.
  auto before = client->Get(kPods, "default", "verbs");
  ASSERT_TRUE(before.ok());
  api::Pod with_cond = *api::Decode<api::Pod>(*before);
  with_cond.status.conditions.push_back(
      {.type = "PodScheduled", .status = "False", .reason = "Unschedulable", .message = "0/3"});
  auto smp = CreateStrategicMergePatch(*before, api::EncodeJson(with_cond));
  ASSERT_TRUE(smp.ok());
  auto patched = client->Patch(kPods, "default", "verbs", PatchType::kStrategicMerge, *smp,
                               {{.subresource = "status"}});
  ASSERT_TRUE(patched.ok()) << patched.status() << " for " << *smp;
  auto conds = api::Decode<api::Pod>(*patched)->status.conditions;
  ASSERT_EQ(conds.size(), 1u);
  EXPECT_EQ(conds[0].reason, "Unschedulable");

  // Binding, delete preconditions, eviction.
  const std::string uid = api::Decode<api::Pod>(*patched)->metadata.uid;
  EXPECT_TRUE(IsConflict(client->Bind("default", "verbs", "node-1", "not-the-uid")));
  ASSERT_TRUE(client->Bind("default", "verbs", "node-1", uid, {{"b", "2"}, {"a", "1"}}).ok());
  const api::Pod bound = *api::Decode<api::Pod>(*client->Get(kPods, "default", "verbs"));
  EXPECT_EQ(bound.spec.node_name, "node-1");
  EXPECT_EQ(bound.metadata.annotations.at("a"), "1");
  EXPECT_EQ(bound.metadata.annotations.at("b"), "2");
  EXPECT_TRUE(IsConflict(client->Bind("default", "verbs", "node-2")));
  Status wrong_uid =
      client->Delete(kPods, "default", "verbs", {.precondition_uid = "not-the-uid"}).status();
  EXPECT_TRUE(IsConflict(wrong_uid)) << wrong_uid;
  ASSERT_TRUE(client
                  ->Delete(kPods, "default", "verbs",
                           {.grace_period_seconds = 0,
                            .propagation_policy = kPropagationBackground,
                            .precondition_uid = pod->metadata.uid})
                  .ok());
  EXPECT_TRUE(IsNotFound(client->Get(kPods, "default", "verbs").status()));
  ASSERT_TRUE(client->Create(kPods, "default", PodJson("evictme")).ok());
  ASSERT_TRUE(client->Evict("default", "evictme").ok());
  EXPECT_TRUE(IsNotFound(client->Get(kPods, "default", "evictme").status()));

  // Raw requests and user agent.
  auto version = client->Raw("GET", "/version");
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_NE(version->find("gitVersion"), std::string::npos);
}

TEST_F(RestIntegrationTest, JsonPatchDiffOnACustomResource) {
  auto r = kube_->Kubectl({"apply", "-f", "crds/"});
  ASSERT_TRUE(r.ok()) << r.err;
  auto client = NewClient();
  const GroupVersionResource pgs{"scheduling.run.ai", "v2alpha2", "podgroups"};
  auto created = client->Create(
      pgs, "default",
      R"({"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup","metadata":{"name":"pg"},"spec":{"minMember":1,"queue":"q"}})");
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string old_doc = *created;
  std::string new_doc = old_doc;
  new_doc.pop_back();
  new_doc += R"(,"status":{"phase":"Running","schedulingConditions":[]}})";
  auto diff = CreateJsonPatch(old_doc, new_doc);
  ASSERT_TRUE(diff.ok());
  auto patched =
      client->Patch(pgs, "default", "pg", PatchType::kJson, *diff, {{.subresource = "status"}});
  ASSERT_TRUE(patched.ok()) << patched.status() << " for " << *diff;
  EXPECT_NE(patched->find(R"("phase":"Running")"), std::string::npos) << *patched;
  // Items of custom-resource lists carry kind/apiVersion; built-in ones get them filled in.
  auto list = client->List(pgs, "default");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_NE(list->items[0].find(R"("kind":"PodGroup")"), std::string::npos);
  auto cms = client->List(kConfigMaps, "default");
  ASSERT_TRUE(cms.ok());
  ASSERT_FALSE(cms->items.empty());
  EXPECT_NE(cms->items[0].find(R"("kind":"ConfigMap")"), std::string::npos)
      << cms->items[0].substr(0, 100);
}

// A status written for one PodGroup never lands on a namesake created since: the uid test runs
// on the stored object, status subresource included.
TEST_F(RestIntegrationTest, JsonPatchWithUidLeavesANamesakeAlone) {
  auto r = kube_->Kubectl({"apply", "-f", "crds/"});
  ASSERT_TRUE(r.ok()) << r.err;
  auto client = NewClient();
  const GroupVersionResource pgs{"scheduling.run.ai", "v2alpha2", "podgroups"};
  const std::string pg =
      R"({"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup","metadata":{"name":"named"},"spec":{"minMember":1,"queue":"q"}})";
  auto first = client->Create(pgs, "default", pg);
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string old_uid = api::Decode<api::PodGroup>(*first)->metadata.uid;
  ASSERT_TRUE(client->Delete(pgs, "default", "named").ok());
  auto second = client->Create(pgs, "default", pg);
  ASSERT_TRUE(second.ok()) << second.status();
  const std::string uid = api::Decode<api::PodGroup>(*second)->metadata.uid;
  ASSERT_NE(uid, old_uid);

  const std::string ops = R"([{"op":"add","path":"/status","value":{"phase":"Running"}}])";
  const PatchOptions status{{.subresource = "status"}};
  auto stale = PatchJsonWithUid(*client, pgs, "default", "named", old_uid, ops, status);
  EXPECT_TRUE(IsConflict(stale.status())) << stale.status();
  EXPECT_EQ(api::Decode<api::PodGroup>(*client->Get(pgs, "default", "named"))->status.phase, "");
  // A patch the server refuses for itself stays what it is.
  auto refused = PatchJsonWithUid(*client, pgs, "default", "named", uid,
                                  R"([{"op":"replace","path":"/status/none","value":1}])", status);
  EXPECT_TRUE(IsInvalid(refused.status())) << refused.status();
  auto ok = PatchJsonWithUid(*client, pgs, "default", "named", uid, ops, status);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(api::Decode<api::PodGroup>(*ok)->status.phase, "Running");
  EXPECT_TRUE(PatchJsonWithUid(*client, pgs, "default", "named", uid, "[]").ok());
  // Why a test and not a uid in the body: a custom resource's status subresource keeps the
  // stored metadata, so the body's uid is ignored, not checked.
  auto merged =
      client->Patch(pgs, "default", "named", PatchType::kMerge,
                    R"({"metadata":{"uid":"not-it"},"status":{"phase":"Running"}})", status);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(api::Decode<api::PodGroup>(*merged)->metadata.uid, uid);
  ASSERT_TRUE(client->Delete(pgs, "default", "named").ok());
  EXPECT_TRUE(IsNotFound(PatchJsonWithUid(*client, pgs, "default", "named", uid, ops).status()));
}

// Runs a hook after the first List call (to compact localkube's history mid-pagination).
class HookedClient : public Client {
 public:
  HookedClient(Client* inner, std::function<void()> after_first_list)
      : inner_(inner), hook_(std::move(after_first_list)) {}
  StatusOr<std::string> Get(const GroupVersionResource& g, std::string_view ns, std::string_view n,
                            const GetOptions& o) override {
    return inner_->Get(g, ns, n, o);
  }
  StatusOr<ObjectList> List(const GroupVersionResource& g, std::string_view ns,
                            const ListOptions& o) override {
    auto r = inner_->List(g, ns, o);
    ++lists;
    if (lists == 1) hook_();
    continue_tokens += o.continue_token.empty() ? 0 : 1;
    return r;
  }
  StatusOr<std::string> Create(const GroupVersionResource& g, std::string_view ns,
                               std::string_view b, const WriteOptions& o) override {
    return inner_->Create(g, ns, b, o);
  }
  StatusOr<std::string> Update(const GroupVersionResource& g, std::string_view ns,
                               std::string_view n, std::string_view b,
                               const WriteOptions& o) override {
    return inner_->Update(g, ns, n, b, o);
  }
  StatusOr<std::string> Patch(const GroupVersionResource& g, std::string_view ns,
                              std::string_view n, PatchType t, std::string_view p,
                              const PatchOptions& o) override {
    return inner_->Patch(g, ns, n, t, p, o);
  }
  StatusOr<std::string> Delete(const GroupVersionResource& g, std::string_view ns,
                               std::string_view n, const DeleteOptions& o) override {
    return inner_->Delete(g, ns, n, o);
  }
  StatusOr<std::string> CreateSubresource(const GroupVersionResource& g, std::string_view ns,
                                          std::string_view n, std::string_view s,
                                          std::string_view b, const WriteOptions& o) override {
    return inner_->CreateSubresource(g, ns, n, s, b, o);
  }
  StatusOr<std::unique_ptr<Watcher>> Watch(const GroupVersionResource& g, std::string_view ns,
                                           const WatchOptions& o) override {
    return inner_->Watch(g, ns, o);
  }
  int lists = 0;
  int continue_tokens = 0;

 private:
  Client* inner_;
  std::function<void()> hook_;
};

TEST_F(RestIntegrationTest, PaginationAndExpiredContinueFallsBackToFullList) {
  auto client = NewClient();
  for (int i = 0; i < 120; ++i) {
    ASSERT_TRUE(
        client->Create(kConfigMaps, "kube-public", ConfigMapJson("cm-" + std::to_string(i))).ok());
  }
  const int64_t before = client->stats().requests;
  auto all = ListAll(*client, kConfigMaps, "kube-public", {}, 50);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->items.size(), 121u);  // + kube-root-ca.crt
  EXPECT_EQ(client->stats().requests - before, 3);
  EXPECT_FALSE(all->resource_version.empty());

  HookedClient hooked(client.get(), [] {
    auto r = kube_->Request("POST", "/localkube/history/compact");
    ASSERT_EQ(r.code, 200) << r.body;
  });
  auto fallback = ListAll(hooked, kConfigMaps, "kube-public", {}, 50);
  ASSERT_TRUE(fallback.ok()) << fallback.status();
  EXPECT_EQ(fallback->items.size(), 121u);
  // First page, the expired continuation (410), then one full list.
  EXPECT_EQ(hooked.lists, 3);
  EXPECT_EQ(hooked.continue_tokens, 1);
}

TEST_F(RestIntegrationTest, WatchEventsBookmarksDropsAndStop) {
  auto client = NewClient();
  auto list = client->List(kPods, "kube-system");
  ASSERT_TRUE(list.ok());
  auto w = client->Watch(kPods, "kube-system",
                         {.label_selector = "app=w", .resource_version = list->resource_version});
  ASSERT_TRUE(w.ok()) << w.status();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        client->Create(kPods, "kube-system", PodJson("w" + std::to_string(i), R"({"app":"w"})"))
            .ok());
  }
  ASSERT_TRUE(client->Create(kPods, "kube-system", PodJson("other")).ok());
  ASSERT_TRUE(client->Delete(kPods, "kube-system", "w1", {.grace_period_seconds = 0}).ok());
  std::vector<std::string> seen;
  WatchEvent e;
  bool bookmark = false;
  while ((seen.size() < 4 || !bookmark) && (*w)->Next(&e)) {
    if (e.type == WatchEventType::kBookmark) {
      bookmark = true;
      EXPECT_FALSE(e.resource_version.empty());
      continue;
    }
    auto pod = api::Decode<api::Pod>(e.object);
    ASSERT_TRUE(pod.ok()) << pod.status();
    EXPECT_EQ(pod->metadata.resource_version, e.resource_version);
    seen.push_back(std::string(WatchEventTypeName(e.type)) + " " + pod->metadata.name);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"ADDED w0", "ADDED w1", "ADDED w2", "DELETED w1"}));
  EXPECT_TRUE(bookmark);  // --bookmark-interval=1s

  // The server drops every watch: the stream ends cleanly.
  auto r = kube_->Request("POST", "/localkube/watches/drop");
  ASSERT_EQ(r.code, 200);
  while ((*w)->Next(&e)) {
  }
  EXPECT_TRUE((*w)->Result().ok()) << (*w)->Result();

  // timeoutSeconds ends the stream cleanly too.
  auto timed = client->Watch(kPods, "kube-system",
                             {.resource_version = e.resource_version, .timeout_seconds = 1});
  ASSERT_TRUE(timed.ok());
  while ((*timed)->Next(&e)) {
  }
  EXPECT_TRUE((*timed)->Result().ok()) << (*timed)->Result();

  // Stop() from another thread ends a blocked Next().
  auto idle = client->Watch(kPods, "kube-node-lease", {.allow_bookmarks = false});
  ASSERT_TRUE(idle.ok());
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    stopped = true;
    (*idle)->Stop();
  });
  while ((*idle)->Next(&e)) {
  }
  stopper.join();
  EXPECT_TRUE(stopped.load());
  EXPECT_EQ((*idle)->Result().code(), StatusCode::kCancelled);

  // A watch from a compacted resourceVersion gets 410 Expired.
  ASSERT_EQ(kube_->Request("POST", "/localkube/history/compact").code, 200);
  auto old = client->Watch(kPods, "kube-system", {.resource_version = list->resource_version});
  if (old.ok()) {
    ASSERT_TRUE((*old)->Next(&e)) << (*old)->Result();
    EXPECT_EQ(e.type, WatchEventType::kError);
    EXPECT_TRUE(IsResourceExpired(e.error)) << e.error;
  } else {
    EXPECT_TRUE(IsResourceExpired(old.status())) << old.status();
  }
}

TEST_F(RestIntegrationTest, RetryOnConflictAfterInjected409s) {
  auto client = NewClient();
  ASSERT_TRUE(client->Create(kConfigMaps, "default", ConfigMapJson("conflicted")).ok());
  Fault(R"({"verb":"update","resource":"configmaps","code":409,"count":2})");
  int attempts = 0;
  FakeClock clock;
  std::atomic<bool> done{false};
  Status result;
  std::thread t([&] {
    result = RetryOnConflict(
        kDefaultRetry,
        [&]() -> Status {
          ++attempts;
          auto cur = client->Get(kConfigMaps, "default", "conflicted");
          if (!cur.ok()) return cur.status();
          std::string next = *cur;
          next.replace(next.find(R"("k":"v")"), 7, R"("k":"w")");
          return client->Update(kConfigMaps, "default", "conflicted", next).status();
        },
        &clock);
    done = true;
  });
  DriveClock(clock, done, std::chrono::milliseconds(5));
  t.join();
  EXPECT_TRUE(result.ok()) << result;
  EXPECT_EQ(attempts, 3);
  EXPECT_NE(client->Get(kConfigMaps, "default", "conflicted")->find(R"("k":"w")"),
            std::string::npos);
}

TEST_F(RestIntegrationTest, TooManyRequestsHonoursRetryAfter) {
  FakeClock clock;
  auto client = NewClient({.clock = &clock});
  Fault(R"({"verb":"get","resource":"configmaps","code":429,"count":2,"retryAfter":3})");
  std::atomic<bool> done{false};
  StatusOr<std::string> got = UnknownError("not run");
  const MonoTime start = clock.NowMonotonic();
  MonoTime finished;
  std::thread t([&] {
    got = client->Get(kConfigMaps, "default", "kube-root-ca.crt");
    finished = clock.NowMonotonic();
    done = true;
  });
  DriveClock(clock, done, std::chrono::milliseconds(100));
  t.join();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(client->stats().retries, 2);
  // Two Retry-After waits of 3 s on the injected clock.
  EXPECT_GE(finished - start, std::chrono::seconds(6));

  // A POST is retried on 429 too (the server did not process it).
  Fault(R"({"verb":"create","resource":"configmaps","code":429,"count":1,"retryAfter":1})");
  done = false;
  std::thread t2([&] {
    got = client->Create(kConfigMaps, "default", ConfigMapJson("after-429"));
    done = true;
  });
  DriveClock(clock, done, std::chrono::milliseconds(100));
  t2.join();
  EXPECT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(client->stats().retries, 3);
}

TEST_F(RestIntegrationTest, ServerErrorBurstsBackOffThenSucceed) {
  FakeClock clock;
  auto client = NewClient({.clock = &clock});
  Fault(R"({"verb":"list","resource":"configmaps","code":500,"count":3})");
  std::atomic<bool> done{false};
  StatusOr<ObjectList> list = UnknownError("not run");
  const MonoTime start = clock.NowMonotonic();
  MonoTime finished;
  std::thread t([&] {
    list = client->List(kConfigMaps, "default");
    finished = clock.NowMonotonic();
    done = true;
  });
  DriveClock(clock, done, std::chrono::milliseconds(50));
  t.join();
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(client->stats().retries, 3);
  EXPECT_GE(finished - start, std::chrono::milliseconds(500 + 1000 + 2000));

  // A non-idempotent POST is not retried on 500.
  Fault(R"({"verb":"create","resource":"configmaps","code":500,"count":1})");
  Status s = client->Create(kConfigMaps, "default", ConfigMapJson("after-500")).status();
  EXPECT_TRUE(IsInternalError(s)) << s;
  EXPECT_EQ(client->stats().retries, 3);

  // More failures than retries: the last error comes back.
  Fault(R"({"verb":"get","resource":"configmaps","code":503,"count":-1})");
  auto limited = NewClient({.clock = &clock, .max_retries = 2});
  done = false;
  Status last;
  std::thread t2([&] {
    last = limited->Get(kConfigMaps, "default", "kube-root-ca.crt").status();
    done = true;
  });
  DriveClock(clock, done, std::chrono::milliseconds(50));
  t2.join();
  EXPECT_TRUE(IsServiceUnavailable(last)) << last;
  EXPECT_EQ(limited->stats().requests, 3);
}

TEST_F(RestIntegrationTest, ClientSideThrottlingWaitsOnTheClock) {
  FakeClock clock;
  auto client = NewClient({.clock = &clock}, /*qps=*/2);
  client->SetRateLimit(2, 3);
  std::atomic<bool> done{false};
  const MonoTime start = clock.NowMonotonic();
  std::thread t([&] {
    for (int i = 0; i < 7; ++i) EXPECT_TRUE(client->Raw("GET", "/version").ok());
    done = true;
  });
  DriveClock(clock, done, std::chrono::milliseconds(10));
  t.join();
  // Burst 3, then 4 more at 2/s.
  EXPECT_GE(clock.NowMonotonic() - start, std::chrono::seconds(2));
  // (How many requests found the bucket empty depends on how far the driver overshoots.)
  EXPECT_GE(client->stats().throttled, 1);
}

// Controllers call one client from many workers while informers open and close watches: every
// connection a worker opens stays open for its next request, so no more are opened than requests
// ran at once (each pooled handle keeps its own; a TLS handshake per request would follow from
// closing them).
TEST_F(RestIntegrationTest, ConcurrentWorkersReuseTheirConnections) {
  auto client = NewClient();
  constexpr int kThreads = 12, kRequests = 25, kWatchers = 3;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads + kWatchers);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRequests; ++i) {
        if (!client->Get(kConfigMaps, "default", "kube-root-ca.crt").ok()) ++failures;
      }
    });
  }
  for (int t = 0; t < kWatchers; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRequests / 5; ++i) {
        auto w = client->Watch(kConfigMaps, "default");
        if (!w.ok()) {
          ++failures;
          continue;
        }
        (*w)->Stop();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_LE(client->stats().connections, kThreads);  // at most one per concurrent request
  EXPECT_GE(client->stats().connections, 1);
}

TEST_F(RestIntegrationTest, ConnectionReuseUserAgentAndTimeouts) {
  auto client = NewClient();
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(client->Get(kConfigMaps, "default", "kube-root-ca.crt").ok());
  }
  EXPECT_EQ(client->stats().connections, 1);  // one TLS connection for 20 requests

  // Without a field manager the server names the writer after the User-Agent, whose product
  // is the program's name as client-go's (this test binary here; kai-binder in the binder).
  auto created = client->Create(kConfigMaps, "default", ConfigMapJson("ua"));
  ASSERT_TRUE(created.ok());
  EXPECT_NE(created->find("\"manager\":\"" + std::string(program_invocation_short_name) + "\""),
            std::string::npos)
      << *created;
  EXPECT_EQ(DefaultUserAgent("x").rfind(std::string(program_invocation_short_name) + "/", 0), 0u);

  // A per-request timeout ends a slow request (the server delays this one by 5 s).
  Fault(R"({"verb":"get","resource":"configmaps","latencyMs":5000,"count":1})");
  auto cfg = LoadKubeconfig({.path = kube_->kubeconfig_path()});
  ASSERT_TRUE(cfg.ok());
  cfg->timeout = std::chrono::milliseconds(300);
  auto impatient = RestClient::New(*cfg, {.max_retries = 0});
  ASSERT_TRUE(impatient.ok());
  Status s = (*impatient)->Get(kConfigMaps, "default", "kube-root-ca.crt").status();
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s;
  EXPECT_TRUE(IsTransportError(s));
  kube_->Request("POST", "/localkube/faults/clear");
}

TEST_F(RestIntegrationTest, TlsVerification) {
  auto cfg = LoadKubeconfig({.path = kube_->kubeconfig_path()});
  ASSERT_TRUE(cfg.ok());
  // The right CA works (NewClient above); another server's CA fails verification.
  auto other = LocalKubeProcess::Start();
  ASSERT_TRUE(other.ok()) << other.status();
  RestConfig wrong = *cfg;
  wrong.tls.ca_pem = (*other)->ca_pem();
  ASSERT_NE(wrong.tls.ca_pem, cfg->tls.ca_pem);
  auto bad = RestClient::New(wrong, {.max_retries = 0});
  ASSERT_TRUE(bad.ok());
  Status s = (*bad)->Raw("GET", "/version").status();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("TLS handshake failed"), std::string::npos) << s;
  EXPECT_EQ((*bad)->stats().retries, 0);

  RestConfig insecure = wrong;
  insecure.tls.insecure = true;
  insecure.tls.ca_pem.clear();
  EXPECT_TRUE((*RestClient::New(insecure))->Raw("GET", "/version").ok());

  // tls-server-name: connect to 127.0.0.1 but verify the certificate for "localhost".
  RestConfig named = *cfg;
  named.tls.server_name = "localhost";
  auto ok = (*RestClient::New(named))->Raw("GET", "/version");
  EXPECT_TRUE(ok.ok()) << ok.status();
  named.tls.server_name = "not-in-the-certificate.example";
  Status mismatch = (*RestClient::New(named, {.max_retries = 0}))->Raw("GET", "/version").status();
  EXPECT_FALSE(mismatch.ok());
}

TEST(RestAuthIntegrationTest, TokenFileAndExecPlugin) {
  TempDir dir;
  const std::string tokens =
      dir.Write("tokens.csv", "good-token,alice,uid1,\"system:masters\"\nother-token,bob,uid2\n");
  auto kube = LocalKubeProcess::Start({.args = {"--token-auth-file=" + tokens}});
  ASSERT_TRUE(kube.ok()) << kube.status();
  RestConfig base;
  base.host = (*kube)->url();
  base.tls.ca_pem = (*kube)->ca_pem();
  base.qps = 0;

  // No credentials: 401 Unauthorized, typed.
  Status anon = (*RestClient::New(base, {.max_retries = 0}))->Get(kPods, "default", "x").status();
  EXPECT_TRUE(IsUnauthorized(anon)) << anon;

  // A token file named by a kubeconfig (tokenFile, relative to the kubeconfig) authenticates.
  dir.Write("token", "other-token\n");
  dir.Write("ca.crt", (*kube)->ca_pem());
  const std::string kubeconfig =
      dir.Write("kubeconfig",
                "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n"
                "  cluster:\n    server: " +
                    (*kube)->url() +
                    "\n    certificate-authority: ca.crt\ncontexts:\n- name: c\n  context:\n"
                    "    cluster: k\n    user: u\nusers:\n- name: u\n  user:\n"
                    "    tokenFile: token\n");
  auto with_file = LoadKubeconfig({.path = kubeconfig});
  ASSERT_TRUE(with_file.ok()) << with_file.status();
  auto c1 = RestClient::New(*with_file);
  ASSERT_TRUE(c1.ok());
  auto listed = (*c1)->List(kPods, "default");
  EXPECT_TRUE(listed.ok()) << listed.status();

  // An exec plugin provides the token; its first answer is rejected (401), so it runs again
  // and the request succeeds.
  const std::string plugin = dir.Write(
      "plugin.sh",
      "#!/bin/sh\nn=$(cat \"$0.count\" 2>/dev/null || echo 0)\necho $((n+1)) > \"$0.count\"\n"
      "if [ \"$n\" = 0 ]; then tok=stale-token; else tok=good-token; fi\n"
      "echo \"{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1\\\",\\\"kind\\\":"
      "\\\"ExecCredential\\\",\\\"status\\\":{\\\"token\\\":\\\"$tok\\\"}}\"\n",
      0755);
  RestConfig with_exec = base;
  with_exec.exec = ExecConfig{.command = plugin, .interactive_mode = "Never"};
  auto c2 = RestClient::New(with_exec);
  ASSERT_TRUE(c2.ok());
  auto got = (*c2)->List(kPods, "default");
  EXPECT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*c2)->stats().exec_runs, 2);
  EXPECT_EQ((*c2)->stats().unauthorized, 1);
  // Cached afterwards.
  EXPECT_TRUE((*c2)->List(kPods, "default").ok());
  EXPECT_EQ((*c2)->stats().exec_runs, 2);
}

}  // namespace
}  // namespace kai::kube
