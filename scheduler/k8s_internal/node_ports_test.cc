// Ported from kube-scheduler plugins/nodeports/node_ports_test.go (TestNodePorts, TestFits) and
// framework HostPortInfo tests.
#include "scheduler/k8s_internal/node_ports.h"

#include <gtest/gtest.h>

#include "scheduler/k8s_internal/testing_builders.h"

namespace kai::k8s_internal {
namespace {

using testing::MakePod;

HostPortUsage UsageOf(const api::Pod& pod) {
  HostPortUsage u;
  u.AddPod(pod.spec);
  return u;
}

struct Case {
  std::string name;
  api::Pod pod;
  HostPortUsage existing;
  Code want_prefilter = Code::kSuccess;
  bool want_fit = true;
};

TEST(NodePorts, Table) {
  auto pod = [](const std::vector<std::string>& ports) { return MakePod().HostPorts(ports).Obj(); };
  auto usage = [&](const std::vector<std::string>& ports) { return UsageOf(pod(ports)); };
  const std::vector<Case> cases = {
      {"skip filter", MakePod().Obj(), HostPortUsage(), Code::kSkip},
      {"other port", pod({"UDP/127.0.0.1/8080"}), usage({"UDP/127.0.0.1/9090"})},
      {"same udp port", pod({"UDP/127.0.0.1/8080"}), usage({"UDP/127.0.0.1/8080"}), Code::kSuccess,
       false},
      {"same tcp port", pod({"TCP/127.0.0.1/8080"}), usage({"TCP/127.0.0.1/8080"}), Code::kSuccess,
       false},
      {"different host ip", pod({"TCP/127.0.0.1/8080"}), usage({"TCP/127.0.0.2/8080"})},
      {"different protocol", pod({"UDP/127.0.0.1/8080"}), usage({"TCP/127.0.0.1/8080"})},
      {"second udp port conflict", pod({"UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"}),
       usage({"UDP/127.0.0.1/8080"}), Code::kSuccess, false},
      {"first tcp port conflict", pod({"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"}),
       usage({"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"}), Code::kSuccess, false},
      {"first tcp port conflict due to 0.0.0.0 hostIP", pod({"TCP/0.0.0.0/8001"}),
       usage({"TCP/127.0.0.1/8001"}), Code::kSuccess, false},
      {"TCP hostPort conflict due to 0.0.0.0 hostIP",
       pod({"TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"}), usage({"TCP/127.0.0.1/8001"}),
       Code::kSuccess, false},
      {"second tcp port conflict to 0.0.0.0 hostIP", pod({"TCP/127.0.0.1/8001"}),
       usage({"TCP/0.0.0.0/8001"}), Code::kSuccess, false},
      {"second different protocol", pod({"UDP/127.0.0.1/8001"}), usage({"TCP/0.0.0.0/8001"})},
      {"UDP hostPort conflict due to 0.0.0.0 hostIP", pod({"UDP/127.0.0.1/8001"}),
       usage({"TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"}), Code::kSuccess, false},
      {"non-sidecar initContainer using hostPort", MakePod().InitContainerPort(false, 8001).Obj(),
       usage({"TCP/0.0.0.0/8001"}), Code::kSkip},
      {"TCP hostPort conflict from sidecar initContainer",
       MakePod().InitContainerPort(true, 8001).Obj(), usage({"TCP/0.0.0.0/8001"}), Code::kSuccess,
       false},
      // Defaults: empty hostIP is 0.0.0.0, empty protocol is TCP.
      {"empty hostIP and protocol default to 0.0.0.0/TCP", pod({"//8080"}),
       usage({"TCP/10.1.1.1/8080"}), Code::kSuccess, false},
      {"defaulted protocol does not collide with UDP", pod({"//8080"}),
       usage({"UDP/10.1.1.1/8080"})},
      {"container ports without hostPort are ignored", pod({"TCP/0.0.0.0/0"}),
       usage({"TCP/0.0.0.0/8080"}), Code::kSkip},
      {"non-conflicting ports", pod({"TCP/127.0.0.1/80"}), usage({"TCP/127.0.0.1/9090"})},
      {"multiple non-conflicting ports",
       pod({"TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"}),
       usage({"TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"})},
      {"multiple ports, some conflicting",
       pod({"TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"}),
       usage({"TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"}), Code::kSuccess,
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodePortsFilter f = NodePortsFilter::PreFilter(c.pod);
    EXPECT_EQ(f.status().code(), c.want_prefilter);
    if (f.status().IsSkip()) continue;
    FilterResult r = f.Filter(c.existing);
    EXPECT_EQ(r.ok(), c.want_fit);
    if (!c.want_fit) {
      EXPECT_EQ(r.code(), Code::kUnschedulable);
      EXPECT_EQ(r.Message(), "node(s) didn't have free ports for the requested pod ports");
    }
  }
}

TEST(HostPortUsage, AddRemoveCountsUses) {
  api::Pod a = MakePod().HostPorts({"TCP/0.0.0.0/80"}).Obj();
  api::Pod b = MakePod().HostPorts({"TCP//80", "UDP/1.2.3.4/53"}).Obj();
  HostPortUsage u;
  u.AddPod(a.spec);
  u.AddPod(b.spec);
  EXPECT_EQ(u.size(), 2u);  // "TCP//80" sanitizes to the same entry as a's port
  u.RemovePod(a.spec);
  EXPECT_TRUE(u.CheckConflict({"0.0.0.0", "TCP", 80}));  // b still holds it
  u.RemovePod(b.spec);
  EXPECT_TRUE(u.empty());
  EXPECT_FALSE(u.CheckConflict({"0.0.0.0", "TCP", 80}));
  u.Remove({"0.0.0.0", "TCP", 80});  // removing an unknown port is harmless
  EXPECT_TRUE(u.empty());
}

TEST(HostPortUsage, CheckConflictMatrix) {
  HostPortUsage u;
  u.Add({"127.0.0.1", "TCP", 80});
  u.Add({"0.0.0.0", "UDP", 53});
  EXPECT_TRUE(u.CheckConflict({"127.0.0.1", "TCP", 80}));
  EXPECT_TRUE(u.CheckConflict({"0.0.0.0", "TCP", 80}));
  EXPECT_FALSE(u.CheckConflict({"127.0.0.2", "TCP", 80}));
  EXPECT_FALSE(u.CheckConflict({"127.0.0.1", "UDP", 80}));
  EXPECT_TRUE(u.CheckConflict({"10.0.0.1", "UDP", 53}));
  EXPECT_FALSE(u.CheckConflict({"10.0.0.1", "SCTP", 53}));
  EXPECT_FALSE(u.CheckConflict({"0.0.0.0", "TCP", 0}));
  // Only 0.0.0.0 is a wildcard; "::" is an ordinary address, as in HostPortInfo.
  EXPECT_FALSE(u.CheckConflict({"::", "TCP", 81}));
}

}  // namespace
}  // namespace kai::k8s_internal
