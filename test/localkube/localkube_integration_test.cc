// Integration tests: the localkube binary driven by kubectl (the judge of fidelity) and by raw
// HTTP for watch semantics and bad input.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "kube/base/strings.h"
#include "test/localkube/testing/localkube_process.h"

namespace kai::localkube {
namespace {

using testing::CommandResult;
using testing::LocalKubeProcess;

class LocalKubeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto p = LocalKubeProcess::Start({.args = {"--bookmark-interval=1s"}});
    ASSERT_TRUE(p.ok()) << p.status();
    kube_ = p->release();
  }
  static void TearDownTestSuite() {
    delete kube_;
    kube_ = nullptr;
  }
  static CommandResult K(const std::vector<std::string>& args, std::string_view in = "") {
    return kube_->Kubectl(args, in);
  }
  // Polls `args` until its stdout contains `want` (or gives up after ~10 s).
  static bool Eventually(const std::vector<std::string>& args, const std::string& want,
                         bool absent = false) {
    for (int i = 0; i < 100; ++i) {
      CommandResult r = K(args);
      const bool has = (r.out + r.err).find(want) != std::string::npos;
      if (has != absent) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  static std::string Ns(const std::string& name) {
    K({"create", "namespace", name});
    K({"apply", "-f", "-"}, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n");
    return name;
  }
  static LocalKubeProcess* kube_;
};
LocalKubeProcess* LocalKubeTest::kube_ = nullptr;

constexpr char kPod[] = R"(apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web, tier: frontend}
spec:
  containers:
  - name: nginx
    image: nginx:1.25
    ports: [{containerPort: 80}]
  - name: sidecar
    image: busybox
)";

TEST_F(LocalKubeTest, DiscoveryAndVersion) {
  CommandResult r = K({"version", "-o", "json"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_NE(r.out.find("\"serverVersion\""), std::string::npos);
  r = K({"api-resources"});
  ASSERT_TRUE(r.ok()) << r.err;
  for (const char* want : {"pods", "deployments", "customresourcedefinitions", "leases",
                           "priorityclasses", "clusterrolebindings", "events.k8s.io"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want;
  }
  r = K({"get", "--raw", "/healthz"});
  EXPECT_EQ(r.out, "ok");
  r = K({"get", "namespaces"});
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    EXPECT_NE(r.out.find(ns), std::string::npos) << ns;
  }
}

TEST_F(LocalKubeTest, ApplyGetDescribeDeletePod) {
  const std::string ns = Ns("pods1");
  CommandResult r = K({"apply", "-n", ns, "-f", "-"}, kPod);
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_NE(r.out.find("pod/web created"), std::string::npos);
  r = K({"apply", "-n", ns, "-f", "-"}, kPod);
  EXPECT_NE(r.out.find("pod/web unchanged"), std::string::npos) << r.out << r.err;
  const std::string columns =
      "jsonpath={.spec.schedulerName} {.spec.restartPolicy} {.spec.terminationGracePeriodSeconds} "
      "{.status.phase} {.metadata.uid}";
  r = K({"get", "pod", "web", "-n", ns, "-o", columns});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_EQ(r.out.rfind("default-scheduler Always 30 Pending ", 0), 0u) << r.out;
  r = K({"get", "pods", "-n", ns});
  EXPECT_NE(r.out.find("NAME"), std::string::npos);
  EXPECT_NE(r.out.find("READY"), std::string::npos);
  EXPECT_NE(r.out.find("0/2"), std::string::npos) << r.out;
  r = K({"get", "pods", "-n", ns, "-o", "wide"});
  EXPECT_NE(r.out.find("NOMINATED NODE"), std::string::npos) << r.out;
  // Unknown fields of built-in kinds are rejected under kubectl's strict validation.
  r = K({"apply", "-n", ns, "-f", "-"},
        "apiVersion: v1\nkind: Pod\nmetadata: {name: typo}\nspec:\n  containers:\n"
        "  - {name: c, image: busybox, imagee: x}\n");
  EXPECT_NE(r.err.find("strict decoding error: unknown field \"spec.containers[0].imagee\""),
            std::string::npos)
      << r.err;
  r = K({"describe", "pod", "web", "-n", ns});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_NE(r.out.find("nginx:1.25"), std::string::npos);
  r = K({"delete", "pod", "web", "-n", ns});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_NE(r.out.find("pod \"web\" deleted"), std::string::npos);
  r = K({"get", "pod", "web", "-n", ns});
  EXPECT_NE(r.err.find("NotFound"), std::string::npos) << r.err;
}

TEST_F(LocalKubeTest, LabelsSelectorsAndAnnotate) {
  const std::string ns = Ns("labels1");
  for (const char* n : {"a", "b", "c"}) {
    ASSERT_TRUE(K({"create", "configmap", n, "-n", ns, "--from-literal=k=v"}).ok() ||
                K({"apply", "-n", ns, "-f", "-"},
                  std::string("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ") + n + "\n")
                    .ok());
  }
  ASSERT_TRUE(K({"label", "cm", "a", "env=prod", "-n", ns}).ok());
  ASSERT_TRUE(K({"label", "cm", "b", "env=dev", "-n", ns}).ok());
  ASSERT_TRUE(K({"annotate", "cm", "c", "note=hello", "-n", ns}).ok());
  auto names = [&](const std::string& sel) {
    return K({"get", "cm", "-n", ns, "-l", sel, "-o", "jsonpath={.items[*].metadata.name}"}).out;
  };
  EXPECT_EQ(names("env=prod"), "a");
  EXPECT_EQ(names("env==prod"), "a");
  EXPECT_EQ(names("env!=prod"), "b c kube-root-ca.crt");
  EXPECT_EQ(names("env in (prod,dev)"), "a b");
  EXPECT_EQ(names("env notin (prod)"), "b c kube-root-ca.crt");
  EXPECT_EQ(names("env"), "a b");
  EXPECT_EQ(names("!env"), "c kube-root-ca.crt");
  CommandResult r = K({"get", "cm", "c", "-n", ns, "-o", "jsonpath={.metadata.annotations.note}"});
  EXPECT_EQ(r.out, "hello");
  r = K({"get", "cm", "-n", ns, "--field-selector", "metadata.name=b", "-o", "name"});
  EXPECT_EQ(r.out, "configmap/b\n");
  r = K({"get", "cm", "-n", ns, "-l", "bad key=1"});
  EXPECT_FALSE(r.ok());
}

TEST_F(LocalKubeTest, PatchesOfEveryType) {
  const std::string ns = Ns("patch1");
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"}, kPod).ok());
  // Strategic merge: containers merge by name.
  CommandResult r = K({"patch", "pod", "web", "-n", ns, "-p",
                       R"({"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"}]}})"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "pod", "web", "-n", ns, "-o", "jsonpath={.spec.containers[*].image}"});
  EXPECT_EQ(r.out, "nginx:1.26 busybox");
  // Merge patch replaces lists wholesale; null deletes.
  r = K({"patch", "pod", "web", "-n", ns, "--type=merge", "-p",
         R"({"metadata":{"labels":{"tier":null,"x":"y"}}})"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "pod", "web", "-n", ns, "-o", "jsonpath={.metadata.labels}"});
  EXPECT_EQ(r.out, R"({"app":"web","x":"y"})");
  // JSON patch, with a failing test op.
  r = K({"patch", "pod", "web", "-n", ns, "--type=json", "-p",
         R"([{"op":"add","path":"/metadata/labels/j","value":"1"}])"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K(
      {"patch", "pod", "web", "-n", ns, "--type=json", "-p",
       R"([{"op":"test","path":"/metadata/labels/j","value":"2"},{"op":"remove","path":"/metadata/labels/j"}])"});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.err.find("test failed"), std::string::npos) << r.err;
  r = K({"get", "pod", "web", "-n", ns, "-o", "jsonpath={.metadata.labels.j}"});
  EXPECT_EQ(r.out, "1");
  // Status conditions merge by type through the status subresource.
  r = K(
      {"patch", "pod", "web", "-n", ns, "--subresource=status", "-p",
       R"({"status":{"conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}]}})"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"patch", "pod", "web", "-n", ns, "--subresource=status", "-p",
         R"({"status":{"conditions":[{"type":"Ready","status":"False"}]}})"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "pod", "web", "-n", ns, "-o", "jsonpath={.status.conditions[*].type}"});
  EXPECT_EQ(r.out, "PodScheduled Ready");
  // Server-side apply, conflict and force.
  r = K({"apply", "--server-side", "--field-manager=alice", "-n", ns, "-f", "-"},
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  k: one\n");
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"apply", "--server-side", "--field-manager=bob", "-n", ns, "-f", "-"},
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  k: two\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.err.find("conflict"), std::string::npos) << r.err;
  r = K({"apply", "--server-side", "--force-conflicts", "--field-manager=bob", "-n", ns, "-f", "-"},
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  k: two\n");
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "cm", "ssa", "-n", ns, "-o", "jsonpath={.data.k}"});
  EXPECT_EQ(r.out, "two");
  // Strategic merge patch is refused for custom resources (415), as by the real server.
  ASSERT_TRUE(K({"apply", "-f", "crds/"}).ok());
  ASSERT_TRUE(K({"apply", "-f", "-"},
                "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata:\n  name: patchq\n"
                "spec:\n  resources: {}\n")
                  .ok());
  r = K({"patch", "queue", "patchq", "--type=strategic", "-p", R"({"spec":{"priority":5}})"});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.err.find("is not supported by scheduling.run.ai/v2"), std::string::npos) << r.err;
  r = K({"patch", "queue", "patchq", "--type=merge", "-p", R"({"spec":{"priority":5}})"});
  ASSERT_TRUE(r.ok()) << r.err;
}

