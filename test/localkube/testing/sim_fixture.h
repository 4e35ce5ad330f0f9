// Test fixture: an in-process Store with a SimulatedCluster on a FakeClock (no network).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kube/base/fake_clock.h"
#include "test/localkube/crd.h"
#include "test/localkube/json.h"
#include "test/localkube/simulated_cluster.h"
#include "test/localkube/store.h"
#include "test/localkube/types.h"

namespace kai::localkube::testing {

inline const GroupVersionResource kPodsGvr{"", "v1", "pods"};
inline const GroupVersionResource kNodesGvr{"", "v1", "nodes"};
inline const GroupVersionResource kNamespacesGvr{"", "v1", "namespaces"};

class SimFixture : public ::testing::Test {
 protected:
  SimFixture() : random_(7) {}
  ~SimFixture() override { StopAll(); }

  // Builds the store and starts the simulated cluster with `options`.
  void StartCluster(SimulationOptions options) {
    RegisterBuiltins(&registry_);
    CrdController::RegisterCrdResource(&registry_);
    StoreOptions so;
    so.node_has_kubelet = [this](std::string_view n) {
      return cluster_ != nullptr && cluster_->ManagesNode(n);
    };
    store_ = std::make_unique<Store>(&registry_, &clock_, &random_, so);
    store_->Start();
    for (const char* ns : {"default", "kube-node-lease", "kai-resource-reservation"}) {
      ASSERT_TRUE(
          store_->Create(kNamespacesGvr, "", std::string(R"({"metadata":{"name":")") + ns + "\"}}")
              .ok());
    }
    RestartCluster(std::move(options));
  }
  // A new SimulatedCluster on the same store (what a localkube restart does to controllers).
  void RestartCluster(SimulationOptions options) {
    if (cluster_) cluster_->Stop();
    cluster_.reset();
    cluster_ = std::make_unique<SimulatedCluster>(store_.get(), std::move(options));
    ASSERT_TRUE(cluster_->Start().ok());
    Settle();
  }
  void StopAll() {
    if (cluster_) cluster_->Stop();
    if (store_) store_->Shutdown();
    cluster_.reset();
  }
  void Settle() {
    if (cluster_) cluster_->WaitIdle();
  }
  // Moves time forward in steps so that each due timer fires at its time.
  void Advance(Duration d, Duration step = std::chrono::seconds(1)) {
    Settle();
    while (d > Duration::zero()) {
      const Duration s = std::min(d, step);
      clock_.Advance(s);
      d -= s;
      Settle();
    }
  }

  ObjectPtr Get(const GroupVersionResource& gvr, const std::string& ns, const std::string& name) {
    auto r = store_->Get(gvr, ns, name);
    return r.ok() ? *r : nullptr;
  }
  JsonDoc Doc(const GroupVersionResource& gvr, const std::string& ns, const std::string& name) {
    ObjectPtr o = Get(gvr, ns, name);
    JsonDoc d;
    if (o) d = std::move(Parse(o->json()).value());
    return d;
  }
  std::string PodField(const std::string& ns, const std::string& name,
                       std::initializer_list<std::string_view> path) {
    JsonDoc d = Doc(kPodsGvr, ns, name);
    if (!d.IsObject()) return "<gone>";
    const Json* v = Path(d, path);
    return v == nullptr ? "" : ScalarText(*v);
  }
  std::string Phase(const std::string& ns, const std::string& name) {
    return PodField(ns, name, {"status", "phase"});
  }

  FakeClock clock_;
  SeededRandom random_;
  ResourceRegistry registry_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<SimulatedCluster> cluster_;
};

}  // namespace kai::localkube::testing
