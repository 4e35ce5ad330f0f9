// Unit tests of the in-process storage API (no network).
#include "test/localkube/store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "kube/base/fake_clock.h"
#include "test/localkube/crd.h"
#include "test/localkube/json.h"
#include "test/localkube/mutable_object.h"
#include "test/localkube/patch.h"
#include "test/localkube/selector.h"
#include "test/localkube/testing/resources.h"
#include "test/localkube/types.h"

namespace kai::localkube {
namespace {

using testing::kCms;
using testing::kDeploys;
using testing::kNs;
using testing::kPods;

class StoreTest : public ::testing::Test {
 protected:
  StoreTest() : random_(42) {
    RegisterBuiltins(&registry_);
    CrdController::RegisterCrdResource(&registry_);
    StoreOptions o;
    o.watch_history = 5;
    store_ = std::make_unique<Store>(&registry_, &clock_, &random_, o);
    store_->Start();
    EXPECT_TRUE(store_->Create(kNs, "", R"({"metadata":{"name":"default"}})").ok());
  }
  ~StoreTest() override { store_->Shutdown(); }

  ObjectPtr MustCreate(const GroupVersionResource& gvr, const std::string& json) {
    auto r = store_->Create(gvr, "default", json);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : nullptr;
  }
  std::vector<WatchEvent> Drain(Watch& w) {
    std::vector<WatchEvent> out;
    while (w.Next(clock_.NowMonotonic(), &out) && !out.empty()) {
      std::vector<WatchEvent> more;
      if (!w.Next(clock_.NowMonotonic(), &more) || more.empty()) break;
      out.insert(out.end(), more.begin(), more.end());
    }
    return out;
  }

  FakeClock clock_;
  SeededRandom random_;
  ResourceRegistry registry_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreTest, CreateAssignsMetadataAndDefaults) {
  ObjectPtr p = MustCreate(
      kPods, R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  ASSERT_NE(p, nullptr);
  EXPECT_FALSE(p->uid().empty());
  EXPECT_GT(p->resource_version(), 0u);
  auto doc = Parse(p->json());
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(GetStr(*doc, {"apiVersion"}), "v1");
  EXPECT_EQ(GetStr(*doc, {"kind"}), "Pod");
  EXPECT_EQ(GetStr(*doc, {"spec", "schedulerName"}), "default-scheduler");
  EXPECT_EQ(GetStr(*doc, {"status", "phase"}), "Pending");
  EXPECT_EQ(GetStr(*doc, {"metadata", "resourceVersion"}), std::to_string(p->resource_version()));
  auto dup = store_->Create(
      kPods, "default",
      R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  EXPECT_EQ(dup.status().reason(), "AlreadyExists");
  auto bad = store_->Create(kPods, "default", R"({"metadata":{"name":"q"},"spec":{}})");
  EXPECT_EQ(bad.status().reason(), "Invalid");
  ASSERT_FALSE(bad.status().causes().empty());
  EXPECT_EQ(bad.status().causes()[0].field, "spec.containers");
  auto nons = store_->Create(kCms, "nope", R"({"metadata":{"name":"x"}})");
  EXPECT_EQ(nons.status().reason(), "NotFound");
  // Bodies nesting deeper than 1,000 levels are refused before parsing, writes and patches.
  const std::string deep = R"({"metadata":{"name":"d"},"data":{"a":)" + std::string(999, '[') +
                           std::string(999, ']') + "}}";
  auto too_deep = store_->Create(kCms, "default", deep);
  EXPECT_EQ(too_deep.status().http_code(), 400);
  EXPECT_NE(too_deep.status().message().find("nesting deeper than 1000"), std::string::npos)
      << too_deep.status();
  auto deep_patch = store_->Patch(kCms, "default", "x", PatchType::kMerge, deep);
  EXPECT_EQ(deep_patch.status().http_code(), 400);
  EXPECT_NE(deep_patch.status().message().find("error decoding patch: invalid JSON at offset"),
            std::string::npos)
      << deep_patch.status();
}

TEST_F(StoreTest, CreateRefusesAResourceVersionAsEtcdDoes) {
  // A copy of a stored object sent back as a create: 500 from etcd3's store, nothing written.
  ObjectPtr c = MustCreate(kCms, R"({"metadata":{"name":"c"},"data":{"a":"1"}})");
  ASSERT_NE(c, nullptr);
  const std::string copy = R"({"metadata":{"name":"c2","resourceVersion":")" +
                           std::to_string(c->resource_version()) + R"("},"data":{"a":"1"}})";
  auto refused = store_->Create(kCms, "default", copy);
  EXPECT_EQ(refused.status().http_code(), 500) << refused.status();
  EXPECT_EQ(refused.status().message(),
            "resourceVersion should not be set on objects to be created");
  EXPECT_EQ(store_->Get(kCms, "default", "c2").status().reason(), "NotFound");
  // Versions that do not parse as a non-zero number are dropped, as the API server drops them.
  int n = 0;
  for (const std::string rv : {"0", "-1", "abc", ""}) {
    auto created = store_->Create(kCms, "default",
                                  R"({"metadata":{"name":"v)" + std::to_string(n++) +
                                      R"(","resourceVersion":")" + rv + R"("}})");
    ASSERT_TRUE(created.ok()) << rv << ": " << created.status();
    EXPECT_GT((*created)->resource_version(), c->resource_version()) << rv;
  }
  // Server-side apply that creates the object is a create too.
  PatchOptions apply;
  apply.field_manager = "test";
  auto applied = store_->Patch(
      kCms, "default", "c3", PatchType::kApply,
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3","resourceVersion":"7"}})",
      apply);
  EXPECT_EQ(applied.status().http_code(), 500) << applied.status();
  EXPECT_EQ(store_->Get(kCms, "default", "c3").status().reason(), "NotFound");
  // On an object that exists, the applied resourceVersion is a precondition.
  auto apply_c = [&](uint64_t rv) {
    return store_->Patch(kCms, "default", "c", PatchType::kApply,
                         R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c",)"
                         R"("resourceVersion":")" +
                             std::to_string(rv) + R"("},"data":{"b":"2"}})",
                         apply);
  };
  EXPECT_EQ(apply_c(c->resource_version() + 100).status().reason(), "Conflict");
  auto current = apply_c(c->resource_version());
  ASSERT_TRUE(current.ok()) << current.status();
  EXPECT_GT((*current)->resource_version(), c->resource_version());
}

