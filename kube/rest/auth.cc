#include "kube/rest/auth.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "api/json_quote.h"
#include "api/rapidjson_util.h"
#include "kube/base/base64.h"
#include "kube/base/file.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"

extern char** environ;

namespace kai::kube {
namespace {

class StaticSource final : public CredentialSource {
 public:
  explicit StaticSource(Credentials c) : c_(std::move(c)) {}
  StatusOr<Credentials> Get() override { return c_; }

 private:
  Credentials c_;
};

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs argv with `env` ("K=V"), stdin from /dev/null; collects stdout and stderr.
StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& env) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return InternalError(std::strerror(errno));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return InternalError(std::strerror(errno));
  }
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  // posix_spawnp: safe in a multi-threaded process, and looks the command up in this process's
  // PATH like Go's exec.Command.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    ProcessResult r;
    r.exit_code = rc == ENOENT ? 127 : 126;
    r.err = std::string("exec: ") + std::strerror(rc);
    return r;
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  ProcessResult r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[4096];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
        if (r.out.size() > (16 << 20)) break;  // a runaway plugin
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string ExecInfo(const ExecConfig& exec, const RestConfig& cluster) {
  using api::JsonQuote;
  std::string spec = R"({"interactive":false)";
  if (exec.provide_cluster_info) {
    spec += R"(,"cluster":{"server":)" + JsonQuote(cluster.host);
    if (!cluster.tls.server_name.empty()) {
      spec += R"(,"tls-server-name":)" + JsonQuote(cluster.tls.server_name);
    }
    if (cluster.tls.insecure) spec += R"(,"insecure-skip-tls-verify":true)";
    if (!cluster.tls.ca_pem.empty()) {
      spec += R"(,"certificate-authority-data":)" + JsonQuote(Base64Encode(cluster.tls.ca_pem));
    }
    if (!cluster.proxy_url.empty()) spec += R"(,"proxy-url":)" + JsonQuote(cluster.proxy_url);
    spec += "}";
  }
  spec += "}";
  return R"({"apiVersion":)" + JsonQuote(exec.api_version) + R"(,"kind":"ExecCredential","spec":)" +
         spec + "}";
}

}  // namespace

TokenFileSource::TokenFileSource(std::string path, std::string initial_token, Clock* clock,
                                 Duration max_age)
    : path_(std::move(path)), clock_(clock), max_age_(max_age), token_(std::move(initial_token)) {
  if (!token_.empty()) read_at_ = clock_->NowMonotonic();
}

StatusOr<Credentials> TokenFileSource::Get() {
  std::lock_guard<std::mutex> l(mu_);
  const MonoTime now = clock_->NowMonotonic();
  if (!read_at_.has_value() || now - *read_at_ >= max_age_) {
    StatusOr<std::string> content = ReadFile(path_);
    if (content.ok()) {
      token_ = std::string(StripWhitespace(*content));
      read_at_ = now;
    } else if (token_.empty()) {
      return Status(content.status().code(),
                    "token file " + path_ + ": " + std::string(content.status().message()));
    }
    // A transient read failure keeps the previous token (client-go logs and does the same).
  }
  Credentials c;
  c.bearer_token = token_;
  return c;
}

bool TokenFileSource::Invalidate() {
  std::lock_guard<std::mutex> l(mu_);
  read_at_.reset();
  return true;
}

ExecCredentialSource::ExecCredentialSource(ExecConfig exec, RestConfig cluster, Clock* clock)
    : exec_(std::move(exec)), cluster_(std::move(cluster)), clock_(clock) {}

int ExecCredentialSource::runs() const {
  std::lock_guard<std::mutex> l(mu_);
  return runs_;
}

StatusOr<Credentials> ExecCredentialSource::Get() {
  std::lock_guard<std::mutex> l(mu_);
  if (cached_.has_value() && (!expiry_.has_value() || clock_->Now() < *expiry_)) return *cached_;
  std::optional<WallTime> expiry;
  KAI_ASSIGN_OR_RETURN(Credentials c, Run(&expiry));
  cached_ = c;
  expiry_ = expiry;
  return c;
}

