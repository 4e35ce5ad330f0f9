#include "test/manifests/rbac_grants.h"

#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/file.h"
#include "kube/base/strings.h"

namespace kai::testing {
namespace {

std::string Str(const rapidjson::Value& v, const char* a, const char* b = nullptr) {
  const rapidjson::Value* x = api::FindMember(v, a);
  if (x != nullptr && b != nullptr) x = api::FindMember(*x, b);
  return x != nullptr && x->IsString() ? x->GetString() : "";
}

// The strings of a list member; an absent or malformed member is an empty list.
std::vector<std::string> Strings(const rapidjson::Value& v, const char* member) {
  std::vector<std::string> out;
  const rapidjson::Value* x = api::FindMember(v, member);
  if (x == nullptr || !x->IsArray()) return out;
  for (const auto& s : x->GetArray()) {
    if (s.IsString()) out.emplace_back(s.GetString());
  }
  return out;
}

}  // namespace

StatusOr<std::map<std::string, std::set<std::string>>> RoleGrants(const std::string& path) {
  KAI_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  KAI_ASSIGN_OR_RETURN(std::vector<std::string> docs, api::YamlToJsonDocuments(text));
  std::map<std::string, std::set<std::string>> out;
  for (const auto& json : docs) {
    KAI_ASSIGN_OR_RETURN(rapidjson::Document d, api::ParseJsonDocument(json));
    const std::string kind = Str(d, "kind");
    if (kind != "Role" && kind != "ClusterRole") continue;
    auto& grants = out[kind + "/" + Str(d, "metadata", "name")];
    const rapidjson::Value* rules = api::FindMember(d, "rules");
    if (rules == nullptr || !rules->IsArray()) continue;
    for (const auto& rule : rules->GetArray()) {
      for (const auto& g : Strings(rule, "apiGroups")) {
        for (const auto& r : Strings(rule, "resources")) {
          for (const auto& v : Strings(rule, "verbs")) grants.insert(StrCat(g, "/", r, ":", v));
        }
      }
    }
  }
  return out;
}

StatusOr<std::string> GroupOfResource(const std::string& resource) {
  static const auto* groups =
      new std::map<std::string, std::string>{{"pods", ""},
                                             {"nodes", ""},
                                             {"configmaps", ""},
                                             {"events", ""},
                                             {"namespaces", ""},
                                             {"secrets", ""},
                                             {"services", ""},
                                             {"bindrequests", "scheduling.run.ai"},
                                             {"podgroups", "scheduling.run.ai"},
                                             {"queues", "scheduling.run.ai"},
                                             {"topologies", "kai.scheduler"},
                                             {"schedulingshards", "kai.scheduler"},
                                             {"configs", "kai.scheduler"},
                                             {"priorityclasses", "scheduling.k8s.io"},
                                             {"leases", "coordination.k8s.io"}};
  auto it = groups->find(resource.substr(0, resource.find('/')));
  if (it == groups->end()) return NotFoundError("no API group known for resource " + resource);
  return it->second;
}

}  // namespace kai::testing
