// Ported from KAI pkg/scheduler/scheduler_util/scheduler_utils_test.go, plus messages and the
// pod-count check.
#include "scheduler/k8s_internal/node_conditions.h"

#include <gtest/gtest.h>

#include "scheduler/k8s_internal/testing_builders.h"

namespace kai::k8s_internal {
namespace {

using testing::MakeNode;

api::Toleration Tol(std::string key, std::string op, std::string effect) {
  api::Toleration t;
  t.key = std::move(key);
  t.operator_ = std::move(op);
  t.effect = std::move(effect);
  return t;
}

TEST(NodeConditions, KaiTable) {
  struct Case {
    std::string name;
    api::Node node;
    std::vector<api::Toleration> tolerations;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"ready", MakeNode("n").Condition("Ready", "True").Obj(), {}, {}},
      {"unready",
       MakeNode("n").Condition("Ready", "False").Obj(),
       {},
       {"node has NotReady condition"}},
      {"unknown ready",
       MakeNode("n").Condition("Ready", "Unknown").Obj(),
       {},
       {"node has NotReady condition"}},
      {"unschedulable",
       MakeNode("n").Condition("Ready", "True").Unschedulable().Obj(),
       {},
       {"node is unschedulable"}},
      {"custom condition is ignored",
       MakeNode("n").Condition("Ready", "True").Condition("CustomCondition", "True").Obj(),
       {},
       {}},
      {"memory pressure",
       MakeNode("n").Condition("Ready", "True").Condition("MemoryPressure", "True").Obj(),
       {},
       {"node has MemoryPressure condition"}},
      {"disk pressure",
       MakeNode("n").Condition("Ready", "True").Condition("DiskPressure", "True").Obj(),
       {},
       {"node has DiskPressure condition"}},
      {"pid pressure",
       MakeNode("n").Condition("Ready", "True").Condition("PIDPressure", "Unknown").Obj(),
       {},
       {"node has PIDPressure condition"}},
      {"network unavailable",
       MakeNode("n").Condition("Ready", "True").Condition("NetworkUnavailable", "True").Obj(),
       {},
       {"node has NetworkUnavailable condition"}},
      {"pressure False is fine",
       MakeNode("n").Condition("MemoryPressure", "False").Condition("Ready", "True").Obj(),
       {},
       {}},
      {"no conditions at all passes", MakeNode("n").Obj(), {}, {}},
      {"unschedulable with matching toleration",
       MakeNode("n").Condition("Ready", "True").Unschedulable().Obj(),
       {Tol("node.kubernetes.io/unschedulable", "Exists", "NoSchedule")},
       {}},
      {"unschedulable with unrelated toleration",
       MakeNode("n").Condition("Ready", "True").Unschedulable().Obj(),
       {Tol("some.other/taint", "Exists", "NoSchedule")},
       {"node is unschedulable"}},
      {"unschedulable with tolerate-everything",
       MakeNode("n").Unschedulable().Obj(),
       {Tol("", "Exists", "")},
       {}},
      {"all reasons in order",
       MakeNode("n")
           .Unschedulable()
           .Condition("DiskPressure", "True")
           .Condition("Ready", "False")
           .Obj(),
       {},
       {"node is unschedulable", "node has DiskPressure condition", "node has NotReady condition"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(CheckNodeConditions(c.node, c.tolerations), c.want);
    EXPECT_EQ(NodeConditionsFit(c.node, c.tolerations), c.want.empty());
  }
}

TEST(PodCount, KaiSlots) {
  EXPECT_TRUE(CheckPodCount(1, 1).ok());
  FilterResult r = CheckPodCount(0, 1);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.code(), Code::kUnschedulable);
  EXPECT_EQ(r.Message(), "node(s) pod number exceeded");
  EXPECT_FALSE(CheckPodCount(1, 2).ok());  // a new GPU group needs the reservation pod's slot too
  EXPECT_TRUE(CheckPodCount(2, 2).ok());
  EXPECT_TRUE(CheckPodCount(0, 0).ok());  // joining an existing GPU group
}

}  // namespace
}  // namespace kai::k8s_internal
