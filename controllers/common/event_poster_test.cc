#include "controllers/common/event_poster.h"

#include <gtest/gtest.h>

#include "api/event.h"
#include "kube/base/fake_clock.h"
#include "kube/rest/fake_client.h"

namespace kai::controllers {
namespace {

TEST(EventPoster, WritesEventsLikeTheRecorder) {
  FakeClock clock;
  kube::FakeClient fake({.clock = &clock});
  {
    EventPoster poster(&fake, "kai-scheduler", &clock);
    poster.Record({"Pod", "v1", "ns", "p", "u1", "7", "Warning", "Unschedulable", "no room", {}});
    poster.Record({"PodGroup",
                   "scheduling.run.ai/v2alpha2",
                   "ns",
                   "pg",
                   "u2",
                   "",
                   "Normal",
                   "Evict",
                   "bye",
                   {{"num-evicted-pods", "1"}}});
  }  // flushed
  auto list = fake.List({"", "v1", "events"}, "ns");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 2u);
  bool seen_evict = false;
  for (const auto& item : list->items) {
    auto ev = api::Decode<api::Event>(item);
    ASSERT_TRUE(ev.ok()) << ev.status();
    EXPECT_EQ(ev->source.component, "kai-scheduler");
    EXPECT_EQ(ev->count, 1);
    EXPECT_EQ(ev->first_timestamp, ev->last_timestamp);
    EXPECT_EQ(ev->metadata.name.rfind(ev->involved_object.name + ".", 0), 0u);
    if (ev->reason == "Evict") {
      seen_evict = true;
      EXPECT_EQ(ev->metadata.annotations.at("num-evicted-pods"), "1");
      EXPECT_EQ(ev->involved_object.kind, "PodGroup");
    } else {
      EXPECT_EQ(ev->type, "Warning");
      EXPECT_EQ(ev->message, "no room");
      EXPECT_EQ(ev->involved_object.uid, "u1");
    }
  }
  EXPECT_TRUE(seen_evict);
}

TEST(EventPoster, DropsWhenTheQueueIsFull) {
  kube::FakeClient fake;
  // Block the poster's first write so that the queue fills up.
  std::mutex gate;
  gate.lock();
  fake.PrependReactor("create", "events", [&](const kube::FakeAction&) {
    std::lock_guard<std::mutex> wait(gate);
    return std::optional<StatusOr<std::string>>();
  });
  EventPoster poster(&fake, "c", nullptr, /*max_queued=*/2);
  for (int i = 0; i < 10; ++i)
    poster.Record({"Pod", "v1", "ns", "p", "", "", "Normal", "R", "m", {}});
  EXPECT_GE(poster.dropped(), 7);
  gate.unlock();
}

}  // namespace
}  // namespace kai::controllers
