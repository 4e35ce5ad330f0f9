#include "kube/cache/informer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <thread>

#include "api/pod.h"
#include "kube/base/fake_clock.h"
#include "kube/cache/factory.h"
#include "kube/cache/typed.h"
#include "kube/rest/errors.h"
#include "kube/rest/fake_client.h"
#include "kube/rest/rest_client.h"
#include "kube/testing/eventually.h"

namespace kai::kube {
namespace {

const GroupVersionResource kPods{"", "v1", "pods"};
const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};

std::string Pod(std::string_view name, std::string_view node = "", std::string_view ns = "ns") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) +
         R"(","namespace":")" + std::string(ns) + R"("},"spec":{"nodeName":")" + std::string(node) +
         R"(","containers":[{"name":"c"}]}})";
}

// Records handler calls as "ADD ns/p rv [initial]" ... and lets tests wait for them.
class Recorder {
 public:
  ResourceEventHandler Handler() {
    return {
        .on_add = [this](const ObjectPtr& o,
                         bool initial) { Record("ADD " + o->key() + (initial ? " initial" : "")); },
        .on_update =
            [this](const ObjectPtr& old_obj, const ObjectPtr& o) {
              Record("UPDATE " + o->key() +
                     (old_obj->resource_version() == o->resource_version() ? " resync" : ""));
            },
        .on_delete =
            [this](const ObjectPtr& o, bool unknown) {
              Record("DELETE " + o->key() + (unknown ? " tombstone" : ""));
            },
    };
  }
  void Record(std::string e) {
    std::lock_guard<std::mutex> l(mu_);
    events_.push_back(std::move(e));
    cv_.notify_all();
  }
  // Waits (real time, generous) until `n` events were recorded; returns them.
  std::vector<std::string> WaitFor(size_t n) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, std::chrono::seconds(30), [&] { return events_.size() >= n; });
    return events_;
  }
  std::vector<std::string> events() {
    std::lock_guard<std::mutex> l(mu_);
    return events_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> events_;
};

using ::kai::testing::Eventually;

