// Ported from kube-scheduler plugins/interpodaffinity/scoring_test.go: TestPreferredAffinity and
// TestPreferredAffinityWithHardPodAffinitySymmetricWeight.
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
using testing::Weighted;

api::Affinity PodAff(std::vector<api::WeightedPodAffinityTerm> preferred,
                     std::vector<api::WeightedPodAffinityTerm> preferred_anti = {},
                     std::vector<api::PodAffinityTerm> required = {}) {
  api::Affinity a;
  if (!preferred.empty() || !required.empty()) {
    a.pod_affinity.emplace();
    a.pod_affinity->preferred_during_scheduling_ignored_during_execution = std::move(preferred);
    a.pod_affinity->required_during_scheduling_ignored_during_execution = std::move(required);
  }
  if (!preferred_anti.empty()) {
    a.pod_anti_affinity.emplace();
    a.pod_anti_affinity->preferred_during_scheduling_ignored_during_execution =
        std::move(preferred_anti);
  }
  return a;
}

api::Pod P(const Labels& labels, std::string node = "", std::optional<api::Affinity> aff = {},
           std::string ns = "") {
  api::Pod p = MakePod().Labels(labels).Node(std::move(node)).Namespace(std::move(ns)).Obj();
  p.spec.affinity = std::move(aff);
  return p;
}

struct AffinityScoreCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> pods;
  std::vector<api::Node> nodes;
  std::vector<int64_t> want;
  Code want_status = Code::kSuccess;
  bool ignore_preferred_terms_of_existing_pods = false;
  std::string want_message_part;
};