// Events are validated as the API server's legacyValidateEvent does for both event APIs.
TEST_F(StoreTest, EventsLiveInTheNamespaceOfTheirObject) {
  const GroupVersionResource events{"", "v1", "events"};
  auto event = [&](const std::string& name, const std::string& involved_ns,
                   const std::string& extra) {
    return store_->Create(events, "default",
                          R"({"metadata":{"name":")" + name +
                              R"("},"involvedObject":{"kind":"Pod","name":"p","namespace":")" +
                              involved_ns + R"("},"reason":"Scheduled","type":"Normal")" + extra +
                              "}");
  };
  EXPECT_TRUE(event("same", "default", "").ok());
  EXPECT_TRUE(event("cluster-scoped", "", "").ok()) << "a Queue's or a Node's: in default";
  auto other = event("other", "team-a", "");
  EXPECT_EQ(other.status().http_code(), 422);
  EXPECT_EQ(other.status().message(),
            "Event \"other\" is invalid: involvedObject.namespace: Invalid value: \"team-a\": "
            "does not match event.namespace");
  // An eventTime makes it a new-style event: reporter, instance and action are required.
  auto new_style = event("new", "default", R"(,"eventTime":"2026-12-01T10:00:00.000000Z")");
  EXPECT_EQ(new_style.status().http_code(), 422);
  std::vector<std::string> fields;
  for (const auto& c : new_style.status().causes()) fields.push_back(c.field);
  EXPECT_EQ(fields,
            (std::vector<std::string>{"reportingComponent", "reportingInstance", "action"}));
  EXPECT_TRUE(event("new2", "default",
                    R"(,"eventTime":"2026-12-01T10:00:00.000000Z","reportingComponent":"kai",)"
                    R"("reportingInstance":"kai-0","action":"Binding")")
                  .ok());
}

TEST_F(StoreTest, UpdateConflictsAndNoOpWrites) {
  ObjectPtr c = MustCreate(kCms, R"({"metadata":{"name":"c"},"data":{"a":"1"}})");
  const std::string rv = std::to_string(c->resource_version());
  auto u = store_->Update(
      kCms, "default", "c",
      R"({"metadata":{"name":"c","resourceVersion":")" + rv + R"("},"data":{"a":"2"}})");
  ASSERT_TRUE(u.ok()) << u.status();
  auto stale = store_->Update(
      kCms, "default", "c",
      R"({"metadata":{"name":"c","resourceVersion":")" + rv + R"("},"data":{"a":"3"}})");
  EXPECT_EQ(stale.status().reason(), "Conflict");
  EXPECT_EQ(stale.status().http_code(), 409);
  // Writing the same content is a no-op: same object, same resourceVersion.
  auto same = store_->Patch(kCms, "default", "c", PatchType::kMerge, R"({"data":{"a":"2"}})");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ((*same)->resource_version(), (*u)->resource_version());
}

TEST_F(StoreTest, GenerationAndStatusSubresource) {
  ObjectPtr d = MustCreate(
      kDeploys,
      R"({"metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->generation(), 1);
  // Status through the main resource is ignored; through /status everything else is.
  auto m =
      store_->Patch(kDeploys, "default", "d", PatchType::kMerge, R"({"status":{"replicas":7}})");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((*m)->json().find("\"replicas\":7"), std::string::npos);
  PatchOptions so;
  so.subresource = "status";
  auto s = store_->Patch(kDeploys, "default", "d", PatchType::kMerge,
                         R"({"status":{"replicas":7},"spec":{"replicas":9}})", so);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_NE((*s)->json().find("\"replicas\":7"), std::string::npos);
  EXPECT_EQ((*s)->json().find("\"replicas\":9"), std::string::npos);
  EXPECT_EQ((*s)->generation(), 1);
  auto g = store_->Patch(kDeploys, "default", "d", PatchType::kMerge, R"({"spec":{"replicas":4}})");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)->generation(), 2);
  auto l = store_->Patch(kDeploys, "default", "d", PatchType::kMerge,
                         R"({"metadata":{"labels":{"x":"y"}}})");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ((*l)->generation(), 2);
}