// Advances a FakeClock whenever a thread waits on it (backoffs, resyncs), in the background.
// A paused driver moves nothing until Resume(): what happens in between takes no injected time.
class ClockDriver {
 public:
  ClockDriver(FakeClock* clock, Duration step, bool paused = false)
      : clock_(clock), paused_(paused) {
    thread_ = std::thread([this, step] {
      while (!done_.load()) {
        if (!paused_.load() && clock_->NumWaiters() > 0) clock_->Advance(step);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  ~ClockDriver() {
    done_ = true;
    thread_.join();
  }
  void Resume() { paused_ = false; }

 private:
  FakeClock* clock_;
  std::atomic<bool> paused_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

InformerOptions Options(FakeClock* clock, Decoder decoder = nullptr) {
  InformerOptions o;
  o.reflector.clock = clock;
  o.reflector.decoder = std::move(decoder);
  o.reflector.page_size = 2;  // exercise the pager
  return o;
}

// The first re-watch after the initial list of p0..p4 finds the history compacted behind changes
// it never saw (p0 deleted, p1 labelled x=1, pod `q` created): the watch gets 410 Expired, the
// reflector relists with RV "" and the relist reports them (the delete as a tombstone). Starts
// the informer, ends its first watch cleanly after creating pod `r`, and checks what `rec` saw.
void ExpectRelistAfterCompaction(FakeClient* fake, SharedInformer* informer, Recorder* rec,
                                 const std::string& q, const std::string& r) {
  auto watches = std::make_shared<std::atomic<int>>(0);
  fake->PrependReactor(
      "watch", "pods",
      [fake, watches, q](const FakeAction&) -> std::optional<StatusOr<std::string>> {
        if (watches->fetch_add(1) == 1) {
          EXPECT_TRUE(fake->Delete(kPods, "ns", "p0").ok());
          EXPECT_TRUE(fake->Patch(kPods, "ns", "p1", PatchType::kMerge,
                                  R"({"metadata":{"labels":{"x":"1"}}})")
                          .ok());
          EXPECT_TRUE(fake->Create(kPods, "ns", q).ok());
          fake->CompactHistory();
        }
        return std::nullopt;
      });
  informer->Start();
  ASSERT_TRUE(informer->WaitForCacheSync(std::chrono::hours(1)));
  rec->WaitFor(5);
  // End the first watch cleanly after one event, so the reflector re-watches from its RV.
  ASSERT_TRUE(fake->Create(kPods, "ns", r).ok());
  rec->WaitFor(6);
  fake->DropWatches();
  const std::vector<std::string> want = {
      "ADD ns/p0 initial", "ADD ns/p1 initial", "ADD ns/p2 initial",
      "ADD ns/p3 initial", "ADD ns/p4 initial", "ADD ns/r",
      "UPDATE ns/p1",      "ADD ns/q",          "DELETE ns/p0 tombstone"};
  EXPECT_EQ(rec->WaitFor(want.size()), want);
  EXPECT_GE(informer->reflector_stats().expired, 1);
}

TEST(InformerTest, ListThenWatchWithTypedObjects) {
  FakeClock clock;
  FakeClient fake;
  ASSERT_TRUE(fake.Seed(kPods, Pod("a", "n1")).ok());
  ASSERT_TRUE(fake.Seed(kPods, Pod("b", "n2")).ok());
  ASSERT_TRUE(fake.Seed(kPods, Pod("c", "n1")).ok());
  SharedInformer informer(&fake, kPods, Options(&clock, TypedDecoder<api::Pod>()));
  ASSERT_TRUE(informer
                  .AddIndex("node",
                            [](const Object& o) -> std::vector<std::string> {
                              return {o.As<api::Pod>()->spec.node_name};
                            })
                  .ok());
  Recorder rec;
  auto reg = informer.AddEventHandler(rec.Handler());
  EXPECT_FALSE(informer.HasSynced());
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::hours(1)));
  EXPECT_EQ(rec.WaitFor(3),
            (std::vector<std::string>{"ADD ns/a initial", "ADD ns/b initial", "ADD ns/c initial"}));
  EXPECT_TRUE(Eventually([&] { return reg->HasSynced(); }));
  EXPECT_EQ(informer.store().ByIndex("node", "n1").size(), 2u);

  ASSERT_TRUE(fake.Create(kPods, "ns", Pod("d", "n1")).ok());
  ASSERT_TRUE(
      fake.Patch(kPods, "ns", "a", PatchType::kMerge, R"({"spec":{"nodeName":"n3"}})").ok());
  ASSERT_TRUE(fake.Delete(kPods, "ns", "b").ok());
  EXPECT_EQ(rec.WaitFor(6),
            (std::vector<std::string>{"ADD ns/a initial", "ADD ns/b initial", "ADD ns/c initial",
                                      "ADD ns/d", "UPDATE ns/a", "DELETE ns/b"}));
  EXPECT_TRUE(Eventually([&] { return informer.store().size() == 3; }));
  ObjectPtr a = informer.store().Get("ns/a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->As<api::Pod>()->spec.node_name, "n3");
  EXPECT_EQ(informer.store().ByIndex("node", "n1").size(), 2u);  // c, d
  EXPECT_TRUE(
      Eventually([&] { return informer.LastSyncResourceVersion() == fake.resource_version(); }));

  // A bookmark moves the RV without an event.
  ASSERT_TRUE(fake.Create(kConfigMaps, "ns", R"({"metadata":{"name":"x"}})").ok());
  fake.Bookmark();
  EXPECT_TRUE(
      Eventually([&] { return informer.LastSyncResourceVersion() == fake.resource_version(); }));
  EXPECT_GE(informer.reflector_stats().bookmarks, 1);
  EXPECT_EQ(rec.events().size(), 6u);
  informer.Stop();
}

TEST(InformerTest, DropsAndCompactionNeverLoseOrDuplicateEvents) {
  FakeClock clock;
  ClockDriver driver(&clock, std::chrono::milliseconds(100));
  FakeClient fake;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(fake.Seed(kPods, Pod("p" + std::to_string(i))).ok());
  SharedInformer informer(&fake, kPods, Options(&clock));
  Recorder rec;
  informer.AddEventHandler(rec.Handler());
  ASSERT_NO_FATAL_FAILURE(ExpectRelistAfterCompaction(&fake, &informer, &rec, Pod("q"), Pod("r")));

  // Many drops while a writer runs: every change arrives at most once, in order, and the last
  // one is seen.
  std::mutex mu;
  std::vector<uint64_t> p2_rvs;
  informer.AddEventHandler({.on_update = [&](const ObjectPtr&, const ObjectPtr& o) {
    if (o->key() != "ns/p2") return;
    std::lock_guard<std::mutex> l(mu);
    p2_rvs.push_back(std::stoull(o->resource_version()));
  }});
  std::thread writer([&] {
    for (int i = 0; i < 200; ++i) {
      EXPECT_TRUE(fake.Patch(kPods, "ns", "p2", PatchType::kMerge,
                             R"({"metadata":{"labels":{"i":")" + std::to_string(i) + R"("}}})")
                      .ok());
      if (i % 20 == 0) fake.DropWatches();
    }
  });
  writer.join();
  const uint64_t final_rv = std::stoull(fake.resource_version());
  EXPECT_TRUE(Eventually([&] {
    std::lock_guard<std::mutex> l(mu);
    return !p2_rvs.empty() && p2_rvs.back() == final_rv;
  }));
  {
    std::lock_guard<std::mutex> l(mu);
    EXPECT_LE(p2_rvs.size(), 200u);
    for (size_t i = 1; i < p2_rvs.size(); ++i) EXPECT_LT(p2_rvs[i - 1], p2_rvs[i]);
  }
  // The cache equals the server.
  auto list = fake.List(kPods, "");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(informer.store().size(), list->items.size());
  informer.Stop();
}

// A lazily decoding informer goes through the same list, watch, 410 relist and tombstone paths:
// nothing is lost or duplicated, and every delivered object decodes to what the server holds.
TEST(InformerTest, LazyDecoderThroughARelistDeliversEverything) {
  FakeClock clock;
  ClockDriver driver(&clock, std::chrono::milliseconds(100));
  FakeClient fake;
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(fake.Seed(kPods, Pod("p" + std::to_string(i), "n1")).ok());
  SharedInformer informer(
      &fake, kPods,
      Options(&clock, LazyTypedDecoder<api::Pod>({{"spec", "nodeName"}}, /*labels=*/true)));
  Recorder rec;
  std::mutex mu;
  std::vector<ObjectPtr> delivered;
  ResourceEventHandler h = rec.Handler();
  informer.AddEventHandler({
      .on_add =
          [&](const ObjectPtr& o, bool initial) {
            {
              std::lock_guard<std::mutex> l(mu);
              delivered.push_back(o);
            }
            h.on_add(o, initial);
          },
      .on_update =
          [&](const ObjectPtr& old_obj, const ObjectPtr& o) {
            {
              std::lock_guard<std::mutex> l(mu);
              delivered.push_back(o);
            }
            h.on_update(old_obj, o);
          },
      .on_delete =
          [&](const ObjectPtr& o, bool unknown) {
            {
              std::lock_guard<std::mutex> l(mu);
              delivered.push_back(o);
            }
            h.on_delete(o, unknown);
          },
  });
  ASSERT_NO_FATAL_FAILURE(
      ExpectRelistAfterCompaction(&fake, &informer, &rec, Pod("q", "n2"), Pod("r", "n3")));
  informer.Stop();

  std::lock_guard<std::mutex> l(mu);
  ASSERT_EQ(delivered.size(), 9u);  // the nine events ExpectRelistAfterCompaction checks
  // Nobody asked for a typed view yet.
  for (const ObjectPtr& o : delivered) EXPECT_FALSE(o->decoded()) << o->key();
  for (const ObjectPtr& o : delivered) {
    const api::Pod* pod = o->As<api::Pod>();
    ASSERT_NE(pod, nullptr) << o->key();
    EXPECT_EQ(pod->metadata.resource_version, o->resource_version());
    EXPECT_EQ(pod->spec.node_name, o->field(0));
    if (o->key() == "ns/p0") continue;  // deleted: the last state the cache knew
    auto live = fake.Get(kPods, std::string(o->namespace_()), std::string(o->name()));
    ASSERT_TRUE(live.ok()) << o->key();
    auto want_pod = api::Decode<api::Pod>(*live);
    ASSERT_TRUE(want_pod.ok());
    if (o->key() == "ns/p1" && pod->metadata.labels.count("x") == 0) continue;  // its first add
    EXPECT_EQ(api::EncodeJson(*pod), api::EncodeJson(*want_pod)) << o->key();
  }
  EXPECT_EQ(*delivered[6]->label("x"), "1");                      // the relist's update
  EXPECT_EQ(delivered[7]->As<api::Pod>()->spec.node_name, "n2");  // the relist's add
  EXPECT_EQ(delivered[8]->As<api::Pod>()->spec.node_name, "n1");  // the tombstone
}

// An object deleted and created again under its name while the watch was down is two objects
// on the relist: a tombstone and an add, which reach a handler whose update filter declines
// every update (a filter on generations would see generation 1 twice and drop the new object).
TEST(InformerTest, ObjectRecreatedUnseenIsATombstoneAndAnAdd) {
  FakeClock clock;
  ClockDriver driver(&clock, std::chrono::milliseconds(100));
  FakeClient fake;
  ASSERT_TRUE(fake.Seed(kPods, Pod("a", "n1")).ok());
  ASSERT_TRUE(fake.Seed(kPods, Pod("b", "n1")).ok());
  SharedInformer informer(&fake, kPods, Options(&clock));
  Recorder rec;
  ResourceEventHandler h = rec.Handler();
  h.wants_update = [](const ObjectPtr&, const ObjectPtr&) { return false; };
  informer.AddEventHandler(h);
  std::mutex mu;
  std::vector<std::string> uids;  // of the objects delivered for ns/a
  informer.AddEventHandler({.on_add =
                                [&](const ObjectPtr& o, bool) {
                                  std::lock_guard<std::mutex> l(mu);
                                  if (o->key() == "ns/a") uids.push_back(o->uid());
                                },
                            .on_delete =
                                [&](const ObjectPtr& o, bool) {
                                  std::lock_guard<std::mutex> l(mu);
                                  if (o->key() == "ns/a") uids.push_back(o->uid());
                                }});
  auto watches = std::make_shared<std::atomic<int>>(0);
  fake.PrependReactor("watch", "pods",
                      [&fake, watches](const FakeAction&) -> std::optional<StatusOr<std::string>> {
                        if (watches->fetch_add(1) == 1) {
                          EXPECT_TRUE(fake.Delete(kPods, "ns", "a").ok());
                          EXPECT_TRUE(fake.Create(kPods, "ns", Pod("a", "n2")).ok());
                          EXPECT_TRUE(fake.Patch(kPods, "ns", "b", PatchType::kMerge,
                                                 R"({"metadata":{"labels":{"x":"1"}}})")
                                          .ok());
                          fake.CompactHistory();
                        }
                        return std::nullopt;
                      });
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::hours(1)));
  rec.WaitFor(2);
  ASSERT_TRUE(fake.Create(kPods, "ns", Pod("r")).ok());
  rec.WaitFor(3);
  fake.DropWatches();
  const std::vector<std::string> want = {"ADD ns/a initial", "ADD ns/b initial", "ADD ns/r",
                                         "DELETE ns/a tombstone", "ADD ns/a"};
  EXPECT_EQ(rec.WaitFor(want.size()), want);  // b's update was declined by the filter
  EXPECT_TRUE(Eventually([&] {                // the other handler has its own queue and thread
    std::lock_guard<std::mutex> l(mu);
    return uids.size() >= 3;
  }));
  informer.Stop();
  std::lock_guard<std::mutex> l(mu);
  ASSERT_EQ(uids.size(), 3u);
  EXPECT_EQ(uids[0], uids[1]) << "the tombstone is the object the cache knew";
  EXPECT_NE(uids[1], uids[2]) << "the add is the new object";
  EXPECT_EQ(informer.store().Get("ns/a")->uid(), uids[2]);
}

TEST(InformerTest, VeryShortWatchBacksOffAndRelists) {
  FakeClock clock;
  // Paused until the drop, so the first watch lasts no injected time at all: under load a
  // driven clock could pass a second while it is open, and its close would be a clean one.
  ClockDriver driver(&clock, std::chrono::milliseconds(100), /*paused=*/true);
  FakeClient fake;
  ASSERT_TRUE(fake.Seed(kPods, Pod("a")).ok());
  SharedInformer informer(&fake, kPods, Options(&clock));
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::hours(1)));
  ASSERT_TRUE(Eventually([&] { return fake.open_watches() == 1; }));
  const MonoTime before = clock.NowMonotonic();
  fake.DropWatches();  // closes at once with no event
  driver.Resume();
  EXPECT_TRUE(Eventually([&] { return informer.reflector_stats().lists >= 2; }));
  EXPECT_GE(informer.reflector_stats().very_short_watches, 1);
  // The relist came after a backoff of at least 800 ms on the injected clock.
  EXPECT_GE(clock.NowMonotonic() - before, std::chrono::milliseconds(800));

