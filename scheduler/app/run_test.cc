#include "scheduler/app/run.h"

#include <gtest/gtest.h>

#include <set>

namespace kai::scheduler {
namespace {

TEST(ParseRunArgs, KaisFlagsGoWhereTheyBelong) {
  auto o = ParseRunArgs(
      {"run", "--kubeconfig=/k", "--scheduler-name", "s", "--partition-label-value=pool-a",
       "--schedule-period=250ms", "--leader-elect", "--qps=20", "--burst=30",
       "--num-of-status-recording-workers=2", "--bind-request-workers=3", "--listen-address=:9999",
       "--metrics-namespace=x", "--detailed-fit-errors", "--update-pod-eviction-condition=true",
       "--plugin-server-port=9091", "--v=5", "--namespace=ns", "--scheduler-conf=/c.yaml"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kubeconfig, "/k");
  EXPECT_EQ(o->params.scheduler_name, "s");
  EXPECT_EQ(o->params.partition_label_value, "pool-a");
  EXPECT_EQ(o->params.schedule_period, std::chrono::milliseconds(250));
  EXPECT_TRUE(o->leader_elect);
  EXPECT_EQ(o->qps, 20);
  EXPECT_EQ(o->burst, 30);
  EXPECT_EQ(o->status_workers, 2);
  EXPECT_EQ(o->bind_request_workers, 3);
  EXPECT_EQ(o->listen_address, ":9999");
  EXPECT_EQ(o->metrics_namespace, "x");
  EXPECT_TRUE(o->params.detailed_fit_errors);
  EXPECT_TRUE(o->params.update_pod_eviction_condition);
  EXPECT_EQ(o->verbosity, 5);
  EXPECT_EQ(o->namespace_, "ns");
  EXPECT_EQ(o->scheduler_conf, "/c.yaml");
  EXPECT_EQ(o->plugin_server_port, 9091);
  EXPECT_EQ(LeaseName(*o), "s-pool-a");
}

TEST(ParseRunArgs, DefaultsAndErrors) {
  auto o = ParseRunArgs({});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->params.scheduler_name, "kai-scheduler");
  EXPECT_EQ(o->params.schedule_period, std::chrono::seconds(1));
  EXPECT_EQ(o->listen_address, ":8080");
  EXPECT_EQ(o->qps, 50);
  EXPECT_EQ(o->burst, 300);
  EXPECT_EQ(o->plugin_server_port, 8081);  // KAI's default
  EXPECT_EQ(LeaseName(*o), "kai-scheduler");
  EXPECT_EQ(ParseRunArgs({"--plugin-server-port=0"})->plugin_server_port, 0);
  EXPECT_FALSE(ParseRunArgs({"--plugin-server-port=off"}).ok());
  EXPECT_EQ(ParseRunArgs({"--plugin-server-port=70000"}).status().message(),
            "--plugin-server-port: expected an integer from 0 to 65535, got \"70000\"");
  // Counts that size thread pools or buckets are integers in a range, not any double cast to int.
  EXPECT_EQ(ParseRunArgs({"--bind-request-workers=1e12"}).status().message(),
            "--bind-request-workers: expected an integer from 1 to 1024, got \"1e12\"");
  EXPECT_FALSE(ParseRunArgs({"--num-of-status-recording-workers=0"}).ok());
  EXPECT_FALSE(ParseRunArgs({"--burst=2.5"}).ok());
  EXPECT_FALSE(ParseRunArgs({"--v=99999999999"}).ok());
  EXPECT_FALSE(ParseRunArgs({"--qps=nan"}).ok());

  EXPECT_EQ(ParseRunArgs({"--nope=1"}).status().message(), "unknown flag --nope");
  EXPECT_EQ(ParseRunArgs({"--listen-address=nonsense"}).status().message(),
            "--listen-address: bind address \"nonsense\": want host:port, e.g. \":8080\"");
  EXPECT_EQ(ParseRunArgs({"--listen-address=127.0.0.1:0"})->listen_address, "127.0.0.1:0");
  EXPECT_EQ(ParseRunArgs({"--qps"}).status().message(), "--qps: missing value");
  EXPECT_EQ(ParseRunArgs({"--leader-elect=maybe"}).status().message(),
            "--leader-elect: expected true or false, got \"maybe\"");
  EXPECT_FALSE(ParseRunArgs({"--schedule-period=soon"}).ok());
  EXPECT_FALSE(ParseRunArgs({"--scheduler-conf=a", "--scheduling-shard=b"}).ok());
  EXPECT_FALSE(ParseRunArgs({"stray"}).ok());
}

// --help lists only flags the parser takes, each with a value it accepts.
TEST(SchedulerUsage, EveryListedFlagIsParsed) {
  std::set<std::string> names;
  for (const FlagHelp& f : RunFlags()) {
    EXPECT_TRUE(names.insert(f.name).second) << "listed twice: " << f.name;
    auto o = ParseRunArgs({std::string("--") + f.name + "=" + f.example});
    EXPECT_TRUE(o.ok()) << f.name << ": " << o.status();
  }
  const std::string usage = SchedulerUsage();
  for (const char* must : {"--scheduler-conf", "--scheduling-shard", "--schedule-period",
                           "--partition-label-value", "--leader-elect", "--qps", "simulate"}) {
    EXPECT_NE(usage.find(must), std::string::npos) << must;
  }
}

// The default --help prints for a flag is the one the parser applies: passing it changes nothing.
// (Three defaults are descriptions, not values.)
TEST(SchedulerUsage, EveryListedDefaultIsTheParsersDefault) {
  const StatusOr<RunOptions> defaults = ParseRunArgs({});
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  const std::set<std::string> described = {"kubeconfig", "scheduler-conf", "scheduling-shard"};
  for (const FlagHelp& f : RunFlags()) {
    if (described.count(f.name) > 0) continue;
    std::string value = f.default_value;
    if (value == "\"\"") value.clear();
    const StatusOr<RunOptions> o = ParseRunArgs({std::string("--") + f.name + "=" + value});
    ASSERT_TRUE(o.ok()) << f.name << ": " << o.status();
    EXPECT_TRUE(*o == *defaults) << "--" << f.name << "'s listed default " << f.default_value
                                 << " is not the parser's";
  }
}

}  // namespace
}  // namespace kai::scheduler