TEST(InterPodAffinityScorer, PreferredAffinity) {
  const Labels china = {{"region", "China"}};
  const Labels india = {{"region", "India"}};
  const Labels az1 = {{"az", "az1"}};
  const Labels az2 = {{"az", "az2"}};
  const Labels china_az1 = {{"region", "China"}, {"az", "az1"}};
  const Labels s1 = {{"security", "S1"}};
  const Labels s2 = {{"security", "S2"}};
  auto n = [](const std::string& name, const Labels& l) { return MakeNode(name, l).Obj(); };

  const api::Affinity stay_s1_region =
      PodAff({Weighted(5, Term(Sel({Req("security", "In", {"S1"})}), "region"))});
  const api::Affinity stay_s2_region =
      PodAff({Weighted(6, Term(Sel({Req("security", "In", {"S2"})}), "region"))});
  const api::Affinity affinity3 = PodAff(
      {Weighted(8, Term(Sel({Req("security", "NotIn", {"S1"}), Req("security", "In", {"S2"})}),
                        "region")),
       Weighted(
           2, Term(Sel({Req("security", "Exists"), Req("wrongkey", "DoesNotExist")}), "region"))});
  const api::Affinity hard_affinity =
      PodAff({}, {},
             {Term(Sel({Req("security", "In", {"S1", "value2"})}), "region"),
              Term(Sel({Req("security", "Exists"), Req("wrongkey", "DoesNotExist")}), "region")});
  const api::Affinity away_s1_az =
      PodAff({}, {Weighted(5, Term(Sel({Req("security", "In", {"S1"})}), "az"))});
  const api::Affinity away_s2_az =
      PodAff({}, {Weighted(5, Term(Sel({Req("security", "In", {"S2"})}), "az"))});
  const api::Affinity stay_s1_region_away_s2_az =
      PodAff({Weighted(8, Term(Sel({Req("security", "In", {"S1"})}), "region"))},
             {Weighted(5, Term(Sel({Req("security", "In", {"S2"})}), "az"))});
  const api::LabelSelector team1 = Sel({Req("team", "In", {"team1"})});
  const api::Affinity affinity_ns_selector = PodAff({Weighted(
      5, Term(Sel({Req("security", "In", {"S1"})}), "region", {"subteam2.team2"}, team1))});
  const api::Affinity anti_affinity_ns_selector = PodAff(
      {}, {Weighted(
              5, Term(Sel({Req("security", "In", {"S1"})}), "region", {"subteam2.team2"}, team1))});
  const api::Affinity invalid_affinity =
      PodAff({Weighted(8, Term(Sel({Req("security", "In", {"{{.bad-value.}}"})}), "region"))});
  const api::Affinity invalid_anti_affinity =
      PodAff({}, {Weighted(5, Term(Sel({Req("security", "In", {"{{.bad-value.}}"})}), "az"))});

  std::vector<AffinityScoreCase> cases = {
      {"all nodes are same priority as Affinity is nil",
       P(s1),
       {},
       {n("node1", china), n("node2", india), n("node3", az1)},
       {0, 0, 0},
       Code::kSkip},
      {"affinity: matching topology key and pods scores high",
       P(s1, "", stay_s1_region),
       {P(s1, "node1"), P(s2, "node2"), P(s1, "node3")},
       {n("node1", china), n("node2", india), n("node3", az1)},
       {100, 0, 0}},
      {"nodes sharing the topology value score the same",
       P({}, "", stay_s1_region),
       {P(s1, "node1")},
       {n("node1", china), n("node2", china_az1), n("node3", india)},
       {100, 100, 0}},
      {"the region with more matches scores higher",
       P(s1, "", stay_s2_region),
       {P(s2, "node1"), P(s2, "node1"), P(s2, "node2"), P(s2, "node3"), P(s2, "node4"),
        P(s2, "node5")},
       {n("node1", china), n("node2", india), n("node3", china), n("node4", china),
        n("node5", india)},
       {100, 0, 100, 100, 0}},
      {"different operators and values, including some failures",
       P(s1, "", affinity3),
       {P(s1, "node1"), P(s2, "node2"), P(s1, "node3")},
       {n("node1", china), n("node2", india), n("node3", az1)},
       {20, 100, 0}},
      {"affinity symmetry: preferred terms of existing pods",
       P(s2),
       {P(s1, "node1", stay_s1_region), P(s2, "node2", stay_s2_region)},
       {n("node1", china), n("node2", india), n("node3", az1)},
       {0, 100, 0}},
      {"affinity symmetry with namespace selector",
       P(s1, "", std::nullopt, "subteam1.team1"),
       {P(s1, "node1", affinity_ns_selector), P(s2, "node2", stay_s2_region)},
       {n("node1", china), n("node2", india), n("node3", az1)},
       {100, 0, 0}},
      {"anti-affinity symmetry with namespace selector",
       P(s1, "", std::nullopt, "subteam1.team1"),
       {P(s1, "node1", anti_affinity_ns_selector), P(s2, "node2", stay_s2_region)},
       {n("node1", china), n("node2", india), n("node3", az1)},
       {0, 100, 100}},
      {"affinity symmetry: required terms of existing pods (hard weight 1)",
       P(s1),
       {P(s1, "node1", hard_affinity), P(s2, "node2", hard_affinity)},
       {n("node1", china), n("node2", india), n("node3", az1)},
       {100, 100, 0}},
      {"anti-affinity: non-matching node scores high",
       P(s1, "", away_s1_az),
       {P(s1, "node1"), P(s2, "node2")},
       {n("node1", az1), n("node2", china)},
       {0, 100}},
      {"anti-affinity: node without the topology key scores high",
       P(s1, "", away_s1_az),
       {P(s1, "node1"), P(s1, "node2")},
       {n("node1", az1), n("node2", china)},
       {0, 100}},
      {"anti-affinity: more matches, lower score",
       P(s1, "", away_s1_az),
       {P(s1, "node1"), P(s1, "node1"), P(s2, "node2")},
       {n("node1", az1), n("node2", india)},
       {0, 100}},
      {"anti-affinity symmetry",
       P(s2),
       {P(s1, "node1", away_s2_az), P(s2, "node2", away_s1_az)},
       {n("node1", az1), n("node2", az2)},
       {0, 100}},
      {"affinity and anti-affinity",
       P(s1, "", stay_s1_region_away_s2_az),
       {P(s1, "node1"), P(s1, "node2")},
       {n("node1", china), n("node2", az1)},
       {100, 0}},
      {"affinity and anti-affinity, same labels",
       P(s1, "", stay_s1_region_away_s2_az),
       {P(s1, "node1"), P(s1, "node1"), P(s1, "node2"), P(s1, "node3"), P(s1, "node3"),
        P(s1, "node4"), P(s1, "node5")},
       {n("node1", china_az1), n("node2", india), n("node3", china), n("node4", china),
        n("node5", india)},
       {100, 0, 100, 100, 0}},
      {"affinity, anti-affinity and symmetry together",
       P(s1, "", stay_s1_region_away_s2_az),
       {P(s1, "node1"), P(s2, "node2"), P({}, "node3", stay_s1_region_away_s2_az),
        P({}, "node4", away_s1_az)},
       {n("node1", china), n("node2", az1), n("node3", india), n("node4", az2)},
       {100, 0, 100, 0}},
      {"partial nodes in a topology without pods with affinity",
       P(s1),
       {P(s1, "node1"), P({}, "node2", stay_s1_region_away_s2_az)},
       {n("node1", china), n("node2", china)},
       {0, 0}},
      {"invalid affinity fails PreScore",
       P({}, "", invalid_affinity),
       {},
       {n("node1", china), n("node2", china)},
       {0, 0},
       Code::kError,
       false,
       "Invalid value: \"{{.bad-value.}}\""},
      {"invalid anti-affinity fails PreScore",
       P({}, "", invalid_anti_affinity),
       {},
       {n("node1", china), n("node2", china)},
       {0, 0},
       Code::kError,
       false,
       "Invalid value: \"{{.bad-value.}}\""},
      {"affinity with pods matching the namespace selector",
       P(s1, "", affinity_ns_selector, "subteam1.team1"),
       {P(s1, "node1", std::nullopt, "subteam1.team1"),
        P(s1, "node1", std::nullopt, "subteam1.team1"),
        P(s1, "node1", std::nullopt, "subteam1.team2"),
        P(s1, "node2", std::nullopt, "subteam2.team1")},
       {n("node1", china), n("node2", india)},
       {100, 0}},
      {"affinity with pods matching both namespace selector and namespaces",
       P(s1, "", affinity_ns_selector, "subteam1.team1"),
       {P(s1, "node1", std::nullopt, "subteam1.team1"),
        P(s1, "node1", std::nullopt, "subteam1.team1"),
        P(s1, "node1", std::nullopt, "subteam2.team2"),
        P(s1, "node2", std::nullopt, "subteam2.team1")},
       {n("node1", china), n("node2", india)},
       {100, 0}},
      {"anti-affinity with pods matching the namespace selector",
       P(s1, "", anti_affinity_ns_selector, "subteam1.team1"),
       {P(s1, "node1", std::nullopt, "subteam1.team1"),
        P(s1, "node1", std::nullopt, "subteam1.team1"),
        P(s1, "node1", std::nullopt, "subteam1.team2"),
        P(s1, "node2", std::nullopt, "subteam2.team1")},
       {n("node1", china), n("node2", india)},
       {0, 100}},
      {"anti-affinity with pods matching both namespace selector and namespaces",
       P(s1, "", anti_affinity_ns_selector, "subteam1.team1"),
       {P(s1, "node1", std::nullopt, "subteam1.team1"),
        P(s1, "node1", std::nullopt, "subteam1.team1"),
        P(s1, "node1", std::nullopt, "subteam2.team2"),
        P(s1, "node2", std::nullopt, "subteam2.team1")},
       {n("node1", china), n("node2", india)},
       {0, 100}},
      {"ignore preferred terms of existing pods",
       P(s2),
       {P(s1, "node1", stay_s1_region_away_s2_az), P(s2, "node2", stay_s2_region)},
       {n("node1", china), n("node2", india)},
       {0, 0},
       Code::kSkip,
       true},
      {"do not ignore preferred terms of existing pods",
       P(s2),
       {P(s1, "node1", stay_s1_region_away_s2_az), P(s2, "node2", stay_s2_region)},
       {n("node1", china), n("node2", india)},
       {0, 100}},
      {"no nodes to score", P(s2), {}, {}, {}, Code::kSkip},
  };
  for (const AffinityScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    PodAffinityOptions options;
    options.hard_pod_affinity_weight = 1;
    options.ignore_preferred_terms_of_existing_pods = c.ignore_preferred_terms_of_existing_pods;
    Cluster cluster(c.nodes, c.pods, options);
    InterPodAffinityScorer s = InterPodAffinityScorer::PreScore(c.pod, cluster.index());
    EXPECT_EQ(s.status().code(), c.want_status) << s.status().message();
    if (!c.want_message_part.empty()) {
      EXPECT_NE(s.status().message().find(c.want_message_part), std::string::npos)
          << s.status().message();
    }
    std::vector<int64_t> scores;
    for (const api::Node& node : c.nodes) scores.push_back(s.Score(cluster.Id(node.metadata.name)));
    s.NormalizeScore(scores);
    EXPECT_EQ(scores, c.want);
  }
}