  // Watch errors: 429 re-watches without relisting; other errors relist. Whether the watch
  // dropped here counts as very short (under a second of the driven clock, which advances
  // whenever someone waits) depends on thread timing, so the exact claim is: every relist from
  // here on is a very-short-watch relist, none comes from the two 429s.
  ASSERT_TRUE(Eventually([&] { return fake.open_watches() == 1; }));  // the relist's watch
  const ReflectorStats before_429 = informer.reflector_stats();
  auto watch_calls = [&] {
    int n = 0;
    for (const auto& a : fake.actions()) n += a.verb == "watch" && a.gvr == kPods ? 1 : 0;
    return n;
  };
  const int watches_before = watch_calls();
  fake.InjectError("watch", "pods", NewTooManyRequests("slow down", 1), 2);
  fake.DropWatches();
  ASSERT_TRUE(fake.Create(kPods, "ns", Pod("b")).ok());
  EXPECT_TRUE(Eventually([&] { return informer.store().size() == 2; }));
  // Two refused with 429, then one that opened (b may have arrived by a relist before them).
  EXPECT_TRUE(Eventually([&] { return watch_calls() - watches_before >= 3; }));
  EXPECT_TRUE(Eventually([&] {
    const ReflectorStats now = informer.reflector_stats();
    return now.lists - before_429.lists == now.very_short_watches - before_429.very_short_watches;
  }));
  EXPECT_LE(informer.reflector_stats().lists - before_429.lists, 1);
  informer.Stop();
}