TEST_F(LocalKubeTest, CrdsSamplesPrinterColumnsAndValidation) {
  CommandResult r = K({"apply", "-f", "crds/"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"wait", "--for=condition=Established", "crd/queues.scheduling.run.ai", "--timeout=10s"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"apply", "-f", "config/samples/scheduling.run.ai_v2_queue.yaml"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "queues"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_NE(r.out.find("PRIORITY"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PARENT"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("default-queue"), std::string::npos) << r.out;
  r = K({"apply", "-f", "config/samples/scheduling.run.ai_v2alpha2_podgroup.yaml"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "pg", "-A"});
  EXPECT_NE(r.out.find("AGE"), std::string::npos) << r.out;
  // Invalid object: the message names the fields.
  r = K({"apply", "-f", "-"},
        "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata:\n  name: bad\n"
        "spec:\n  minMember: 0\n  queue: q\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.err.find("PodGroup \"bad\" is invalid"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("spec.minMember"), std::string::npos) << r.err;
  // Unknown fields are rejected with kubectl's default strict validation.
  r = K({"apply", "-f", "-"},
        "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata:\n  name: unk\n"
        "spec:\n  minMember: 1\n  bogus: 1\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.err.find("unknown field \"spec.bogus\""), std::string::npos) << r.err;
  // describe and -o yaml work for custom resources.
  r = K({"describe", "queue", "default-queue"});
  EXPECT_TRUE(r.ok()) << r.err;
  // Custom resources take no unconditional update: a PUT must carry a resourceVersion.
  const std::string queue = "/apis/scheduling.run.ai/v2/queues/default-queue";
  auto got = kube_->Request("GET", queue, "");
  ASSERT_EQ(got.code, 200) << got.body;
  auto bare = kube_->Request(
      "PUT", queue,
      R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":"default-queue"}})");
  EXPECT_EQ(bare.code, 422) << bare.body;
  EXPECT_NE(bare.body.find(R"(queues.scheduling.run.ai \"default-queue\" is invalid: )"
                           "metadata.resourceVersion: Invalid value: 0x0: must be specified for "
                           "an update"),
            std::string::npos)
      << bare.body;
  auto versioned = kube_->Request("PUT", queue, got.body);
  EXPECT_EQ(versioned.code, 200) << versioned.body;
}

TEST_F(LocalKubeTest, DeletingCrdDeletesItsObjects) {
  const std::string crd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd], categories: [all]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, minimum: 1, default: 3}
              color: {type: string, enum: [red, blue]}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
)";
  ASSERT_TRUE(K({"apply", "-f", "-"}, crd).ok());
  CommandResult r = K({"apply", "-f", "-"},
                      "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n"
                      "spec:\n  color: red\n");
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "wd", "w1", "-o", "jsonpath={.spec.size}"});
  EXPECT_EQ(r.out, "3");  // defaulted
  r = K({"get", "widgets"});
  EXPECT_NE(r.out.find("SIZE"), std::string::npos) << r.out;
  // Status subresource: main-resource writes ignore status.
  r = K({"patch", "widget", "w1", "--type=merge", "-p", R"({"status":{"x":1}})"});
  r = K({"get", "widget", "w1", "-o", "jsonpath={.status}"});
  EXPECT_EQ(r.out, "");
  r = K({"patch", "widget", "w1", "--type=merge", "--subresource=status", "-p",
         R"({"status":{"x":1}})"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "widget", "w1", "-o", "jsonpath={.status.x} {.metadata.generation}"});
  EXPECT_EQ(r.out, "1 1");
  r = K({"patch", "widget", "w1", "--type=merge", "-p", R"({"spec":{"size":5}})"});
  r = K({"get", "widget", "w1", "-o", "jsonpath={.metadata.generation}"});
  EXPECT_EQ(r.out, "2");
  ASSERT_TRUE(K({"delete", "crd", "widgets.example.com"}).ok());
  EXPECT_TRUE(Eventually({"api-resources", "--api-group=example.com"}, "widgets", true));
  EXPECT_TRUE(Eventually({"get", "crd"}, "widgets.example.com", true));
  // Re-creating the CRD serves an empty collection: the objects went with it.
  ASSERT_TRUE(K({"apply", "-f", "-"}, crd).ok());
  r = K({"get", "widgets", "-A", "-o", "name"});
  EXPECT_EQ(r.out, "") << r.out;
}

