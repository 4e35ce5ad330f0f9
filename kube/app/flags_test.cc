#include "kube/app/flags.h"

#include <gflags/gflags.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace kai::app {
namespace {

using ::testing::HasSubstr;

// Parses `args` as a command line on top of the current defaults; restores flags afterwards.
StatusOr<ProcessFlags> Parse(std::vector<std::string> args) {
  gflags::FlagSaver saver;
  std::vector<char*> argv;
  std::string prog = "test";
  argv.push_back(prog.data());
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  char** p = argv.data();
  gflags::ParseCommandLineNonHelpFlags(&argc, &p, false);
  return ReadProcessFlags();
}

TEST(FlagsTest, DefaultsAreControllerRuntimeAndKaiValues) {
  auto f = Parse({});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->metrics_addr, ":8080");
  EXPECT_EQ(f->health_addr, ":8081");
  EXPECT_FALSE(f->leader_elect);
  EXPECT_EQ(f->lease_duration, std::chrono::seconds(15));
  EXPECT_EQ(f->renew_deadline, std::chrono::seconds(10));
  EXPECT_EQ(f->retry_period, std::chrono::seconds(2));
  EXPECT_EQ(f->graceful_shutdown_timeout, std::chrono::seconds(30));
  EXPECT_EQ(f->qps, 50);
  EXPECT_EQ(f->burst, 300);
  EXPECT_TRUE(f->leader_elect_release_on_cancel);
}

TEST(FlagsTest, CommandLineWithDashes) {
  auto f = Parse({"--kubeconfig=/tmp/kc", "--metrics-addr=127.0.0.1:0", "--health-addr=0",
                  "--leader-elect", "--leader-elect-resource-name=kai-scheduler",
                  "--leader-elect-resource-namespace=kai", "--leader-elect-lease-duration=20s",
                  "--leader-elect-renew-deadline=15s", "--leader-elect-retry-period=5s",
                  "--graceful-shutdown-timeout=1m", "--qps=5.5", "--burst=10"});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->kubeconfig, "/tmp/kc");
  EXPECT_EQ(f->metrics_addr, "127.0.0.1:0");
  EXPECT_EQ(f->health_addr, "0");
  EXPECT_TRUE(f->leader_elect);
  EXPECT_EQ(f->leader_elect_resource_name, "kai-scheduler");
  EXPECT_EQ(f->lease_duration, std::chrono::seconds(20));
  EXPECT_EQ(f->renew_deadline, std::chrono::seconds(15));
  EXPECT_EQ(f->retry_period, std::chrono::seconds(5));
  EXPECT_EQ(f->graceful_shutdown_timeout, std::chrono::minutes(1));
  EXPECT_EQ(f->qps, 5.5);
  EXPECT_EQ(f->burst, 10);
  const ManagerOptions o = ManagerOptionsFromFlags(*f, "kai-scheduler", nullptr);
  EXPECT_EQ(o.leader_election_id, "kai-scheduler");
  EXPECT_EQ(o.leader_election_namespace, "kai");
  EXPECT_EQ(o.lease_duration, std::chrono::seconds(20));
  EXPECT_EQ(o.health_addr, "0");
}

TEST(FlagsTest, BadValuesNameTheFlag) {
  EXPECT_THAT(std::string(Parse({"--leader-elect-lease-duration=15"}).status().message()),
              HasSubstr("--leader-elect-lease-duration"));
  EXPECT_THAT(std::string(Parse({"--graceful-shutdown-timeout=-1s"}).status().message()),
              HasSubstr("--graceful-shutdown-timeout: must be positive"));
  EXPECT_THAT(std::string(Parse({"--leader-elect"}).status().message()),
              HasSubstr("--leader-elect-resource-name: required"));
  EXPECT_THAT(std::string(Parse({"--burst=-1"}).status().message()), HasSubstr("--burst"));
}

TEST(FlagsTest, BinariesSetTheirOwnDefaults) {
  gflags::FlagSaver saver;
  ProcessFlags d;
  d.metrics_addr = ":9090";
  d.leader_elect_resource_name = "2ad35f9c.kai.scheduler";
  d.retry_period = std::chrono::seconds(5);
  SetProcessDefaults(d);
  auto f = Parse({"--leader-elect"});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->metrics_addr, ":9090");
  EXPECT_EQ(f->leader_elect_resource_name, "2ad35f9c.kai.scheduler");
  EXPECT_EQ(f->retry_period, std::chrono::seconds(5));
}

}  // namespace
}  // namespace kai::app