TEST(InformerTest, SlowHandlerNeverBlocksTheReflectorOrOtherHandlers) {
  FakeClock clock;
  FakeClient fake;
  SharedInformer informer(&fake, kPods, Options(&clock));
  std::mutex gate;
  gate.lock();
  std::atomic<int> slow_seen{0};
  informer.AddEventHandler({.on_add = [&](const ObjectPtr&, bool) {
    std::lock_guard<std::mutex> l(gate);  // blocks until the test opens the gate
    ++slow_seen;
  }});
  Recorder fast;
  informer.AddEventHandler(fast.Handler());
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::hours(1)));
  for (int i = 0; i < 50; ++i)
    ASSERT_TRUE(fake.Create(kPods, "ns", Pod("p" + std::to_string(i))).ok());
  EXPECT_EQ(fast.WaitFor(50).size(), 50u);
  EXPECT_TRUE(Eventually([&] { return informer.store().size() == 50; }));
  EXPECT_EQ(slow_seen.load(), 0);
  gate.unlock();
  EXPECT_TRUE(Eventually([&] { return slow_seen.load() == 50; }));
  informer.Stop();
}

// A wants_update filter keeps declined updates out of that handler's queue; adds, deletes and
// the other handlers are untouched, and the accepted updates arrive in order.
TEST(InformerTest, WantsUpdateFiltersOnlyThatHandlersUpdates) {
  FakeClock clock;
  FakeClient fake;
  ASSERT_TRUE(fake.Seed(kPods, Pod("a", "n1")).ok());
  SharedInformer informer(
      &fake, kPods,
      Options(&clock, LazyTypedDecoder<api::Pod>({{"spec", "nodeName"}}, /*labels=*/true)));
  Recorder all;
  informer.AddEventHandler(all.Handler());
  Recorder filtered;
  ResourceEventHandler h = filtered.Handler();
  std::atomic<int> asked{0};
  h.wants_update = [&](const ObjectPtr& old_obj, const ObjectPtr& o) {
    ++asked;
    const std::string* before = old_obj->label("x");
    const std::string* after = o->label("x");
    return after != nullptr && (before == nullptr || *before != *after);
  };
  informer.AddEventHandler(h);
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::hours(1)));
  auto label = [&](const std::string& k, const std::string& v) {
    ASSERT_TRUE(fake.Patch(kPods, "ns", "a", PatchType::kMerge,
                           R"({"metadata":{"labels":{")" + k + R"(":")" + v + R"("}}})")
                    .ok());
  };
  label("y", "1");  // declined
  label("x", "1");  // accepted
  label("y", "2");  // declined
  label("x", "2");  // accepted
  ASSERT_TRUE(fake.Create(kPods, "ns", Pod("b")).ok());
  ASSERT_TRUE(fake.Delete(kPods, "ns", "b").ok());
  const std::vector<std::string> want_all = {"ADD ns/a initial", "UPDATE ns/a", "UPDATE ns/a",
                                             "UPDATE ns/a",      "UPDATE ns/a", "ADD ns/b",
                                             "DELETE ns/b"};
  EXPECT_EQ(all.WaitFor(want_all.size()), want_all);
  const std::vector<std::string> want_filtered = {"ADD ns/a initial", "UPDATE ns/a", "UPDATE ns/a",
                                                  "ADD ns/b", "DELETE ns/b"};
  EXPECT_EQ(filtered.WaitFor(want_filtered.size()), want_filtered);
  EXPECT_EQ(asked.load(), 4);
  informer.Stop();
  EXPECT_EQ(filtered.events(), want_filtered);
}

