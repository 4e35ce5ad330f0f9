#include "controllers/common/list_watch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "api/codec.h"
#include "api/pod.h"
#include "kube/rest/fake_client.h"

namespace kai::controllers {
namespace {

const kube::GroupVersionResource kPods{"", "v1", "pods"};

std::string Pod(const std::string& name, const std::string& node = "") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"ns"},"spec":{"nodeName":")" + node + R"("}})";
}

// Collects what the handlers saw into a name -> nodeName map.
class Mirror {
 public:
  ListWatchHandlers Handlers() {
    return {[this](const std::vector<std::string>& objects) {
              std::lock_guard<std::mutex> lock(mu_);
              state_.clear();
              for (const auto& o : objects) Put(o);
              cv_.notify_all();
            },
            [this](kube::WatchEventType t, const std::string& o) {
              std::lock_guard<std::mutex> lock(mu_);
              if (t == kube::WatchEventType::kDeleted) {
                state_.erase(api::Decode<api::Pod>(o)->metadata.name);
              } else {
                Put(o);
              }
              cv_.notify_all();
            }};
  }
  // Waits (real time, bounded) until the mirror equals `want`.
  bool WaitFor(const std::map<std::string, std::string>& want) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return state_ == want; });
  }

 private:
  void Put(const std::string& o) {
    auto p = api::Decode<api::Pod>(o);
    ASSERT_TRUE(p.ok()) << p.status();
    state_[p->metadata.name] = p->spec.node_name;
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> state_;
};

TEST(ListWatch, ListsThenFollowsChangesAndRelistsAfterCompaction) {
  kube::FakeClient fake;
  ASSERT_TRUE(fake.Seed(kPods, Pod("a")).ok());
  Mirror m;
  ListWatch lw(&fake, {.gvr = kPods, .retry_delay = std::chrono::milliseconds(10)}, m.Handlers());
  lw.Start();
  ASSERT_TRUE(m.WaitFor({{"a", ""}}));

  ASSERT_TRUE(fake.Create(kPods, "ns", Pod("b")).ok());
  ASSERT_TRUE(
      fake.Patch(kPods, "ns", "a", kube::PatchType::kMerge, R"({"spec":{"nodeName":"n1"}})").ok());
  ASSERT_TRUE(m.WaitFor({{"a", "n1"}, {"b", ""}}));
  EXPECT_TRUE(lw.HasSynced());  // set once the first list was handed over
  ASSERT_TRUE(fake.Delete(kPods, "ns", "b").ok());
  ASSERT_TRUE(m.WaitFor({{"a", "n1"}}));

  // Dropped streams are re-opened from the last version; a compacted history forces a
  // re-list, after which later changes still arrive.
  fake.DropWatches();
  ASSERT_TRUE(fake.Create(kPods, "ns", Pod("c")).ok());
  ASSERT_TRUE(m.WaitFor({{"a", "n1"}, {"c", ""}}));
  fake.CompactHistory();
  fake.DropWatches();
  ASSERT_TRUE(fake.Create(kPods, "ns", Pod("d")).ok());
  ASSERT_TRUE(m.WaitFor({{"a", "n1"}, {"c", ""}, {"d", ""}}));
  lw.Stop();
  lw.Stop();  // idempotent
}

TEST(ListWatch, ListErrorsAreRetried) {
  kube::FakeClient fake;
  ASSERT_TRUE(fake.Seed(kPods, Pod("a")).ok());
  fake.InjectError("list", "pods", InternalError("boom"), 2);
  Mirror m;
  ListWatch lw(&fake, {.gvr = kPods, .retry_delay = std::chrono::milliseconds(5)}, m.Handlers());
  lw.Start();
  ASSERT_TRUE(m.WaitFor({{"a", ""}}));
  EXPECT_EQ(lw.lists(), 1);
}

}  // namespace
}  // namespace kai::controllers
