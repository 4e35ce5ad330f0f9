// PodAffinityIndex: incremental maintenance must give exactly what kube-scheduler's brute-force
// PreFilter / PreScore compute from scratch. A naive reference (nested loops over nodes and
// pods, as filtering.go and scoring.go do) is compared with the index under random sequences of
// pod additions, removals and node relabels.
#include "scheduler/k8s_internal/pod_affinity_index.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "scheduler/k8s_internal/inter_pod_affinity.h"
#include "scheduler/k8s_internal/testing_builders.h"

namespace kai::k8s_internal {
namespace {

using testing::Labels;
using testing::MakeNode;
using testing::MakePod;
using testing::Req;
using testing::Sel;
using testing::Term;
using CountMap = InterPodAffinityFilter::CountMap;

struct Placed {
  api::Pod pod;
  NodeId node;
  bool live = true;
};

// The reference: kube-scheduler's algorithms over explicit lists.
struct Reference {
  std::vector<api::Node>* nodes;
  std::deque<Placed>* pods;
  PodAffinityIndex* compiler;  // only used to compile terms

  const std::string* Value(NodeId n, const std::string& key) const {
    const auto& l = (*nodes)[n].metadata.labels;
    auto it = l.find(key);
    return it == l.end() ? nullptr : &it->second;
  }

  void Filter(const api::Pod& incoming, CountMap* existing, CountMap* affinity, CountMap* anti) {
    PodAffinityTerms in = *compiler->CompileIncomingPodTerms(incoming);
    const LabelMap* ns_labels = compiler->NamespaceLabels(incoming.metadata.namespace_);
    for (const Placed& p : *pods) {
      if (!p.live) continue;
      PodAffinityTerms ex = compiler->CompileExistingPodTerms(p.pod);
      for (const AffinityTerm& t : ex.required_anti_affinity) {
        if (!t.Matches(incoming.metadata.namespace_, incoming.metadata.labels, ns_labels)) continue;
        if (const std::string* v = Value(p.node, t.topology_key))
          ++(*existing)[{t.topology_key, *v}];
      }
      bool all = !in.required_affinity.empty();
      for (const AffinityTerm& t : in.required_affinity) {
        all = all && t.Matches(p.pod.metadata.namespace_, p.pod.metadata.labels, nullptr);
      }
      if (all) {
        for (const AffinityTerm& t : in.required_affinity) {
          if (const std::string* v = Value(p.node, t.topology_key)) {
            ++(*affinity)[{t.topology_key, *v}];
          }
        }
      }
      for (const AffinityTerm& t : in.required_anti_affinity) {
        if (!t.Matches(p.pod.metadata.namespace_, p.pod.metadata.labels, nullptr)) continue;
        if (const std::string* v = Value(p.node, t.topology_key)) ++(*anti)[{t.topology_key, *v}];
      }
    }
  }

  // scoring.go's topologyScore, then Score per node. Returns false for Skip.
  bool Score(const api::Pod& incoming, int32_t hard_weight, std::vector<int64_t>* out) {
    PodAffinityTerms in = *compiler->CompileIncomingPodTerms(incoming);
    const LabelMap* ns_labels = compiler->NamespaceLabels(incoming.metadata.namespace_);
    std::map<std::pair<std::string, std::string>, int64_t> topo;
    bool any = false;
    auto process = [&](const AffinityTerm& t, int64_t weight, const api::Pod& pod,
                       const LabelMap* nsl, NodeId node) {
      if (!t.Matches(pod.metadata.namespace_, pod.metadata.labels, nsl)) return;
      const std::string* v = Value(node, t.topology_key);
      if (v == nullptr) return;
      topo[{t.topology_key, *v}] += weight;
      any = true;
    };
    for (const Placed& p : *pods) {
      if (!p.live) continue;
      for (const auto& w : in.preferred_affinity) process(w.term, w.weight, p.pod, nullptr, p.node);
      for (const auto& w : in.preferred_anti_affinity) {
        process(w.term, -w.weight, p.pod, nullptr, p.node);
      }
      PodAffinityTerms ex = compiler->CompileExistingPodTerms(p.pod);
      if (hard_weight > 0) {
        for (const auto& t : ex.required_affinity)
          process(t, hard_weight, incoming, ns_labels, p.node);
      }
      for (const auto& w : ex.preferred_affinity)
        process(w.term, w.weight, incoming, ns_labels, p.node);
      for (const auto& w : ex.preferred_anti_affinity) {
        process(w.term, -w.weight, incoming, ns_labels, p.node);
      }
    }
    out->clear();
    for (size_t n = 0; n < nodes->size(); ++n) {
      int64_t s = 0;
      for (const auto& [k, v] : topo) {
        const std::string* nv = Value(static_cast<NodeId>(n), k.first);
        if (nv != nullptr && *nv == k.second) s += v;
      }
      out->push_back(s);
    }
    return any;
  }
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  const std::string& Of(const std::vector<std::string>& v) { return v[Pick(v.size())]; }