TEST(InformerTest, ResyncAndLateHandlers) {
  FakeClock clock;
  FakeClient fake;
  ASSERT_TRUE(fake.Seed(kPods, Pod("a")).ok());
  ASSERT_TRUE(fake.Seed(kPods, Pod("b")).ok());
  SharedInformer informer(&fake, kPods, Options(&clock));
  Recorder resync;
  informer.AddEventHandler(resync.Handler(), std::chrono::minutes(10));
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::hours(1)));
  resync.WaitFor(2);
  ASSERT_TRUE(Eventually([&] { return fake.open_watches() == 1; }));
  const int64_t calls = static_cast<int64_t>(fake.actions().size());
  // Let the listener arm its resync timer, then move past it.
  ASSERT_TRUE(Eventually([&] { return clock.NumWaiters() > 0; }));
  clock.Advance(std::chrono::minutes(10));
  EXPECT_EQ(resync.WaitFor(4),
            (std::vector<std::string>{"ADD ns/a initial", "ADD ns/b initial", "UPDATE ns/a resync",
                                      "UPDATE ns/b resync"}));
  EXPECT_EQ(static_cast<int64_t>(fake.actions().size()), calls);  // no API call

  // A handler added after the sync gets the cache as its initial list.
  Recorder late;
  auto reg = informer.AddEventHandler(late.Handler());
  EXPECT_EQ(late.WaitFor(2), (std::vector<std::string>{"ADD ns/a initial", "ADD ns/b initial"}));
  EXPECT_TRUE(Eventually([&] { return reg->HasSynced(); }));
  informer.RemoveEventHandler(reg);
  ASSERT_TRUE(fake.Create(kPods, "ns", Pod("c")).ok());
  EXPECT_TRUE(Eventually([&] { return informer.store().size() == 3; }));
  EXPECT_EQ(late.events().size(), 2u);
  informer.Stop();
}