// A built-in kind's status write keeps the request's metadata but what its status strategy resets
// (podStatusStrategy: ownerReferences; deploymentStatusStrategy: labels), and never the spec.
TEST_F(StoreTest, StatusWritesOfBuiltinsKeepTheRequestsMetadata) {
  ObjectPtr owner = MustCreate(kCms, R"({"metadata":{"name":"owner"}})");
  MustCreate(kPods,
             R"({"metadata":{"name":"p","labels":{"a":"1"},"ownerReferences":[{"apiVersion":"v1",)"
             R"("kind":"ConfigMap","name":"owner","uid":")" +
                 owner->uid() + R"("}]},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  PatchOptions status;
  status.subresource = "status";
  auto p = store_->Patch(
      kPods, "default", "p", PatchType::kMerge,
      R"({"metadata":{"labels":{"a":"2"},"annotations":{"n":"v"},"ownerReferences":null},)"
      R"("spec":{"nodeName":"elsewhere"},"status":{"message":"m"}})",
      status);
  ASSERT_TRUE(p.ok()) << p.status();
  JsonDoc pod = *Parse((*p)->json());
  EXPECT_EQ(GetStr(pod, {"metadata", "labels", "a"}), "2");
  EXPECT_EQ(GetStr(pod, {"metadata", "annotations", "n"}), "v");
  const Json* refs = Path(pod, {"metadata", "ownerReferences"});
  ASSERT_TRUE(refs != nullptr && refs->IsArray() && refs->Size() == 1)
      << "pods/status keeps the stored owner references";
  EXPECT_EQ(GetStr((*refs)[0], {"name"}), "owner");
  EXPECT_EQ(GetStr(pod, {"spec", "nodeName"}), "");
  EXPECT_EQ(GetStr(pod, {"status", "message"}), "m");

  MustCreate(
      kDeploys,
      R"({"metadata":{"name":"d","labels":{"l":"1"}},"spec":{"selector":{"matchLabels":{"a":"b"}},)"
      R"("template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
  auto d = store_->Patch(
      kDeploys, "default", "d", PatchType::kMerge,
      R"({"metadata":{"labels":{"l":"2"},"annotations":{"n":"v"}},"status":{"replicas":3}})",
      status);
  ASSERT_TRUE(d.ok()) << d.status();
  JsonDoc deploy = *Parse((*d)->json());
  EXPECT_EQ(GetStr(deploy, {"metadata", "labels", "l"}), "1")
      << "deployments/status keeps the stored labels";
  EXPECT_EQ(GetStr(deploy, {"metadata", "annotations", "n"}), "v");
  EXPECT_EQ(GetInt(deploy, {"status", "replicas"}).value_or(0), 3);
}

TEST_F(StoreTest, ListSelectorsAndPagination) {
  for (int i = 0; i < 6; ++i) {
    MustCreate(kCms, R"({"metadata":{"name":"c)" + std::to_string(i) + R"(","labels":{"i":")" +
                         std::to_string(i % 2) + R"("}}})");
  }
  ListOptions lo;
  lo.label_selector = "i=1";
  auto l = store_->List(kCms, "default", lo);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->items.size(), 3u);
  lo.label_selector = "";
  lo.field_selector = "metadata.name!=c0";
  l = store_->List(kCms, "default", lo);
  EXPECT_EQ(l->items.size(), 5u);
  lo.field_selector = "spec.nodeName=x";
  EXPECT_EQ(store_->List(kCms, "default", lo).status().reason(), "BadRequest");
  lo = {};
  lo.limit = 4;
  l = store_->List(kCms, "default", lo);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->items.size(), 4u);
  ASSERT_FALSE(l->continue_token.empty());
  EXPECT_EQ(l->remaining_item_count.value_or(-1), 2);
  const uint64_t rv = l->resource_version;
  MustCreate(kCms, R"({"metadata":{"name":"c9"}})");  // not in the snapshot
  lo.continue_token = l->continue_token;
  auto l2 = store_->List(kCms, "default", lo);
  ASSERT_TRUE(l2.ok());
  EXPECT_EQ(l2->items.size(), 2u);
  EXPECT_EQ(l2->resource_version, rv);
  EXPECT_TRUE(l2->continue_token.empty());
  clock_.Advance(std::chrono::minutes(10));
  lo.limit = 1;
  lo.continue_token = "";
  auto l3 = store_->List(kCms, "default", lo);
  clock_.Advance(std::chrono::minutes(10));
  lo.continue_token = l3->continue_token;
  EXPECT_EQ(store_->List(kCms, "default", lo).status().reason(), "Expired");
}

TEST_F(StoreTest, WatchFromResourceVersionAndSelectorTransitions) {
  const uint64_t rv0 = store_->CurrentResourceVersion();
  MustCreate(kCms, R"({"metadata":{"name":"w","labels":{"a":"1"}}})");
  store_->Patch(kCms, "default", "w", PatchType::kMerge, R"({"metadata":{"labels":{"a":"2"}}})")
      .status()
      .IgnoreError();
  store_->Patch(kCms, "default", "w", PatchType::kMerge, R"({"metadata":{"labels":{"a":"1"}}})")
      .status()
      .IgnoreError();
  store_->Delete(kCms, "default", "w").status().IgnoreError();
  WatchOptions wo;
  wo.resource_version = std::to_string(rv0);
  wo.label_selector = "a=1";
  auto w = store_->StartWatch(kCms, "default", wo);
  ASSERT_TRUE(w.ok()) << w.status();
  std::vector<WatchEvent> ev;
  ASSERT_TRUE((*w)->Next(clock_.NowMonotonic(), &ev));
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].type, EventType::kAdded);
  EXPECT_EQ(ev[1].type, EventType::kDeleted);
  EXPECT_EQ(ev[2].type, EventType::kAdded);
  EXPECT_EQ(ev[3].type, EventType::kDeleted);
  // The DELETED for leaving the selector carries the old labels at the event's RV.
  EXPECT_NE(ev[1].object->json().find("\"a\":\"1\""), std::string::npos);
  EXPECT_EQ(ev[1].object->resource_version(), ev[1].resource_version);
}