  Labels PodLabels() {
    Labels l;
    if (Pick(4) != 0) l["app"] = Of({"a", "b", "c"});
    if (Pick(2) == 0) l["tier"] = Of({"x", "y"});
    if (Pick(3) == 0) l["rev"] = Of({"1", "2"});
    return l;
  }
  api::PodAffinityTerm RandomTerm() {
    std::vector<api::LabelSelectorRequirement> reqs;
    switch (Pick(5)) {
      case 0:
        reqs.push_back(Req("app", "In", {Of({"a", "b", "c"})}));
        break;
      case 1:
        reqs.push_back(Req("app", "NotIn", {Of({"a", "b"})}));
        break;
      case 2:
        reqs.push_back(Req("tier", "Exists"));
        break;
      case 3:
        reqs.push_back(Req("app", "In", {"a", "b"}));
        reqs.push_back(Req("tier", "DoesNotExist"));
        break;
      default:
        break;  // empty selector: everything
    }
    api::PodAffinityTerm t = Term(Sel(reqs), Of({"zone", "hostname", "rack", "absent"}));
    switch (Pick(5)) {
      case 0:
        t.namespaces = {Of({"ns1", "ns2"})};
        break;
      case 1:
        t.namespace_selector = Sel({Req("team", "In", {"t1"})});
        break;
      case 2:
        t.namespace_selector = api::LabelSelector{};
        break;
      default:
        break;
    }
    if (Pick(6) == 0) t.match_label_keys = {"rev"};
    return t;
  }
  api::Pod RandomPod(const std::string& name) {
    testing::PodBuilder b = MakePod();
    b.Name(name).Namespace(Of({"ns1", "ns2", "ns3"})).Labels(PodLabels());
    const int kind = Pick(8);
    if (kind == 0) b.RequiredAffinity(RandomTerm());
    if (kind == 1) b.RequiredAntiAffinity(RandomTerm());
    if (kind == 2) b.PreferredAffinity(1 + Pick(10), RandomTerm());
    if (kind == 3) b.PreferredAntiAffinity(1 + Pick(10), RandomTerm());
    if (kind == 4) b.RequiredAntiAffinity(RandomTerm()).PreferredAffinity(3, RandomTerm());
    if (kind == 5) b.RequiredAffinity(RandomTerm()).RequiredAffinity(RandomTerm());
    return b.Obj();
  }
  api::Node RandomNode(const std::string& name) {
    testing::NodeBuilder b = MakeNode(name);
    b.Label("hostname", name).Label("zone", Of({"z1", "z2", "z3"}));
    if (Pick(2) == 0) b.Label("rack", Of({"r1", "r2"}));
    return b.Obj();
  }