TEST_F(LocalKubeTest, FinalizersKeepObjectsUntilRemoved) {
  const std::string ns = Ns("fin1");
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"},
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n"
                "  finalizers: [example.com/hold]\n")
                  .ok());
  CommandResult r = K({"delete", "cm", "held", "-n", ns, "--wait=false"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "cm", "held", "-n", ns, "-o", "jsonpath={.metadata.deletionTimestamp}"});
  EXPECT_FALSE(r.out.empty()) << r.err;
  r = K({"patch", "cm", "held", "-n", ns, "--type=merge", "-p",
         R"({"metadata":{"finalizers":null}})"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "cm", "held", "-n", ns});
  EXPECT_NE(r.err.find("NotFound"), std::string::npos) << r.out << r.err;
}

TEST_F(LocalKubeTest, OwnerReferencesGarbageCollection) {
  const std::string ns = Ns("gc1");
  auto uid_of = [&](const std::string& name) {
    return K({"get", "cm", name, "-n", ns, "-o", "jsonpath={.metadata.uid}"}).out;
  };
  auto dependent = [&](const std::string& name, const std::string& owner, bool block) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
           "\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: " + owner +
           "\n    uid: " + uid_of(owner) + (block ? "\n    blockOwnerDeletion: true" : "") + "\n";
  };
  // Background.
  ASSERT_TRUE(K({"create", "cm", "owner1", "-n", ns}).ok() ||
              K({"apply", "-n", ns, "-f", "-"},
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owner1\n")
                  .ok());
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"}, dependent("dep1", "owner1", false)).ok());
  ASSERT_TRUE(K({"delete", "cm", "owner1", "-n", ns}).ok());
  EXPECT_TRUE(Eventually({"get", "cm", "-n", ns, "-o", "name"}, "configmap/dep1", true));
  // Orphan.
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"},
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owner2\n")
                  .ok());
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"}, dependent("dep2", "owner2", false)).ok());
  ASSERT_TRUE(K({"delete", "cm", "owner2", "-n", ns, "--cascade=orphan"}).ok());
  EXPECT_TRUE(Eventually({"get", "cm", "-n", ns, "-o", "name"}, "configmap/owner2", true));
  CommandResult r =
      K({"get", "cm", "dep2", "-n", ns, "-o", "jsonpath={.metadata.ownerReferences}"});
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_EQ(r.out, "");
  // Foreground: the owner waits for its blocking dependent (held by a finalizer).
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"},
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owner3\n")
                  .ok());
  std::string dep3 = dependent("dep3", "owner3", true) + "  finalizers: [example.com/hold]\n";
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"}, dep3).ok());
  ASSERT_TRUE(K({"delete", "cm", "owner3", "-n", ns, "--cascade=foreground", "--wait=false"}).ok());
  EXPECT_TRUE(Eventually(
      {"get", "cm", "dep3", "-n", ns, "-o", "jsonpath={.metadata.deletionTimestamp}"}, "T"));
  r = K({"get", "cm", "owner3", "-n", ns, "-o", "jsonpath={.metadata.finalizers}"});
  EXPECT_NE(r.out.find("foregroundDeletion"), std::string::npos) << r.out << r.err;
  ASSERT_TRUE(K({"patch", "cm", "dep3", "-n", ns, "--type=merge", "-p",
                 R"({"metadata":{"finalizers":null}})"})
                  .ok());
  EXPECT_TRUE(Eventually({"get", "cm", "-n", ns, "-o", "name"}, "configmap/owner3", true));
}

TEST_F(LocalKubeTest, NamespaceDeletionRemovesContents) {
  const std::string ns = Ns("doomed");
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"}, kPod).ok());
  ASSERT_TRUE(K({"delete", "namespace", ns, "--timeout=20s"}).ok());
  CommandResult r = K({"get", "namespace", ns});
  EXPECT_NE(r.err.find("NotFound"), std::string::npos) << r.out << r.err;
  r = K({"get", "pods", "-n", ns, "-o", "name"});
  EXPECT_EQ(r.out, "");
  // Creating in a missing namespace fails like the real server.
  r = K({"apply", "-n", "no-such-ns", "-f", "-"}, kPod);
  EXPECT_NE(r.err.find("namespaces \"no-such-ns\" not found"), std::string::npos) << r.err;
}

TEST_F(LocalKubeTest, GetWatchStreamsChanges) {
  const std::string ns = Ns("watch1");
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    K({"apply", "-n", ns, "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w1\n");
    K({"label", "cm", "w1", "-n", ns, "x=1"});
    K({"delete", "cm", "w1", "-n", ns});
  });
  CommandResult r = kube_->Kubectl(
      {"get", "cm", "-n", ns, "-w", "--output-watch-events", "--request-timeout=5s"}, "", 6);
  t.join();
  EXPECT_NE(r.out.find("ADDED"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("MODIFIED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("DELETED"), std::string::npos) << r.out;
}

TEST_F(LocalKubeTest, WaitForDeletionAndCondition) {
  const std::string ns = Ns("wait1");
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"}, kPod).ok());
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    K({"patch", "pod", "web", "-n", ns, "--subresource=status", "-p",
       R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})"});
  });
  CommandResult r = K({"wait", "--for=condition=Ready", "pod/web", "-n", ns, "--timeout=10s"});
  t.join();
  EXPECT_TRUE(r.ok()) << r.err;
  r = K({"delete", "pod", "web", "-n", ns, "--wait=false"});
  r = K({"wait", "--for=delete", "pod/web", "-n", ns, "--timeout=10s"});
  EXPECT_TRUE(r.ok()) << r.err;
}

TEST_F(LocalKubeTest, BindingAndEviction) {
  const std::string ns = Ns("bind1");
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"}, kPod).ok());
  const std::string binding =
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web","annotations":{"bound-by":"test"}},"target":{"kind":"Node","name":"node-1"}})";
  // As the real binding registry: the body names the pod of the URL, its uid is a precondition.
  auto r = kube_->Request(
      "POST", "/api/v1/namespaces/" + ns + "/pods/web/binding",
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"other"},"target":{"kind":"Node","name":"node-1"}})");
  EXPECT_EQ(r.code, 400) << r.body;
  EXPECT_NE(r.body.find("name in URL does not match name in Binding object"), std::string::npos);
  r = kube_->Request(
      "POST", "/api/v1/namespaces/" + ns + "/pods/web/binding",
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web","uid":"not-the-pods"},"target":{"kind":"Node","name":"node-1"}})");
  EXPECT_EQ(r.code, 409) << r.body;
  EXPECT_NE(r.body.find("Precondition failed: UID in precondition: not-the-pods"),
            std::string::npos)
      << r.body;
  r = kube_->Request("POST", "/api/v1/namespaces/" + ns + "/pods/web/binding",
                     R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"}})");
  EXPECT_EQ(r.code, 500) << r.body;
  EXPECT_NE(r.body.find("target.name: Required value"), std::string::npos) << r.body;
  r = kube_->Request("POST", "/api/v1/namespaces/" + ns + "/pods/web/binding", binding);
  EXPECT_EQ(r.code, 201) << r.body;
  r = kube_->Request("POST", "/api/v1/namespaces/" + ns + "/pods/web/binding", binding);
  EXPECT_EQ(r.code, 409) << r.body;
  EXPECT_NE(r.body.find("\"reason\":\"Conflict\""), std::string::npos) << r.body;
  CommandResult k = K({"get", "pod", "web", "-n", ns, "-o", "jsonpath={.spec.nodeName}"});
  EXPECT_EQ(k.out, "node-1");
  EXPECT_NE(K({"get", "pod", "web", "-n", ns, "-o", "jsonpath={.metadata.annotations}"})
                .out.find(R"("bound-by":"test")"),
            std::string::npos);
  r = kube_->Request(
      "POST", "/api/v1/namespaces/" + ns + "/pods/web/eviction",
      R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web"},"deleteOptions":{"gracePeriodSeconds":0}})");
  EXPECT_EQ(r.code, 201) << r.body;
  k = K({"get", "pod", "web", "-n", ns});
  EXPECT_NE(k.err.find("NotFound"), std::string::npos) << k.out << k.err;
}