// Blocks until one more thread waits on the fake clock than `base` (the call under test has
// started its timed wait); bounded so a regression fails instead of hanging.
void AwaitWaiter(const FakeClock& clock, int base) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (clock.NumWaiters() <= base && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::yield();
  }
  ASSERT_GT(clock.NumWaiters(), base);
}

TEST_F(StoreTest, ListFromFutureResourceVersionWaitsThenTimesOut) {
  const uint64_t rv = store_->CurrentResourceVersion();
  ListOptions lo;
  lo.resource_version = std::to_string(rv + 1);
  lo.resource_version_match = "NotOlderThan";
  // Nothing is written within 3 s (of the injected clock): 504 as the watch cache answers.
  int base = clock_.NumWaiters();
  auto late = std::async(std::launch::async, [&] { return store_->List(kCms, "default", lo); });
  AwaitWaiter(clock_, base);
  clock_.Advance(std::chrono::milliseconds(2999));
  EXPECT_EQ(late.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  clock_.Advance(std::chrono::milliseconds(1));
  StatusOr<ListResult> r = late.get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().http_code(), 504);
  EXPECT_EQ(r.status().reason(), "Timeout");
  EXPECT_EQ(r.status().message(), "Timeout: Too large resource version: " + std::to_string(rv + 1) +
                                      ", current: " + std::to_string(rv));
  ASSERT_EQ(r.status().causes().size(), 1u);
  EXPECT_EQ(r.status().causes()[0].type, "ResourceVersionTooLarge");
  EXPECT_EQ(r.status().causes()[0].message, "Too large resource version");
  EXPECT_EQ(r.status().retry_after_seconds(), 1);

  // A write of any resource that reaches the RV within the wait answers the list (legacy
  // resourceVersion without resourceVersionMatch means the same).
  lo.resource_version_match.clear();
  base = clock_.NumWaiters();
  auto ok = std::async(std::launch::async, [&] { return store_->List(kCms, "default", lo); });
  AwaitWaiter(clock_, base);
  clock_.Advance(std::chrono::seconds(2));
  MustCreate(kPods,
             R"({"metadata":{"name":"later"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  StatusOr<ListResult> l = ok.get();
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->resource_version, rv + 1);
}

TEST_F(StoreTest, WatchFromFutureResourceVersion) {
  const uint64_t rv = store_->CurrentResourceVersion();
  // A plain watch ahead of the store is accepted at once and sends nothing (not even bookmarks)
  // up to its RV: the write at rv+1 is skipped, the one at rv+2 arrives.
  WatchOptions wo;
  wo.resource_version = std::to_string(rv + 1);
  wo.allow_bookmarks = true;
  wo.bookmark_interval = std::chrono::seconds(1);
  auto w = store_->StartWatch(kCms, "default", wo);
  ASSERT_TRUE(w.ok()) << w.status();
  std::vector<WatchEvent> ev;
  clock_.Advance(std::chrono::seconds(2));
  ASSERT_TRUE((*w)->Next(clock_.NowMonotonic(), &ev));
  EXPECT_TRUE(ev.empty());
  MustCreate(kCms, R"({"metadata":{"name":"skipped"}})");
  ASSERT_TRUE((*w)->Next(clock_.NowMonotonic(), &ev));
  EXPECT_TRUE(ev.empty());
  MustCreate(kCms, R"({"metadata":{"name":"sent"}})");
  ASSERT_TRUE((*w)->Next(clock_.NowMonotonic(), &ev));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].type, EventType::kAdded);
  EXPECT_EQ(ev[0].object->name(), "sent");

  // A watch-list (sendInitialEvents) ahead of the store waits up to 3 s, then its only event
  // is an ERROR with the 504 status.
  const uint64_t now_rv = store_->CurrentResourceVersion();
  WatchOptions wl;
  wl.send_initial_events = true;
  wl.allow_bookmarks = true;
  wl.resource_version_match = "NotOlderThan";
  wl.resource_version = std::to_string(now_rv + 5);
  int base = clock_.NumWaiters();
  auto late =
      std::async(std::launch::async, [&] { return store_->StartWatch(kCms, "default", wl); });
  AwaitWaiter(clock_, base);
  clock_.Advance(std::chrono::seconds(3));
  auto lw = late.get();
  ASSERT_TRUE(lw.ok()) << lw.status();
  ev.clear();
  EXPECT_FALSE((*lw)->Next(clock_.NowMonotonic(), &ev));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].type, EventType::kError);
  EXPECT_EQ(ev[0].error.http_code(), 504);
  EXPECT_EQ(ev[0].error.reason(), "Timeout");
  EXPECT_EQ(ev[0].error.message(),
            "Timeout: Too large resource version: " + std::to_string(now_rv + 5) +
                ", current: " + std::to_string(now_rv));

  // ... and when the RV arrives in time, the initial state follows, then the bookmark.
  wl.resource_version = std::to_string(now_rv + 1);
  base = clock_.NumWaiters();
  auto fresh =
      std::async(std::launch::async, [&] { return store_->StartWatch(kCms, "default", wl); });
  AwaitWaiter(clock_, base);
  MustCreate(kCms, R"({"metadata":{"name":"third"}})");
  auto fw = fresh.get();
  ASSERT_TRUE(fw.ok()) << fw.status();
  ev = Drain(**fw);
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[2].object->name(), "third");
  EXPECT_EQ(ev[3].type, EventType::kBookmark);
  EXPECT_TRUE(ev[3].initial_events_end);
  EXPECT_GE(ev[3].resource_version, now_rv + 1);
}

