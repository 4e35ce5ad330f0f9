// config/ manifests: every document parses the way kubectl reads it, references resolve, and the
// RBAC rules are exactly the verbs each component uses (least privilege, docs/binder.md and
// docs/scheduler-online.md list why each is needed).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/file.h"
#include "kube/base/strings.h"
#include "test/manifests/rbac_grants.h"

namespace kai {
namespace {

const std::vector<std::string>& Files() {
  static const auto* files = new std::vector<std::string>{
      "config/manager/namespaces.yaml",    "config/rbac/kai-scheduler.yaml",
      "config/rbac/kai-binder.yaml",       "config/rbac/kai-resource-reservation.yaml",
      "config/manager/kai-scheduler.yaml", "config/manager/kai-binder.yaml"};
  return *files;
}

std::vector<rapidjson::Document> Load(const std::string& path) {
  std::vector<rapidjson::Document> out;
  auto text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << text.status();
  if (!text.ok()) return out;
  auto docs = api::YamlToJsonDocuments(*text);
  EXPECT_TRUE(docs.ok()) << path << ": " << docs.status();
  if (!docs.ok()) return out;
  for (const auto& j : *docs) {
    auto d = api::ParseJsonDocument(j);
    EXPECT_TRUE(d.ok());
    if (d.ok()) out.push_back(std::move(*d));
  }
  return out;
}

std::string Str(const rapidjson::Value& v, const char* a, const char* b = nullptr) {
  const rapidjson::Value* x = api::FindMember(v, a);
  if (x != nullptr && b != nullptr) x = api::FindMember(*x, b);
  return x != nullptr && x->IsString() ? x->GetString() : "";
}

// "group/resource:verb" for every rule of the named (Cluster)Role.
std::set<std::string> Grants(const std::string& kind, const std::string& name) {
  std::set<std::string> out;
  const std::string key = StrCat(kind, "/", name);
  for (const auto& f : Files()) {
    auto roles = testing::RoleGrants(f);
    EXPECT_TRUE(roles.ok()) << f << ": " << roles.status();
    if (!roles.ok()) continue;
    auto it = roles->find(key);
    if (it != roles->end()) out.insert(it->second.begin(), it->second.end());
  }
  return out;
}

TEST(Manifests, EveryDocumentIsAnObject) {
  std::set<std::string> seen;
  for (const auto& f : Files()) {
    auto docs = Load(f);
    EXPECT_FALSE(docs.empty()) << f;
    for (const auto& d : docs) {
      std::string id =
          Str(d, "kind") + " " + Str(d, "metadata", "namespace") + "/" + Str(d, "metadata", "name");
      EXPECT_FALSE(Str(d, "apiVersion").empty()) << f << ": " << id;
      EXPECT_FALSE(Str(d, "kind").empty()) << f;
      EXPECT_FALSE(Str(d, "metadata", "name").empty()) << f << ": " << id;
      EXPECT_TRUE(seen.insert(id).second) << "duplicate " << id;
    }
  }
}

TEST(Manifests, KustomizationListsEveryFile) {
  auto docs = Load("config/kustomization.yaml");
  ASSERT_EQ(docs.size(), 1u);
  std::set<std::string> listed;
  for (const auto& r : docs[0]["resources"].GetArray()) {
    listed.insert(std::string("config/") + r.GetString());
  }
  EXPECT_EQ(listed, std::set<std::string>(Files().begin(), Files().end()));
}

TEST(Manifests, SchedulerRbacIsExactlyWhatItUses) {
  EXPECT_EQ(Grants("ClusterRole", "kai-scheduler"),
            (std::set<std::string>{"/pods:list",
                                   "/pods:watch",
                                   "/pods:patch",
                                   "/pods:delete",
                                   "/pods/status:patch",
                                   "/nodes:list",
                                   "/nodes:watch",
                                   "/configmaps:list",
                                   "/configmaps:watch",
                                   "/events:create",
                                   "/events:patch",
                                   "scheduling.k8s.io/priorityclasses:list",
                                   "scheduling.k8s.io/priorityclasses:watch",
                                   "scheduling.run.ai/queues:list",
                                   "scheduling.run.ai/queues:watch",
                                   "scheduling.run.ai/podgroups:list",
                                   "scheduling.run.ai/podgroups:watch",
                                   "scheduling.run.ai/podgroups:patch",
                                   "scheduling.run.ai/podgroups/status:patch",
                                   "scheduling.run.ai/bindrequests:get",
                                   "scheduling.run.ai/bindrequests:list",
                                   "scheduling.run.ai/bindrequests:watch",
                                   "scheduling.run.ai/bindrequests:create",
                                   "scheduling.run.ai/bindrequests:delete",
                                   "kai.scheduler/topologies:list",
                                   "kai.scheduler/topologies:watch",
                                   "kai.scheduler/schedulingshards:get"}));
  EXPECT_EQ(
      Grants("Role", "kai-scheduler-leader-election"),
      (std::set<std::string>{"coordination.k8s.io/leases:get", "coordination.k8s.io/leases:create",
                             "coordination.k8s.io/leases:update"}));
}

TEST(Manifests, BinderRbacIsExactlyWhatItUses) {
  EXPECT_EQ(Grants("ClusterRole", "kai-binder"),
            (std::set<std::string>{"scheduling.run.ai/bindrequests:get",
                                   "scheduling.run.ai/bindrequests:list",
                                   "scheduling.run.ai/bindrequests:watch",
                                   "scheduling.run.ai/bindrequests:delete",
                                   "scheduling.run.ai/bindrequests/status:patch",
                                   "/pods:get",
                                   "/pods:list",
                                   "/pods:watch",
                                   "/pods:patch",
                                   "/pods:delete",
                                   "/pods/binding:create",
                                   "/pods/status:patch",
                                   "/nodes:get",
                                   "/nodes:list",
                                   "/nodes:watch",
                                   "/configmaps:get",
                                   "/configmaps:list",
                                   "/configmaps:watch",
                                   "/configmaps:create",
                                   "/configmaps:patch",
                                   "/configmaps:delete",
                                   "/events:create",
                                   "/events:patch"}));
  EXPECT_EQ(Grants("Role", "kai-binder-resource-reservation"),
            (std::set<std::string>{"/pods:create"}));
  EXPECT_EQ(Grants("Role", "kai-resource-reservation"),
            (std::set<std::string>{"/pods:get", "/pods:patch"}));
}

TEST(Manifests, DeploymentsUseDefinedServiceAccountsAndProbePorts) {
  std::set<std::string> accounts;
  for (const auto& f : Files()) {
    for (const auto& d : Load(f)) {
      if (Str(d, "kind") == "ServiceAccount") {
        accounts.insert(Str(d, "metadata", "namespace") + "/" + Str(d, "metadata", "name"));
      }
    }
  }
  int deployments = 0;
  for (const auto& f : Files()) {
    for (const auto& d : Load(f)) {
      if (Str(d, "kind") != "Deployment") continue;
      ++deployments;
      const auto& pod = d["spec"]["template"]["spec"];
      std::string sa = Str(d, "metadata", "namespace") + "/" + Str(pod, "serviceAccountName");
      EXPECT_EQ(accounts.count(sa), 1u) << sa;
      const auto& c = pod["containers"][0];
      std::set<std::string> ports;
      for (const auto& p : c["ports"].GetArray()) ports.insert(p["name"].GetString());
      for (const char* probe : {"livenessProbe", "readinessProbe"}) {
        std::string port = Str(c[probe], "httpGet", "port");
        EXPECT_EQ(ports.count(port), 1u) << Str(d, "metadata", "name") << " " << probe;
      }
      EXPECT_TRUE(c.HasMember("resources"));
    }
  }
  EXPECT_EQ(deployments, 2);
}

}  // namespace
}  // namespace kai
