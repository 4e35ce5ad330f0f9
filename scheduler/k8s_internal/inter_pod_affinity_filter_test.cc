// Ported from kube-scheduler plugins/interpodaffinity/filtering_test.go:
// TestRequiredAffinitySingleNode, TestRequiredAffinityMultipleNodes,
// TestPreFilterStateAddRemovePod, TestGetTPMapMatchingIncomingAffinityAntiAffinity.
#include <gtest/gtest.h>

#include "scheduler/k8s_internal/inter_pod_affinity.h"
#include "scheduler/k8s_internal/ipa_test_util.h"

namespace kai::k8s_internal {
namespace {

using testing::Cluster;
using testing::Labels;
using testing::MakeNode;
using testing::MakePod;
using testing::Req;
using testing::Sel;
using testing::Term;

using Want = std::pair<Code, std::string>;  // {kSuccess, ""} = fits
const Want kFits = {Code::kSuccess, ""};
const Want kAffinityFail = {Code::kUnschedulableAndUnresolvable,
                            "node(s) didn't match pod affinity rules"};
const Want kAntiFail = {Code::kUnschedulable, "node(s) didn't match pod anti-affinity rules"};
const Want kExistingFail = {Code::kUnschedulable,
                            "node(s) didn't satisfy existing pods anti-affinity rules"};

const std::string kDefaultNs = "";

// createPodWithAffinityTerms.
api::Pod WithTerms(const std::string& ns, const std::string& node, const Labels& labels,
                   const std::vector<api::PodAffinityTerm>& affinity,
                   const std::vector<api::PodAffinityTerm>& anti) {
  testing::PodBuilder b = MakePod();
  b.Namespace(ns).Node(node).Labels(labels);
  for (auto& t : affinity) b.RequiredAffinity(t);
  for (auto& t : anti) b.RequiredAntiAffinity(t);
  return b.Obj();
}

struct SingleNodeCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> pods;
  Code want_prefilter = Code::kSuccess;
  Want want_filter = kFits;
  std::string want_prefilter_message;
};

TEST(InterPodAffinityFilter, RequiredAffinitySingleNode) {
  const Labels pod_label = {{"service", "securityscan"}};
  const Labels pod_label2 = {{"security", "S1"}};
  const api::Pod pod = MakePod().Labels(pod_label).Node("node1").Obj();
  const api::Node node1 = MakeNode("node1", {{"region", "r1"}, {"zone", "z11"}}).Obj();
  const std::string bad_value_message =
      "parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: \"{{.bad-value.}}\": "
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
      "'my_value',  or '12345', regex used for validation is "
      "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const api::LabelSelector team1 = Sel({Req("team", "In", {"team1"})});

  std::vector<SingleNodeCase> cases = {
      {"no required pod affinity, node without pods", MakePod().Obj(), {}, Code::kSkip},
      {"affinity In matches the existing pod",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label2)
           .PodAffinityIn("service", "region", {"securityscan", "value2"})
           .Obj(),
       {pod}},
      {"affinity NotIn matches the existing pod",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label2)
           .PodAffinityNotIn("service", "region", {"securityscan3", "value3"})
           .Obj(),
       {pod}},
      {"affinity doesn't match because of a different namespace",
       WithTerms(
           kDefaultNs, "", pod_label2,
           {Term(Sel({Req("service", "In", {"securityscan", "value2"})}), "", {"DiffNameSpace"})},
           {}),
       {MakePod().Namespace("ns").Label("service", "securityscan").Node("node1").Obj()},
       Code::kSuccess,
       kAffinityFail},
      {"affinity selector doesn't match the existing pod",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label)
           .PodAffinityIn("service", "", {"antivirusscan", "value2"})
           .Obj(),
       {pod},
       Code::kSuccess,
       kAffinityFail},
      {"different label operators in multiple terms",
       WithTerms(kDefaultNs, "", pod_label2,
                 {Term(Sel({Req("service", "Exists"), Req("wrongkey", "DoesNotExist")}), "region"),
                  Term(Sel({Req("service", "In", {"securityscan"}),
                            Req("service", "NotIn", {"WrongValue"})}),
                       "region")},
                 {}),
       {pod}},
      {"matchExpressions are ANDed; one item doesn't match",
       WithTerms(kDefaultNs, "", pod_label2,
                 {Term(Sel({Req("service", "Exists"), Req("wrongkey", "DoesNotExist")}), "region"),
                  Term(Sel({Req("service", "In", {"securityscan2"}),
                            Req("service", "NotIn", {"WrongValue"})}),
                       "region")},
                 {}),
       {pod},
       Code::kSuccess,
       kAffinityFail},
      {"affinity and anti-affinity both satisfied",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label2)
           .PodAffinityIn("service", "region", {"securityscan", "value2"})
           .PodAntiAffinityIn("service", "node", {"antivirusscan", "value2"})
           .Obj(),
       {pod}},
      {"affinity, anti-affinity and symmetry satisfied",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label2)
           .PodAffinityIn("service", "region", {"securityscan", "value2"})
           .PodAntiAffinityIn("service", "node", {"antivirusscan", "value2"})
           .Obj(),
       {MakePod()
            .Namespace(kDefaultNs)
            .Node("node1")
            .Labels(pod_label)
            .PodAntiAffinityIn("service", "node", {"antivirusscan", "value2"})
            .Obj()}},
      {"affinity satisfied, anti-affinity not",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label2)
           .PodAffinityIn("service", "region", {"securityscan", "value2"})
           .PodAntiAffinityIn("service", "zone", {"securityscan", "value2"})
           .Obj(),
       {pod},
       Code::kSuccess,
       kAntiFail},
      {"affinity and anti-affinity satisfied, symmetry not",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label)
           .PodAffinityIn("service", "region", {"securityscan", "value2"})
           .PodAntiAffinityIn("service", "node", {"antivirusscan", "value2"})
           .Obj(),
       {MakePod()
            .Namespace(kDefaultNs)
            .Labels(pod_label)
            .Node("node1")
            .PodAntiAffinityIn("service", "zone", {"securityscan", "value2"})
            .Obj()},
       Code::kSuccess,
       kExistingFail},
      {"pod matches its own label but the existing pod is elsewhere",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label)
           .PodAffinityNotIn("service", "region", {"securityscan", "value2"})
           .Obj(),
       {MakePod().Label("service", "securityscan").Node("node2").Obj()},
       Code::kSuccess,
       kAffinityFail},
      {"existing pod's anti-affinity respected without own constraints: violated",
       MakePod().Labels(pod_label).Obj(),
       {MakePod()
            .Namespace(kDefaultNs)
            .Node("node1")
            .Labels(pod_label)
            .PodAntiAffinityIn("service", "zone", {"securityscan", "value2"})
            .Obj()},
       Code::kSuccess,
       kExistingFail},
      {"existing pod's anti-affinity respected without own constraints: satisfied",
       MakePod().Labels(pod_label).Obj(),
       {MakePod()
            .Namespace(kDefaultNs)
            .Node("node1")
            .Labels(pod_label)
            .PodAntiAffinityNotIn("service", "zone", {"securityscan", "value2"})
            .Obj()},
       Code::kSkip},
      {"anti-affinity with existing pod satisfied, symmetry with incoming pod not",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label)
           .PodAntiAffinityExists("service", "region")
           .PodAntiAffinityExists("security", "region")
           .Obj(),
       {MakePod()
            .Namespace(kDefaultNs)
            .Node("node1")
            .Labels(pod_label2)
            .PodAntiAffinityExists("security", "zone")
            .Obj()},
       Code::kSuccess,
       kAntiFail},
      {"symmetry check a1",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label)
           .PodAntiAffinityExists("service", "zone")
           .PodAntiAffinityExists("security", "zone")
           .Obj(),
       {MakePod()
            .Namespace(kDefaultNs)
            .Node("node1")
            .Labels(pod_label2)
            .PodAntiAffinityExists("security", "zone")
            .Obj()},
       Code::kSuccess,
       kAntiFail},
      {"symmetry check a2",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label2)
           .PodAntiAffinityExists("security", "zone")
           .Obj(),
       {MakePod()
            .Namespace(kDefaultNs)
            .Node("node1")
            .Labels(pod_label)
            .PodAntiAffinityExists("service", "zone")
            .PodAntiAffinityExists("security", "zone")
            .Obj()},
       Code::kSuccess,
       kExistingFail},
      {"symmetry check b1",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels({{"abc", ""}, {"xyz", ""}})
           .PodAntiAffinityExists("abc", "zone")
           .PodAntiAffinityExists("def", "zone")
           .Obj(),
       {MakePod()
            .Namespace(kDefaultNs)
            .Node("node1")
            .Labels({{"def", ""}, {"xyz", ""}})
            .PodAntiAffinityExists("abc", "zone")
            .PodAntiAffinityExists("def", "zone")
            .Obj()},
       Code::kSuccess,
       kAntiFail},
      {"symmetry check b2",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels({{"def", ""}, {"xyz", ""}})
           .PodAntiAffinityExists("abc", "zone")
           .PodAntiAffinityExists("def", "zone")
           .Obj(),
       {MakePod()
            .Namespace(kDefaultNs)
            .Node("node1")
            .Labels({{"abc", ""}, {"xyz", ""}})
            .PodAntiAffinityExists("abc", "zone")
            .PodAntiAffinityExists("def", "zone")
            .Obj()},
       Code::kSuccess,
       kAntiFail},
      {"invalid affinity label value fails PreFilter",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label)
           .PodAffinityIn("service", "region", {"{{.bad-value.}}"})
           .PodAffinityIn("service", "node", {"antivirusscan", "value2"})
           .Obj(),
       {},
       Code::kUnschedulableAndUnresolvable,
       kFits,
       bad_value_message},
      {"invalid second affinity term fails PreFilter",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels(pod_label)
           .PodAffinityIn("service", "region", {"foo"})
           .PodAffinityIn("service", "node", {"{{.bad-value.}}"})
           .Obj(),
       {},
       Code::kUnschedulableAndUnresolvable,
       kFits,
       bad_value_message},
      {"affinity with NamespaceSelector",
       WithTerms(
           kDefaultNs, "", pod_label2,
           {Term(Sel({Req("service", "In", {"securityscan", "value2"})}), "region", {}, team1)},
           {}),
       {MakePod().Namespace("subteam1.team1").Labels(pod_label).Node("node1").Obj()}},
      {"affinity with non-matching NamespaceSelector",
       WithTerms(
           kDefaultNs, "", pod_label2,
           {Term(Sel({Req("service", "In", {"securityscan", "value2"})}), "region", {}, team1)},
           {}),
       {MakePod().Namespace("subteam1.team2").Labels(pod_label).Node("node1").Obj()},
       Code::kSuccess,
       kAffinityFail},
      {"anti-affinity with matching NamespaceSelector",
       WithTerms(
           "subteam1.team1", "", pod_label2, {},
           {Term(Sel({Req("service", "In", {"securityscan", "value2"})}), "zone", {}, team1)}),
       {MakePod().Namespace("subteam2.team1").Labels(pod_label).Node("node1").Obj()},
       Code::kSuccess,
       kAntiFail},
      {"anti-affinity with matching-all NamespaceSelector",
       WithTerms("subteam1.team1", "", pod_label2, {},
                 {Term(Sel({Req("service", "In", {"securityscan", "value2"})}), "zone", {},
                       api::LabelSelector{})}),
       {MakePod().Namespace("subteam2.team1").Labels(pod_label).Node("node1").Obj()},
       Code::kSuccess,
       kAntiFail},
      {"anti-affinity with non-matching NamespaceSelector",
       WithTerms(
           "subteam1.team1", "", pod_label2, {},
           {Term(Sel({Req("service", "In", {"securityscan", "value2"})}), "zone", {}, team1)}),
       {MakePod().Namespace("subteam1.team2").Labels(pod_label).Node("node1").Obj()}},
      // Beyond the upstream table.
      {"nil label selector matches nothing",
       WithTerms(kDefaultNs, "", pod_label, {Term(std::nullopt, "region")}, {}),
       {pod},
       Code::kSuccess,
       kAffinityFail},
      {"empty label selector matches every pod in the namespace",
       WithTerms(kDefaultNs, "", pod_label2, {Term(api::LabelSelector{}, "region")}, {}),
       {pod}},
      {"existing anti-affinity with a namespace selector matches the incoming namespace",
       MakePod().Namespace("subteam1.team1").Labels(pod_label).Obj(),
       {WithTerms("other", "node1", {}, {},
                  {Term(Sel({Req("service", "Exists")}), "zone", {}, team1)})},
       Code::kSuccess,
       kExistingFail},
      {"existing anti-affinity with a namespace selector, other team",
       MakePod().Namespace("subteam1.team2").Labels(pod_label).Obj(),
       {WithTerms("other", "node1", {}, {},
                  {Term(Sel({Req("service", "Exists")}), "zone", {}, team1)})},
       Code::kSkip},
  };
  for (const SingleNodeCase& c : cases) {
    SCOPED_TRACE(c.name);
    Cluster cluster({node1}, c.pods);
    InterPodAffinityFilter f = InterPodAffinityFilter::PreFilter(c.pod, cluster.index());
    EXPECT_EQ(f.status().code(), c.want_prefilter) << f.status().message();
    if (!c.want_prefilter_message.empty()) {
      EXPECT_EQ(f.status().message(), c.want_prefilter_message);
    }
    if (!f.status().IsSuccess()) continue;
    FilterResult r = f.Filter(cluster.Id("node1"));
    EXPECT_EQ(r.code(), c.want_filter.first);
    EXPECT_EQ(r.Message(), c.want_filter.second);
  }
}

