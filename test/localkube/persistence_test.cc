// Unit tests of --data-dir persistence (write-ahead log + snapshot) on in-process stores.
#include "test/localkube/persistence.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "kube/base/fake_clock.h"
#include "kube/base/file.h"
#include "test/localkube/crd.h"
#include "test/localkube/json.h"
#include "test/localkube/testing/resources.h"
#include "test/localkube/types.h"

namespace kai::localkube {
namespace {

using testing::kCms;
using testing::kNs;
using testing::kPods;
const GroupVersionResource kWidgets{"example.com", "v1", "widgets"};

constexpr char kCrd[] =
    R"({"metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";

// One "process": registry, store, CRD controller, persistence on `dir`.
struct Instance {
  explicit Instance(FakeClock* clock, const std::string& dir, PersistenceOptions po = {})
      : random(1) {
    RegisterBuiltins(&registry);
    CrdController::RegisterCrdResource(&registry);
    store = std::make_unique<Store>(&registry, clock, &random);
    crds = std::make_unique<CrdController>(store.get());
    auto p = Persistence::Open(dir, clock, po);
    EXPECT_TRUE(p.ok()) << p.status();
    if (!p.ok()) return;
    persistence = std::move(*p);
    restore = persistence->Restore(store.get(), [&](const ObjectPtr& c) { crds->Serve(c); });
    if (!restore.ok()) return;
    EXPECT_TRUE(persistence->Start(store.get()).ok());
    crds->Start();
    store->Start();
  }
  ~Instance() {
    if (store) store->Shutdown();
    if (persistence) {
      EXPECT_TRUE(persistence->Close().ok());
    }
  }
  ObjectPtr Create(const GroupVersionResource& gvr, const std::string& ns,
                   const std::string& json) {
    auto r = store->Create(gvr, ns, json);
    EXPECT_TRUE(r.ok()) << r.status() << json;
    return r.ok() ? *r : nullptr;
  }
  std::string Json(const GroupVersionResource& gvr, const std::string& ns, const std::string& n) {
    auto r = store->Get(gvr, ns, n);
    return r.ok() ? (*r)->json() : "<" + std::string(r.status().reason()) + ">";
  }

  SeededRandom random;
  ResourceRegistry registry;
  std::unique_ptr<Store> store;
  std::unique_ptr<CrdController> crds;
  std::unique_ptr<Persistence> persistence;
  Status restore;
};

class PersistenceTest : public ::testing::Test {
 protected:
  PersistenceTest() {
    char tmpl[] = "/tmp/lk-persist-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  ~PersistenceTest() override { EXPECT_EQ(std::system(("rm -rf " + dir_).c_str()), 0); }
  std::string Read(const std::string& f) { return ReadFile(dir_ + "/" + f).value_or(""); }
  void Write(const std::string& f, const std::string& text) {
    std::ofstream(dir_ + "/" + f, std::ios::trunc) << text;
  }

  FakeClock clock_;
  std::string dir_;
};

TEST_F(PersistenceTest, ObjectsAndResourceVersionSurviveRestart) {
  std::string cm, pod, widget, ns_json;
  uint64_t rv = 0;
  {
    Instance a(&clock_, dir_);
    ASSERT_TRUE(a.restore.ok()) << a.restore;
    ns_json = a.Create(kNs, "", R"({"metadata":{"name":"team"}})")->json();
    a.Create(kCms, "team", R"({"metadata":{"name":"keep"},"data":{"a":"1"}})");
    a.Create(kCms, "team", R"({"metadata":{"name":"gone"}})");
    ASSERT_TRUE(
        a.store->Patch(kCms, "team", "keep", PatchType::kMerge, R"({"data":{"a":"2"}})").ok());
    ASSERT_TRUE(a.store->Delete(kCms, "team", "gone", {}).ok());
    a.Create(kCrdGvr, "", kCrd);
    a.store->WaitForGarbageCollector();
    a.Create(kWidgets, "team", R"({"metadata":{"name":"w1"},"spec":{"size":3}})");
    a.Create(
        kPods, "team",
        R"({"metadata":{"name":"p","finalizers":["example.com/keep"]},"spec":{"containers":[{"name":"c","image":"i"}]}})");
    ASSERT_TRUE(a.store->Delete(kPods, "team", "p", {}).ok());  // pending: finalizer
    cm = a.Json(kCms, "team", "keep");
    pod = a.Json(kPods, "team", "p");
    widget = a.Json(kWidgets, "team", "w1");
    rv = a.store->CurrentResourceVersion();
    a.persistence->WaitWritten(rv);
    EXPECT_NE(Read("wal").find("\"name\":\"w1\""), std::string::npos);  // written before Close
  }
  Instance b(&clock_, dir_);
  ASSERT_TRUE(b.restore.ok()) << b.restore;
  EXPECT_EQ(b.Json(kCms, "team", "keep"), cm);
  EXPECT_EQ(b.Json(kCms, "team", "gone"), "<NotFound>");
  EXPECT_EQ(b.Json(kPods, "team", "p"), pod);         // deletionTimestamp and finalizer kept
  EXPECT_EQ(b.Json(kWidgets, "team", "w1"), widget);  // the CRD is served again
  EXPECT_EQ(b.Json(kNs, "", "team"), ns_json);
  EXPECT_EQ(b.store->CurrentResourceVersion(), rv);
  EXPECT_EQ(b.persistence->stats().restored_rv, rv);
  // The counter continues; watch history does not survive (410 from an older RV).
  ObjectPtr next = b.Create(kCms, "team", R"({"metadata":{"name":"next"}})");
  EXPECT_EQ(next->resource_version(), rv + 1);
  auto old_watch = b.store->StartWatch(kCms, "team", {.resource_version = std::to_string(rv - 1)});
  ASSERT_TRUE(old_watch.ok());
  std::vector<WatchEvent> events;
  (*old_watch)->Next(clock_.NowMonotonic(), &events);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].type, EventType::kError);
  EXPECT_EQ(events[0].error.http_code(), 410);
  auto new_watch = b.store->StartWatch(kCms, "team", {.resource_version = std::to_string(rv)});
  ASSERT_TRUE(new_watch.ok());
  events.clear();
  (*new_watch)->Next(clock_.NowMonotonic(), &events);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, EventType::kAdded);
  EXPECT_EQ(events[0].object->name(), "next");
  // The restored pod's finalizer still gates its deletion.
  ASSERT_TRUE(
      b.store->Patch(kPods, "team", "p", PatchType::kMerge, R"({"metadata":{"finalizers":null}})")
          .ok());
  EXPECT_EQ(b.Json(kPods, "team", "p"), "<NotFound>");
}

