#include "kube/server/metrics_handler.h"

#include "kube/metrics/text_format.h"

namespace kai::server {

Handler MetricsHandler(metrics::Registry* registry) {
  return [registry](const HttpRequest& request) {
    if (request.method != "GET" && request.method != "HEAD") {
      return HttpResponse::Error(405, "method not allowed");
    }
    HttpResponse r;
    r.content_type = std::string(metrics::kTextContentType);
    r.body = registry->Expose();
    return r;
  };
}

}  // namespace kai::server