TEST_F(StoreTest, HistoryCompactionGivesExpired) {
  const uint64_t rv0 = store_->CurrentResourceVersion();
  for (int i = 0; i < 8; ++i)
    MustCreate(kCms, R"({"metadata":{"name":"h)" + std::to_string(i) + R"("}})");
  WatchOptions wo;
  wo.resource_version = std::to_string(rv0);
  auto w = store_->StartWatch(kCms, "default", wo);
  ASSERT_TRUE(w.ok());
  std::vector<WatchEvent> ev;
  EXPECT_FALSE((*w)->Next(clock_.NowMonotonic(), &ev));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].type, EventType::kError);
  EXPECT_EQ(ev[0].error.http_code(), 410);
  EXPECT_EQ(ev[0].error.reason(), "Expired");
  // Initial events (no resourceVersion) then a bookmark closing them.
  WatchOptions init;
  init.send_initial_events = true;
  init.allow_bookmarks = true;
  init.resource_version_match = "NotOlderThan";
  auto w2 = store_->StartWatch(kCms, "default", init);
  ASSERT_TRUE(w2.ok()) << w2.status();
  ev.clear();
  ASSERT_TRUE((*w2)->Next(clock_.NowMonotonic(), &ev));
  ASSERT_EQ(ev.size(), 9u);  // 8 + kube-root-ca.crt? no: 8 objects and the bookmark
  EXPECT_EQ(ev.back().type, EventType::kBookmark);
  EXPECT_TRUE(ev.back().initial_events_end);
}

TEST_F(StoreTest, FinalizersAndGarbageCollection) {
  ObjectPtr owner = MustCreate(kCms, R"({"metadata":{"name":"owner"}})");
  MustCreate(
      kCms,
      R"({"metadata":{"name":"dep","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":")" +
          owner->uid() + R"("}]}})");
  MustCreate(kCms, R"({"metadata":{"name":"held","finalizers":["x.io/f"]}})");
  auto d = store_->Delete(kCms, "default", "held");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->deleted);
  EXPECT_TRUE(d->object->deleting());
  auto add = store_->Patch(kCms, "default", "held", PatchType::kMerge,
                           R"({"metadata":{"finalizers":["x.io/f","x.io/g"]}})");
  EXPECT_EQ(add.status().reason(), "Invalid");
  ASSERT_TRUE(
      store_
          ->Patch(kCms, "default", "held", PatchType::kMerge, R"({"metadata":{"finalizers":null}})")
          .ok());
  EXPECT_TRUE(IsNotFound(store_->Get(kCms, "default", "held").status()));
  ASSERT_TRUE(store_->Delete(kCms, "default", "owner").ok());
  store_->WaitForGarbageCollector();
  EXPECT_TRUE(IsNotFound(store_->Get(kCms, "default", "dep").status()));
}

TEST_F(StoreTest, BindingSetsNodeOnce) {
  MustCreate(kPods,
             R"({"metadata":{"name":"b"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  auto b = store_->Bind("default", "b", PodBinding{.node = "n1"});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_NE((*b)->json().find("\"nodeName\":\"n1\""), std::string::npos);
  EXPECT_EQ((*b)->Field("spec.nodeName"), "n1");
  auto again = store_->Bind("default", "b", PodBinding{.node = "n2"});
  EXPECT_EQ(again.status().reason(), "Conflict");
  // A bound pod is deleted gracefully; without a kubelet the store completes it.
  auto d = store_->Delete(kPods, "default", "b");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->deleted);
  clock_.Advance(std::chrono::seconds(31));
  for (int i = 0; i < 200 && store_->Get(kPods, "default", "b").ok(); ++i) {
    store_->WaitForGarbageCollector();
    clock_.Advance(std::chrono::seconds(1));
  }
  EXPECT_TRUE(IsNotFound(store_->Get(kPods, "default", "b").status()));
}