TEST(InformerTest, UndecodableObjectsAreSkipped) {
  FakeClock clock;
  FakeClient fake;
  ASSERT_TRUE(fake.Seed(kPods, Pod("good")).ok());
  ASSERT_TRUE(
      fake.Seed(kPods, R"({"metadata":{"name":"bad","namespace":"ns"},"spec":{"priority":"high"}})")
          .ok());
  SharedInformer informer(&fake, kPods, Options(&clock, TypedDecoder<api::Pod>()));
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::hours(1)));
  EXPECT_EQ(informer.store().ListKeys(), (std::vector<std::string>{"ns/good"}));
  EXPECT_EQ(informer.reflector_stats().decode_errors, 1);
  informer.Stop();
}

TEST(InformerTest, StopInterruptsAListRetryingDuringAnOutage) {
  // Nothing listens on port 1: every list attempt is refused and the client backs off on a
  // clock that never moves. Stop() must still end the informer (the test would hang if not).
  FakeClock clock;
  RestConfig cfg;
  cfg.host = "http://127.0.0.1:1";
  cfg.qps = 0;
  auto client = RestClient::New(cfg, {.clock = &clock, .max_retries = 10});
  ASSERT_TRUE(client.ok());
  SharedInformer informer(client->get(), kPods, Options(&clock));
  informer.Start();
  ASSERT_TRUE(Eventually([&] { return (*client)->stats().requests >= 1; }));
  informer.Stop();
  EXPECT_FALSE(informer.HasSynced());
  EXPECT_EQ((*client)->stats().requests, 1);  // still in its first backoff when stopped
}

