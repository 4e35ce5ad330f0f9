// Internal: standard base64 (RFC 4648) for kubeconfig *-data fields and exec credentials.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/statusor.h"

namespace kai::kube {

// Accepts padded or unpadded input and ignores whitespace; rejects other characters.
StatusOr<std::string> Base64Decode(std::string_view in);
std::string Base64Encode(std::string_view in);

}  // namespace kai::kube
