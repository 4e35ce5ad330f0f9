// Session open/close: each plugin's OnSessionOpen and OnSessionClose is timed on the injected
// clock (KAI's plugin_scheduling_latency_milliseconds).
#include "scheduler/framework/session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "kube/base/fake_clock.h"

namespace kai::scheduler {
namespace {

using std::chrono::milliseconds;

// A plugin whose hooks take a known time: they advance the fake clock.
class SlowPlugin final : public Plugin {
 public:
  SlowPlugin(std::string name, FakeClock* clock, milliseconds open, milliseconds close)
      : name_(std::move(name)), clock_(clock), open_(open), close_(close) {}
  std::string_view Name() const override { return name_; }
  void OnSessionOpen(Session*) override { clock_->Advance(open_); }
  void OnSessionClose(Session*) override { clock_->Advance(close_); }

 private:
  std::string name_;
  FakeClock* clock_;
  milliseconds open_;
  milliseconds close_;
};

TEST(SessionTest, TimesEveryPluginsOpenAndCloseOnTheSessionClock) {
  FakeClock clock;
  SeededRandom random(1);
  PluginRegistry registry;
  registry.Register("a", [&](const PluginArguments&) {
    return std::make_unique<SlowPlugin>("a", &clock, milliseconds(3), milliseconds(7));
  });
  registry.Register("b", [&](const PluginArguments&) {
    return std::make_unique<SlowPlugin>("b", &clock, milliseconds(0), milliseconds(11));
  });
  SchedulerConfiguration conf;
  conf.plugins = {{"a", {}}, {"unknown", {}}, {"b", {}}};
  Session ssn("s1", std::make_unique<ClusterInfo>(), conf, SchedulerParams{}, nullptr, &clock,
              &random);
  EXPECT_TRUE(ssn.plugin_latencies().empty());
  ssn.Open(registry);
  clock.Advance(milliseconds(100));  // the actions: not attributed to any plugin
  ssn.Close();

  // Configured order, open then close; the unknown plugin is skipped and so not timed.
  const auto& l = ssn.plugin_latencies();
  ASSERT_EQ(l.size(), 4u);
  auto expect = [&](size_t i, std::string_view plugin, std::string_view on_session, int ms) {
    EXPECT_EQ(l[i].plugin, plugin) << i;
    EXPECT_EQ(l[i].on_session, on_session) << i;
    EXPECT_EQ(l[i].took, milliseconds(ms)) << i;
  };
  expect(0, "a", "OnSessionOpen", 3);
  expect(1, "b", "OnSessionOpen", 0);
  expect(2, "a", "OnSessionClose", 7);
  expect(3, "b", "OnSessionClose", 11);
}

// The session's nodes write their accounting versions into its table (ResourceFitCache reads
// them there) while it has them, and stop when the snapshot is handed back: a node recycled into
// the next snapshot must not write into a freed table.
TEST(SessionTest, NodesMirrorTheirVersionsOnlyWhileTheSessionHasThem) {
  auto cluster = std::make_unique<ClusterInfo>();
  for (const char* name : {"node-b", "node-a"}) {
    auto node = std::make_shared<api::Node>();
    node->metadata.name = name;
    auto info = std::make_unique<NodeInfo>(node, NodeFacts{}, cluster->vector_map.get(),
                                           ResourceVector(4000, 0, 2));
    cluster->node_list.push_back(info.get());
    cluster->nodes[name] = std::move(info);
  }
  NodeInfo* a = cluster->nodes["node-a"].get();
  NodeInfo* b = cluster->nodes["node-b"].get();
  a->MarkAccountingChanged();
  FakeClock clock;
  SeededRandom random(1);
  Session ssn("s1", std::move(cluster), SchedulerConfiguration{}, SchedulerParams{}, nullptr,
              &clock, &random);
  const VersionTable* table = a->accounting_version_table();
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(b->accounting_version_table(), table);
  EXPECT_NE(a->accounting_version_slot(), b->accounting_version_slot());
  EXPECT_EQ((*table)[a->accounting_version_slot()], a->accounting_version());
  EXPECT_EQ((*table)[b->accounting_version_slot()], b->accounting_version());
  const uint64_t writes = table->writes();
  b->MarkAccountingChanged();
  EXPECT_EQ((*table)[b->accounting_version_slot()], b->accounting_version());
  EXPECT_NE((*table)[b->accounting_version_slot()], (*table)[a->accounting_version_slot()]);
  ASSERT_TRUE(table->WrittenSince(writes).has_value());
  EXPECT_EQ(std::vector<uint32_t>(table->WrittenSince(writes)->begin(),
                                  table->WrittenSince(writes)->end()),
            std::vector<uint32_t>{static_cast<uint32_t>(b->accounting_version_slot())});

  std::unique_ptr<ClusterInfo> back = ssn.TakeCluster();
  EXPECT_EQ(a->accounting_version_table(), nullptr);
  EXPECT_EQ(b->accounting_version_table(), nullptr);
  a->MarkAccountingChanged();  // under ASan: no write into the session's table
}

// NodeOrder hands out nodes by score, highest first, ties by name rank, whether it found the
// node by its first scan or through the heap it builds for the rest.
TEST(SessionTest, NodeOrderYieldsTheSortedOrderWithTiesByName) {
  ResourceVectorMap map;
  std::vector<std::unique_ptr<NodeInfo>> nodes;
  std::vector<Session::ScoredNode> scored;
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    auto node = std::make_shared<api::Node>();
    node->metadata.name = "node-" + std::to_string(i);
    nodes.push_back(
        std::make_unique<NodeInfo>(node, NodeFacts{}, &map, ResourceVector(4000, 0, 2)));
    // Few distinct scores, so most comparisons are ties broken by rank.
    scored.push_back({static_cast<double>(rng() % 5), i + 1, nodes.back().get()});
  }
  std::shuffle(scored.begin(), scored.end(), rng);
  std::vector<Session::ScoredNode> want = scored;
  std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) {
    return a.score != b.score ? a.score > b.score : a.rank < b.rank;
  });
  Session::NodeOrder order(scored);
  for (const Session::ScoredNode& w : want) EXPECT_EQ(order.Next(), w.node);
  EXPECT_EQ(order.Next(), nullptr);
  EXPECT_EQ(Session::NodeOrder({}).Next(), nullptr);
}

}  // namespace
}  // namespace kai::scheduler
