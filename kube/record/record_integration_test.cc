// Events recorded through the REST client show up in `kubectl get events`, repeats as one
// Event with a count.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/pod.h"
#include "kube/record/event_broadcaster.h"
#include "kube/rest/config.h"
#include "kube/rest/rest_client.h"
#include "test/localkube/testing/localkube_process.h"

namespace kai::record {
namespace {

using ::testing::HasSubstr;

TEST(RecordIntegrationTest, KubectlSeesAggregatedEvents) {
  auto kube = localkube::testing::LocalKubeProcess::Start();
  ASSERT_TRUE(kube.ok()) << kube.status();
  auto config = kube::LoadKubeconfig({.path = (*kube)->kubeconfig_path()});
  ASSERT_TRUE(config.ok()) << config.status();
  auto client = kube::RestClient::New(*config);
  ASSERT_TRUE(client.ok()) << client.status();

  ClientEventSink sink(client->get());
  EventBroadcaster broadcaster(&sink);
  auto recorder = broadcaster.NewRecorder({.component = "kai-scheduler"});
  api::Pod pod;
  pod.metadata.namespace_ = "default";
  pod.metadata.name = "train-0";
  pod.metadata.uid = "0b7e5b36-0000-4000-8000-000000000001";
  for (int i = 0; i < 3; ++i) {
    recorder->Event(ReferenceTo(pod), kEventTypeWarning, "Unschedulable",
                    "Unable to schedule pod: not enough GPUs in queue research");
  }
  recorder->Event(ReferenceTo(pod), kEventTypeNormal, "Scheduled",
                  "Successfully assigned pod default/train-0 to node-1");
  broadcaster.Flush();
  EXPECT_EQ(broadcaster.stats().created, 2);
  EXPECT_EQ(broadcaster.stats().patched, 2);
  EXPECT_EQ(broadcaster.stats().failed, 0);

  auto table = (*kube)->Kubectl({"get", "events", "-n", "default"});
  ASSERT_TRUE(table.ok()) << table.err;
  EXPECT_THAT(table.out, HasSubstr("LAST SEEN"));
  EXPECT_THAT(table.out, HasSubstr("pod/train-0"));
  EXPECT_THAT(table.out, HasSubstr("Unable to schedule pod: not enough GPUs in queue research"));
  EXPECT_THAT(table.out, HasSubstr("Successfully assigned pod default/train-0 to node-1"));
  EXPECT_THAT(table.out, HasSubstr("Warning"));
  EXPECT_THAT(table.out, HasSubstr("Unschedulable"));

  const std::string columns =
      "jsonpath={range .items[*]}{.count} {.source.component} {.involvedObject.kind}/"
      "{.involvedObject.name} {.type}{\"\\n\"}{end}";
  auto counts = (*kube)->Kubectl({"get", "events", "-n", "default", "--field-selector",
                                  "reason=Unschedulable", "-o", columns});
  ASSERT_TRUE(counts.ok()) << counts.err;
  EXPECT_EQ(counts.out, "3 kai-scheduler Pod/train-0 Warning\n");
}

}  // namespace
}  // namespace kai::record
