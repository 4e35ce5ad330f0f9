#include "controllers/binder/gpu_sharing.h"

#include <gtest/gtest.h>

#include "controllers/binder/binder_test_util.h"

namespace kai::binder {
namespace {

using testing::BindRequest;
using testing::Pod;

TEST(ConfigMapNames, FromTheAdmissionAnnotation) {
  api::Pod p = Pod("ns", "p", true);
  auto ref = FractionContainerRef(p);
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(*CapabilitiesConfigMapName(p, *ref), "p-abcdefg-shared-gpu-0");
  EXPECT_EQ(*DirectEnvVarsConfigMapName(p, *ref), "p-abcdefg-shared-gpu-0-evar");
}

TEST(ConfigMapNames, NamedInitContainerGetsAnIPrefix) {
  api::Pod p = Pod("ns", "p", true);
  api::Container init;
  init.name = "setup";
  p.spec.init_containers = {api::Container{}, init};
  p.spec.init_containers[0].name = "other";
  p.metadata.annotations[std::string(api::kGpuFractionContainerNameAnnotation)] = "setup";
  auto ref = FractionContainerRef(p);
  ASSERT_TRUE(ref.ok());
  EXPECT_TRUE(ref->init);
  EXPECT_EQ(ref->index, 1);
  EXPECT_EQ(*CapabilitiesConfigMapName(p, *ref), "p-abcdefg-shared-gpu-i1");
}

TEST(ConfigMapNames, ErrorsNameThePodAndField) {
  api::Pod p = Pod("ns", "p", true);
  p.metadata.annotations[std::string(api::kGpuFractionContainerNameAnnotation)] = "nope";
  auto ref = FractionContainerRef(p);
  ASSERT_FALSE(ref.ok());
  EXPECT_NE(
      ref.status().message().find("pod ns/p: metadata.annotations.gpu-fraction-container-name"),
      std::string::npos);
  api::Pod bare = Pod("ns", "q", false);
  auto r2 = CapabilitiesConfigMapName(bare, ContainerRef{&bare.spec.containers[0], 0, false});
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().message(), "no desired configmap name found in pod ns/q annotations");
}

class GpuSharingTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  FakeBinderClient client_{&clock_};
};

TEST_F(GpuSharingTest, PreBindCreatesOwnedConfigMapsWithDevicesAndPortion) {
  GpuSharing g(&client_, false);
  api::Pod p = Pod("ns", "p", true);
  ASSERT_TRUE(g.PreBind(p, BindRequest("ns", "p", "n1", {"g1"}, "0.50"), {"GPU-a"}).ok());
  const api::ConfigMap& cap = client_.config_maps.at("ns/p-abcdefg-shared-gpu-0");
  EXPECT_EQ(cap.data, (std::map<std::string, std::string>{{"GPU_PORTION", "0.50"},
                                                          {"NVIDIA_VISIBLE_DEVICES", "GPU-a"},
                                                          {"RUNAI_NUM_OF_GPUS", "0.50"}}));
  ASSERT_EQ(cap.metadata.owner_references.size(), 1u);
  EXPECT_EQ(cap.metadata.owner_references[0].kind, "Pod");
  EXPECT_EQ(cap.metadata.owner_references[0].uid, "uid-p");
  const api::ConfigMap& evar = client_.config_maps.at("ns/p-abcdefg-shared-gpu-0-evar");
  EXPECT_TRUE(evar.data.empty());

  // Again: everything is already there, nothing is written.
  size_t writes = client_.calls.size();
  ASSERT_TRUE(g.PreBind(p, BindRequest("ns", "p", "n1", {"g1"}, "0.50"), {"GPU-a"}).ok());
  EXPECT_EQ(client_.calls.size(), writes);
}

TEST_F(GpuSharingTest, DevicesGoToEnvFromConfigMapWhenNotReferencedAndUseCdiNames) {
  GpuSharing g(&client_, /*cdi_enabled=*/true);
  api::Pod p = Pod("ns", "p", true, 2, /*env_in_spec=*/false);
  ASSERT_TRUE(g.PreBind(p, BindRequest("ns", "p", "n1", {"g1", "g2"}, "0.50"), {"U1", "U2"}).ok());
  EXPECT_EQ(
      client_.config_maps.at("ns/p-abcdefg-shared-gpu-0-evar").data.at("NVIDIA_VISIBLE_DEVICES"),
      "k8s.device-plugin.nvidia.com/gpu=U1,k8s.device-plugin.nvidia.com/gpu=U2");
  EXPECT_EQ(
      client_.config_maps.at("ns/p-abcdefg-shared-gpu-0").data.count("NVIDIA_VISIBLE_DEVICES"), 0u);
}

TEST_F(GpuSharingTest, LegacyKeyIsUpdatedWhenPresentAndForeignConfigMapIsAdopted) {
  api::ConfigMap old;
  old.metadata.namespace_ = "ns";
  old.metadata.name = "p-abcdefg-shared-gpu-0";
  old.metadata.owner_references.push_back(api::OwnerReference{"v1", "Pod", "p", "old-uid", {}, {}});
  old.data["RUNAI-VISIBLE-DEVICES"] = "stale";
  client_.AddConfigMap(old);
  GpuSharing g(&client_, false);
  api::Pod p = Pod("ns", "p", true);
  ASSERT_TRUE(g.PreBind(p, BindRequest("ns", "p", "n1", {"g1"}, "0.25"), {"GPU-b"}).ok());
  const api::ConfigMap& cap = client_.config_maps.at("ns/p-abcdefg-shared-gpu-0");
  EXPECT_EQ(cap.data.at("RUNAI-VISIBLE-DEVICES"), "GPU-b");
  EXPECT_EQ(cap.data.at("NVIDIA_VISIBLE_DEVICES"), "GPU-b");
  ASSERT_EQ(cap.metadata.owner_references.size(), 1u);
  EXPECT_EQ(cap.metadata.owner_references[0].uid, "uid-p");
}

TEST_F(GpuSharingTest, RollbackDeletesBothAndToleratesMissingOnes) {
  GpuSharing g(&client_, false);
  api::Pod p = Pod("ns", "p", true);
  auto br = BindRequest("ns", "p", "n1", {"g1"}, "0.50");
  ASSERT_TRUE(g.PreBind(p, br, {"GPU-a"}).ok());
  ASSERT_TRUE(g.Rollback(p, br).ok());
  EXPECT_TRUE(client_.config_maps.empty());
  EXPECT_TRUE(g.Rollback(p, br).ok());
}

TEST_F(GpuSharingTest, WholeGpuAllocationsAreLeftAlone) {
  GpuSharing g(&client_, false);
  api::Pod p = Pod("ns", "p", false);
  EXPECT_TRUE(g.PreBind(p, BindRequest("ns", "p", "n1"), {}).ok());
  EXPECT_TRUE(client_.calls.empty());
}

TEST_F(GpuSharingTest, MissingAnnotationFailsWithKaisMessage) {
  GpuSharing g(&client_, false);
  api::Pod p = Pod("ns", "p", true);
  p.metadata.annotations.erase(std::string(api::kSharedGpuConfigMapAnnotation));
  Status s = g.PreBind(p, BindRequest("ns", "p", "n1", {"g1"}, "0.50"), {"GPU-a"});
  EXPECT_EQ(s.message(),
            "failed to create capabilities configmap: no desired configmap name found in pod "
            "ns/p annotations");
}

}  // namespace
}  // namespace kai::binder