TEST_F(StoreTest, BindingHonoursPreconditionsGatesAndAnnotations) {
  auto pod = MustCreate(
      kPods,
      R"({"metadata":{"name":"p","annotations":{"keep":"1"}},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  const std::string rv = std::to_string(pod->resource_version());
  auto wrong_uid = store_->Bind("default", "p", PodBinding{.node = "n1", .uid = "other"});
  EXPECT_EQ(wrong_uid.status().reason(), "Conflict");
  EXPECT_NE(wrong_uid.status().message().find("Precondition failed: UID in precondition: other"),
            std::string::npos)
      << wrong_uid.status();
  auto wrong_rv =
      store_->Bind("default", "p", PodBinding{.node = "n1", .resource_version = rv + "0"});
  EXPECT_EQ(wrong_rv.status().reason(), "Conflict");
  auto bad_kind = store_->Bind("default", "p", PodBinding{.node = "n1", .target_kind = "Pod"});
  EXPECT_EQ(bad_kind.status().http_code(), 500) << bad_kind.status();
  EXPECT_EQ(store_->Bind("default", "p", PodBinding{}).status().http_code(), 500);
  EXPECT_EQ(store_->Get(kPods, "default", "p").value()->Field("spec.nodeName"), "");

  auto b = store_->Bind("default", "p",
                        PodBinding{.node = "n1",
                                   .target_kind = "Node",
                                   .uid = pod->uid(),
                                   .resource_version = rv,
                                   .annotations = {{"kai.scheduler/x", "y"}, {"keep", "2"}}});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)->Field("spec.nodeName"), "n1");
  EXPECT_NE((*b)->json().find(R"("annotations":{"keep":"2","kai.scheduler/x":"y"})"),
            std::string::npos)
      << (*b)->json();

  MustCreate(
      kPods,
      R"({"metadata":{"name":"gated"},"spec":{"schedulingGates":[{"name":"g"}],"containers":[{"name":"c","image":"i"}]}})");
  auto gated = store_->Bind("default", "gated", PodBinding{.node = "n1"});
  EXPECT_EQ(gated.status().reason(), "Conflict");
  EXPECT_NE(gated.status().message().find("has non-empty .spec.schedulingGates"),
            std::string::npos);
}

// A patch cannot change the uid (ValidateObjectMetaUpdate answers 422), on pods/status too: a
// writer that puts the uid it means into its patch leaves a namesake pod alone.
TEST_F(StoreTest, PatchNamingAnotherUidIsRefused) {
  auto pod = MustCreate(
      kPods, R"({"metadata":{"name":"u"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  const std::string same = R"({"metadata":{"uid":")" + pod->uid() +
                           R"("},"status":{"conditions":[{"type":"PodBound","status":"True"}]}})";
  const std::string other =
      R"({"metadata":{"uid":"another"},"status":{"conditions":[{"type":"PodBound","status":"False"}]}})";
  PatchOptions status;
  status.subresource = "status";
  auto refused = store_->Patch(kPods, "default", "u", PatchType::kStrategic, other, status);
  EXPECT_EQ(refused.status().reason(), "Invalid") << refused.status();
  ASSERT_FALSE(refused.status().causes().empty());
  EXPECT_EQ(refused.status().causes()[0].field, "metadata.uid");
  EXPECT_EQ(
      store_->Patch(kPods, "default", "u", PatchType::kMerge, R"({"metadata":{"uid":"another"}})")
          .status()
          .reason(),
      "Invalid");
  auto ok = store_->Patch(kPods, "default", "u", PatchType::kStrategic, same, status);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)->uid(), pod->uid());
  EXPECT_NE((*ok)->json().find(R"("type":"PodBound","status":"True")"), std::string::npos);
}

TEST_F(StoreTest, MutateRetriesAndSeesCurrentObject) {
  MustCreate(kCms, R"({"metadata":{"name":"m"},"data":{"n":"0"}})");
  for (int i = 1; i <= 3; ++i) {
    auto r = store_->Mutate(kCms, "default", "m", [&](MutableObject& o) -> Status {
      SetString(EnsureObject(o.doc(), "data", o.alloc()), "n", std::to_string(i), o.alloc());
      return Status::OK();
    });
    ASSERT_TRUE(r.ok()) << r.status();
  }
  EXPECT_NE((*store_->Get(kCms, "default", "m"))->json().find("\"n\":\"3\""), std::string::npos);
}

// ---- patches and selectors

JsonDoc J(const char* s) { return *Parse(s); }

TEST(PatchTest, StrategicMergeByKeysAndDirectives) {
  JsonDoc pod = J(
      R"({"spec":{"containers":[{"name":"a","image":"1","env":[{"name":"X","value":"1"}]},{"name":"b","image":"2"}]},"metadata":{"finalizers":["f1"]}})");
  JsonDoc patch = J(
      R"({"spec":{"containers":[{"name":"a","env":[{"name":"Y","value":"2"}]},{"name":"b","$patch":"delete"},{"name":"c","image":"3"}]},"metadata":{"finalizers":["f2"]}})");
  ASSERT_TRUE(ApplyStrategicMergePatch(pod, patch, "Pod", pod.GetAllocator()).ok());
  EXPECT_EQ(
      Serialize(pod),
      R"({"spec":{"containers":[{"name":"a","image":"1","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]},{"name":"c","image":"3"}]},"metadata":{"finalizers":["f1","f2"]}})");
  JsonDoc order = J(
      R"({"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"a"}],"containers":[{"name":"c","image":"4"}]}})");
  ASSERT_TRUE(ApplyStrategicMergePatch(pod, order, "Pod", pod.GetAllocator()).ok());
  EXPECT_EQ(GetStr(pod["spec"]["containers"][0], {"name"}), "c");
  JsonDoc del = J(R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["f1"]}})");
  ASSERT_TRUE(ApplyStrategicMergePatch(pod, del, "Pod", pod.GetAllocator()).ok());
  EXPECT_EQ(Serialize(pod["metadata"]), R"({"finalizers":["f2"]})");
  JsonDoc tol = J(R"({"spec":{"tolerations":[{"key":"a"}]}})");
  JsonDoc tol2 = J(R"({"spec":{"tolerations":[{"key":"b"}]}})");
  ASSERT_TRUE(ApplyStrategicMergePatch(tol, tol2, "Pod", tol.GetAllocator()).ok());
  EXPECT_EQ(Serialize(tol), R"({"spec":{"tolerations":[{"key":"b"}]}})");  // atomic list
}

