#include "test/localkube/request_stats.h"

#include <gtest/gtest.h>

namespace kai::localkube {
namespace {

TEST(RequestStatsTest, ProductOfUserAgent) {
  EXPECT_EQ(RequestStats::Product("kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9"), "kubectl");
  EXPECT_EQ(RequestStats::Product("kai-binder/v0.1.0 (linux/amd64) kai leader-election"),
            "kai-binder");
  EXPECT_EQ(RequestStats::Product("curl"), "curl");
  EXPECT_EQ(RequestStats::Product("bench client"), "bench");
  EXPECT_EQ(RequestStats::Product(""), "");
}

TEST(RequestStatsTest, CountsByAgentVerbAndResourceSorted) {
  RequestStats s;
  EXPECT_EQ(s.Json(), "[]");
  s.Record("kai-scheduler/v0.1.0 (linux/amd64) kai", "create", "bindrequests", "", 201);
  s.Record("kai-binder/v0.1.0", "create", "pods", "binding", 201);
  s.Record("kai-binder/v0.1.0", "create", "pods", "binding", 409);
  s.Record("kai-binder/v0.1.0", "patch", "bindrequests", "status", 200);
  EXPECT_EQ(s.Json(),
            "[{\"userAgent\":\"kai-binder\",\"verb\":\"create\",\"resource\":\"pods/binding\","
            "\"count\":2,\"errors\":1},"
            "{\"userAgent\":\"kai-binder\",\"verb\":\"patch\",\"resource\":"
            "\"bindrequests/status\",\"count\":1,\"errors\":0},"
            "{\"userAgent\":\"kai-scheduler\",\"verb\":\"create\",\"resource\":\"bindrequests\","
            "\"count\":1,\"errors\":0}]");
}

}  // namespace
}  // namespace kai::localkube
