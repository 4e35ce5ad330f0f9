#include "test/localkube/testing/localkube_process.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "kube/base/base64.h"
#include "kube/base/file.h"
#include "kube/base/strings.h"
#include "kube/testing/binaries.h"

extern char** environ;

namespace kai::localkube::testing {
namespace {

bool Exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && (st.st_mode & S_IXUSR);
}

std::string FindBinary(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (const char* env = std::getenv("LOCALKUBE_BIN"); env != nullptr && *env) return env;
  if (std::string own = kai::testing::KaiBinary("localkube"); Exists(own)) return own;
  for (const char* p : {"build/bin/localkube", "build-asan/bin/localkube", "../build/bin/localkube",
                        "../../build/bin/localkube", "bin/localkube"}) {
    if (Exists(p)) return p;
  }
  return "build/bin/localkube";
}

std::string KubeconfigField(const std::string& kc, const std::string& key) {
  const size_t p = kc.find(key + ": ");
  if (p == std::string::npos) return "";
  const size_t start = p + key.size() + 2;
  const size_t end = kc.find('\n', start);
  return kc.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

size_t CurlWrite(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t CurlHeader(char* data, size_t size, size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * n);
  const size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = AsciiToLower(line.substr(0, colon));
    std::string value(StripWhitespace(line.substr(colon + 1)));
    (*headers)[name] = value;
  }
  return size * n;
}

}  // namespace

CommandResult RunCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         std::string_view stdin_data, int timeout_seconds) {
  CommandResult res;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 ||
      pipe2(err_pipe, O_CLOEXEC) != 0) {
    res.err = "pipe failed";
    return res;
  }
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv(*e);
    bool overridden = false;
    for (const std::string& x : env) {
      if (kv.compare(0, x.find('=') + 1, x.substr(0, x.find('=') + 1)) == 0) overridden = true;
    }
    if (!overridden) envs.push_back(kv);
  }
  for (const std::string& x : env) envs.push_back(x);
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : envs) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    execvpe(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  // Feed stdin in the poll loop so large inputs cannot deadlock against full output pipes.
  size_t written = 0;
  int in_fd = in_pipe[1];
  if (stdin_data.empty()) {
    close(in_fd);
    in_fd = -1;
  } else {
    fcntl(in_fd, F_SETFL, O_NONBLOCK);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool out_open = true, err_open = true;
  char buf[65536];
  while (out_open || err_open) {
    pollfd fds[3];
    int n = 0;
    if (out_open) fds[n++] = {out_pipe[0], POLLIN, 0};
    if (err_open) fds[n++] = {err_pipe[0], POLLIN, 0};
    if (in_fd >= 0) fds[n++] = {in_fd, POLLOUT, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);
      res.err += "\n[timed out]";
      break;
    }
    if (poll(fds, static_cast<nfds_t>(n), static_cast<int>(left.count())) < 0) break;
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_fd) {
        const ssize_t w = write(in_fd, stdin_data.data() + written, stdin_data.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 || written >= stdin_data.size()) {
          close(in_fd);
          in_fd = -1;
        }
        continue;
      }
      const ssize_t r = read(fds[i].fd, buf, sizeof(buf));
      if (r <= 0) {
        if (fds[i].fd == out_pipe[0]) out_open = false;
        if (fds[i].fd == err_pipe[0]) err_open = false;
      } else if (fds[i].fd == out_pipe[0]) {
        res.out.append(buf, static_cast<size_t>(r));
      } else {
        res.err.append(buf, static_cast<size_t>(r));
      }
    }
  }
  if (in_fd >= 0) close(in_fd);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  res.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return res;
}

StatusOr<std::unique_ptr<LocalKubeProcess>> LocalKubeProcess::Start(
    LocalKubeProcessOptions options) {
  std::unique_ptr<LocalKubeProcess> p(new LocalKubeProcess());
  char tmpl[] = "/tmp/localkube-test-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return InternalError("mkdtemp failed");
  p->dir_ = tmpl;
  p->kubeconfig_ = p->dir_ + "/kubeconfig";
  options.binary = FindBinary(options.binary);
  if (!Exists(options.binary)) {
    return NotFoundError("localkube binary not found at " + options.binary +
                         " (build it, or set LOCALKUBE_BIN)");
  }
  p->options_ = std::move(options);
  KAI_RETURN_IF_ERROR(p->Launch("127.0.0.1:0", /*append_log=*/false));
  return p;
}