TEST(InterPodAffinityScorer, HardPodAffinitySymmetricWeight) {
  const Labels service_s1 = {{"service", "S1"}};
  auto n = [](const std::string& name, const Labels& l) { return MakeNode(name, l).Obj(); };
  const std::vector<api::Node> nodes = {n("node1", {{"region", "China"}}),
                                        n("node2", {{"region", "India"}}),
                                        n("node3", {{"az", "az1"}})};
  const api::Affinity hard =
      PodAff({}, {},
             {Term(Sel({Req("service", "In", {"S1"})}), "region", {"", "subteam2.team2"},
                   Sel({Req("team", "In", {"team1"})}))});
  const std::vector<api::Pod> pods = {P({}, "node1", hard), P({}, "node2", hard)};
  struct Case {
    std::string name;
    std::string ns;
    int32_t weight;
    std::vector<int64_t> want;
    Code want_status;
  };
  const std::vector<Case> cases = {
      {"with default weight", "", 1, {100, 100, 0}, Code::kSuccess},
      {"with zero weight (KAI's setting)", "", 0, {0, 0, 0}, Code::kSkip},
      {"with no matching namespace", "subteam1.team2", 1, {0, 0, 0}, Code::kSkip},
      {"with matching namespace selector", "subteam1.team1", 1, {100, 100, 0}, Code::kSuccess},
      {"with matching namespaces", "subteam2.team2", 1, {100, 100, 0}, Code::kSuccess},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PodAffinityOptions options;
    options.hard_pod_affinity_weight = c.weight;
    Cluster cluster(nodes, pods, options);
    InterPodAffinityScorer s =
        InterPodAffinityScorer::PreScore(P(service_s1, "", {}, c.ns), cluster.index());
    EXPECT_EQ(s.status().code(), c.want_status);
    std::vector<int64_t> scores;
    scores.reserve(nodes.size());
    for (const api::Node& node : nodes) scores.push_back(s.Score(cluster.Id(node.metadata.name)));
    s.NormalizeScore(scores);
    EXPECT_EQ(scores, c.want);
  }
}

