// Base64 (RFC 4648) for every component: kubeconfig *-data fields, exec credentials, webhook CA
// bundles and patches, protobuf bytes, and localkube's list continue tokens.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/statusor.h"

namespace kai::kube {

enum class Base64Encoding {
  kStd,     // "+/" with "=" padding (Go's base64.StdEncoding)
  kRawUrl,  // "-_" without padding (base64.RawURLEncoding: the API server's continue tokens)
};

std::string Base64Encode(std::string_view in, Base64Encoding encoding = Base64Encoding::kStd);
// kStd accepts padded or unpadded input and ignores whitespace; kRawUrl takes neither padding
// nor whitespace. Any other character, or a length no encoding produces, is an error.
StatusOr<std::string> Base64Decode(std::string_view in,
                                   Base64Encoding encoding = Base64Encoding::kStd);

}  // namespace kai::kube
