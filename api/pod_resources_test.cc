#include "api/pod_resources.h"

#include <gtest/gtest.h>

namespace kai::api {
namespace {

ResourceList RL(std::initializer_list<std::pair<const char*, const char*>> items) {
  ResourceList out;
  for (const auto& [k, v] : items) out[k] = *Quantity::Parse(v);
  return out;
}

Container C(ResourceList requests, ResourceList limits = {}, std::string restart_policy = "") {
  Container c;
  c.resources.requests = std::move(requests);
  c.resources.limits = std::move(limits);
  c.restart_policy = std::move(restart_policy);
  return c;
}

std::string Str(const ResourceList& rl) {
  std::string out;
  for (const auto& [k, v] : rl) out += k + "=" + v.ToString() + " ";
  return out;
}

// Cases follow component-helpers' TestPodResourceRequests / TestPodResourceLimits and the
// sidecar KEP (753) examples.
TEST(PodResourcesTest, Requests) {
  struct Case {
    const char* name;
    std::vector<Container> init;
    std::vector<Container> containers;
    ResourceList overhead;
    ResourceList expected;
  };
  const Case kCases[] = {
      {"empty pod", {}, {}, {}, {}},
      {"sum of containers",
       {},
       {C(RL({{"cpu", "1"}, {"memory", "1Gi"}})), C(RL({{"cpu", "500m"}}))},
       {},
       RL({{"cpu", "1500m"}, {"memory", "1Gi"}})},
      {"init container bigger than containers",
       {C(RL({{"cpu", "2"}}))},
       {C(RL({{"cpu", "1"}}))},
       {},
       RL({{"cpu", "2"}})},
      {"max per resource",
       {C(RL({{"memory", "3Gi"}}))},
       {C(RL({{"cpu", "1"}, {"memory", "1Gi"}}))},
       {},
       RL({{"cpu", "1"}, {"memory", "3Gi"}})},
      {"native sidecar counts like a container",
       {C(RL({{"cpu", "1"}}), {}, "Always")},
       {C(RL({{"cpu", "1"}}))},
       {},
       RL({{"cpu", "2"}})},
      {"init after sidecar runs next to it",
       {C(RL({{"cpu", "1"}}), {}, "Always"), C(RL({{"cpu", "2"}}))},
       {C(RL({{"cpu", "1"}}))},
       {},
       RL({{"cpu", "3"}})},
      {"init before sidecar does not add it",
       {C(RL({{"cpu", "2"}})), C(RL({{"cpu", "1"}}), {}, "Always")},
       {C(RL({{"cpu", "1"}}))},
       {},
       RL({{"cpu", "2"}})},
      {"KEP example: interleaved sidecars and inits",
       {C(RL({{"cpu", "1"}}), {}, "Always"), C(RL({{"cpu", "1"}})),
        C(RL({{"cpu", "1"}}), {}, "Always"), C(RL({{"cpu", "2"}}))},
       {C(RL({{"cpu", "1"}}))},
       {},
       RL({{"cpu", "4"}})},
      {"restart policy other than Always is a regular init",
       {C(RL({{"cpu", "1"}}), {}, "Never")},
       {C(RL({{"cpu", "1"}}))},
       {},
       RL({{"cpu", "1"}})},
      {"overhead is added",
       {},
       {C(RL({{"cpu", "1"}}))},
       RL({{"cpu", "250m"}, {"memory", "64Mi"}}),
       RL({{"cpu", "1250m"}, {"memory", "64Mi"}})},
      {"overhead on top of init peak",
       {C(RL({{"cpu", "2"}}))},
       {C(RL({{"cpu", "1"}}))},
       RL({{"cpu", "100m"}}),
       RL({{"cpu", "2100m"}})},
      {"extended resources",
       {C(RL({{"nvidia.com/gpu", "4"}}))},
       {C(RL({{"nvidia.com/gpu", "1"}})), C(RL({{"nvidia.com/gpu", "1"}}))},
       {},
       RL({{"nvidia.com/gpu", "4"}})},
      {"binary quantities add exactly",
       {},
       {C(RL({{"memory", "1.5Gi"}})), C(RL({{"memory", "512Mi"}}))},
       {},
       RL({{"memory", "2Gi"}})},
  };
  for (const Case& c : kCases) {
    PodSpec spec;
    spec.init_containers = c.init;
    spec.containers = c.containers;
    spec.overhead = c.overhead;
    const ResourceList got = PodRequests(spec);
    EXPECT_EQ(got, c.expected) << c.name << ": got " << Str(got) << " want " << Str(c.expected);
  }
}

TEST(PodResourcesTest, RequestOptions) {
  PodSpec spec;
  spec.containers = {C(RL({{"cpu", "1"}})), C(RL({{"memory", "1Gi"}}))};
  spec.init_containers = {C({})};
  spec.overhead = RL({{"cpu", "250m"}});
  EXPECT_EQ(PodRequests(spec, {.exclude_overhead = true}), RL({{"cpu", "1"}, {"memory", "1Gi"}}));
  // Missing requests get the scoring defaults, per container.
  const ResourceList got = PodRequests(
      spec, {.exclude_overhead = true,
             .non_missing_container_requests = RL({{"cpu", "100m"}, {"memory", "200Mi"}})});
  EXPECT_EQ(got, RL({{"cpu", "1100m"}, {"memory", "1224Mi"}})) << Str(got);
}

TEST(PodResourcesTest, Limits) {
  PodSpec spec;
  spec.containers = {C({}, RL({{"cpu", "2"}})), C({}, RL({{"cpu", "1"}, {"memory", "1Gi"}}))};
  spec.init_containers = {C({}, RL({{"memory", "4Gi"}})), C({}, RL({{"cpu", "500m"}}), "Always")};
  spec.overhead = RL({{"cpu", "100m"}, {"ephemeral-storage", "1Gi"}});
  // cpu: 2 + 1 + 0.5 (sidecar) + 0.1 (overhead); memory: max(1Gi, 4Gi); no overhead where no
  // limit exists.
  const ResourceList got = PodLimits(spec);
  EXPECT_EQ(got, RL({{"cpu", "3600m"}, {"memory", "4Gi"}})) << Str(got);
  EXPECT_EQ(PodLimits(spec, {.exclude_overhead = true}), RL({{"cpu", "3500m"}, {"memory", "4Gi"}}));
}

}  // namespace
}  // namespace kai::api
