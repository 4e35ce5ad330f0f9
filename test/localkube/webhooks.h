// Internal: admission webhooks. When Mutating/ValidatingWebhookConfigurations exist, calls them
// over HTTPS with admission.k8s.io/v1 AdmissionReview as kube-apiserver does.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "test/localkube/admission.h"
#include "test/localkube/store.h"

namespace kai::localkube {

class WebhookAdmission : public Admission {
 public:
  // `service_map` entries "namespace/name:port=host:port" say where a service reference goes;
  // unmapped services resolve to 127.0.0.1:<port>.
  WebhookAdmission(Store* store, const std::vector<std::string>& service_map);
  bool Enabled() const override;
  Status Mutate(const AdmissionAttributes& attrs, JsonDoc* obj) override;
  Status Validate(const AdmissionAttributes& attrs, const Json* obj) override;

 private:
  Store* store_;
  std::map<std::string, std::string> service_map_;
};

}  // namespace kai::localkube