struct MultiNodeCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> pods;
  std::vector<api::Node> nodes;
  std::vector<Want> want;
  Code want_prefilter = Code::kSuccess;
};

TEST(InterPodAffinityFilter, RequiredAffinityMultipleNodes) {
  const Labels china = {{"region", "China"}};
  const Labels china_az1 = {{"region", "China"}, {"az", "az1"}};
  const Labels india = {{"region", "India"}};
  auto n = [](const std::string& name, const Labels& l) { return MakeNode(name, l).Obj(); };
  auto rzh = [&](const std::string& name, const std::string& zone) {
    return n(name, {{"region", "r1"}, {"zone", zone}, {"hostname", name}});
  };

  std::vector<MultiNodeCase> cases = {
      {"nodes sharing the topology value with a matching pod all fit",
       MakePod().Namespace(kDefaultNs).PodAffinityIn("foo", "region", {"bar"}).Obj(),
       {MakePod().Name("p1").Node("node1").Labels({{"foo", "bar"}}).Obj()},
       {n("node1", china), n("node2", china_az1), n("node3", india)},
       {kFits, kFits, kAffinityFail}},
      {"first pod of a collection with self-affinity may go anywhere",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels({{"foo", "bar"}, {"service", "securityscan"}})
           .PodAffinityIn("foo", "zone", {"bar"})
           .PodAffinityIn("service", "zone", {"securityscan"})
           .Obj(),
       {MakePod().Name("p1").Node("nodeA").Labels({{"foo", "bar"}}).Obj()},
       {n("nodeA", {{"zone", "az1"}, {"hostname", "h1"}}),
        n("nodeB", {{"zone", "az2"}, {"hostname", "h2"}})},
       {kFits, kFits}},
      {"first pod of a collection only on nodes with the topology keys",
       MakePod()
           .Namespace(kDefaultNs)
           .Labels({{"foo", "bar"}, {"service", "securityscan"}})
           .PodAffinityIn("foo", "zone", {"bar"})
           .PodAffinityIn("service", "zone", {"securityscan"})
           .Obj(),
       {MakePod().Name("p1").Node("nodeA").Labels({{"foo", "bar"}}).Obj()},
       {n("nodeA", {{"zoneLabel", "az1"}, {"hostname", "h1"}}),
        n("nodeB", {{"zoneLabel", "az2"}, {"hostname", "h2"}})},
       {kAffinityFail, kAffinityFail}},
      {"anti-affinity excludes every node of the matching region",
       MakePod().Namespace(kDefaultNs).PodAntiAffinityIn("foo", "region", {"abc"}).Obj(),
       {MakePod().Node("nodeA").Labels({{"foo", "abc"}}).Obj()},
       {n("nodeA", {{"region", "r1"}, {"hostname", "nodeA"}}),
        n("nodeB", {{"region", "r1"}, {"hostname", "nodeB"}})},
       {kAntiFail, kAntiFail}},
      {"anti-affinity matches when any term matches",
       MakePod()
           .Namespace(kDefaultNs)
           .PodAntiAffinityIn("foo", "region", {"abc"})
           .PodAntiAffinityIn("service", "zone", {"securityscan"})
           .Obj(),
       {MakePod().Node("nodeA").Labels({{"foo", "abc"}, {"service", "securityscan"}}).Obj()},
       {n("nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}),
        n("nodeB", {{"region", "r1"}, {"zone", "z2"}, {"hostname", "nodeB"}})},
       {kAntiFail, kAntiFail}},
      {"anti-affinity: nodeC in another region fits",
       MakePod().Namespace(kDefaultNs).PodAntiAffinityIn("foo", "region", {"abc"}).Obj(),
       {MakePod().Node("nodeA").Labels({{"foo", "abc"}}).Obj()},
       {n("nodeA", china), n("nodeB", china_az1), n("nodeC", india)},
       {kAntiFail, kAntiFail, kFits}},
      {"anti-affinity: the pod in another namespace does not count",
       MakePod()
           .Namespace("NS1")
           .Labels({{"foo", "123"}})
           .PodAntiAffinityIn("foo", "region", {"bar"})
           .Obj(),
       {MakePod().Node("nodeA").Namespace("NS1").Labels({{"foo", "bar"}}).Obj(),
        MakePod().Node("nodeC").Namespace("NS2").PodAntiAffinityIn("foo", "region", {"123"}).Obj()},
       {n("nodeA", china), n("nodeB", china_az1), n("nodeC", india)},
       {kAntiFail, kAntiFail, kFits}},
      {"existing pod's term with an invalid topology key counts nowhere",
       MakePod().Label("foo", "").Obj(),
       {MakePod()
            .Node("nodeA")
            .Namespace(kDefaultNs)
            .PodAntiAffinityExists("foo", "invalid-node-label")
            .Obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z1")},
       {kFits, kFits},
       Code::kSkip},
      {"incoming pod's anti-affinity: topology key must also match",
       MakePod()
           .Node("nodeA")
           .Namespace(kDefaultNs)
           .PodAntiAffinityExists("foo", "invalid-node-label")
           .Obj(),
       {MakePod().Node("nodeA").Labels({{"foo", ""}}).Obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z1")},
       {kFits, kFits}},
      {"existing pods' anti-affinity violated on all nodes",
       MakePod().Label("foo", "").Label("bar", "").Obj(),
       {MakePod().Node("nodeA").Namespace(kDefaultNs).PodAntiAffinityExists("foo", "zone").Obj(),
        MakePod().Node("nodeA").Namespace(kDefaultNs).PodAntiAffinityExists("bar", "region").Obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kExistingFail, kExistingFail}},
      {"incoming anti-affinity violated by a pod on each node",
       MakePod()
           .Namespace(kDefaultNs)
           .PodAntiAffinityExists("foo", "zone")
           .PodAntiAffinityExists("bar", "region")
           .Obj(),
       {MakePod().Node("nodeA").Labels({{"foo", ""}}).Obj(),
        MakePod().Node("nodeB").Labels({{"bar", ""}}).Obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kAntiFail, kAntiFail}},
      {"existing anti-affinity: one term with an invalid topology key",
       MakePod().Label("foo", "").Label("bar", "").Obj(),
       {MakePod()
            .Node("nodeA")
            .Namespace(kDefaultNs)
            .PodAntiAffinityExists("foo", "invalid-node-label")
            .PodAntiAffinityExists("bar", "zone")
            .Obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kExistingFail, kFits}},
      {"incoming anti-affinity: one term with an invalid topology key",
       MakePod()
           .Namespace(kDefaultNs)
           .PodAntiAffinityExists("foo", "invalid-node-label")
           .PodAntiAffinityExists("bar", "zone")
           .Obj(),
       {MakePod().Name("podA").Node("nodeA").Labels({{"foo", ""}, {"bar", ""}}).Obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kAntiFail, kFits}},
      {"existing anti-affinity: all terms with valid topology keys",
       MakePod().Label("foo", "").Label("bar", "").Obj(),
       {MakePod()
            .Namespace(kDefaultNs)
            .Node("nodeA")
            .PodAntiAffinityExists("foo", "region")
            .PodAntiAffinityExists("bar", "zone")
            .Obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kExistingFail, kExistingFail}},
      {"incoming anti-affinity: all terms with valid topology keys",
       MakePod()
           .Namespace(kDefaultNs)
           .PodAntiAffinityExists("foo", "region")
           .PodAntiAffinityExists("bar", "zone")
           .Obj(),
       {MakePod().Node("nodeA").Labels({{"foo", ""}, {"bar", ""}}).Obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kAntiFail, kAntiFail}},
      {"existing anti-affinity on nodeA and nodeB leaves nodeC",
       MakePod().Label("foo", "").Label("bar", "").Obj(),
       {MakePod()
            .Node("nodeA")
            .Namespace(kDefaultNs)
            .PodAntiAffinityExists("foo", "zone")
            .PodAntiAffinityExists("labelA", "zone")
            .Obj(),
        MakePod()
            .Node("nodeB")
            .Namespace(kDefaultNs)
            .PodAntiAffinityExists("bar", "zone")
            .PodAntiAffinityExists("labelB", "zone")
            .Obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2"), rzh("nodeC", "z3")},
       {kExistingFail, kExistingFail, kFits}},
      {"incoming affinity: all terms match one pod, then topology keys",
       MakePod()
           .Namespace(kDefaultNs)
           .PodAffinityExists("foo", "region")
           .PodAffinityExists("bar", "zone")
           .Obj(),
       {MakePod().Name("pod1").Labels({{"foo", ""}, {"bar", ""}}).Node("nodeA").Obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z1")},
       {kFits, kFits}},
      {"incoming affinity: the terms must be satisfied by the same pod",
       MakePod()
           .Namespace(kDefaultNs)
           .PodAffinityExists("foo", "region")
           .PodAffinityExists("bar", "zone")
           .Obj(),
       {MakePod().Node("nodeA").Name("pod1").Namespace(kDefaultNs).Labels({{"foo", ""}}).Obj(),
        MakePod().Node("nodeB").Name("pod2").Namespace(kDefaultNs).Labels({{"bar", ""}}).Obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kAffinityFail, kAffinityFail}},
  };
  for (const MultiNodeCase& c : cases) {
    SCOPED_TRACE(c.name);
    Cluster cluster(c.nodes, c.pods, {}, {{"NS1", {}}});
    InterPodAffinityFilter f = InterPodAffinityFilter::PreFilter(c.pod, cluster.index());
    EXPECT_EQ(f.status().code(), c.want_prefilter) << f.status().message();
    for (size_t i = 0; i < c.nodes.size(); ++i) {
      SCOPED_TRACE(c.nodes[i].metadata.name);
      FilterResult r = f.Filter(cluster.Id(c.nodes[i].metadata.name));
      EXPECT_EQ(r.code(), c.want[i].first);
      EXPECT_EQ(r.Message(), c.want[i].second);
    }
  }
}

using CountMap = InterPodAffinityFilter::CountMap;

struct AddRemoveCase {
  std::string name;
  api::Pod pending;
  api::Pod added;
  std::vector<api::Pod> existing;
  CountMap want_anti;
  CountMap want_affinity;
};

TEST(InterPodAffinityFilter, PreFilterStateAddRemovePod) {
  const Labels label1 = {{"region", "r1"}, {"zone", "z11"}};
  const Labels label2 = {{"region", "r1"}, {"zone", "z12"}};
  const Labels label3 = {{"region", "r2"}, {"zone", "z21"}};
  const Labels selector1 = {{"foo", "bar"}};
  api::PodAffinity anti_foo_bar;
  anti_foo_bar.required_during_scheduling_ignored_during_execution = {
      Term(Sel({Req("foo", "In", {"bar"})}), "region")};
  api::PodAffinity complex;
  complex.required_during_scheduling_ignored_during_execution = {
      Term(Sel({Req("foo", "In", {"bar", "buzz"})}), "region"),
      Term(Sel({Req("service", "NotIn", {"bar", "security", "test"})}), "zone")};
  auto with = [](std::string name, const Labels& labels, std::string node,
                 const std::optional<api::PodAffinity>& aff,
                 const std::optional<api::PodAffinity>& anti) {
    api::Pod p = MakePod().Name(std::move(name)).Labels(labels).Node(std::move(node)).Obj();
    if (aff || anti) p.spec.affinity = api::Affinity{std::nullopt, aff, anti};
    return p;
  };
  const std::vector<api::Node> nodes = {MakeNode("nodeA", label1).Obj(),
                                        MakeNode("nodeB", label2).Obj(),
                                        MakeNode("nodeC", label3).Obj()};
  std::vector<AddRemoveCase> cases = {
      {"anti-affinity terms updated after adding and removing a pod",
       with("pending", selector1, "", std::nullopt, anti_foo_bar),
       with("addedPod", selector1, "nodeB", std::nullopt, anti_foo_bar),
       {with("p1", selector1, "nodeA", std::nullopt, std::nullopt),
        with("p2", {}, "nodeC", std::nullopt, anti_foo_bar)},
       {{{"region", "r1"}, 2}},
       {}},
      {"complex anti-affinity terms updated after adding and removing a pod",
       with("pending", selector1, "", std::nullopt, complex),
       with("addedPod", selector1, "nodeA", std::nullopt, complex),
       {with("p1", selector1, "nodeA", std::nullopt, std::nullopt),
        with("p2", {}, "nodeC", std::nullopt, anti_foo_bar)},
       {{{"region", "r1"}, 2}, {{"zone", "z11"}, 2}, {{"zone", "z21"}, 1}},
       {}},
      {"affinity and anti-affinity updated after adding and removing a pod",
       with("pending", selector1, "", complex, std::nullopt),
       with("addedPod", selector1, "nodeA", std::nullopt, complex),
       {with("p1", selector1, "nodeA", std::nullopt, std::nullopt),
        with("p2", {}, "nodeC", complex, anti_foo_bar)},
       {},
       {{{"region", "r1"}, 2}, {{"zone", "z11"}, 2}}},
  };
  for (const AddRemoveCase& c : cases) {
    SCOPED_TRACE(c.name);
    // The state computed with every pod, including the added one.
    std::vector<api::Pod> all = c.existing;
    all.push_back(c.added);
    Cluster with_all(nodes, all);
    InterPodAffinityFilter all_state =
        InterPodAffinityFilter::PreFilter(c.pending, with_all.index());
    ASSERT_TRUE(all_state.status().IsSuccess());

    Cluster cluster(nodes, c.existing);
    InterPodAffinityFilter state = InterPodAffinityFilter::PreFilter(c.pending, cluster.index());
    ASSERT_TRUE(state.status().IsSuccess());
    const CountMap orig_existing = state.ExistingAntiAffinityCounts();
    const CountMap orig_aff = state.AffinityCounts();
    const CountMap orig_anti = state.AntiAffinityCounts();

    const NodeId node = cluster.Id(c.added.spec.node_name);
    state.AddPod(c.added, node);
    EXPECT_EQ(state.AntiAffinityCounts(), c.want_anti);
    EXPECT_EQ(state.AffinityCounts(), c.want_affinity);
    EXPECT_EQ(state.ExistingAntiAffinityCounts(), all_state.ExistingAntiAffinityCounts());
    EXPECT_EQ(state.AffinityCounts(), all_state.AffinityCounts());
    EXPECT_EQ(state.AntiAffinityCounts(), all_state.AntiAffinityCounts());

    state.RemovePod(c.added, node);
    EXPECT_EQ(state.ExistingAntiAffinityCounts(), orig_existing);
    EXPECT_EQ(state.AffinityCounts(), orig_aff);
    EXPECT_EQ(state.AntiAffinityCounts(), orig_anti);

    // The live index gives the same answer as the extension: add to the index, PreFilter again.
    const api::Pod& added = cluster.Add(c.added);
    InterPodAffinityFilter fresh = InterPodAffinityFilter::PreFilter(c.pending, cluster.index());
    EXPECT_EQ(fresh.ExistingAntiAffinityCounts(), all_state.ExistingAntiAffinityCounts());
    EXPECT_EQ(fresh.AffinityCounts(), all_state.AffinityCounts());
    EXPECT_EQ(fresh.AntiAffinityCounts(), all_state.AntiAffinityCounts());
    cluster.index().RemovePod(&added);
    InterPodAffinityFilter back = InterPodAffinityFilter::PreFilter(c.pending, cluster.index());
    EXPECT_EQ(back.ExistingAntiAffinityCounts(), orig_existing);
    EXPECT_EQ(back.AffinityCounts(), orig_aff);
    EXPECT_EQ(back.AntiAffinityCounts(), orig_anti);
  }
}

struct IncomingCase {
  std::string name;
  std::vector<api::Pod> existing;
  api::Pod pod;
  CountMap want_affinity;
  CountMap want_anti;
};

TEST(InterPodAffinityFilter, IncomingAffinityAntiAffinityCounts) {
  auto normal = [](const std::vector<std::string>& labels) {
    testing::PodBuilder b = MakePod();
    b.Name("normal").Node("nodeA");
    for (const std::string& l : labels) b.Label(l, "");
    return b.Obj();
  };
  const api::Pod a = normal({"aaa"}), b = normal({"bbb"}), ab = normal({"aaa", "bbb"});
  const api::Node node_a = MakeNode("nodeA", {{"hostname", "nodeA"}}).Obj();
  const CountMap one = {{{"hostname", "nodeA"}, 1}};
  std::vector<IncomingCase> cases = {
      {"nil test", {}, MakePod().Name("aaa-normal").Obj(), {}, {}},
      {"no affinity is a no-op", {a}, MakePod().Name("aaa-normal").Obj(), {}, {}},
      {"no pod violates",
       {b},
       MakePod()
           .PodAffinityExists("aaa", "hostname")
           .PodAntiAffinityExists("aaa", "hostname")
           .Obj(),
       {},
       {}},
      {"single term matches both",
       {a},
       MakePod()
           .PodAffinityExists("aaa", "hostname")
           .PodAntiAffinityExists("aaa", "hostname")
           .Obj(),
       one,
       one},
      {"multiple affinity terms count once per term",
       {ab},
       MakePod()
           .PodAffinityExists("aaa", "hostname")
           .PodAffinityExists("bbb", "hostname")
           .PodAntiAffinityExists("aaa", "hostname")
           .Obj(),
       {{{"hostname", "nodeA"}, 2}},
       one},
      {"affinity not matched, anti-affinity matched",
       {a},
       MakePod()
           .PodAffinityExists("aaa", "hostname")
           .PodAffinityExists("bbb", "hostname")
           .PodAntiAffinityExists("aaa", "hostname")
           .PodAntiAffinityExists("bbb", "hostname")
           .Obj(),
       {},
       one},
      {"anti-affinity partially violated, case 1",
       {ab},
       MakePod()
           .PodAffinityExists("aaa", "hostname")
           .PodAffinityExists("ccc", "hostname")
           .PodAntiAffinityExists("aaa", "hostname")
           .PodAntiAffinityExists("ccc", "hostname")
           .Obj(),
       {},
       one},
      {"anti-affinity partially violated, case 2",
       {b},
       MakePod()
           .PodAffinityExists("aaa", "hostname")
           .PodAffinityExists("bbb", "hostname")
           .PodAntiAffinityExists("aaa", "hostname")
           .PodAntiAffinityExists("bbb", "hostname")
           .Obj(),
       {},
       one},
  };
  for (const IncomingCase& c : cases) {
    SCOPED_TRACE(c.name);
    Cluster cluster({node_a}, c.existing);
    InterPodAffinityFilter f = InterPodAffinityFilter::PreFilter(c.pod, cluster.index());
    EXPECT_EQ(f.AffinityCounts(), c.want_affinity);
    EXPECT_EQ(f.AntiAffinityCounts(), c.want_anti);
  }
}

TEST(InterPodAffinityFilter, MatchLabelKeysAreMergedIntoTheSelector) {
  // Anti-affinity "one pod of my revision per zone": matchLabelKeys adds rev In (<my rev>).
  api::PodAffinityTerm t = Term(Sel({Req("app", "In", {"web"})}), "zone");
  t.match_label_keys = {"rev"};
  const api::Pod incoming =
      MakePod().Labels({{"app", "web"}, {"rev", "2"}}).RequiredAntiAffinity(t).Obj();
  Cluster cluster({MakeNode("n1", {{"zone", "a"}}).Obj(), MakeNode("n2", {{"zone", "b"}}).Obj()},
                  {MakePod().Labels({{"app", "web"}, {"rev", "1"}}).Node("n1").Obj(),
                   MakePod().Labels({{"app", "web"}, {"rev", "2"}}).Node("n2").Obj()});
  InterPodAffinityFilter f = InterPodAffinityFilter::PreFilter(incoming, cluster.index());
  EXPECT_TRUE(f.Filter(cluster.Id("n1")).ok());  // rev 1 does not count
  EXPECT_EQ(f.Filter(cluster.Id("n2")).code(), Code::kUnschedulable);

  // mismatchLabelKeys: affinity to web pods of *other* tenants.
  api::PodAffinityTerm m = Term(Sel({Req("app", "In", {"web"})}), "zone");
  m.mismatch_label_keys = {"rev"};
  const api::Pod other = MakePod().Labels({{"app", "web"}, {"rev", "2"}}).RequiredAffinity(m).Obj();
  InterPodAffinityFilter g = InterPodAffinityFilter::PreFilter(other, cluster.index());
  EXPECT_TRUE(g.Filter(cluster.Id("n1")).ok());
  EXPECT_EQ(g.Filter(cluster.Id("n2")).code(), Code::kUnschedulableAndUnresolvable);

  // Already merged by the API server (selector constrains rev): left alone, even though the
  // pod's label has since changed.
  api::PodAffinityTerm merged =
      Term(Sel({Req("app", "In", {"web"}), Req("rev", "In", {"1"})}), "zone");
  merged.match_label_keys = {"rev"};
  const api::Pod relabeled =
      MakePod().Labels({{"app", "web"}, {"rev", "2"}}).RequiredAntiAffinity(merged).Obj();
  InterPodAffinityFilter h = InterPodAffinityFilter::PreFilter(relabeled, cluster.index());
  EXPECT_EQ(h.Filter(cluster.Id("n1")).code(), Code::kUnschedulable);
  EXPECT_TRUE(h.Filter(cluster.Id("n2")).ok());

  // With the option off, the keys are ignored.
  PodAffinityOptions off;
  off.apply_match_label_keys = false;
  Cluster raw({MakeNode("n1", {{"zone", "a"}}).Obj(), MakeNode("n2", {{"zone", "b"}}).Obj()},
              {MakePod().Labels({{"app", "web"}, {"rev", "1"}}).Node("n1").Obj()}, off);
  InterPodAffinityFilter r = InterPodAffinityFilter::PreFilter(incoming, raw.index());
  EXPECT_EQ(r.Filter(raw.Id("n1")).code(), Code::kUnschedulable);
}

}  // namespace
}  // namespace kai::k8s_internal
