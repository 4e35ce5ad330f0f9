// Self-signed serving certificates (a CA and a server certificate signed by it) via OpenSSL 3.
#pragma once

#include <string>
#include <vector>

#include "kube/base/statusor.h"

namespace kai::localkube {

struct CertBundle {
  std::string ca_pem;    // CA certificate (goes into kubeconfig certificate-authority-data)
  std::string cert_pem;  // server certificate (chain: server cert, then CA)
  std::string key_pem;   // server private key
};

// Generates a CA and a server certificate for `hosts` (IP addresses and DNS names become SANs),
// valid for `days`.
StatusOr<CertBundle> GenerateCerts(const std::vector<std::string>& hosts, int days = 365);

}  // namespace kai::localkube