 private:
  std::mt19937 rng_;
};

class IndexProperty : public ::testing::TestWithParam<int> {};

TEST_P(IndexProperty, IncrementalEqualsBruteForce) {
  Generator gen(static_cast<uint32_t>(GetParam()));
  PodAffinityOptions options;
  options.hard_pod_affinity_weight = GetParam() % 2;  // KAI's 0 and upstream's 1
  PodAffinityIndex index(options);
  index.SetNamespace("ns1", {{"team", "t1"}});
  index.SetNamespace("ns2", {{"team", "t2"}});
  std::vector<api::Node> nodes;
  for (int i = 0; i < 8; ++i) {
    nodes.push_back(gen.RandomNode("node" + std::to_string(i)));
    index.SetNode(i, nodes.back());
  }
  std::deque<Placed> pods;
  PodAffinityIndex compiler(options);
  compiler.SetNamespace("ns1", {{"team", "t1"}});
  compiler.SetNamespace("ns2", {{"team", "t2"}});
  Reference ref{&nodes, &pods, &compiler};

  std::vector<api::Pod> incoming;
  incoming.reserve(12);
  for (int i = 0; i < 12; ++i) incoming.push_back(gen.RandomPod("in" + std::to_string(i)));

  for (int step = 0; step < 120; ++step) {
    const int op = gen.Pick(10);
    if (op < 6) {
      pods.push_back({gen.RandomPod("p" + std::to_string(step)), gen.Pick(nodes.size())});
      index.AddPod(&pods.back().pod, pods.back().node);
    } else if (op < 9) {
      std::vector<size_t> live;
      for (size_t i = 0; i < pods.size(); ++i) {
        if (pods[i].live) live.push_back(i);
      }
      if (live.empty()) continue;
      Placed& p = pods[live[gen.Pick(live.size())]];
      p.live = false;
      index.RemovePod(&p.pod);
    } else {
      const int n = gen.Pick(nodes.size());
      nodes[n] = gen.RandomNode(nodes[n].metadata.name);
      index.SetNode(n, nodes[n]);
    }
    if (step % 6 != 5) continue;
    for (const api::Pod& in : incoming) {
      CountMap existing, affinity, anti;
      ref.Filter(in, &existing, &affinity, &anti);
      InterPodAffinityFilter f = InterPodAffinityFilter::PreFilter(in, index);
      ASSERT_FALSE(f.status().IsRejected()) << f.status().message();
      EXPECT_EQ(f.ExistingAntiAffinityCounts(), existing) << "step " << step;
      EXPECT_EQ(f.AffinityCounts(), affinity) << "step " << step;
      EXPECT_EQ(f.AntiAffinityCounts(), anti) << "step " << step;

      std::vector<int64_t> want;
      const bool any = ref.Score(in, options.hard_pod_affinity_weight, &want);
      InterPodAffinityScorer s = InterPodAffinityScorer::PreScore(in, index);
      EXPECT_EQ(s.status().IsSkip(), !any) << "step " << step;
      for (size_t n = 0; n < nodes.size(); ++n) {
        EXPECT_EQ(s.Score(static_cast<NodeId>(n)), any ? want[n] : 0) << "step " << step;
      }
    }
  }
  // Removing every pod leaves no group and no count behind.
  for (Placed& p : pods) {
    if (p.live) index.RemovePod(&p.pod);
  }
  EXPECT_EQ(index.num_pods(), 0u);
  EXPECT_EQ(index.num_anti_affinity_groups(), 0u);
  EXPECT_EQ(index.num_score_groups(), 0u);
  for (const api::Pod& in : incoming) {
    InterPodAffinityFilter f = InterPodAffinityFilter::PreFilter(in, index);
    EXPECT_TRUE(f.ExistingAntiAffinityCounts().empty());
    EXPECT_TRUE(f.AffinityCounts().empty());
    EXPECT_TRUE(f.AntiAffinityCounts().empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, IndexProperty, ::testing::Range(1, 9));

TEST(PodAffinityIndex, GroupsDeduplicateIdenticalTerms) {
  PodAffinityIndex index;
  index.SetNode(0, MakeNode("n0", {{"zone", "a"}}).Obj());
  std::vector<api::Pod> pods;
  pods.reserve(50);
  for (int i = 0; i < 50; ++i) {
    pods.push_back(MakePod()
                       .Name("p" + std::to_string(i))
                       .Namespace("ns")
                       .Label("app", "web")
                       .PodAntiAffinityIn("app", "zone", {"web"})
                       .Obj());
  }
  for (const api::Pod& p : pods) index.AddPod(&p, 0);
  EXPECT_EQ(index.num_anti_affinity_groups(), 1u);
  int32_t counted = 0;
  index.ForEachAntiAffinityGroup([&](const AffinityTerm&, const std::vector<int64_t>& c) {
    counted = static_cast<int32_t>(c[0]);
  });
  EXPECT_EQ(counted, 50);
  // Same term in another namespace: a different group (the term's namespace defaults to it).
  api::Pod other = pods[0];
  other.metadata.namespace_ = "other";
  index.AddPod(&other, 0);
  EXPECT_EQ(index.num_anti_affinity_groups(), 2u);
}

TEST(PodAffinityIndex, QueriesAreSharedAndKeptExact) {
  PodAffinityIndex index;
  index.SetNode(0, MakeNode("n0", {{"zone", "a"}}).Obj());
  index.SetNode(1, MakeNode("n1", {{"zone", "b"}}).Obj());
  const api::Pod web = MakePod().Name("w").Label("app", "web").Obj();
  index.AddPod(&web, 0);
  const api::Pod a =
      MakePod().Name("a").Label("app", "x").PodAntiAffinityIn("app", "zone", {"web"}).Obj();
  const api::Pod b =
      MakePod().Name("b").Label("app", "y").PodAntiAffinityIn("app", "zone", {"web"}).Obj();
  InterPodAffinityFilter fa = InterPodAffinityFilter::PreFilter(a, index);
  InterPodAffinityFilter fb = InterPodAffinityFilter::PreFilter(b, index);
  EXPECT_EQ(index.num_queries(), 1u);  // one query serves both pods
  EXPECT_FALSE(fa.Filter(0).ok());
  EXPECT_TRUE(fa.Filter(1).ok());
  const api::Pod web2 = MakePod().Name("w2").Label("app", "web").Obj();
  index.AddPod(&web2, 1);
  EXPECT_FALSE(InterPodAffinityFilter::PreFilter(b, index).Filter(1).ok());
  index.RemovePod(&web);
  EXPECT_TRUE(InterPodAffinityFilter::PreFilter(b, index).Filter(0).ok());
  index.ClearQueryCache();
  EXPECT_EQ(index.num_queries(), 0u);
  EXPECT_TRUE(InterPodAffinityFilter::PreFilter(b, index).Filter(0).ok());
  EXPECT_FALSE(InterPodAffinityFilter::PreFilter(b, index).Filter(1).ok());
}

TEST(PodAffinityIndex, RelabelingANodeMovesItsPodsBetweenDomains) {
  PodAffinityIndex index;
  index.SetNode(0, MakeNode("n0", {{"zone", "a"}}).Obj());
  index.SetNode(1, MakeNode("n1", {{"zone", "b"}}).Obj());
  const api::Pod guard = MakePod().Name("g").PodAntiAffinityExists("app", "zone").Obj();
  index.AddPod(&guard, 0);
  const api::Pod incoming = MakePod().Name("i").Label("app", "x").Obj();
  InterPodAffinityFilter f = InterPodAffinityFilter::PreFilter(incoming, index);
  EXPECT_FALSE(f.Filter(0).ok());
  EXPECT_TRUE(f.Filter(1).ok());
  index.SetNode(0, MakeNode("n0", {{"zone", "b"}}).Obj());
  InterPodAffinityFilter g = InterPodAffinityFilter::PreFilter(incoming, index);
  EXPECT_FALSE(g.Filter(0).ok());
  EXPECT_FALSE(g.Filter(1).ok());
  index.SetNode(0, MakeNode("n0", {}).Obj());  // no zone at all: the guard counts nowhere
  EXPECT_TRUE(InterPodAffinityFilter::PreFilter(incoming, index).status().IsSkip());
  index.RemoveNode(0);
  EXPECT_FALSE(index.Contains(&guard));
  EXPECT_EQ(index.num_nodes(), 1u);
}

TEST(PodAffinityIndex, ExistingPodWithBrokenTermsKeepsItsValidKinds) {
  // framework.NewPodInfo drops a kind of term that fails to parse; the others still count.
  PodAffinityIndex index;
  index.SetNode(0, MakeNode("n0", {{"zone", "a"}}).Obj());
  const api::Pod broken = MakePod()
                              .Name("b")
                              .PodAntiAffinityIn("app", "zone", {"x"})
                              .RequiredAffinity(Term(Sel({Req("app", "In", {})}), "zone"))
                              .Obj();
  index.AddPod(&broken, 0);
  EXPECT_EQ(index.num_anti_affinity_groups(), 1u);
  const api::Pod incoming = MakePod().Name("i").Label("app", "x").Obj();
  EXPECT_FALSE(InterPodAffinityFilter::PreFilter(incoming, index).Filter(0).ok());
}

TEST(PodAffinityIndex, IncomingNamespaceSelectorResolvesKnownNamespaces) {
  PodAffinityIndex index;
  index.SetNamespace("a", {{"team", "t1"}});
  index.SetNamespace("b", {{"team", "t2"}});
  api::PodAffinityTerm t = Term(Sel({}), "zone", {"explicit"}, Sel({Req("team", "In", {"t1"})}));
  const api::Pod pod = MakePod().RequiredAffinity(t).Obj();
  StatusOr<PodAffinityTerms> terms = index.CompileIncomingPodTerms(pod);
  ASSERT_TRUE(terms.ok());
  ASSERT_EQ(terms->required_affinity.size(), 1u);
  EXPECT_EQ(terms->required_affinity[0].namespaces, (std::vector<std::string>{"a", "explicit"}));
  EXPECT_TRUE(terms->required_affinity[0].namespace_selector.IsNothing());
}

}  // namespace
}  // namespace kai::k8s_internal