bool ExecCredentialSource::Invalidate() {
  std::lock_guard<std::mutex> l(mu_);
  cached_.reset();
  return true;
}

StatusOr<Credentials> ExecCredentialSource::Run(std::optional<WallTime>* expiry) {
  ++runs_;
  const std::string who = "exec plugin " + exec_.command;
  std::vector<std::string> argv = {exec_.command};
  argv.insert(argv.end(), exec_.args.begin(), exec_.args.end());
  std::vector<std::string> env;
  auto overridden = [&](std::string_view entry) {
    const std::string_view name = entry.substr(0, entry.find('='));
    if (name == "KUBERNETES_EXEC_INFO") return true;
    for (const auto& [k, v] : exec_.env) {
      if (k == name) return true;
    }
    return false;
  };
  for (char** e = environ; *e != nullptr; ++e) {
    if (!overridden(*e)) env.emplace_back(*e);
  }
  for (const auto& [k, v] : exec_.env) env.push_back(StrCat(k, "=", v));
  env.push_back("KUBERNETES_EXEC_INFO=" + ExecInfo(exec_, cluster_));
  KAI_ASSIGN_OR_RETURN(ProcessResult r, RunProcess(argv, env));
  if (r.exit_code != 0) {
    std::string msg = who + ": exit status " + std::to_string(r.exit_code);
    const std::string_view err = StripWhitespace(r.err);
    if (!err.empty()) msg += ": " + std::string(err.substr(0, 1024));
    if (r.exit_code == 127 && !exec_.install_hint.empty()) msg += "\n" + exec_.install_hint;
    return UnauthenticatedError(msg);
  }
  rapidjson::Document doc;
  Status parsed = api::ParseJson(r.out, &doc);
  if (!parsed.ok() || !doc.IsObject()) {
    return UnauthenticatedError(who + ": stdout is not an ExecCredential JSON object");
  }
  auto str = [](const rapidjson::Value& obj, const char* name) -> std::string {
    const rapidjson::Value* v = api::FindMember(obj, name);
    return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : "";
  };
  if (str(doc, "kind") != "ExecCredential") {
    return UnauthenticatedError(who + ": kind is \"" + str(doc, "kind") +
                                "\", expected ExecCredential");
  }
  if (str(doc, "apiVersion") != exec_.api_version) {
    return UnauthenticatedError(who + ": apiVersion is \"" + str(doc, "apiVersion") +
                                "\", expected " + exec_.api_version);
  }
  const rapidjson::Value* status = api::FindMember(doc, "status");
  if (status == nullptr || !status->IsObject()) {
    return UnauthenticatedError(who + ": ExecCredential without status");
  }
  Credentials c;
  c.bearer_token = str(*status, "token");
  c.cert_pem = str(*status, "clientCertificateData");
  c.key_pem = str(*status, "clientKeyData");
  if (c.cert_pem.empty() != c.key_pem.empty()) {
    return UnauthenticatedError(
        who + ": status.clientCertificateData and status.clientKeyData must be given together");
  }
  if (c.bearer_token.empty() && c.cert_pem.empty()) {
    return UnauthenticatedError(
        who + ": status has neither token nor clientCertificateData/clientKeyData");
  }
  const std::string exp = str(*status, "expirationTimestamp");
  if (!exp.empty()) {
    StatusOr<WallTime> t = ParseRfc3339(exp);
    if (!t.ok()) {
      return UnauthenticatedError(
          who + ": status.expirationTimestamp: " + std::string(t.status().message()));
    }
    *expiry = *t;
  }
  return c;
}

std::unique_ptr<CredentialSource> NewCredentialSource(const RestConfig& config, Clock* clock) {
  if (config.exec.has_value()) {
    return std::make_unique<ExecCredentialSource>(*config.exec, config, clock);
  }
  if (!config.bearer_token_file.empty()) {
    return std::make_unique<TokenFileSource>(config.bearer_token_file, config.bearer_token, clock);
  }
  Credentials c;
  c.bearer_token = config.bearer_token;
  c.username = config.username;
  c.password = config.password;
  return std::make_unique<StaticSource>(std::move(c));
}

}  // namespace kai::kube
