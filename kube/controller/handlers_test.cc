#include "kube/controller/handlers.h"

#include <gtest/gtest.h>

namespace kai::controller {
namespace {

api::ObjectMeta Pod(std::string name, std::vector<api::OwnerReference> owners = {}) {
  api::ObjectMeta m;
  m.namespace_ = "team-a";
  m.name = std::move(name);
  m.owner_references = std::move(owners);
  return m;
}

api::OwnerReference Owner(std::string api_version, std::string kind, std::string name,
                          std::optional<bool> controller) {
  return {.api_version = std::move(api_version),
          .kind = std::move(kind),
          .name = std::move(name),
          .uid = "u",
          .controller = controller};
}

TEST(HandlersTest, GroupOfApiVersion) {
  EXPECT_EQ(GroupOfApiVersion("v1"), "");
  EXPECT_EQ(GroupOfApiVersion("apps/v1"), "apps");
  EXPECT_EQ(GroupOfApiVersion("scheduling.run.ai/v2alpha2"), "scheduling.run.ai");
}

TEST(HandlersTest, MapToObject) {
  EXPECT_EQ(MapToObject()(Pod("p")), (std::vector<Request>{{"team-a", "p"}}));
}

TEST(HandlersTest, MapToControllerOwnerMatchesGroupKindAndControllerFlag) {
  const auto pod = Pod(
      "p", {Owner("apps/v1", "ReplicaSet", "rs-not-controller", false),
            Owner("batch/v1", "Job", "job-1", true), Owner("apps/v1", "ReplicaSet", "rs-1", true)});
  EXPECT_EQ(MapToControllerOwner({"apps", "ReplicaSet"})(pod),
            (std::vector<Request>{{"team-a", "rs-1"}}));
  EXPECT_EQ(MapToControllerOwner({"batch", "Job"})(pod),
            (std::vector<Request>{{"team-a", "job-1"}}));
  EXPECT_TRUE(MapToControllerOwner({"", "ReplicaSet"})(pod).empty()) << "group must match";
  EXPECT_EQ(MapToOwners({"apps", "ReplicaSet"})(pod),
            (std::vector<Request>{{"team-a", "rs-not-controller"}, {"team-a", "rs-1"}}));
  // Cluster-scoped owners get no namespace.
  const auto pg = Pod("pg", {Owner("scheduling.run.ai/v2", "Queue", "q1", true)});
  EXPECT_EQ(MapToControllerOwner({"scheduling.run.ai", "Queue"}, false)(pg),
            (std::vector<Request>{{"", "q1"}}));
}

TEST(HandlersTest, EnqueueHandlerUpdateEnqueuesOldAndNewOwnersOnce) {
  std::vector<Request> got;
  EnqueueHandler h([&](const Request& r) { got.push_back(r); },
                   MapToControllerOwner({"batch", "Job"}));
  h.OnUpdate(Pod("p", {Owner("batch/v1", "Job", "old-job", true)}),
             Pod("p", {Owner("batch/v1", "Job", "new-job", true)}));
  EXPECT_EQ(got, (std::vector<Request>{{"team-a", "new-job"}, {"team-a", "old-job"}}));
  got.clear();
  h.OnUpdate(Pod("p", {Owner("batch/v1", "Job", "j", true)}),
             Pod("p", {Owner("batch/v1", "Job", "j", true)}));
  EXPECT_EQ(got, (std::vector<Request>{{"team-a", "j"}}));
  got.clear();
  h.OnAdd(Pod("orphan"));
  EXPECT_TRUE(got.empty());
  h.OnDelete(Pod("p", {Owner("batch/v1", "Job", "j", true)}));
  EXPECT_EQ(got, (std::vector<Request>{{"team-a", "j"}}));
}

TEST(HandlersTest, PredicatesFilterUpdates) {
  std::vector<Request> got;
  EnqueueHandler h([&](const Request& r) { got.push_back(r); }, MapToObject(),
                   {GenerationChangedPredicate()});
  api::ObjectMeta a = Pod("p");
  a.generation = 1;
  a.resource_version = "10";
  api::ObjectMeta b = a;
  b.resource_version = "11";  // status-only change
  h.OnUpdate(a, b);
  EXPECT_TRUE(got.empty());
  b.generation = 2;
  h.OnUpdate(a, b);
  EXPECT_EQ(got.size(), 1u);
  h.OnAdd(a);  // creates and deletes pass a generation predicate
  h.OnDelete(a);
  EXPECT_EQ(got.size(), 3u);

  got.clear();
  EnqueueHandler rv([&](const Request& r) { got.push_back(r); }, MapToObject(),
                    {ResourceVersionChangedPredicate()});
  rv.OnUpdate(a, a);  // a resync
  EXPECT_TRUE(got.empty());
  rv.OnUpdate(a, b);
  EXPECT_EQ(got.size(), 1u);

  got.clear();
  EnqueueHandler labels([&](const Request& r) { got.push_back(r); }, MapToObject(),
                        {LabelChangedPredicate()});
  api::ObjectMeta c = a;
  c.annotations["x"] = "y";
  labels.OnUpdate(a, c);
  EXPECT_TRUE(got.empty());
  c.labels["kai.scheduler/queue"] = "q";
  labels.OnUpdate(a, c);
  EXPECT_EQ(got.size(), 1u);
  EnqueueHandler annotations([&](const Request& r) { got.push_back(r); }, MapToObject(),
                             {AnnotationChangedPredicate()});
  annotations.OnUpdate(a, c);
  EXPECT_EQ(got.size(), 2u);
}

}  // namespace
}  // namespace kai::controller