TEST(PatchTest, MergeAndJsonPatch) {
  JsonDoc d = J(R"({"a":{"b":1,"c":[1,2]},"x":1})");
  ASSERT_TRUE(ApplyMergePatch(d, J(R"({"a":{"b":null,"c":[3]},"y":2})"), d.GetAllocator()).ok());
  EXPECT_EQ(Serialize(d), R"({"a":{"c":[3]},"x":1,"y":2})");
  ASSERT_TRUE(
      ApplyJsonPatch(
          d,
          J(R"([{"op":"add","path":"/a/c/0","value":9},{"op":"move","from":"/x","path":"/z"},{"op":"test","path":"/z","value":1}])"),
          d.GetAllocator())
          .ok());
  EXPECT_EQ(Serialize(d), R"({"a":{"c":[9,3]},"y":2,"z":1})");
  Status s = ApplyJsonPatch(d, J(R"([{"op":"test","path":"/y","value":3}])"), d.GetAllocator());
  EXPECT_EQ(s.http_code(), 422);
  s = ApplyJsonPatch(d, J(R"([{"op":"remove","path":"/nope"}])"), d.GetAllocator());
  EXPECT_FALSE(s.ok());
}

TEST(SelectorTest, LabelGrammar) {
  auto s = LabelSelector::Parse("a=1, b!=2,c in (x, y),d notin (z),e,!f");
  ASSERT_TRUE(s.ok()) << s.status();
  std::map<std::string, std::string> l = {{"a", "1"}, {"c", "x"}, {"d", "w"}, {"e", ""}};
  EXPECT_TRUE(s->Matches(l));
  l["f"] = "1";
  EXPECT_FALSE(s->Matches(l));
  EXPECT_EQ(s->ToString(), "a=1,b!=2,c in (x,y),d notin (z),e,!f");
  EXPECT_FALSE(LabelSelector::Parse("a in x").ok());
  EXPECT_FALSE(LabelSelector::Parse("bad key=1").ok());
  EXPECT_FALSE(LabelSelector::Parse("a=-bad-").ok());
  EXPECT_EQ(LabelSelector::Parse("a in x").status().http_code(), 400);
  // The store's sorted label vectors match like maps.
  EXPECT_TRUE(s->Matches(Labels{{"a", "1"}, {"c", "y"}, {"e", "x"}}));
  EXPECT_FALSE(s->Matches(Labels{{"a", "1"}, {"c", "y"}}));
}

TEST(SelectorTest, LabelSelectorObjects) {
  auto s = LabelSelector::FromJson(
      R"({"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"NotIn",)"
      R"("values":["db","cache"]},{"key":"gpu","operator":"Exists"}]})");
  ASSERT_TRUE(s.ok()) << s.status();
  // metav1.LabelSelectorAsSelector sorts the requirements by key.
  EXPECT_EQ(s->ToString(), "app=web,gpu,tier notin (cache,db)");
  EXPECT_TRUE(s->Matches(Labels{{"app", "web"}, {"gpu", "1"}}));
  EXPECT_FALSE(s->Matches(Labels{{"app", "web"}, {"gpu", "1"}, {"tier", "db"}}));
  EXPECT_TRUE(LabelSelector::FromJson("null")->Empty());
  // What the API server refuses: an unknown operator, In without values, a bad key.
  for (const char* bad : {R"({"matchExpressions":[{"key":"a","operator":"Gt","values":["1"]}]})",
                          R"({"matchExpressions":[{"key":"a","operator":"In"}]})",
                          R"({"matchLabels":{"a b":"c"}})", R"({"matchLabels":{"a":1}})", "[]"}) {
    auto r = LabelSelector::FromJson(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().http_code(), 400) << bad;
  }
}

TEST(SelectorTest, FieldGrammar) {
  auto f = FieldSelector::Parse("metadata.name=a\\,b,spec.nodeName!=");
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->requirements().size(), 2u);
  EXPECT_EQ(f->requirements()[0].value, "a,b");
  EXPECT_FALSE(f->requirements()[1].equals);
}

}  // namespace
}  // namespace kai::localkube

