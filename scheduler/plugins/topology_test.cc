// topology (reference §11): SubsetNodes returns the domains a constrained (sub)group may use,
// deepest level first and tightest fit first; nodes without the level labels are not part of the
// topology; an impossible requirement yields no node set and a job fit error.
#include <gtest/gtest.h>

#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::NodeSpec;
using testing::PendingJob;
using testing::RunningJob;
using testing::TestCluster;
using testing::TestSession;

NodeSpec RackNode(std::string name, std::string spine, std::string rack, double gpus = 2) {
  NodeSpec n{.name = std::move(name), .gpus = gpus};
  n.labels = {{"k8s.io/spine", std::move(spine)}, {"k8s.io/rack", std::move(rack)}};
  return n;
}

// n1, n2 in s1/r1 (one GPU used on n1), n3, n4 in s1/r2, n5 in s2/r3, plus a node outside the
// topology.
TestCluster Racks() {
  TestCluster c;
  c.AddTopology("topo", {"k8s.io/spine", "k8s.io/rack"});
  c.AddNode(RackNode("n1", "s1", "r1"));
  c.AddNode(RackNode("n2", "s1", "r1"));
  c.AddNode(RackNode("n3", "s1", "r2"));
  c.AddNode(RackNode("n4", "s1", "r2"));
  c.AddNode(RackNode("n5", "s2", "r3"));
  c.AddNode({.name = "unlabelled", .gpus = 8});
  c.AddQueue({.name = "q"});
  c.AddJob(RunningJob("busy", "q", 1, "n1"));
  return c;
}

JobSpec Gang(const std::string& name, int pods, std::string required, std::string preferred) {
  JobSpec j = PendingJob(name, "q", 1, pods);
  j.topology = std::array<std::string, 3>{"topo", std::move(required), std::move(preferred)};
  return j;
}

std::vector<std::vector<std::string>> Subsets(TestSession& s, const std::string& job_name) {
  PodGroupInfo& job = *s.Job(job_name);
  SubGroupRef ref{"", &job.root()->topology(), true};
  std::vector<PodInfo*> tasks = job.PendingTasks();
  auto sets =
      s.ssn().SubsetNodes(job, ref, job.root()->DescendantPodSets(), tasks, s.cluster().node_list);
  EXPECT_TRUE(sets.ok()) << sets.status();
  std::vector<std::vector<std::string>> out;
  if (!sets.ok()) return out;
  for (const NodeSet& ns : *sets) {
    std::vector<std::string> names;
    for (const NodeInfo* n : ns) names.push_back(n->name());
    out.push_back(names);
  }
  return out;
}

using Sets = std::vector<std::vector<std::string>>;

// A job without a topology constraint may use every candidate node: the candidate set itself
// comes back, not a copy (it spans the cluster, and this runs for every pod set).
TEST(TopologyTest, UnconstrainedJobGetsTheCandidateSetItself) {
  TestCluster c = Racks();
  c.AddJob(PendingJob("free", "q", 1, 2));
  TestSession s(c);
  PodGroupInfo& job = *s.Job("free");
  SubGroupRef ref{"", &job.root()->topology(), true};
  const NodeSet& nodes = s.cluster().node_list;
  auto sets =
      s.ssn().SubsetNodes(job, ref, job.root()->DescendantPodSets(), job.PendingTasks(), nodes);
  ASSERT_TRUE(sets.ok()) << sets.status();
  EXPECT_TRUE(sets->whole());
  ASSERT_EQ(sets->size(), 1u);
  EXPECT_EQ(sets->begin(), &nodes);
  // A constrained one gets its own subsets.
  c.AddJob(Gang("racked", 2, "k8s.io/rack", ""));
  TestSession t(c);
  PodGroupInfo& racked = *t.Job("racked");
  SubGroupRef rref{"", &racked.root()->topology(), true};
  auto split = t.ssn().SubsetNodes(racked, rref, racked.root()->DescendantPodSets(),
                                   racked.PendingTasks(), t.cluster().node_list);
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_FALSE(split->whole());
  EXPECT_EQ(Subsets(t, "racked").size(), split->size());
}