TEST_F(LocalKubeTest, ScaleSubresource) {
  const std::string ns = Ns("scale1");
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"}, R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: c, image: busybox}]
)")
                  .ok());
  CommandResult r = K({"get", "deploy", "d", "-n", ns, "-o",
                       "jsonpath={.spec.replicas} {.spec.strategy.type} {.metadata.generation}"});
  EXPECT_EQ(r.out, "1 RollingUpdate 1");
  r = K({"scale", "deploy", "d", "-n", ns, "--replicas=3"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "deploy", "d", "-n", ns, "-o", "jsonpath={.spec.replicas} {.metadata.generation}"});
  EXPECT_EQ(r.out, "3 2");
  r = K({"apply", "-n", ns, "-f", "-"}, R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: bad}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: y}}
    spec:
      containers: [{name: c, image: busybox}]
)");
  EXPECT_NE(r.err.find("`selector` does not match template `labels`"), std::string::npos) << r.err;
}

TEST_F(LocalKubeTest, KubectlCreateGeneratorsSendProtobuf) {
  // kubectl's typed generators send application/vnd.kubernetes.protobuf bodies.
  CommandResult r = K({"create", "namespace", "gen1"});
  ASSERT_TRUE(r.ok()) << r.err;
  const std::vector<std::vector<std::string>> cmds = {
      {"create", "configmap", "c", "--from-literal=a=b"},
      {"create", "secret", "generic", "s", "--from-literal=p=q"},
      {"create", "deployment", "d", "--image=nginx", "--replicas=0"},
      {"create", "job", "j", "--image=busybox"},
      {"create", "cronjob", "cj", "--image=busybox", "--schedule=*/5 * * * *"},
      {"create", "serviceaccount", "sa"},
      {"create", "service", "clusterip", "svc", "--tcp=80:8080"},
      {"create", "role", "r", "--verb=get", "--resource=pods"},
      {"create", "rolebinding", "rb", "--role=r", "--user=bob"},
      {"create", "quota", "q", "--hard=pods=10"},
      {"create", "pdb", "pdb", "--selector=app=d", "--min-available=1"}};
  for (std::vector<std::string> c : cmds) {
    c.push_back("-n");
    c.push_back("gen1");
    r = K(c);
    EXPECT_TRUE(r.ok()) << c[1] << " " << c[2] << ": " << r.err;
  }
  r = K({"get", "cm", "c", "-n", "gen1", "-o", "jsonpath={.data.a}"});
  EXPECT_EQ(r.out, "b");
  r = K({"get", "secret", "s", "-n", "gen1", "-o", "jsonpath={.data.p} {.type}"});
  EXPECT_EQ(r.out, "cQ== Opaque");
  r = K({"get", "deploy", "d", "-n", "gen1", "-o",
         "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}"});
  EXPECT_EQ(r.out, "0 nginx");
  r = K({"get", "svc", "svc", "-n", "gen1", "-o", "jsonpath={.spec.ports[0].targetPort}"});
  EXPECT_EQ(r.out, "8080");
  r = K({"create", "priorityclass", "gen-high", "--value=1000"});
  ASSERT_TRUE(r.ok()) << r.err;
  // Priority admission resolves priorityClassName.
  r = K({"apply", "-n", "gen1", "-f", "-"},
        "apiVersion: v1\nkind: Pod\nmetadata: {name: prio}\nspec:\n  priorityClassName: gen-high\n"
        "  containers: [{name: c, image: busybox}]\n");
  ASSERT_TRUE(r.ok()) << r.err;
  r = K({"get", "pod", "prio", "-n", "gen1", "-o", "jsonpath={.spec.priority}"});
  EXPECT_EQ(r.out, "1000");
  r = K({"apply", "-n", "gen1", "-f", "-"},
        "apiVersion: v1\nkind: Pod\nmetadata: {name: noprio}\nspec:\n  priorityClassName: missing\n"
        "  containers: [{name: c, image: busybox}]\n");
  EXPECT_NE(r.err.find("no PriorityClass with name missing was found"), std::string::npos) << r.err;
  // Reviews and tokens.
  r = K({"auth", "can-i", "delete", "nodes"});
  EXPECT_EQ(r.out, "yes\n");
  r = K({"create", "token", "sa", "-n", "gen1"});
  ASSERT_TRUE(r.ok()) << r.err;
  const std::string token(StripWhitespace(r.out));
  r = K({"--token=" + token, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"});
  EXPECT_EQ(r.out, "system:serviceaccount:gen1:sa") << r.err;
}

// ---- raw HTTP: watch semantics and bad input

std::vector<std::string> Lines(const std::string& body) {
  std::vector<std::string> out;
  for (const std::string& l : StrSplit(body, '\n')) {
    if (!l.empty()) out.push_back(l);
  }
  return out;
}

std::string RvOf(const std::string& json) {
  const std::string key = "\"resourceVersion\":\"";
  const size_t p = json.find(key);
  if (p == std::string::npos) return "";
  return json.substr(p + key.size(), json.find('"', p + key.size()) - p - key.size());
}

TEST_F(LocalKubeTest, WatchResumesWithoutLosingEvents) {
  const std::string ns = Ns("rawwatch");
  const std::string base = "/api/v1/namespaces/" + ns + "/configmaps";
  auto list = kube_->Request("GET", base);
  ASSERT_EQ(list.code, 200);
  const std::string rv0 = RvOf(list.body);
  for (int i = 0; i < 10; ++i) {
    auto r =
        kube_->Request("POST", base, R"({"metadata":{"name":"cm)" + std::to_string(i) + R"("}})");
    ASSERT_EQ(r.code, 201) << r.body;
  }
  // First connection: read what is there, then "disconnect".
  auto w1 = kube_->WatchFor(base + "?watch=1&resourceVersion=" + rv0, 0.7);
  auto l1 = Lines(w1.body);
  ASSERT_EQ(l1.size(), 10u) << w1.body;
  const std::string last = RvOf(l1[4]);
  // More changes while "disconnected".
  for (int i = 10; i < 15; ++i) {
    kube_->Request("POST", base, R"({"metadata":{"name":"cm)" + std::to_string(i) + R"("}})");
  }
  auto w2 = kube_->WatchFor(base + "?watch=1&resourceVersion=" + last, 0.7);
  auto l2 = Lines(w2.body);
  ASSERT_EQ(l2.size(), 10u) << w2.body;  // events 5..14, none lost, none repeated
  EXPECT_NE(l2[0].find("\"name\":\"cm5\""), std::string::npos) << l2[0];
  EXPECT_NE(l2[9].find("\"name\":\"cm14\""), std::string::npos) << l2[9];
  for (const auto& l : l2) EXPECT_EQ(l.rfind("{\"type\":\"ADDED\"", 0), 0u) << l;
}

TEST_F(LocalKubeTest, CompactionGives410AndBookmarksArrive) {
  const std::string ns = Ns("compact1");
  const std::string base = "/api/v1/namespaces/" + ns + "/configmaps";
  const std::string rv0 = RvOf(kube_->Request("GET", base).body);
  kube_->Request("POST", base, R"({"metadata":{"name":"x"}})");
  auto c = kube_->Request("POST", "/localkube/history/compact");
  ASSERT_EQ(c.code, 200) << c.body;
  auto w = kube_->WatchFor(base + "?watch=1&resourceVersion=" + rv0, 1.0);
  EXPECT_EQ(w.code, 200);
  EXPECT_NE(w.body.find("\"type\":\"ERROR\""), std::string::npos) << w.body;
  EXPECT_NE(w.body.find("\"code\":410"), std::string::npos) << w.body;
  EXPECT_NE(w.body.find("\"reason\":\"Expired\""), std::string::npos) << w.body;
  // A list gives a fresh RV to watch from; bookmarks (every 1 s here) carry the current RV.
  const std::string rv1 = RvOf(kube_->Request("GET", base).body);
  auto b = kube_->WatchFor(base + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + rv1, 2.5);
  EXPECT_NE(b.body.find("\"type\":\"BOOKMARK\""), std::string::npos) << b.body;
  // timeoutSeconds ends the stream cleanly.
  auto t = kube_->WatchFor(base + "?watch=1&timeoutSeconds=1&resourceVersion=" + rv1, 5);
  EXPECT_EQ(t.code, 200);
}

TEST_F(LocalKubeTest, FutureResourceVersionWaitsThenTimesOut) {
  const std::string ns = Ns("future1");
  const std::string base = "/api/v1/namespaces/" + ns + "/configmaps";
  const std::string far =
      std::to_string(std::stoull(RvOf(kube_->Request("GET", base).body)) + 1000000);
  // A list not older than an RV the server has not reached: 504 after ~3 s.
  auto l =
      kube_->Request("GET", base + "?resourceVersionMatch=NotOlderThan&resourceVersion=" + far);
  EXPECT_EQ(l.code, 504) << l.body;
  EXPECT_NE(l.body.find("\"reason\":\"Timeout\""), std::string::npos) << l.body;
  EXPECT_NE(
      l.body.find("\"message\":\"Timeout: Too large resource version: " + far + ", current: "),
      std::string::npos)
      << l.body;
  EXPECT_NE(l.body.find("\"reason\":\"ResourceVersionTooLarge\""), std::string::npos) << l.body;
  EXPECT_NE(l.body.find("\"retryAfterSeconds\":1"), std::string::npos) << l.body;
  // A watch-list from it: the stream (200) carries one ERROR event with that status.
  auto wl = kube_->WatchFor(base +
                                "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&"
                                "resourceVersionMatch=NotOlderThan&resourceVersion=" +
                                far,
                            10);
  EXPECT_EQ(wl.code, 200);
  auto lines = Lines(wl.body);
  ASSERT_EQ(lines.size(), 1u) << wl.body;
  EXPECT_EQ(lines[0].rfind("{\"type\":\"ERROR\"", 0), 0u) << wl.body;
  EXPECT_NE(lines[0].find("\"code\":504"), std::string::npos) << wl.body;
  EXPECT_NE(lines[0].find("ResourceVersionTooLarge"), std::string::npos) << wl.body;
  // A plain watch from it is accepted and silent until the RV is reached.
  auto w = kube_->WatchFor(base + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + far, 0.5);
  EXPECT_EQ(w.code, 200);
  EXPECT_EQ(w.body, "");
}

TEST_F(LocalKubeTest, WatchSelectorTransitions) {
  const std::string ns = Ns("seltrans");
  const std::string base = "/api/v1/namespaces/" + ns + "/configmaps";
  const std::string rv0 = RvOf(kube_->Request("GET", base).body);
  kube_->Request("POST", base, R"({"metadata":{"name":"s","labels":{"a":"1"}}})");
  kube_->Request("PATCH", base + "/s", R"({"metadata":{"labels":{"a":"2"}}})",
                 {"Content-Type: application/merge-patch+json"});
  kube_->Request("PATCH", base + "/s", R"({"metadata":{"labels":{"a":"1"}}})",
                 {"Content-Type: application/merge-patch+json"});
  auto w = kube_->WatchFor(base + "?watch=1&labelSelector=a%3D1&resourceVersion=" + rv0, 0.7);
  auto l = Lines(w.body);
  ASSERT_EQ(l.size(), 3u) << w.body;
  EXPECT_EQ(l[0].rfind("{\"type\":\"ADDED\"", 0), 0u);
  EXPECT_EQ(l[1].rfind("{\"type\":\"DELETED\"", 0), 0u);
  EXPECT_EQ(l[2].rfind("{\"type\":\"ADDED\"", 0), 0u);
}

TEST_F(LocalKubeTest, PaginationAndContinue) {
  const std::string ns = Ns("page1");
  const std::string base = "/api/v1/namespaces/" + ns + "/secrets";
  for (int i = 0; i < 7; ++i) {
    kube_->Request("POST", base, R"({"metadata":{"name":"s)" + std::to_string(i) + R"("}})");
  }
  auto p1 = kube_->Request("GET", base + "?limit=3");
  ASSERT_EQ(p1.code, 200);
  const std::string key = "\"continue\":\"";
  const size_t at = p1.body.find(key);
  ASSERT_NE(at, std::string::npos) << p1.body;
  const std::string token =
      p1.body.substr(at + key.size(), p1.body.find('"', at + key.size()) - at - key.size());
  EXPECT_NE(p1.body.find("\"remainingItemCount\":4"), std::string::npos) << p1.body;
  auto p2 = kube_->Request("GET", base + "?limit=10&continue=" + token);
  ASSERT_EQ(p2.code, 200) << p2.body;
  EXPECT_NE(p2.body.find("\"name\":\"s6\""), std::string::npos);
  EXPECT_EQ(p2.body.find("\"name\":\"s0\""), std::string::npos);
  kube_->Request("POST", "/localkube/history/compact");
  auto p3 = kube_->Request("GET", base + "?limit=1&continue=" + token);
  EXPECT_EQ(p3.code, 410) << p3.body;
  EXPECT_NE(p3.body.find("\"reason\":\"Expired\""), std::string::npos);
  CommandResult r = K({"get", "secrets", "-n", ns, "--chunk-size=2", "-o", "name"});
  EXPECT_EQ(Lines(r.out).size(), 7u) << r.out << r.err;
}

TEST_F(LocalKubeTest, LargeListsStreamCompletely) {
  const std::string ns = Ns("biglist");
  const std::string base = "/api/v1/namespaces/" + ns + "/configmaps";
  for (int i = 0; i < 1200; ++i) {
    ASSERT_EQ(
        kube_->Request("POST", base, R"({"metadata":{"name":"m)" + std::to_string(i) + R"("}})")
            .code,
        201);
  }
  auto l = kube_->Request("GET", base);
  ASSERT_EQ(l.code, 200);
  size_t items = 0;
  for (size_t p = l.body.find("\"kind\":\"ConfigMap\""); p != std::string::npos;
       p = l.body.find("\"kind\":\"ConfigMap\"", p + 1)) {
    ++items;
  }
  EXPECT_EQ(items, 1201u);  // + kube-root-ca.crt
  EXPECT_EQ(l.body.substr(l.body.size() - 2), "]}");
  CommandResult r = K({"get", "cm", "-n", ns, "-o", "name"});
  EXPECT_EQ(Lines(r.out).size(), 1201u);
}

TEST_F(LocalKubeTest, BadInputGetsStatusAndNothingIsStored) {
  const std::string ns = Ns("bad1");
  const std::string base = "/api/v1/namespaces/" + ns + "/configmaps";
  auto count = [&]() { return Lines(K({"get", "cm", "-n", ns, "-o", "name"}).out).size(); };
  const size_t before = count();
  auto r = kube_->Request("POST", base, "{not json");
  EXPECT_EQ(r.code, 400) << r.body;
  EXPECT_NE(r.body.find("\"kind\":\"Status\""), std::string::npos);
  EXPECT_NE(r.body.find("\"reason\":\"BadRequest\""), std::string::npos);
  r = kube_->Request("POST", base, "a: [unclosed", {"Content-Type: application/yaml"});
  EXPECT_EQ(r.code, 400) << r.body;
  r = kube_->Request("POST", base, R"({"metadata":{"name":"x"}})", {"Content-Type: text/csv"});
  EXPECT_EQ(r.code, 415) << r.body;
  EXPECT_NE(r.body.find("UnsupportedMediaType"), std::string::npos);
  r = kube_->Request("POST", base, std::string(4 * 1024 * 1024, ' '));
  EXPECT_EQ(r.code, 413) << r.body.substr(0, 200);
  r = kube_->Request("GET", "/api/v1/namespaces/" + ns + "/frobnicators");
  EXPECT_EQ(r.code, 404);
  EXPECT_NE(r.body.find("\"reason\":\"NotFound\""), std::string::npos);
  r = kube_->Request("POST", base, R"({"metadata":{"name":"Bad_Name"}})");
  EXPECT_EQ(r.code, 422) << r.body;
  EXPECT_NE(r.body.find("metadata.name"), std::string::npos);
  // Each problem of a label key is its own cause, as apimachinery's ValidateLabels lists them.
  r = kube_->Request(
      "POST", base,
      R"({"metadata":{"name":"x","labels":{")" + std::string(64, 'a') + R"(-":"v"}}})");
  EXPECT_EQ(r.code, 422) << r.body;
  EXPECT_NE(r.body.find("name part must be no more than 63 characters"), std::string::npos);
  EXPECT_NE(r.body.find("name part must consist of alphanumeric characters"), std::string::npos);
  size_t causes = 0;
  for (size_t at = r.body.find(R"("field":"metadata.labels")"); at != std::string::npos;
       at = r.body.find(R"("field":"metadata.labels")", at + 1)) {
    ++causes;
  }
  EXPECT_EQ(causes, 2u) << r.body;
  r = kube_->Request("POST", base, R"({"kind":"Secret","metadata":{"name":"x"}})");
  EXPECT_EQ(r.code, 400) << r.body;
  r = kube_->Request("PUT", base + "/nope", R"({"metadata":{"name":"nope"}})");
  EXPECT_EQ(r.code, 404) << r.body;
  r = kube_->Request("TRACE", base);
  EXPECT_EQ(r.code, 405) << r.body;
  r = kube_->Request("PATCH", base + "/x", "{}", {"Content-Type: application/octet-stream"});
  EXPECT_EQ(r.code, 415) << r.body;
  EXPECT_EQ(count(), before);
  EXPECT_TRUE(K({"get", "--raw", "/readyz"}).ok());
}

TEST_F(LocalKubeTest, OptimisticConcurrency) {
  const std::string ns = Ns("occ1");
  const std::string base = "/api/v1/namespaces/" + ns + "/configmaps";
  auto c = kube_->Request("POST", base, R"({"metadata":{"name":"o"},"data":{"a":"1"}})");
  ASSERT_EQ(c.code, 201);
  const std::string rv = RvOf(c.body);
  auto u1 = kube_->Request(
      "PUT", base + "/o",
      R"({"metadata":{"name":"o","resourceVersion":")" + rv + R"("},"data":{"a":"2"}})");
  EXPECT_EQ(u1.code, 200) << u1.body;
  auto u2 = kube_->Request(
      "PUT", base + "/o",
      R"({"metadata":{"name":"o","resourceVersion":")" + rv + R"("},"data":{"a":"3"}})");
  EXPECT_EQ(u2.code, 409) << u2.body;
  EXPECT_NE(u2.body.find("\"reason\":\"Conflict\""), std::string::npos);
  auto again = kube_->Request("POST", base, R"({"metadata":{"name":"o"}})");
  EXPECT_EQ(again.code, 409);
  EXPECT_NE(again.body.find("\"reason\":\"AlreadyExists\""), std::string::npos);
  auto gen = kube_->Request("POST", base, R"({"metadata":{"generateName":"gen-"}})");
  EXPECT_EQ(gen.code, 201);
  EXPECT_NE(gen.body.find("\"name\":\"gen-"), std::string::npos);
  // Built-in kinds take an unconditional update (no resourceVersion: the stored one).
  auto unconditional = kube_->Request("PUT", base + "/o", R"({"metadata":{"name":"o"}})");
  EXPECT_EQ(unconditional.code, 200) << unconditional.body;
  // A create carrying a resourceVersion is refused as etcd3's store refuses it.
  auto copied = kube_->Request("POST", base,
                               R"({"metadata":{"name":"copy","resourceVersion":")" + rv + R"("}})");
  EXPECT_EQ(copied.code, 500) << copied.body;
  EXPECT_NE(copied.body.find("resourceVersion should not be set on objects to be created"),
            std::string::npos)
      << copied.body;
  auto pre = kube_->Request("DELETE", base + "/o", R"({"preconditions":{"uid":"wrong"}})");
  EXPECT_EQ(pre.code, 409) << pre.body;
}

TEST_F(LocalKubeTest, FaultInjection) {
  const std::string ns = Ns("faults1");
  auto f = kube_->Request(
      "POST", "/localkube/faults",
      R"({"verb":"create","resource":"configmaps","code":429,"count":1,"retryAfter":2})");
  ASSERT_EQ(f.code, 200) << f.body;
  auto r = kube_->Request("POST", "/api/v1/namespaces/" + ns + "/configmaps",
                          R"({"metadata":{"name":"f"}})");
  EXPECT_EQ(r.code, 429) << r.body;
  EXPECT_EQ(r.headers["retry-after"], "2");
  r = kube_->Request("POST", "/api/v1/namespaces/" + ns + "/configmaps",
                     R"({"metadata":{"name":"f"}})");
  EXPECT_EQ(r.code, 201) << r.body;
  f = kube_->Request("POST", "/localkube/faults", "verb=get,resource=configmaps,code=500,count=2");
  ASSERT_EQ(f.code, 200);
  EXPECT_EQ(kube_->Request("GET", "/api/v1/namespaces/" + ns + "/configmaps/f").code, 500);
  EXPECT_EQ(kube_->Request("GET", "/api/v1/namespaces/" + ns + "/configmaps/f").code, 500);
  EXPECT_EQ(kube_->Request("GET", "/api/v1/namespaces/" + ns + "/configmaps/f").code, 200);
}

TEST_F(LocalKubeTest, FaultInjectionAudit) {
  const std::string ns = Ns("faults2");
  const std::string base = "/api/v1/namespaces/" + ns + "/configmaps";
  ASSERT_EQ(kube_->Request("POST", base, R"({"metadata":{"name":"c"}})").code, 201);
  // 409 Conflict on the next update.
  ASSERT_EQ(
      kube_->Request("POST", "/localkube/faults", "verb=update,resource=configmaps,code=409").code,
      200);
  auto r = kube_->Request("PUT", base + "/c", R"({"metadata":{"name":"c"},"data":{"a":"1"}})");
  EXPECT_EQ(r.code, 409) << r.body;
  EXPECT_NE(r.body.find("\"reason\":\"Conflict\""), std::string::npos) << r.body;
  r = kube_->Request("PUT", base + "/c", R"({"metadata":{"name":"c"},"data":{"a":"1"}})");
  EXPECT_EQ(r.code, 200) << r.body;
  // count -1 lasts until cleared; it is listed; the namespace filter limits it.
  ASSERT_EQ(kube_
                ->Request("POST", "/localkube/faults",
                          R"({"verb":"get","resource":"configmaps","namespace":")" + ns +
                              R"(","code":503,"count":-1,"retryAfter":4,"message":"down"})")
                .code,
            200);
  for (int i = 0; i < 3; ++i) {
    r = kube_->Request("GET", base + "/c");
    EXPECT_EQ(r.code, 503) << r.body;
    EXPECT_EQ(r.headers["retry-after"], "4");
    EXPECT_NE(r.body.find("down"), std::string::npos) << r.body;
  }
  EXPECT_EQ(kube_->Request("GET", "/api/v1/namespaces/default/configmaps/kube-root-ca.crt").code,
            200);
  r = kube_->Request("GET", "/localkube/faults");
  EXPECT_NE(r.body.find("\"code\":503,\"count\":-1,\"retryAfter\":4"), std::string::npos) << r.body;
  ASSERT_EQ(kube_->Request("POST", "/localkube/faults/clear").code, 200);
  EXPECT_EQ(kube_->Request("GET", "/localkube/faults").body, "[]");
  EXPECT_EQ(kube_->Request("GET", base + "/c").code, 200);
  // Subresources: pods/binding fails, the pod itself does not.
  ASSERT_TRUE(K({"apply", "-n", ns, "-f", "-"}, kPod).ok());
  ASSERT_EQ(
      kube_->Request("POST", "/localkube/faults", "verb=create,resource=pods/binding,code=500")
          .code,
      200);
  const std::string binding =
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},"target":{"kind":"Node","name":"n"}})";
  EXPECT_EQ(kube_->Request("POST", "/api/v1/namespaces/" + ns + "/pods/web/binding", binding).code,
            500);
  EXPECT_EQ(kube_->Request("GET", "/api/v1/namespaces/" + ns + "/pods/web").code, 200);
  EXPECT_EQ(kube_->Request("POST", "/api/v1/namespaces/" + ns + "/pods/web/binding", binding).code,
            201);
  // kubectl sees the injected errors as a real server's.
  ASSERT_EQ(kube_
                ->Request("POST", "/localkube/faults",
                          "verb=list,resource=configmaps,code=429,count=1,retryAfter=1")
                .code,
            200);
  CommandResult k = K({"get", "cm", "-n", ns, "-o", "name"});  // client-go retries the 429
  EXPECT_TRUE(k.ok()) << k.err;
  EXPECT_NE(k.out.find("configmap/c"), std::string::npos);
  ASSERT_EQ(
      kube_->Request("POST", "/localkube/faults", "verb=delete,resource=configmaps,code=500").code,
      200);
  k = K({"delete", "cm", "c", "-n", ns});
  EXPECT_FALSE(k.ok());
  EXPECT_NE(k.err.find("injected fault"), std::string::npos) << k.err;
  // Watches: the verb "watch" fails; dropping ends open watches (clients re-watch).
  ASSERT_EQ(
      kube_->Request("POST", "/localkube/faults", "verb=watch,resource=configmaps,code=500").code,
      200);
  EXPECT_EQ(kube_->WatchFor(base + "?watch=1", 0.5).code, 500);
  std::atomic<bool> ended{false};
  std::thread watcher([&] {
    kube_->WatchFor("/api/v1/namespaces/" + ns + "/secrets?watch=1&timeoutSeconds=60", 60);
    ended = true;
  });
  auto watches = [&] {
    const std::string body = kube_->Request("GET", "/localkube/stats").body;
    const size_t p = body.find("\"watches\":");
    return p == std::string::npos ? -1 : std::stoi(body.substr(p + 10));
  };
  for (int i = 0; i < 100 && watches() < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_GE(watches(), 1);
  EXPECT_FALSE(ended.load());
  ASSERT_EQ(kube_->Request("POST", "/localkube/watches/drop").code, 200);
  for (int i = 0; i < 100 && !ended.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(ended.load());
  watcher.join();
  // Latency: global, then per rule (no error code: the request only waits).
  ASSERT_EQ(kube_->Request("POST", "/localkube/latency?ms=300").code, 200);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(kube_->Request("GET", base).code, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(300));
  ASSERT_EQ(kube_->Request("POST", "/localkube/latency?ms=0").code, 200);
  ASSERT_EQ(kube_->Request("POST", "/localkube/faults", R"({"verb":"get","latencyMs":250})").code,
            200);
  t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(kube_->Request("GET", base + "/c").code, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(250));
  ASSERT_EQ(kube_->Request("POST", "/localkube/faults/clear").code, 200);
  EXPECT_EQ(kube_->Request("POST", "/localkube/nope").code, 404);
  EXPECT_EQ(kube_->Request("DELETE", "/localkube/faults").code, 405);
}

TEST(LocalKubeProcessTest, FaultAndLatencyFlags) {
  auto p = LocalKubeProcess::Start(
      {.args = {"--fault=verb=create,resource=configmaps,code=503,count=1,retryAfter=3;"
                "verb=get,resource=secrets,code=404,count=-1",
                "--latency-ms=200"}});
  ASSERT_TRUE(p.ok()) << p.status();
  auto t0 = std::chrono::steady_clock::now();
  auto r = (*p)->Request("POST", "/api/v1/namespaces/default/configmaps",
                         R"({"metadata":{"name":"x"}})");
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200));
  EXPECT_EQ(r.code, 503) << r.body;
  EXPECT_EQ(r.headers["retry-after"], "3");
  EXPECT_EQ(
      (*p)->Request("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"x"}})")
          .code,
      201);
  EXPECT_EQ((*p)->Request("GET", "/api/v1/namespaces/default/secrets/any").code, 404);
  EXPECT_EQ((*p)->Request("GET", "/api/v1/namespaces/default/secrets/any").code, 404);
  auto bad = LocalKubeProcess::Start({.args = {"--fault=verb=get,frequency=3"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("fault rule: unknown key frequency"), std::string::npos)
      << bad.status();
}

TEST_F(LocalKubeTest, StatsCountRequestsByClientVerbAndResource) {
  const std::string ns = Ns("stats1");
  // {count, errors} of one counter (other tests share the server: compare differences).
  auto count = [&](const std::string& agent, const std::string& verb,
                   const std::string& resource) -> std::pair<int, int> {
    auto r = kube_->Request("GET", "/localkube/stats");
    EXPECT_EQ(r.code, 200) << r.body;
    const std::string needle = "{\"userAgent\":\"" + agent + "\",\"verb\":\"" + verb +
                               "\",\"resource\":\"" + resource + "\",\"count\":";
    size_t at = r.body.find(needle);
    if (at == std::string::npos) return {0, 0};
    int n = 0, errors = 0;
    EXPECT_EQ(std::sscanf(r.body.c_str() + at + needle.size(), "%d,\"errors\":%d", &n, &errors), 2);
    return {n, errors};
  };
  auto creates = count("kubectl", "create", "configmaps");
  auto patches = count("kubectl", "patch", "configmaps");
  ASSERT_TRUE(K({"create", "configmap", "c1", "-n", ns}).ok());
  ASSERT_FALSE(K({"create", "configmap", "c1", "-n", ns}).ok());  // AlreadyExists
  ASSERT_TRUE(K({"label", "configmap", "c1", "-n", ns, "a=b"}).ok());
  auto creates2 = count("kubectl", "create", "configmaps");
  EXPECT_EQ(creates2.first - creates.first, 2);
  EXPECT_EQ(creates2.second - creates.second, 1);
  EXPECT_EQ(count("kubectl", "patch", "configmaps").first - patches.first, 1);
  // Subresources are counted apart; the test helper's requests carry no User-Agent.
  ASSERT_TRUE(K({"run", "p", "-n", ns, "--image=busybox", "--restart=Never"}).ok());
  auto bindings = count("", "create", "pods/binding");
  auto b = kube_->Request("POST", "/api/v1/namespaces/" + ns + "/pods/p/binding",
                          R"({"metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}})");
  ASSERT_EQ(b.code, 201) << b.body;
  EXPECT_EQ(count("", "create", "pods/binding").first - bindings.first, 1);
}

