// Ported from kube-scheduler pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go
// (TestNodeAffinity, TestNodeAffinityPriority) and component-helpers nodeaffinity_test.go.
#include "scheduler/k8s_internal/node_affinity.h"

#include <gtest/gtest.h>

#include "scheduler/k8s_internal/testing_builders.h"

namespace kai::k8s_internal {
namespace {

using testing::Labels;
using testing::MakeNode;
using testing::MakePod;
using testing::NReq;
using testing::NTerm;

struct NodeAffinityFilterCase {
  std::string name;
  api::Pod pod;
  Labels labels;
  std::string node_name;
  bool want_fit = true;
  Code want_prefilter = Code::kSuccess;
  std::optional<std::vector<std::string>> want_names;
};

api::Pod Required(std::vector<api::NodeSelectorTerm> terms) {
  return MakePod().NodeAffinityRequired(std::move(terms)).Obj();
}

TEST(NodeAffinity, FilterTable) {
  const std::vector<NodeAffinityFilterCase> cases = {
      {"missing labels", MakePod().NodeSelector({{"foo", "bar"}}).Obj(), {}, "", false},
      {"same labels", MakePod().NodeSelector({{"foo", "bar"}}).Obj(), {{"foo", "bar"}}, "", true},
      {"node labels are superset",
       MakePod().NodeSelector({{"foo", "bar"}}).Obj(),
       {{"foo", "bar"}, {"baz", "blah"}},
       "",
       true},
      {"node labels are subset",
       MakePod().NodeSelector({{"foo", "bar"}, {"baz", "blah"}}).Obj(),
       {{"foo", "bar"}},
       "",
       false},
      {"In operator matches",
       Required({NTerm({NReq("foo", "In", {"bar", "value2"})})}),
       {{"foo", "bar"}},
       "",
       true},
      {"Gt operator matches",
       Required({NTerm({NReq("kernel-version", "Gt", {"0204"})})}),
       {{"kernel-version", "0206"}},
       "",
       true},
      {"NotIn operator matches",
       Required({NTerm({NReq("mem-type", "NotIn", {"DDR", "DDR2"})})}),
       {{"mem-type", "DDR3"}},
       "",
       true},
      {"Exists operator matches",
       Required({NTerm({NReq("GPU", "Exists")})}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       true},
      {"affinity that doesn't match node labels",
       Required({NTerm({NReq("foo", "In", {"value1", "value2"})})}),
       {{"foo", "bar"}},
       "",
       false},
      {"empty MatchExpressions matches no objects",
       Required({NTerm({})}),
       {{"foo", "bar"}},
       "",
       false},
      {"no affinity", MakePod().Obj(), {{"foo", "bar"}}, "", true, Code::kSkip},
      {"affinity with nil NodeSelector",
       MakePod().Affinity(api::Affinity{api::NodeAffinity{}, {}, {}}).Obj(),
       {{"foo", "bar"}},
       "",
       true,
       Code::kSkip},
      {"multiple matchExpressions ANDed that match",
       Required({NTerm({NReq("GPU", "Exists"), NReq("GPU", "NotIn", {"AMD", "INTER"})})}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       true},
      {"multiple matchExpressions ANDed that don't match",
       Required({NTerm({NReq("GPU", "Exists"), NReq("GPU", "In", {"AMD", "INTER"})})}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       false},
      {"multiple terms ORed",
       Required({NTerm({NReq("foo", "In", {"bar", "value2"})}),
                 NTerm({NReq("diffkey", "In", {"wrong", "value2"})})}),
       {{"foo", "bar"}},
       "",
       true},
      {"affinity and nodeSelector both satisfied",
       MakePod()
           .NodeSelector({{"foo", "bar"}})
           .NodeAffinityRequired({NTerm({NReq("foo", "Exists")})})
           .Obj(),
       {{"foo", "bar"}},
       "",
       true},
      {"affinity matches but nodeSelector doesn't",
       MakePod()
           .NodeSelector({{"foo", "bar"}})
           .NodeAffinityRequired({NTerm({NReq("foo", "Exists")})})
           .Obj(),
       {{"foo", "barrrrrr"}},
       "",
       false},
      {"invalid value in affinity term",
       Required({NTerm({NReq("foo", "NotIn", {"invalid value: ___@#$%^"})})}),
       {{"foo", "bar"}},
       "",
       false},
      {"matchFields In matches",
       Required({NTerm({}, {NReq("metadata.name", "In", {"node1"})})}),
       {},
       "node1",
       true,
       Code::kSuccess,
       std::vector<std::string>{"node1"}},
      {"matchFields In doesn't match",
       Required({NTerm({}, {NReq("metadata.name", "In", {"node1"})})}),
       {},
       "node2",
       false,
       Code::kSuccess,
       std::vector<std::string>{"node1"}},
      {"two terms: matchFields doesn't match, matchExpressions matches",
       Required({NTerm({}, {NReq("metadata.name", "In", {"node1"}),
                            NReq("metadata.name", "In", {"node2"})}),
                 NTerm({NReq("foo", "In", {"bar"})})}),
       {{"foo", "bar"}},
       "node2",
       true},
      {"one term: matchFields doesn't match, matchExpressions matches",
       Required({NTerm({NReq("foo", "In", {"bar"})}, {NReq("metadata.name", "In", {"node1"})})}),
       {{"foo", "bar"}},
       "node2",
       false,
       Code::kSuccess,
       std::vector<std::string>{"node1"}},
      {"one term: both match",
       Required({NTerm({NReq("foo", "In", {"bar"})}, {NReq("metadata.name", "In", {"node1"})})}),
       {{"foo", "bar"}},
       "node1",
       true,
       Code::kSuccess,
       std::vector<std::string>{"node1"}},
      {"two terms: neither matches",
       Required({NTerm({}, {NReq("metadata.name", "In", {"node1"})}),
                 NTerm({NReq("foo", "In", {"not-match-to-bar"})})}),
       {{"foo", "bar"}},
       "node2",
       false},
      {"two terms of node.Name affinity",
       Required({NTerm({}, {NReq("metadata.name", "In", {"node1"})}),
                 NTerm({}, {NReq("metadata.name", "In", {"node2"})})}),
       {},
       "node2",
       true,
       Code::kSuccess,
       std::vector<std::string>{"node1", "node2"}},
      {"two conflicting matchField requirements",
       Required({NTerm(
           {}, {NReq("metadata.name", "In", {"node1"}), NReq("metadata.name", "In", {"node2"})})}),
       {{"foo", "bar"}},
       "node2",
       false,
       Code::kUnschedulableAndUnresolvable},
      // Edge cases beyond the upstream table.
      {"matchFields NotIn excludes the node",
       Required({NTerm({}, {NReq("metadata.name", "NotIn", {"node1"})})}),
       {},
       "node1",
       false},
      {"matchFields NotIn admits other nodes",
       Required({NTerm({}, {NReq("metadata.name", "NotIn", {"node1"})})}),
       {},
       "node2",
       true},
      {"matchFields on an unknown field compares against empty",
       Required({NTerm({}, {NReq("metadata.uid", "In", {"x"})})}),
       {},
       "node1",
       false},
      {"matchFields with two values is a parse error",
       Required({NTerm({}, {NReq("metadata.name", "In", {"node1", "node2"})})}),
       {},
       "node1",
       false,
       Code::kSuccess,
       std::vector<std::string>{"node1", "node2"}},
      {"matchFields with Exists is a parse error",
       Required({NTerm({}, {NReq("metadata.name", "Exists")})}),
       {},
       "node1",
       false},
      {"Gt with malformed value never matches",
       Required({NTerm({NReq("cores", "Gt", {"four"})})}),
       {{"cores", "8"}},
       "",
       false},
      {"Gt against a non-numeric label",
       Required({NTerm({NReq("cores", "Gt", {"4"})})}),
       {{"cores", "eight"}},
       "",
       false},
      {"Lt matches", Required({NTerm({NReq("cores", "Lt", {"4"})})}), {{"cores", "2"}}, "", true},
      {"a broken term does not hide a matching sibling",
       Required({NTerm({NReq("cores", "Gt", {"x"})}), NTerm({NReq("foo", "Exists")})}),
       {{"foo", ""}},
       "",
       true},
      {"unknown operator never matches",
       Required({NTerm({NReq("foo", "Foo", {"bar"})})}),
       {{"foo", "bar"}},
       "",
       false},
      {"no terms at all", Required({}), {{"foo", "bar"}}, "", false},
      {"DoesNotExist",
       Required({NTerm({NReq("taint-me", "DoesNotExist")})}),
       {{"foo", "bar"}},
       "",
       true},
      {"empty nodeSelector value matches empty label",
       MakePod().NodeSelector({{"a", ""}}).Obj(),
       {{"a", ""}},
       "",
       true},
  };
  for (const NodeAffinityFilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    api::Node node = MakeNode(c.node_name, c.labels).Obj();
    NodeAffinityFilter f = NodeAffinityFilter::PreFilter(c.pod);
    EXPECT_EQ(f.status().code(), c.want_prefilter) << f.status().message();
    EXPECT_EQ(f.node_names(), c.want_names);
    if (c.want_prefilter == Code::kUnschedulableAndUnresolvable) {
      EXPECT_EQ(f.status().message(), "pod affinity terms conflict");
    }
    FilterResult r = f.Filter(node);
    EXPECT_EQ(r.ok(), c.want_fit);
    if (!c.want_fit) {
      EXPECT_EQ(r.code(), Code::kUnschedulableAndUnresolvable);
      EXPECT_EQ(r.Message(), "node(s) didn't match Pod's node affinity/selector");
    }
    // RequiredNodeAffinity (used outside the predicate) agrees with Filter.
    EXPECT_EQ(RequiredNodeAffinity::FromPod(c.pod.spec).Matches(node), c.want_fit);
  }
}

TEST(NodeAffinity, HasRequiredNodeAffinity) {
  EXPECT_FALSE(HasRequiredNodeAffinity(MakePod().Obj().spec));
  EXPECT_TRUE(HasRequiredNodeAffinity(MakePod().NodeSelector({{"a", "b"}}).Obj().spec));
  EXPECT_TRUE(HasRequiredNodeAffinity(Required({NTerm({NReq("a", "Exists")})}).spec));
  EXPECT_FALSE(HasRequiredNodeAffinity(
      MakePod().NodeAffinityPreferred(1, NTerm({NReq("a", "Exists")})).Obj().spec));
}

struct NodeAffinityScoreCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<int64_t> want;
  Code want_status = Code::kSuccess;
};

TEST(NodeAffinity, PriorityTable) {
  const Labels label1 = {{"foo", "bar"}};
  const Labels label2 = {{"key", "value"}};
  const Labels label3 = {{"az", "az1"}};
  const Labels label4 = {{"abc", "az11"}, {"def", "az22"}};
  const Labels label5 = {{"foo", "bar"}, {"key", "value"}, {"az", "az1"}};
  api::Pod affinity1 =
      MakePod().NodeAffinityPreferred(2, NTerm({NReq("foo", "In", {"bar"})})).Obj();
  api::Pod affinity2 =
      MakePod()
          .NodeAffinityPreferred(2, NTerm({NReq("foo", "In", {"bar"})}))
          .NodeAffinityPreferred(4, NTerm({NReq("key", "In", {"value"})}))
          .NodeAffinityPreferred(5, NTerm({NReq("foo", "In", {"bar"}), NReq("key", "In", {"value"}),
                                           NReq("az", "In", {"az1"})}))
          .Obj();
  const std::vector<NodeAffinityScoreCase> cases = {
      {"all nodes are same priority as NodeAffinity is nil",
       MakePod().Obj(),
       {MakeNode("node1", label1).Obj(), MakeNode("node2", label2).Obj(),
        MakeNode("node3", label3).Obj()},
       {0, 0, 0},
       Code::kSkip},
      {"no node matches preferred scheduling requirements",
       affinity1,
       {MakeNode("node1", label4).Obj(), MakeNode("node2", label2).Obj(),
        MakeNode("node3", label3).Obj()},
       {0, 0, 0}},
      {"only node1 matches the preferred scheduling requirements of pod",
       affinity1,
       {MakeNode("node1", label1).Obj(), MakeNode("node2", label2).Obj(),
        MakeNode("node3", label3).Obj()},
       {100, 0, 0}},
      {"all nodes matches the preferred scheduling requirements of pod but with different "
       "priorities",
       affinity2,
       {MakeNode("node1", label1).Obj(), MakeNode("node5", label5).Obj(),
        MakeNode("node2", label2).Obj()},
       {18, 100, 36}},
      {"zero-weight and empty preferred terms are ignored",
       MakePod()
           .NodeAffinityPreferred(0, NTerm({NReq("foo", "In", {"bar"})}))
           .NodeAffinityPreferred(7, NTerm({}))
           .Obj(),
       {MakeNode("node1", label1).Obj()},
       {0}},
      {"invalid preferred term fails PreScore",
       MakePod().NodeAffinityPreferred(3, NTerm({NReq("foo", "In", {})})).Obj(),
       {MakeNode("node1", label1).Obj()},
       {0},
       Code::kError},
  };
  for (const NodeAffinityScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    NodeAffinityScorer s = NodeAffinityScorer::PreScore(c.pod);
    EXPECT_EQ(s.status().code(), c.want_status);
    std::vector<int64_t> scores;
    for (const api::Node& n : c.nodes) scores.push_back(s.Score(n));
    NodeAffinityScorer::NormalizeScore(scores);
    EXPECT_EQ(scores, c.want);
  }
}

TEST(NodeSelectorMatcher, LazyErrors) {
  api::NodeSelector sel{{NTerm({NReq("a", "In", {"x"})}), NTerm({NReq("b", "Gt", {"nan"})})}};
  NodeSelectorMatcher m = NodeSelectorMatcher::Compile(sel);
  EXPECT_FALSE(m.FirstError().ok());
  EXPECT_TRUE(m.Matches(MakeNode("n", {{"a", "x"}}).Obj()));
  EXPECT_FALSE(m.Matches(MakeNode("n", {{"b", "5"}}).Obj()));
}

TEST(NodeSelectorMatcher, UnnamedNodeSkipsFieldRequirements) {
  // extractNodeFields is empty for a node without a name, and a field selector is then not
  // consulted.
  api::NodeSelector sel{{NTerm({}, {NReq("metadata.name", "In", {"node1"})})}};
  EXPECT_TRUE(NodeSelectorMatcher::Compile(sel).Matches(MakeNode("").Obj()));
}

}  // namespace
}  // namespace kai::k8s_internal