TEST(TopologyTest, RequiredRackListsTheRacksThatFitTightestFirst) {
  TestCluster c = Racks();
  c.AddJob(Gang("two", 2, "k8s.io/rack", ""));
  TestSession s(c);
  // r1 has 3 free GPUs (ratio 2/3), r3 2 (ratio 1), r2 4 (ratio 1/2): tightest fit first.
  EXPECT_EQ(Subsets(s, "two"), (Sets{{"n5"}, {"n1", "n2"}, {"n3", "n4"}}));
}

TEST(TopologyTest, RequiredRackExcludesRacksThatCannotHoldTheGang) {
  TestCluster c = Racks();
  c.AddJob(Gang("four", 4, "k8s.io/rack", ""));
  TestSession s(c);
  EXPECT_EQ(Subsets(s, "four"), (Sets{{"n3", "n4"}}));
}

TEST(TopologyTest, RequiredSpineWithPreferredRackListsRacksThenSpines) {
  TestCluster c = Racks();
  c.AddJob(Gang("four", 4, "k8s.io/spine", "k8s.io/rack"));
  TestSession s(c);
  // Deepest level first: the rack that fits, then the spine that fits (s2 has 2 GPUs only).
  EXPECT_EQ(Subsets(s, "four"), (Sets{{"n3", "n4"}, {"n1", "n2", "n3", "n4"}}));
}

TEST(TopologyTest, NoDomainFitsRecordsAFitError) {
  TestCluster c = Racks();
  c.AddJob(Gang("big", 8, "k8s.io/rack", ""));
  TestSession s(c);
  EXPECT_EQ(Subsets(s, "big"), Sets{});
  const PodGroupInfo& job = *s.Job("big");
  ASSERT_FALSE(job.job_fit_errors.empty());
  EXPECT_NE(job.job_fit_errors.back().message.find(
                "topology topo, requirement k8s.io/rack couldn't be satisfied for job "
                "<default/big>"),
            std::string::npos)
      << job.job_fit_errors.back().message;
}

TEST(TopologyTest, UnknownTopologyAndLevel) {
  TestCluster c = Racks();
  JobSpec missing = Gang("missing", 1, "k8s.io/rack", "");
  (*missing.topology)[0] = "nope";
  c.AddJob(missing);
  c.AddJob(Gang("bad-level", 1, "k8s.io/zone", ""));
  TestSession s(c);
  EXPECT_EQ(Subsets(s, "missing"), Sets{});
  EXPECT_EQ(s.Job("missing")->job_fit_errors.back().message,
            "Requested topology nope does not exist");
  PodGroupInfo& job = *s.Job("bad-level");
  SubGroupRef ref{"", &job.root()->topology(), true};
  std::vector<PodInfo*> tasks = job.PendingTasks();
  auto sets =
      s.ssn().SubsetNodes(job, ref, job.root()->DescendantPodSets(), tasks, s.cluster().node_list);
  EXPECT_FALSE(sets.ok());
  EXPECT_NE(std::string(sets.status().message())
                .find("specified 'k8s.io/zone' as the required topology constraint level, but "
                      "the topology tree 'topo' does not contain a level with this name"),
            std::string::npos)
      << sets.status();
}

TEST(TopologyTest, AllocateKeepsTheGangInOneRack) {
  TestCluster c = Racks();
  c.AddJob(Gang("four", 4, "k8s.io/rack", ""));
  TestSession s(c);
  s.Run({"allocate"});
  for (int i = 0; i < 4; ++i) {
    const PodInfo& t = *s.Task(testing::PodName("four", i));
    EXPECT_EQ(t.status, PodStatus::kBinding);
    EXPECT_TRUE(t.node_name == "n3" || t.node_name == "n4") << t.node_name;
  }
}

TEST(TopologyTest, PreferredRackScoresItsNodes) {
  TestCluster c = Racks();
  c.AddJob(Gang("two", 2, "", "k8s.io/rack"));
  TestSession s(c);
  s.Run({"allocate"});
  const PodInfo& a = *s.Task("two-0");
  const PodInfo& b = *s.Task("two-1");
  ASSERT_EQ(a.status, PodStatus::kBinding);
  ASSERT_EQ(b.status, PodStatus::kBinding);
  // Both pods land in the same rack.
  auto rack = [&](const PodInfo& t) {
    return s.Node(t.node_name)->node().metadata.labels.at("k8s.io/rack");
  };
  EXPECT_EQ(rack(a), rack(b));
}

}  // namespace
}  // namespace kai::scheduler
