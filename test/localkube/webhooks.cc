#include "test/localkube/webhooks.h"

namespace kai::localkube {

WebhookAdmission::WebhookAdmission(Store* store, std::vector<std::string> service_map)
    : store_(store) {
  for (const std::string& m : service_map) {
    const size_t eq = m.find('=');
    if (eq != std::string::npos) service_map_[m.substr(0, eq)] = m.substr(eq + 1);
  }
}

bool WebhookAdmission::Enabled() const { return false; }

Status WebhookAdmission::Mutate(const AdmissionAttributes&, JsonDoc*) { return Status::OK(); }

Status WebhookAdmission::Validate(const AdmissionAttributes&, const Json*) { return Status::OK(); }

}  // namespace kai::localkube
