// The HTTP seam of the usage client: a real libcurl transport and fakes for tests.
#pragma once

#include <string>

#include "kube/base/clock.h"
#include "kube/base/statusor.h"

namespace kai::proportion {

struct HttpResponse {
  int status = 0;
  std::string body;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // GET `url`; transport failures (DNS, connect, timeout) are errors, HTTP error statuses are
  // responses.
  virtual StatusOr<HttpResponse> Get(const std::string& url, Duration timeout) = 0;
};

// libcurl, one easy handle per request (the usage client issues a handful per minute).
class CurlHttpClient final : public HttpClient {
 public:
  CurlHttpClient();
  StatusOr<HttpResponse> Get(const std::string& url, Duration timeout) override;
};

}  // namespace kai::proportion
