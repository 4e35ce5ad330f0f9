// Test helpers of the live scheduler's tests: objects of outputs_testing's YAML builders put into
// a kube::FakeClient, as an API server would hold them.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/rest/fake_client.h"

namespace kai::scheduler::live_testing {

inline const kube::GroupVersionResource kPods{"", "v1", "pods"};
inline const kube::GroupVersionResource kBindRequests{"scheduling.run.ai", "v1alpha2",
                                                      "bindrequests"};

inline kube::GroupVersionResource GvrOfKind(const std::string& kind) {
  if (kind == "Pod") return kPods;
  if (kind == "Node") return {"", "v1", "nodes"};
  if (kind == "PodGroup") return {"scheduling.run.ai", "v2alpha2", "podgroups"};
  if (kind == "Queue") return {"scheduling.run.ai", "v2", "queues"};
  return {};
}

// Seeds the objects (create = false: present before the informers list) or creates them (seen
// through the watch).
inline void Seed(kube::FakeClient* fake, const std::string& yaml, bool create = false) {
  auto docs = api::YamlToJsonDocuments(yaml);
  ASSERT_TRUE(docs.ok()) << docs.status();
  for (const auto& d : *docs) {
    auto doc = api::ParseJsonDocument(d);
    auto gvr = GvrOfKind((*doc)["kind"].GetString());
    if (create) {
      const char* ns = (*doc)["metadata"].HasMember("namespace")
                           ? (*doc)["metadata"]["namespace"].GetString()
                           : "";
      ASSERT_TRUE(fake->Create(gvr, ns, d).ok());
    } else {
      ASSERT_TRUE(fake->Seed(gvr, d).ok());
    }
  }
}

}  // namespace kai::scheduler::live_testing