TEST(SharedInformerFactoryTest, OneWatchPerResourceForEveryConsumer) {
  FakeClock clock;
  FakeClient fake;
  ASSERT_TRUE(fake.Seed(kPods, Pod("a")).ok());
  SharedInformerFactory factory(&fake, {.clock = &clock});
  SharedInformer* one = factory.InformerFor<api::Pod>();
  SharedInformer* two = factory.InformerFor(kPods);
  EXPECT_EQ(one, two);
  SharedInformer* cms = factory.InformerFor(kConfigMaps);
  Recorder r1, r2;
  one->AddEventHandler(r1.Handler());
  two->AddEventHandler(r2.Handler());
  factory.Start();
  factory.Start();  // idempotent
  ASSERT_TRUE(factory.WaitForCacheSync(std::chrono::hours(1)));
  EXPECT_TRUE(cms->HasSynced());
  EXPECT_TRUE(Eventually([&] { return fake.open_watches() == 2; }));  // pods + configmaps
  ASSERT_TRUE(fake.Create(kPods, "ns", Pod("b")).ok());
  EXPECT_EQ(r1.WaitFor(2), r2.WaitFor(2));
  ASSERT_NE(one->store().Get("ns/b")->As<api::Pod>(), nullptr);
  int lists = 0;
  for (const auto& a : fake.actions()) lists += a.verb == "list" && a.gvr == kPods ? 1 : 0;
  EXPECT_EQ(lists, 1);
  EXPECT_EQ(factory.Resources().size(), 2u);
  factory.Shutdown();
  EXPECT_EQ(fake.open_watches(), 0);
}

// client-go's factory: Start() after Shutdown() starts nothing (a process stopping while its
// runnable still starts must not leave informers running).
TEST(SharedInformerFactoryTest, StartAfterShutdownStartsNothing) {
  FakeClock clock;
  FakeClient fake;
  ASSERT_TRUE(fake.Seed(kPods, Pod("a")).ok());
  SharedInformerFactory factory(&fake, {.clock = &clock});
  factory.Shutdown();
  SharedInformer* pods = factory.InformerFor<api::Pod>();
  factory.Start();
  EXPECT_FALSE(pods->WaitForCacheSync(std::chrono::hours(1))) << "it ran and listed";
  EXPECT_FALSE(pods->HasSynced());
  EXPECT_TRUE(fake.actions().empty()) << fake.actions().front().verb;
}

}  // namespace
}  // namespace kai::kube
