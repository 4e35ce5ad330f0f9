// The API server accepts config/ as kubectl sends it (server-side dry run against localkube).
#include <gtest/gtest.h>

#include "test/localkube/testing/localkube_process.h"

namespace kai {
namespace {

using localkube::testing::LocalKubeProcess;

TEST(ManifestsIntegration, ServerSideDryRunAcceptsEverything) {
  auto kube = LocalKubeProcess::Start();
  ASSERT_TRUE(kube.ok()) << kube.status();
  // Namespaced objects need their namespaces to exist, also in a dry run.
  auto ns = (*kube)->Kubectl({"apply", "-f", "config/manager/namespaces.yaml"});
  ASSERT_TRUE(ns.ok()) << ns.err;
  auto r = (*kube)->Kubectl({"apply", "--dry-run=server", "-k", "config"});
  ASSERT_TRUE(r.ok()) << r.out << r.err;
  for (const char* object :
       {"clusterrole.rbac.authorization.k8s.io/kai-scheduler", "deployment.apps/binder",
        "deployment.apps/kai-scheduler-default", "service/binder",
        "role.rbac.authorization.k8s.io/kai-binder-resource-reservation"}) {
    EXPECT_NE(r.out.find(object), std::string::npos) << object << "\n" << r.out;
  }
  // Dry run: nothing was created.
  auto get = (*kube)->Kubectl({"get", "deployments", "-A", "-o", "name"});
  ASSERT_TRUE(get.ok()) << get.err;
  EXPECT_EQ(get.out, "");
}

}  // namespace
}  // namespace kai
