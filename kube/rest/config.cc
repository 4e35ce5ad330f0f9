#include "kube/rest/config.h"

namespace kai::kube {

// Interface first; the loader lands in the next commit.
StatusOr<RestConfig> LoadKubeconfig(const KubeconfigOptions&) {
  return UnimplementedError("kubeconfig loading not implemented yet");
}
StatusOr<RestConfig> KubeconfigFromString(std::string_view, const KubeconfigOptions&,
                                          std::string_view, std::string_view) {
  return UnimplementedError("kubeconfig loading not implemented yet");
}
StatusOr<RestConfig> InClusterConfig(const InClusterOptions&) {
  return UnimplementedError("in-cluster config not implemented yet");
}
StatusOr<RestConfig> LoadConfig(const KubeconfigOptions&, const InClusterOptions&) {
  return UnimplementedError("config loading not implemented yet");
}

}  // namespace kai::kube