Status LocalKubeProcess::Launch(const std::string& listen, bool append_log) {
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return InternalError("pipe failed");
  std::vector<std::string> argv = {options_.binary, "--listen=" + listen,
                                   "--kubeconfig_out=" + kubeconfig_};
  for (const auto& a : options_.args) argv.push_back(a);
  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const std::string log = dir_ + "/localkube.log";
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | (append_log ? O_APPEND : O_TRUNC), 0644);
    if (fd >= 0) dup2(fd, 2);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  pid_ = pid;
  // The first stdout line is "localkube: serving on URL", printed once it accepts requests.
  std::string line;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(options_.start_timeout_seconds);
  while (line.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd pfd{out_pipe[0], POLLIN, 0};
    if (left.count() <= 0 || poll(&pfd, 1, static_cast<int>(left.count())) <= 0) {
      close(out_pipe[0]);
      auto logtext = ReadFile(log);
      return DeadlineExceededError("localkube did not start: " +
                                   (logtext.ok() ? *logtext : std::string("")));
    }
    char buf[512];
    const ssize_t n = read(out_pipe[0], buf, sizeof(buf));
    if (n <= 0) {
      close(out_pipe[0]);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
      auto logtext = ReadFile(log);
      return UnavailableError("localkube exited: " + (logtext.ok() ? *logtext : std::string("")));
    }
    line.append(buf, static_cast<size_t>(n));
  }
  close(out_pipe[0]);
  const std::string prefix = "serving on ";
  const size_t at = line.find(prefix);
  if (at == std::string::npos) return InternalError("unexpected localkube output: " + line);
  url_ = line.substr(at + prefix.size(), line.find('\n', at) - at - prefix.size());
  KAI_ASSIGN_OR_RETURN(std::string kc, ReadFile(kubeconfig_));
  token_ = KubeconfigField(kc, "token");
  KAI_ASSIGN_OR_RETURN(ca_pem_,
                       kube::Base64Decode(KubeconfigField(kc, "certificate-authority-data")));
  return Status::OK();
}

Status LocalKubeProcess::Stop(int signal) {
  if (pid_ <= 0) return FailedPreconditionError("localkube is not running");
  kill(pid_, signal);
  int status = 0;
  for (int i = 0; i < 200; ++i) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Status::OK();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return DeadlineExceededError("localkube did not stop within 10 s of signal " +
                               std::to_string(signal) + "; killed");
}

Status LocalKubeProcess::Restart() {
  if (pid_ > 0) return FailedPreconditionError("localkube is still running; Stop() it first");
  // url_ is "https://HOST:PORT" (or http://): listen on the same address again.
  const size_t scheme = url_.find("://");
  if (scheme == std::string::npos) return InternalError("unexpected localkube url " + url_);
  const std::string listen = url_.substr(scheme + 3);
  const std::string before = url_;
  // The port was just released; a client's connect may briefly hold it as its own ephemeral
  // port (the port range is shared), so a failed bind is retried for a few seconds.
  Status s;
  for (int attempt = 0; attempt < 50; ++attempt) {
    s = Launch(listen, /*append_log=*/true);
    if (s.ok()) break;
    if (pid_ > 0) return s;  // started but misbehaved
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  KAI_RETURN_IF_ERROR(s);
  if (url_ != before) return InternalError("localkube restarted on " + url_ + ", not " + before);
  return Status::OK();
}

LocalKubeProcess::~LocalKubeProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
  }
  if (!dir_.empty()) {
    for (const char* f : {"/kubeconfig", "/localkube.log"}) ::unlink((dir_ + f).c_str());
    ::rmdir(dir_.c_str());
  }
}

CommandResult LocalKubeProcess::Kubectl(const std::vector<std::string>& args,
                                        std::string_view stdin_data, int timeout_seconds) const {
  std::vector<std::string> argv = {"kubectl"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, {"KUBECONFIG=" + kubeconfig_}, stdin_data, timeout_seconds);
}

namespace {

HttpResult DoCurl(const LocalKubeProcess& p, const std::string& method, const std::string& path,
                  const std::string& body, const std::vector<std::string>& headers,
                  double timeout_seconds) {
  HttpResult res;
  CURL* c = curl_easy_init();
  if (c == nullptr) return res;
  const std::string url = p.url() + path;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_slist* hl = nullptr;
  hl = curl_slist_append(hl, ("Authorization: Bearer " + p.token()).c_str());
  bool has_ct = false;
  for (const auto& h : headers) {
    hl = curl_slist_append(hl, h.c_str());
    if (AsciiToLower(h).rfind("content-type:", 0) == 0) has_ct = true;
  }
  if (!has_ct && !body.empty()) hl = curl_slist_append(hl, "Content-Type: application/json");
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  curl_blob blob{const_cast<char*>(p.ca_pem().data()), p.ca_pem().size(), CURL_BLOB_COPY};
  if (!p.ca_pem().empty()) curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, CurlWrite);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &res.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, CurlHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &res.headers);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_seconds * 1000));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_perform(c);
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  res.code = static_cast<int>(code);
  curl_slist_free_all(hl);
  curl_easy_cleanup(c);
  return res;
}

}  // namespace

HttpResult LocalKubeProcess::Request(const std::string& method, const std::string& path,
                                     const std::string& body,
                                     const std::vector<std::string>& headers) const {
  return DoCurl(*this, method, path, body, headers, 60);
}

HttpResult LocalKubeProcess::WatchFor(const std::string& path, double seconds) const {
  return DoCurl(*this, "GET", path, "", {}, seconds);
}

}  // namespace kai::localkube::testing