TEST(LocalKubeProcessTest, StopAndRestartOnTheSamePortWithItsData) {
  char tmpl[] = "/tmp/lk-restart-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  auto p = LocalKubeProcess::Start({.args = {"--data-dir=" + dir + "/data"}});
  ASSERT_TRUE(p.ok()) << p.status();
  const std::string url = (*p)->url();
  EXPECT_FALSE((*p)->Restart().ok());  // still running
  for (int signal : {SIGTERM, SIGKILL}) {
    const std::string name = signal == SIGTERM ? "before-term" : "before-kill";
    auto r = (*p)->Request("POST", "/api/v1/namespaces/default/configmaps",
                           R"({"metadata":{"name":")" + name + R"("}})");
    ASSERT_EQ(r.code, 201) << r.body;
    ASSERT_TRUE((*p)->Stop(signal).ok());
    EXPECT_EQ((*p)->Request("GET", "/api/v1/namespaces/default/configmaps").code, 0);  // down
    ASSERT_TRUE((*p)->Restart().ok());
    EXPECT_EQ((*p)->url(), url);
    // The kubeconfig written before still works (same port, certificates and token).
    auto got = (*p)->Kubectl({"get", "configmap", name, "-o", "name"});
    EXPECT_EQ(got.out, "configmap/" + name + "\n") << got.err;
  }
  p->reset();
  testing::RunCommand({"rm", "-rf", dir}, {}, "", 30);
}

