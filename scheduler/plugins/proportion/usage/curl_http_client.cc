#include <curl/curl.h>

#include <mutex>

#include "scheduler/plugins/proportion/usage/http_client.h"

namespace kai::proportion {
namespace {

size_t Append(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

struct EasyHandle {
  CURL* h = curl_easy_init();
  ~EasyHandle() {
    if (h != nullptr) curl_easy_cleanup(h);
  }
};

}  // namespace

CurlHttpClient::CurlHttpClient() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

StatusOr<HttpResponse> CurlHttpClient::Get(const std::string& url, Duration timeout) {
  EasyHandle easy;
  if (easy.h == nullptr) return InternalError("curl_easy_init failed");
  HttpResponse response;
  char error[CURL_ERROR_SIZE] = {0};
  const long timeout_ms =
      static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count());
  curl_easy_setopt(easy.h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy.h, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(easy.h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy.h, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 1L);
  curl_easy_setopt(easy.h, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(easy.h, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(easy.h, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(easy.h, CURLOPT_FOLLOWLOCATION, 1L);
  const CURLcode rc = curl_easy_perform(easy.h);
  if (rc != CURLE_OK) {
    const std::string detail = error[0] != 0 ? error : curl_easy_strerror(rc);
    Status s =
        rc == CURLE_OPERATION_TIMEDOUT ? DeadlineExceededError(detail) : UnavailableError(detail);
    return s.WithPrefix("GET " + url);
  }
  long code = 0;
  curl_easy_getinfo(easy.h, CURLINFO_RESPONSE_CODE, &code);
  response.status = static_cast<int>(code);
  return response;
}

}  // namespace kai::proportion
