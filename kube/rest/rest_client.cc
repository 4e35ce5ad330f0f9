#include "kube/rest/rest_client.h"

namespace kai::kube {

// Interface first; the libcurl transport lands in a later commit.
class RestClient::Impl {
 public:
  RestConfig config;
};

RestClient::RestClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestClient::~RestClient() = default;

StatusOr<std::unique_ptr<RestClient>> RestClient::New(RestConfig, RestClientOptions) {
  return UnimplementedError("RestClient not implemented yet");
}
StatusOr<std::string> RestClient::Get(const GroupVersionResource&, std::string_view,
                                      std::string_view, const GetOptions&) {
  return UnimplementedError("not implemented yet");
}
StatusOr<ObjectList> RestClient::List(const GroupVersionResource&, std::string_view,
                                      const ListOptions&) {
  return UnimplementedError("not implemented yet");
}
StatusOr<std::string> RestClient::Create(const GroupVersionResource&, std::string_view,
                                         std::string_view, const WriteOptions&) {
  return UnimplementedError("not implemented yet");
}
StatusOr<std::string> RestClient::Update(const GroupVersionResource&, std::string_view,
                                         std::string_view, std::string_view, const WriteOptions&) {
  return UnimplementedError("not implemented yet");
}
StatusOr<std::string> RestClient::Patch(const GroupVersionResource&, std::string_view,
                                        std::string_view, PatchType, std::string_view,
                                        const PatchOptions&) {
  return UnimplementedError("not implemented yet");
}
StatusOr<std::string> RestClient::Delete(const GroupVersionResource&, std::string_view,
                                         std::string_view, const DeleteOptions&) {
  return UnimplementedError("not implemented yet");
}
StatusOr<std::string> RestClient::CreateSubresource(const GroupVersionResource&, std::string_view,
                                                    std::string_view, std::string_view,
                                                    std::string_view, const WriteOptions&) {
  return UnimplementedError("not implemented yet");
}
StatusOr<std::unique_ptr<Watcher>> RestClient::Watch(const GroupVersionResource&, std::string_view,
                                                     const WatchOptions&) {
  return UnimplementedError("not implemented yet");
}
StatusOr<std::string> RestClient::Raw(std::string_view, std::string_view, std::string_view,
                                      std::string_view) {
  return UnimplementedError("not implemented yet");
}
void RestClient::SetRateLimit(double, int) {}
const RestConfig& RestClient::config() const { return impl_->config; }
RestClientStats RestClient::stats() const { return {}; }

std::string DefaultUserAgent(std::string_view suffix) {
  std::string ua = "kai-scheduler/v0.1.0 (linux/amd64) kai";
  if (!suffix.empty()) ua += " " + std::string(suffix);
  return ua;
}

}  // namespace kai::kube