TEST_F(PersistenceTest, DirectoryIsLockedAndGarbageCollectionResumes) {
  {
    Instance a(&clock_, dir_);
    auto second = Persistence::Open(dir_, &clock_);
    ASSERT_FALSE(second.ok());
    EXPECT_NE(second.status().message().find("in use by another localkube"), std::string::npos);
    a.Create(kNs, "", R"({"metadata":{"name":"ns"}})");
    // A dependent whose owner does not exist (as if localkube stopped before collecting it).
    a.store->SnapshotAndAttach(nullptr, nullptr);  // stop logging: the GC's delete is lost
    a.Create(
        kCms, "ns",
        R"({"metadata":{"name":"orphan","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"no-such-uid"}]}})");
    a.store->WaitForGarbageCollector();
    EXPECT_EQ(a.Json(kCms, "ns", "orphan"), "<NotFound>");
    // Log the orphan's creation by hand, as a crash right after its commit would leave it.
    auto orphan_json = std::string(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"orphan","namespace":"ns","uid":"u1","resourceVersion":"9999","creationTimestamp":"2026-01-01T00:00:00Z","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"no-such-uid"}]}})");
    a.persistence->Close().IgnoreError();
    std::ofstream(dir_ + "/wal", std::ios::app)
        << "P 9999 configmaps ns/orphan\t" << orphan_json << "\n";
  }
  Instance b(&clock_, dir_);
  ASSERT_TRUE(b.restore.ok()) << b.restore;
  b.store->WaitForGarbageCollector();
  EXPECT_EQ(b.Json(kCms, "ns", "orphan"), "<NotFound>");  // collected after the restart
  EXPECT_EQ(b.store->CurrentResourceVersion(), 10000u);   // the deletion's RV
}

TEST_F(PersistenceTest, TornLastRecordIsIgnoredAndCorruptionIsReported) {
  {
    Instance a(&clock_, dir_);
    a.Create(kNs, "", R"({"metadata":{"name":"ns"}})");
  }
  const std::string wal = Read("wal");
  ASSERT_FALSE(wal.empty());
  Write("wal", wal + "P 500 configmaps ns/half\t{\"apiVersion\":\"v1\",\"ki");
  {
    Instance b(&clock_, dir_);
    ASSERT_TRUE(b.restore.ok()) << b.restore;
    EXPECT_NE(b.Json(kNs, "", "ns"), "<NotFound>");
    EXPECT_EQ(b.Json(kCms, "ns", "half"), "<NotFound>");
  }
  // Restart b wrote a fresh snapshot and emptied the log; corrupt the log in the middle.
  Write("wal", "X garbage\nP 1 namespaces x\t{}\n");
  auto p = Persistence::Open(dir_, &clock_);
  ASSERT_TRUE(p.ok());
  SeededRandom random(1);
  ResourceRegistry registry;
  RegisterBuiltins(&registry);
  Store store(&registry, &clock_, &random);
  Status s = (*p)->Restore(&store, [](const ObjectPtr&) {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), dir_ + "/wal:1: malformed record");
  Write("snapshot", "LOCALKUBE-SNAPSHOT 1 5\nnamespaces\tx\t{}\n");
  s = (*p)->Restore(&store, [](const ObjectPtr&) {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), dir_ + "/snapshot: truncated (no END trailer)");
}

TEST_F(PersistenceTest, LogIsCompactedIntoSnapshots) {
  PersistenceOptions po;
  po.compact_min_bytes = 4096;
  {
    Instance a(&clock_, dir_, po);
    a.Create(kNs, "", R"({"metadata":{"name":"ns"}})");
    for (int i = 0; i < 200; ++i) {
      a.Create(kCms, "ns",
               R"({"metadata":{"name":"c)" + std::to_string(i) + R"("},"data":{"v":")" +
                   std::string(100, 'x') + R"("}})");
      if (i % 2 == 0) {
        ASSERT_TRUE(a.store->Delete(kCms, "ns", "c" + std::to_string(i), {}).ok());
      }
    }
    a.persistence->WaitWritten(a.store->CurrentResourceVersion());
    a.persistence->Close().IgnoreError();
    EXPECT_GE(a.persistence->stats().snapshots, 2u);  // at start, then at least one compaction
    // The log never grows much past twice the snapshot before it is compacted again.
    EXPECT_LE(Read("wal").size(), std::max<size_t>(4096, 2 * Read("snapshot").size()) + 512);
  }
  Instance b(&clock_, dir_, po);
  ASSERT_TRUE(b.restore.ok()) << b.restore;
  auto list = b.store->List(kCms, "ns", {});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), 100u);
  EXPECT_EQ(b.Json(kCms, "ns", "c0"), "<NotFound>");
  EXPECT_NE(b.Json(kCms, "ns", "c199"), "<NotFound>");
}

}  // namespace
}  // namespace kai::localkube