TEST(InterPodAffinityScorer, RawScoresAreWhatKaiMultiplies) {
  // KAI's podaffinity plugin uses the raw Score (x 100000), not NormalizeScore.
  const api::Affinity stay =
      PodAff({Weighted(5, Term(Sel({Req("app", "In", {"db"})}), "zone"))},
             {Weighted(3, Term(Sel({Req("app", "In", {"web"})}), "kubernetes.io/hostname"))});
  Cluster cluster({MakeNode("n1", {{"zone", "a"}, {"kubernetes.io/hostname", "n1"}}).Obj(),
                   MakeNode("n2", {{"zone", "a"}, {"kubernetes.io/hostname", "n2"}}).Obj(),
                   MakeNode("n3", {{"zone", "b"}, {"kubernetes.io/hostname", "n3"}}).Obj()},
                  {P({{"app", "db"}}, "n1"), P({{"app", "db"}}, "n2"), P({{"app", "web"}}, "n2"),
                   P({{"app", "web"}}, "n2"), P({{"app", "db"}}, "n3")});
  InterPodAffinityScorer s = InterPodAffinityScorer::PreScore(P({}, "", stay), cluster.index());
  ASSERT_TRUE(s.status().IsSuccess());
  EXPECT_EQ(s.Score(cluster.Id("n1")), 10);      // two db pods in zone a
  EXPECT_EQ(s.Score(cluster.Id("n2")), 10 - 6);  // and two web pods on n2
  EXPECT_EQ(s.Score(cluster.Id("n3")), 5);
}

}  // namespace
}  // namespace kai::k8s_internal
