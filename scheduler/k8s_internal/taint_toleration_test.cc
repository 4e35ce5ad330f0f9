// Ported from kube-scheduler plugins/tainttoleration/taint_toleration_test.go and
// component-helpers scheduling/corev1 toleration tests.
#include "scheduler/k8s_internal/taint_toleration.h"

#include <gtest/gtest.h>

#include "scheduler/k8s_internal/testing_builders.h"

namespace kai::k8s_internal {
namespace {

using testing::MakeNode;
using testing::MakePod;

api::Toleration Tol(std::string key, std::string op, std::string value, std::string effect) {
  api::Toleration t;
  t.key = std::move(key);
  t.operator_ = std::move(op);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

api::Taint Taint(std::string key, std::string value, std::string effect) {
  api::Taint t;
  t.key = std::move(key);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

struct TaintFilterCase {
  std::string name;
  std::vector<api::Toleration> tolerations;
  std::vector<api::Taint> taints;
  std::string want_message;  // "" = fits
  bool comparison_ops = false;
};

TEST(TaintToleration, FilterTable) {
  const std::vector<TaintFilterCase> cases = {
      {"no tolerations, nonempty taints",
       {},
       {Taint("dedicated", "user1", "NoSchedule")},
       "node(s) had untolerated taint {dedicated: user1}"},
      {"tolerates dedicated user1",
       {Tol("dedicated", "", "user1", "NoSchedule")},
       {Taint("dedicated", "user1", "NoSchedule")},
       ""},
      {"toleration for user2 on user1 node",
       {Tol("dedicated", "Equal", "user2", "NoSchedule")},
       {Taint("dedicated", "user1", "NoSchedule")},
       "node(s) had untolerated taint {dedicated: user1}"},
      {"Exists tolerates any value",
       {Tol("foo", "Exists", "", "NoSchedule")},
       {Taint("foo", "bar", "NoSchedule")},
       ""},
      {"multiple tolerations, all taints tolerated",
       {Tol("dedicated", "Equal", "user2", "NoSchedule"), Tol("foo", "Exists", "", "NoSchedule")},
       {Taint("dedicated", "user2", "NoSchedule"), Taint("foo", "bar", "NoSchedule")},
       ""},
      {"effect mismatch",
       {Tol("foo", "Equal", "bar", "PreferNoSchedule")},
       {Taint("foo", "bar", "NoSchedule")},
       "node(s) had untolerated taint {foo: bar}"},
      {"empty toleration effect matches all",
       {Tol("foo", "Equal", "bar", "")},
       {Taint("foo", "bar", "NoSchedule")},
       ""},
      {"PreferNoSchedule taint does not filter",
       {Tol("dedicated", "Equal", "user2", "NoSchedule")},
       {Taint("dedicated", "user1", "PreferNoSchedule")},
       ""},
      {"no toleration, PreferNoSchedule taint",
       {},
       {Taint("dedicated", "user1", "PreferNoSchedule")},
       ""},
      {"NoExecute taint filters",
       {},
       {Taint("k", "v", "NoExecute")},
       "node(s) had untolerated taint {k: v}"},
      {"names the first untolerated taint in node order",
       {Tol("a", "Exists", "", "")},
       {Taint("a", "1", "NoSchedule"), Taint("b", "2", "NoExecute"), Taint("c", "3", "NoSchedule")},
       "node(s) had untolerated taint {b: 2}"},
      {"empty key with Exists tolerates everything",
       {Tol("", "Exists", "", "")},
       {Taint("a", "1", "NoSchedule"), Taint("b", "2", "NoExecute")},
       ""},
      {"empty key with Exists limited to one effect",
       {Tol("", "Exists", "", "NoSchedule")},
       {Taint("a", "1", "NoSchedule"), Taint("b", "2", "NoExecute")},
       "node(s) had untolerated taint {b: 2}"},
      {"unknown operator tolerates nothing",
       {Tol("a", "Foo", "1", "")},
       {Taint("a", "1", "NoSchedule")},
       "node(s) had untolerated taint {a: 1}"},
      {"taint with empty value, Equal with empty value",
       {Tol("a", "", "", "")},
       {Taint("a", "", "NoSchedule")},
       ""},
      {"Gt disabled by default",
       {Tol("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")},
       {Taint("node.kubernetes.io/sla", "950", "NoSchedule")},
       "node(s) had untolerated taint {node.kubernetes.io/sla: 950}"},
      {"Gt below threshold",
       {Tol("node.example.com/priority-level", "Gt", "950", "NoSchedule")},
       {Taint("node.example.com/priority-level", "800", "NoSchedule")},
       "node(s) had untolerated taint {node.example.com/priority-level: 800}",
       true},
      {"Gt above threshold",
       {Tol("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")},
       {Taint("node.kubernetes.io/sla", "950", "NoSchedule")},
       "",
       true},
      {"Lt above threshold",
       {Tol("node.example.com/priority-level", "Lt", "800", "NoSchedule")},
       {Taint("node.example.com/priority-level", "950", "NoSchedule")},
       "node(s) had untolerated taint {node.example.com/priority-level: 950}",
       true},
      {"Lt below threshold",
       {Tol("node.kubernetes.io/sla", "Lt", "950", "NoSchedule")},
       {Taint("node.kubernetes.io/sla", "800", "NoSchedule")},
       "",
       true},
      {"Gt with non-numeric taint value",
       {Tol("node.kubernetes.io/sla", "Gt", "950", "NoSchedule")},
       {Taint("node.kubernetes.io/sla", "high", "NoSchedule")},
       "node(s) had untolerated taint {node.kubernetes.io/sla: high}",
       true},
      {"Gt with non-canonical taint value",
       {Tol("sla", "Gt", "1", "NoSchedule")},
       {Taint("sla", "0950", "NoSchedule")},
       "node(s) had untolerated taint {sla: 0950}",
       true},
      {"mixed Equal and Gt with gate off, only Equal needed",
       {Tol("dedicated", "Equal", "user1", "NoSchedule"),
        Tol("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")},
       {Taint("dedicated", "user1", "NoSchedule")},
       ""},
      {"mixed Equal and Gt with gate off, Gt needed",
       {Tol("dedicated", "Equal", "user1", "NoSchedule"),
        Tol("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")},
       {Taint("dedicated", "user1", "NoSchedule"),
        Taint("node.kubernetes.io/sla", "950", "NoSchedule")},
       "node(s) had untolerated taint {node.kubernetes.io/sla: 950}"},
  };
  for (const TaintFilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    api::Pod pod = MakePod().Obj();
    pod.spec.tolerations = c.tolerations;
    api::Node node = MakeNode("nodeA").Obj();
    node.spec.taints = c.taints;
    TaintTolerationOptions opts;
    opts.enable_comparison_operators = c.comparison_ops;
    FilterResult r = TaintTolerationFilter(pod.spec, node, opts);
    EXPECT_EQ(r.Message(), c.want_message);
    EXPECT_EQ(r.ok(), c.want_message.empty());
    if (!r.ok()) {
      EXPECT_EQ(r.code(), Code::kUnschedulableAndUnresolvable);
      ASSERT_NE(r.taint(), nullptr);
    }
  }
}

struct TaintScoreCase {
  std::string name;
  std::vector<api::Toleration> tolerations;
  std::vector<std::vector<api::Taint>> node_taints;
  std::vector<int64_t> want;
  bool comparison_ops = false;
};

TEST(TaintToleration, ScoreTable) {
  const std::vector<TaintScoreCase> cases = {
      {"tolerated taints score higher",
       {Tol("foo", "Equal", "bar", "PreferNoSchedule")},
       {{Taint("foo", "bar", "PreferNoSchedule")}, {Taint("foo", "blah", "PreferNoSchedule")}},
       {100, 0}},
      {"all tolerated nodes score the same",
       {Tol("cpu-type", "Equal", "arm64", "PreferNoSchedule"),
        Tol("disk-type", "Equal", "ssd", "PreferNoSchedule")},
       {{},
        {Taint("cpu-type", "arm64", "PreferNoSchedule")},
        {Taint("cpu-type", "arm64", "PreferNoSchedule"),
         Taint("disk-type", "ssd", "PreferNoSchedule")}},
       {100, 100, 100}},
      {"the more intolerable taints, the lower the score",
       {Tol("foo", "Equal", "bar", "PreferNoSchedule")},
       {{},
        {Taint("cpu-type", "arm64", "PreferNoSchedule")},
        {Taint("cpu-type", "arm64", "PreferNoSchedule"),
         Taint("disk-type", "ssd", "PreferNoSchedule")}},
       {100, 50, 0}},
      {"only PreferNoSchedule taints and tolerations count",
       {Tol("cpu-type", "Equal", "arm64", "NoSchedule"),
        Tol("disk-type", "Equal", "ssd", "NoSchedule")},
       {{},
        {Taint("cpu-type", "arm64", "NoSchedule")},
        {Taint("cpu-type", "arm64", "PreferNoSchedule"),
         Taint("disk-type", "ssd", "PreferNoSchedule")}},
       {100, 100, 0}},
      {"no taints and tolerations",
       {},
       {{}, {Taint("cpu-type", "arm64", "PreferNoSchedule")}},
       {100, 0}},
      {"Gt toleration prefers the matching SLA",
       {Tol("node.kubernetes.io/sla", "Gt", "950", "PreferNoSchedule")},
       {{Taint("node.kubernetes.io/sla", "800", "PreferNoSchedule")},
        {Taint("node.kubernetes.io/sla", "999", "PreferNoSchedule")}},
       {0, 100},
       true},
      {"Lt toleration prefers the matching SLA",
       {Tol("node.kubernetes.io/sla", "Lt", "800", "PreferNoSchedule")},
       {{Taint("node.kubernetes.io/sla", "950", "PreferNoSchedule")},
        {Taint("node.kubernetes.io/sla", "700", "PreferNoSchedule")}},
       {0, 100},
       true},
      {"non-numeric taint value is simply not tolerated",
       {Tol("node.kubernetes.io/sla", "Gt", "950", "PreferNoSchedule")},
       {{}, {Taint("node.kubernetes.io/sla", "high", "PreferNoSchedule")}},
       {100, 0},
       true},
      {"no node has intolerable taints: all get the max", {}, {{}, {}}, {100, 100}},
  };
  for (const TaintScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    api::Pod pod = MakePod().Obj();
    pod.spec.tolerations = c.tolerations;
    TaintTolerationOptions opts;
    opts.enable_comparison_operators = c.comparison_ops;
    TaintTolerationScorer s = TaintTolerationScorer::PreScore(pod, opts);
    std::vector<int64_t> scores;
    for (const auto& taints : c.node_taints) {
      api::Node n = MakeNode("n").Obj();
      n.spec.taints = taints;
      scores.push_back(s.Score(n));
    }
    TaintTolerationScorer::NormalizeScore(scores);
    EXPECT_EQ(scores, c.want);
  }
}

TEST(TaintToleration, ToleratesTaintRules) {
  const api::Taint t = Taint("k", "v", "NoSchedule");
  EXPECT_TRUE(ToleratesTaint(Tol("k", "Equal", "v", "NoSchedule"), t));
  EXPECT_TRUE(ToleratesTaint(Tol("k", "", "v", ""), t));
  EXPECT_FALSE(ToleratesTaint(Tol("k", "Equal", "w", ""), t));
  EXPECT_TRUE(ToleratesTaint(Tol("k", "Exists", "", ""), t));
  EXPECT_FALSE(ToleratesTaint(Tol("other", "Exists", "", ""), t));
  EXPECT_TRUE(ToleratesTaint(Tol("", "Exists", "", "NoSchedule"), t));
  EXPECT_FALSE(ToleratesTaint(Tol("", "Exists", "", "NoExecute"), t));
  // Empty key with Equal (invalid in the API) matches any key with the same value, as upstream.
  EXPECT_TRUE(ToleratesTaint(Tol("", "Equal", "v", ""), t));
  EXPECT_FALSE(ToleratesTaint(Tol("", "Equal", "x", ""), t));
}

}  // namespace
}  // namespace kai::k8s_internal
