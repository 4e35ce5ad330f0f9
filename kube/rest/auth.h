// Credential sources of the REST client: a static token or basic auth, a token file re-read
// every minute (client-go NewCachedFileTokenSource), and exec credential plugins
// (client.authentication.k8s.io/v1; cached until expirationTimestamp, re-run after a 401).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "kube/base/clock.h"
#include "kube/base/statusor.h"
#include "kube/rest/config.h"

namespace kai::kube {

struct Credentials {
  std::string bearer_token;
  std::string username;  // basic auth
  std::string password;
  std::string cert_pem;  // client certificate from an exec plugin (wins over the config's)
  std::string key_pem;
};

class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  virtual StatusOr<Credentials> Get() = 0;
  // The server answered 401: drop cached credentials. Returns true when a retry may get
  // different ones (exec plugins, token files).
  virtual bool Invalidate() { return false; }
};

// The credentials `config` describes (token file > token; exec; basic). Never null.
std::unique_ptr<CredentialSource> NewCredentialSource(const RestConfig& config, Clock* clock);

// A token file re-read when the cached copy is older than `max_age` (client-go: 1 min minus
// 10 s leeway).
class TokenFileSource final : public CredentialSource {
 public:
  TokenFileSource(std::string path, std::string initial_token, Clock* clock,
                  Duration max_age = std::chrono::seconds(50));
  StatusOr<Credentials> Get() override;
  bool Invalidate() override;

 private:
  const std::string path_;
  Clock* const clock_;
  const Duration max_age_;
  std::mutex mu_;
  std::string token_;
  std::optional<MonoTime> read_at_;
};

// Runs an exec credential plugin and caches its ExecCredential.
class ExecCredentialSource final : public CredentialSource {
 public:
  ExecCredentialSource(ExecConfig exec, RestConfig cluster, Clock* clock);
  StatusOr<Credentials> Get() override;
  bool Invalidate() override;
  int runs() const;

 private:
  StatusOr<Credentials> Run(std::optional<WallTime>* expiry);
  const ExecConfig exec_;
  const RestConfig cluster_;
  Clock* const clock_;
  mutable std::mutex mu_;
  std::optional<Credentials> cached_;
  std::optional<WallTime> expiry_;
  int runs_ = 0;
};

}  // namespace kai::kube