namespace kai::localkube {
namespace {

TEST_F(StoreTest, PodQosClassCountsOnlyCpuAndMemory) {
  auto qos = [&](const std::string& name, const std::string& resources) {
    ObjectPtr p = MustCreate(kPods, R"({"metadata":{"name":")" + name +
                                        R"("},"spec":{"containers":[{"name":"c","image":"i",)" +
                                        R"("resources":)" + resources + "}]}}");
    return p ? GetStr(Parse(p->json()).value(), {"status", "qosClass"}) : "";
  };
  EXPECT_EQ(qos("gpu-only", R"({"limits":{"nvidia.com/gpu":"1"}})"), "BestEffort");
  EXPECT_EQ(qos("none", R"({})"), "BestEffort");
  EXPECT_EQ(qos("guaranteed", R"({"limits":{"cpu":"1","memory":"1Gi","nvidia.com/gpu":"1"}})"),
            "Guaranteed");
  EXPECT_EQ(
      qos("same-value",
          R"({"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"1000m","memory":"1Gi"}})"),
      "Guaranteed");
  EXPECT_EQ(qos("cpu-only", R"({"limits":{"cpu":"1"}})"), "Burstable");
  EXPECT_EQ(qos("less", R"({"limits":{"cpu":"2","memory":"1Gi"},"requests":{"cpu":"1"}})"),
            "Burstable");
}

}  // namespace
}  // namespace kai::localkube

namespace kai::localkube {
namespace {

constexpr std::string_view kExpectedManagedFields =
    "[{\"manager\":\"unknown\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":"
    "\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:annotations\":{\"f:x\":{}},\"f:labels\":{\"f:"
    "app\":{}}},\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"main\\\"}\":{\".\":{},\"f:"
    "env\":{\"k:{\\\"name\\\":\\\"A\\\"}\":{\".\":{},\"f:name\":{},\"f:value\":{}}},\"f:image\":{},"
    "\"f:imagePullPolicy\":{},\"f:name\":{},\"f:resources\":{\"f:limits\":{\"f:nvidia.com/"
    "gpu\":{}},\"f:requests\":{\"f:nvidia.com/"
    "gpu\":{}}},\"f:terminationMessagePath\":{},\"f:terminationMessagePolicy\":{}}},\"f:"
    "dnsPolicy\":{},\"f:enableServiceLinks\":{},\"f:preemptionPolicy\":{},\"f:priority\":{},\"f:"
    "restartPolicy\":{},\"f:schedulerName\":{},\"f:securityContext\":{},\"f:serviceAccount\":{},"
    "\"f:serviceAccountName\":{},\"f:terminationGracePeriodSeconds\":{},\"f:tolerations\":{}}}},{"
    "\"manager\":\"kai-binder\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":"
    "\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:annotations\":{\"f:received-resource-type\":{}}"
    "}}},{\"manager\":\"kai-binder\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":"
    "\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"PodBound\\\"}"
    "\":{\".\":{},\"f:reason\":{},\"f:status\":{},\"f:type\":{}}}}},\"subresource\":\"status\"},{"
    "\"manager\":\"kubelet\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":"
    "\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:phase\":{},\"f:podIP\":{},\"f:podIPs\":{\"k:{"
    "\\\"ip\\\":\\\"10.0.0.2\\\"}\":{\".\":{},\"f:ip\":{}}}}},\"subresource\":\"status\"},{"
    "\"manager\":\"other\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":"
    "\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{\"f:z\":{}}}}}]";

// managedFields of a pod written the way the online path writes one: created by a client, its
// annotation and labels patched by other managers, its status patched through the subresource,
// a label removed. The expected document is what the server wrote before WriteEntries built the
// fieldsV1 trees incrementally: the trees must not change by one byte.
TEST_F(StoreTest, ManagedFieldsOfSeveralManagersAreExact) {
  MustCreate(kPods,
             R"({"metadata":{"name":"p","labels":{"app":"a","tier":"t"},"annotations":{"x":"1"}},
                 "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"main",
                 "image":"busybox","env":[{"name":"A","value":"1"}],
                 "resources":{"limits":{"nvidia.com/gpu":"1"}}}],
                 "tolerations":[{"key":"k","operator":"Exists"}]}})");
  auto patch = [&](const std::string& manager, const std::string& sub, PatchType type,
                   const std::string& body) {
    PatchOptions po;
    po.field_manager = manager;
    po.subresource = sub;
    auto r = store_->Patch(kPods, "default", "p", type, body, po);
    ASSERT_TRUE(r.ok()) << r.status();
  };
  patch("kai-binder", "", PatchType::kMerge,
        R"({"metadata":{"annotations":{"received-resource-type":"Regular"}}})");
  patch("kai-binder", "status", PatchType::kStrategic,
        R"({"status":{"conditions":[{"type":"PodBound","status":"True","reason":"Bound"}]}})");
  patch("kubelet", "status", PatchType::kMerge,
        R"({"status":{"phase":"Running","podIP":"10.0.0.2","podIPs":[{"ip":"10.0.0.2"}]}})");
  patch("other", "", PatchType::kMerge, R"({"metadata":{"labels":{"tier":null,"z":"9"}}})");
  auto got = store_->Get(kPods, "default", "p");
  ASSERT_TRUE(got.ok());
  auto doc = Parse((*got)->json());
  ASSERT_TRUE(doc.ok());
  const Json* mf = Path(*doc, {"metadata", "managedFields"});
  ASSERT_NE(mf, nullptr);
  Json copy(*mf, doc->GetAllocator());
  for (Json& e : copy.GetArray()) RemoveMember(e, "time");
  EXPECT_EQ(Serialize(copy), kExpectedManagedFields);
}

}  // namespace
}  // namespace kai::localkube
