// Admission webhooks end to end: localkube calls an HTTPS webhook server (in this test) with
// AdmissionReview v1, verifying its certificate against the configuration's caBundle.
#include <gtest/gtest.h>

#include <atomic>

#include "kube/base/base64.h"
#include "test/localkube/http_server.h"
#include "test/localkube/json.h"
#include "test/localkube/testing/localkube_process.h"
#include "test/localkube/tls.h"

namespace kai::localkube {
namespace {

TEST(WebhookTest, MutatingAndValidatingWebhooksAreCalled) {
  auto certs = GenerateCerts({"wh.default.svc"});
  ASSERT_TRUE(certs.ok()) << certs.status();
  std::atomic<int> calls{0};
  HttpServerOptions so;
  so.cert_pem = certs->cert_pem;
  so.key_pem = certs->key_pem;
  so.tls_only = true;
  HttpServer server(so, [&](const HttpRequest& req) {
    ++calls;
    auto doc = Parse(req.body);
    HttpResponse resp;
    resp.SetHeader("Content-Type", "application/json");
    const std::string uid = doc.ok() ? GetStr(*doc, {"request", "uid"}) : "";
    const std::string op = doc.ok() ? GetStr(*doc, {"request", "operation"}) : "";
    if (req.path == "/badpatch") {
      resp.body =
          R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":")" +
          uid + R"(","allowed":true,"patchType":"JSONPatch","patch":"not base64!"}})";
    } else if (req.path == "/mutate") {
      const std::string patch =
          kube::Base64Encode(R"([{"op":"add","path":"/metadata/labels/mutated","value":"yes"}])");
      resp.body =
          R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":")" +
          uid + R"(","allowed":true,"patchType":"JSONPatch","patch":")" + patch +
          R"(","warnings":["mutated by test"]}})";
    } else {
      const bool deny =
          doc.ok() && GetStr(*doc, {"request", "object", "metadata", "labels", "deny"}) == "true";
      resp.body =
          R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":")" +
          uid + R"(","allowed":)" + (deny ? "false" : "true") +
          R"x(,"status":{"code":403,"reason":"Forbidden","message":"labels say deny (op )x" + op +
          R"x()"}}})x";
    }
    return resp;
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string port = std::to_string(server.port());

  auto kube = testing::LocalKubeProcess::Start();
  ASSERT_TRUE(kube.ok()) << kube.status();
  const std::string ca = kube::Base64Encode(certs->ca_pem);
  const std::string cfg = R"(apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: test-mutate}
webhooks:
- name: mutate.test.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  objectSelector: {matchLabels: {webhook: "on"}}
  clientConfig:
    caBundle: )" + ca + R"(
    service: {namespace: default, name: wh, port: )" +
                          port + R"(, path: /mutate}
  rules:
  - {operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: test-validate}
webhooks:
- name: validate.test.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    caBundle: )" + ca + R"(
    url: https://wh.default.svc:)" +
                          port + R"(/validate
  rules:
  - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}
)";
  // url-based config needs the name to resolve: map it through the service map flag instead.
  (void)cfg;
  auto r = (*kube)->Kubectl({"apply", "-f", "-"}, cfg);
  ASSERT_TRUE(r.ok()) << r.err;
  r = (*kube)->Kubectl(
      {"apply", "-f", "-"},
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {webhook: \"on\"}\n");
  // The validating webhook's URL host does not resolve here: failurePolicy Fail rejects.
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.err.find("failed calling webhook \"validate.test.example.com\""), std::string::npos)
      << r.err;
  // Switch the validating webhook to a service reference.
  const std::string vcfg = R"(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: test-validate}
webhooks:
- name: validate.test.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    caBundle: )" + ca + R"(
    service: {namespace: default, name: wh, port: )" +
                           port + R"(, path: /validate}
  rules:
  - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}
)";
  r = (*kube)->Kubectl({"apply", "-f", "-"}, vcfg);
  ASSERT_TRUE(r.ok()) << r.err;
  r = (*kube)->Kubectl(
      {"apply", "-f", "-"},
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {webhook: \"on\"}\n");
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_NE(r.err.find("mutated by test"), std::string::npos) << r.err;  // warning
  r = (*kube)->Kubectl({"get", "cm", "a", "-o", "jsonpath={.metadata.labels.mutated}"});
  EXPECT_EQ(r.out, "yes");
  // objectSelector: no label, no mutation.
  r = (*kube)->Kubectl({"apply", "-f", "-"},
                       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n");
  ASSERT_TRUE(r.ok()) << r.err;
  r = (*kube)->Kubectl({"get", "cm", "b", "-o", "jsonpath={.metadata.labels.mutated}"});
  EXPECT_EQ(r.out, "");
  // Denial from the validating webhook.
  r = (*kube)->Kubectl(
      {"apply", "-f", "-"},
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: {deny: \"true\"}\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.err.find("admission webhook \"validate.test.example.com\" denied the request: labels "
                       "say deny (op CREATE)"),
            std::string::npos)
      << r.err;
  r = (*kube)->Kubectl({"get", "cm", "c"});
  EXPECT_FALSE(r.ok());
  EXPECT_GT(calls.load(), 3);
  // A patch that is not base64 fails the call (failurePolicy Fail): nothing is created.
  const std::string badpatch = R"(apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: test-badpatch}
webhooks:
- name: badpatch.test.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  objectSelector: {matchLabels: {badpatch: "on"}}
  clientConfig:
    caBundle: )" + ca + R"(
    service: {namespace: default, name: wh, port: )" +
                               port + R"(, path: /badpatch}
  rules:
  - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}
)";
  ASSERT_TRUE((*kube)->Kubectl({"apply", "-f", "-"}, badpatch).ok());
  r = (*kube)->Kubectl(
      {"apply", "-f", "-"},
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e\n  labels: {badpatch: \"on\"}\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.err.find("failed calling webhook \"badpatch.test.example.com\": patch: illegal "
                       "base64 data"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE((*kube)->Kubectl({"get", "cm", "e"}).ok());
  // A dead webhook with failurePolicy Ignore is skipped.
  server.Stop();
  const std::string ignore = R"(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: test-validate}
webhooks:
- name: validate.test.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Ignore
  timeoutSeconds: 2
  clientConfig:
    caBundle: )" + ca + R"(
    service: {namespace: default, name: wh, port: )" +
                             port + R"(, path: /validate}
  rules:
  - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}
)";
  ASSERT_TRUE((*kube)->Kubectl({"apply", "-f", "-"}, ignore).ok());
  r = (*kube)->Kubectl({"apply", "-f", "-"},
                       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n");
  EXPECT_TRUE(r.ok()) << r.err;
}

}  // namespace
}  // namespace kai::localkube
