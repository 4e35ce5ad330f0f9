#include "kube/controller/informer_handler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "api/codec.h"
#include "api/pod.h"
#include "kube/base/fake_clock.h"
#include "kube/cache/typed.h"
#include "kube/controller/controller.h"
#include "kube/rest/fake_client.h"
#include "kube/testing/eventually.h"

namespace kai::controller {
namespace {

using std::chrono::seconds;

using ::kai::testing::Eventually;

std::string PodJson(const std::string& name, const std::string& owner_job) {
  api::Pod p;
  p.metadata.namespace_ = "team-a";
  p.metadata.name = name;
  if (!owner_job.empty()) {
    p.metadata.owner_references.push_back({.api_version = "batch/v1",
                                           .kind = "Job",
                                           .name = owner_job,
                                           .uid = "j",
                                           .controller = true});
  }
  return api::EncodeJson(p);
}

// A typed pod informer feeding a controller through MapToControllerOwner: the reconciler sees
// the owning Jobs, once per distinct owner, never the pods.
TEST(InformerHandlerTest, TypedInformerDrivesAControllerByOwner) {
  kube::FakeClient fake;
  ASSERT_TRUE(fake.Seed(kube::GvrOf<api::Pod>(), PodJson("p1", "job-a")).ok());
  ASSERT_TRUE(fake.Seed(kube::GvrOf<api::Pod>(), PodJson("p2", "job-a")).ok());
  ASSERT_TRUE(fake.Seed(kube::GvrOf<api::Pod>(), PodJson("orphan", "")).ok());
  kube::SharedInformer pods(&fake, kube::GvrOf<api::Pod>(),
                            {.reflector = {.decoder = kube::TypedDecoder<api::Pod>()}});
  std::mutex mu;
  std::vector<std::string> reconciled;
  Controller c({.name = "jobs", .wait_for_sync = {[&] { return pods.HasSynced(); }}},
               [&](const Request& r) -> Result {
                 std::lock_guard<std::mutex> l(mu);
                 reconciled.push_back(r.Key());
                 return Result::Done();
               });
  pods.AddEventHandler(
      InformerHandler<api::Pod>(EnqueueHandler(&c, MapToControllerOwner({"batch", "Job"}))));
  pods.Start();
  ASSERT_TRUE(c.Start().ok());
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard<std::mutex> l(mu);
    return !reconciled.empty();
  }));
  ASSERT_TRUE(fake.Delete(kube::GvrOf<api::Pod>(), "team-a", "p1").ok());
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard<std::mutex> l(mu);
    return reconciled.size() >= 2;
  }));
  c.Stop(RealClock::Get()->NowMonotonic() + seconds(30));
  pods.Stop();
  std::lock_guard<std::mutex> l(mu);
  for (const auto& k : reconciled) EXPECT_EQ(k, "team-a/job-a");
}

TEST(InformerHandlerTest, RawObjectsGiveMinimalMetadata) {
  auto obj =
      std::make_shared<const kube::Object>("ns", "n", "42", "uid-1", nullptr, nullptr, nullptr);
  const api::ObjectMeta m = MinimalMeta(*obj);
  EXPECT_EQ(m.namespace_, "ns");
  EXPECT_EQ(m.name, "n");
  EXPECT_EQ(m.resource_version, "42");
  EXPECT_EQ(m.uid, "uid-1");
  std::vector<Request> got;
  auto h =
      InformerHandler(EnqueueHandler([&](const Request& r) { got.push_back(r); }, MapToObject()));
  h.on_add(obj, true);
  h.on_update(obj, obj);
  h.on_delete(obj, true);  // a tombstone maps like a delete
  EXPECT_EQ(got, (std::vector<Request>{{"ns", "n"}, {"ns", "n"}, {"ns", "n"}}));
}

}  // namespace
}  // namespace kai::controller