TEST(LocalKubeProcessTest, TokenAuthAndPlainHttp) {
  char tmpl[] = "/tmp/lk-token-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string file = std::string(tmpl) + "/tokens.csv";
  FILE* fp = fopen(file.c_str(), "w");
  ASSERT_NE(fp, nullptr);
  fputs("s3cret,alice,1001,\"dev,ops\"\n", fp);
  fclose(fp);
  auto p = LocalKubeProcess::Start({.args = {"--token-auth-file=" + file}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->url().rfind("https://", 0), 0u);
  EXPECT_EQ((*p)->token(), "s3cret");
  CommandResult ok = (*p)->Kubectl({"get", "ns"});
  EXPECT_TRUE(ok.ok()) << ok.err;
  auto r = testing::RunCommand(
      {"kubectl", "--kubeconfig=" + (*p)->kubeconfig_path(), "--token=wrong", "get", "ns"}, {}, "",
      30);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.err.find("You must be logged in"), std::string::npos) << r.err;
  auto bad = (*p)->Request("GET", "/api/v1/namespaces", "", {"Authorization: Bearer nope"});
  EXPECT_EQ(bad.code, 401) << bad.body;
  // Plain HTTP for tests that want it (kubectl sends no token over plain HTTP).
  auto plain = LocalKubeProcess::Start({.args = {"--tls=false"}});
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ((*plain)->url().rfind("http://", 0), 0u);
  EXPECT_TRUE((*plain)->Kubectl({"get", "ns"}).ok());
  ::unlink(file.c_str());
  ::rmdir(tmpl);
}

TEST(LocalKubeProcessTest, SmallWatchHistoryForcesRelist) {
  auto p = LocalKubeProcess::Start({.args = {"--watch-history=3"}});
  ASSERT_TRUE(p.ok()) << p.status();
  const std::string base = "/api/v1/namespaces/default/configmaps";
  const std::string rv0 = RvOf((*p)->Request("GET", base).body);
  for (int i = 0; i < 5; ++i) {
    (*p)->Request("POST", base, R"({"metadata":{"name":"h)" + std::to_string(i) + R"("}})");
  }
  auto w = (*p)->WatchFor(base + "?watch=1&resourceVersion=" + rv0, 1.0);
  EXPECT_NE(w.body.find("\"code\":410"), std::string::npos) << w.body;
}

}  // namespace
}  // namespace kai::localkube
