#include "kube/rest/rest_client.h"

#include <curl/curl.h>
#include <errno.h>  // program_invocation_short_name
#include <glog/logging.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "kube/base/strings.h"
#include "kube/rest/auth.h"
#include "kube/rest/decode.h"
#include "kube/rest/errors.h"
#include "kube/rest/json_writer.h"
#include "kube/rest/rate_limiter.h"

namespace kai::kube {

namespace {

void GlobalInit() {
  static const bool done = [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return true;
  }();
  (void)done;
}

// A URL query string: "?k=v&..." from the non-empty values, each percent-encoded.
class Query {
 public:
  Query& Add(std::string_view key, std::string_view value) {
    if (value.empty()) return *this;
    s_ += s_.empty() ? '?' : '&';
    s_ += std::string(key) + "=" + UrlQueryEscape(value);
    return *this;
  }
  Query& AddInt(std::string_view key, int64_t v) {
    if (v > 0) Add(key, std::to_string(v));
    return *this;
  }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

void AddWriteOptions(Query& q, const WriteOptions& o) {
  if (o.dry_run) q.Add("dryRun", "All");
  q.Add("fieldManager", o.field_manager);
  q.Add("fieldValidation", o.field_validation);
}

bool RetryableCurlError(CURLcode c) {
  switch (c) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_OPERATION_TIMEDOUT:
      return true;
    default:
      return false;
  }
}

bool TlsCurlError(CURLcode c) {
  switch (c) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
      return true;
    default:
      return false;
  }
}

Status CurlError(CURLcode c, const char* errbuf, std::string_view method, std::string_view url) {
  std::string msg = std::string(method) + " " + std::string(url) + ": " +
                    (TlsCurlError(c) ? "TLS handshake failed (server certificate not verified "
                                       "with the configured CA or name?): "
                                     : "") +
                    curl_easy_strerror(c);
  if (errbuf != nullptr && errbuf[0] != '\0') msg += " (" + std::string(errbuf) + ")";
  if (c == CURLE_OPERATION_TIMEDOUT) return DeadlineExceededError(msg);
  if (c == CURLE_ABORTED_BY_CALLBACK) return CancelledError(msg);
  // Connection-level failures may heal; TLS verification or a bad URL will not.
  if (RetryableCurlError(c)) return UnavailableError(msg);
  return FailedPreconditionError(msg);
}

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // path + query
  std::string body;
  std::string content_type;
  bool idempotent = true;
  bool has_body = false;
  const std::atomic<bool>* cancel = nullptr;
};

bool Cancelled(const HttpRequest& req) { return req.cancel != nullptr && req.cancel->load(); }

int CancelProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(user)->load() ? 1 : 0;
}

struct HttpResponse {
  int code = 0;
  std::string body;
  std::string retry_after;
  bool headers_done = false;
};

size_t WriteToString(char* ptr, size_t size, size_t n, void* user) {
  static_cast<HttpResponse*>(user)->body.append(ptr, size * n);
  return size * n;
}

size_t HeaderCallback(char* ptr, size_t size, size_t n, void* user) {
  auto* r = static_cast<HttpResponse*>(user);
  std::string_view h(ptr, size * n);
  if (h.starts_with("HTTP/")) {
    // A new response (after 100 Continue or a redirect) starts over.
    r->retry_after.clear();
    r->headers_done = false;
  } else if (h == "\r\n" || h == "\n") {
    r->headers_done = true;
  } else {
    const size_t colon = h.find(':');
    if (colon != std::string_view::npos &&
        AsciiToLower(StripWhitespace(h.substr(0, colon))) == "retry-after") {
      r->retry_after = std::string(StripWhitespace(h.substr(colon + 1)));
    }
  }
  return size * n;
}

struct CurlSlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using Slist = std::unique_ptr<curl_slist, CurlSlistDeleter>;

// Easy handles kept for reuse between requests; each keeps its own connection open (libcurl
// keeps an easy handle's live connections across curl_easy_reset).
constexpr size_t kMaxIdleHandles = 64;

}  // namespace

class RestClient::Impl {
 public:
  Impl(RestConfig config, RestClientOptions options)
      : config_(std::move(config)),
        options_(std::move(options)),
        clock_(options_.clock != nullptr ? options_.clock : RealClock::Get()),
        random_(options_.random != nullptr ? options_.random : SeededRandom::Default()),
        limiter_(config_.qps, config_.burst, clock_),
        credentials_(NewCredentialSource(config_, clock_)) {
    GlobalInit();
    user_agent_ =
        config_.user_agent.empty()
            ? DefaultUserAgent(options_.user_agent_suffix)
            : config_.user_agent +
                  (options_.user_agent_suffix.empty() ? "" : " " + options_.user_agent_suffix);
    share_ = curl_share_init();
    curl_share_setopt(share_, CURLSHOPT_LOCKFUNC, &Impl::Lock);
    curl_share_setopt(share_, CURLSHOPT_UNLOCKFUNC, &Impl::Unlock);
    curl_share_setopt(share_, CURLSHOPT_USERDATA, this);
    curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    // Not CURL_LOCK_DATA_CONNECT: libcurl does not support sharing connections between
    // concurrent threads (curl_share_setopt(3); KNOWN_BUGS "A shared connection cache is not
    // thread-safe", crashes reported up to 8.x). Each pooled handle keeps its own connection,
    // and a handle serves one thread at a time.
  }

  ~Impl() {
    for (CURL* h : idle_) curl_easy_cleanup(h);
    curl_share_cleanup(share_);
  }

  Status Init() {
    // tls-server-name: connect to the configured host but speak TLS (SNI and certificate
    // check) for the given name, by addressing the URL to that name and routing it.
    base_url_ = config_.host;
    if (!config_.tls.server_name.empty()) {
      CURLU* u = curl_url();
      if (curl_url_set(u, CURLUPART_URL, config_.host.c_str(), 0) != CURLUE_OK) {
        curl_url_cleanup(u);
        return InvalidArgumentError("invalid server URL " + config_.host);
      }
      char* host = nullptr;
      char* port = nullptr;
      curl_url_get(u, CURLUPART_HOST, &host, 0);
      curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
      std::string h = host != nullptr ? host : "";
      std::string p = port != nullptr ? port : "443";
      curl_free(host);
      curl_free(port);
      curl_url_set(u, CURLUPART_HOST, config_.tls.server_name.c_str(), 0);
      char* url = nullptr;
      curl_url_get(u, CURLUPART_URL, &url, 0);
      base_url_ = url != nullptr ? url : config_.host;
      curl_free(url);
      curl_url_cleanup(u);
      while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
      connect_to_ = config_.tls.server_name + ":" + p + ":" + h + ":" + p;
      connect_list_.reset(curl_slist_append(nullptr, connect_to_.c_str()));
    }
    return Status::OK();
  }

  static void Lock(CURL*, curl_lock_data data, curl_lock_access, void* user) {
    static_cast<Impl*>(user)->share_locks_[static_cast<size_t>(data) % kLocks].lock();
  }
  static void Unlock(CURL*, curl_lock_data data, void* user) {
    static_cast<Impl*>(user)->share_locks_[static_cast<size_t>(data) % kLocks].unlock();
  }

  CURL* Acquire() {
    {
      std::lock_guard<std::mutex> l(pool_mu_);
      if (!idle_.empty()) {
        CURL* h = idle_.back();
        idle_.pop_back();
        return h;
      }
    }
    return curl_easy_init();
  }

  void Release(CURL* h) {
    curl_easy_reset(h);
    std::lock_guard<std::mutex> l(pool_mu_);
    if (idle_.size() < kMaxIdleHandles) {
      idle_.push_back(h);
      return;
    }
    curl_easy_cleanup(h);
  }

  // Sets every option of one request on `h`. `headers` and the request must outlive the
  // transfer.
  Status Setup(CURL* h, const HttpRequest& req, const Credentials& cred, bool watch,
               HttpResponse* resp, Slist* headers, char* errbuf) {
    const std::string url = base_url_ + req.path;
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_SHARE, share_);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_USERAGENT, user_agent_.c_str());
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                           options_.connect_timeout)
                                           .count()));
    if (watch) {
      // No total timeout on watches; a dead peer is detected by the low-speed limit.
      curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 0L);
      const long stall = static_cast<long>(
          std::chrono::duration_cast<std::chrono::seconds>(options_.watch_stall_timeout).count());
      if (stall > 0) {
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, stall);
      }
    } else if (config_.timeout.count() > 0) {
      curl_easy_setopt(
          h, CURLOPT_TIMEOUT_MS,
          static_cast<long>(
              std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout).count()));
    }
    if (connect_list_ != nullptr) curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_list_.get());
    if (!config_.proxy_url.empty()) curl_easy_setopt(h, CURLOPT_PROXY, config_.proxy_url.c_str());

    // TLS from memory.
    if (config_.tls.insecure) {
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (!config_.tls.ca_pem.empty()) {
      curl_blob ca{const_cast<char*>(config_.tls.ca_pem.data()), config_.tls.ca_pem.size(),
                   CURL_BLOB_NOCOPY};
      curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
      // Trust only the configured CA, as client-go does.
      curl_easy_setopt(h, CURLOPT_CAINFO, static_cast<char*>(nullptr));
      curl_easy_setopt(h, CURLOPT_CAPATH, static_cast<char*>(nullptr));
    }
    const std::string& cert = cred.cert_pem.empty() ? config_.tls.cert_pem : cred.cert_pem;
    const std::string& key = cred.cert_pem.empty() ? config_.tls.key_pem : cred.key_pem;
    if (!cert.empty()) {
      curl_blob c{const_cast<char*>(cert.data()), cert.size(), CURL_BLOB_COPY};
      curl_blob k{const_cast<char*>(key.data()), key.size(), CURL_BLOB_COPY};
      curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
      curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &c);
      curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
      curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &k);
    }

    curl_slist* list = nullptr;
    list = curl_slist_append(list, "Accept: application/json");
    // No "Expect: 100-continue" round trip for large bodies.
    list = curl_slist_append(list, "Expect:");
    if (!req.content_type.empty()) {
      list = curl_slist_append(list, ("Content-Type: " + req.content_type).c_str());
    }
    if (!cred.bearer_token.empty()) {
      list = curl_slist_append(list, ("Authorization: Bearer " + cred.bearer_token).c_str());
    } else if (!cred.username.empty()) {
      curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
      curl_easy_setopt(h, CURLOPT_USERNAME, cred.username.c_str());
      curl_easy_setopt(h, CURLOPT_PASSWORD, cred.password.c_str());
    }
    headers->reset(list);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);

    if (req.method == "GET") {
      curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else if (req.method == "POST") {
      curl_easy_setopt(h, CURLOPT_POST, 1L);
    } else {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    }
    if (req.has_body) {
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    }
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &HeaderCallback);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, resp);
    return Status::OK();
  }

  // Waits before retry `attempt` (0-based): Retry-After when the server sent one, else an
  // exponential backoff.
  void WaitBeforeRetry(const HttpRequest& req, int attempt, int retry_after_seconds) {
    Duration wait;
    if (retry_after_seconds > 0) {
      wait = std::chrono::seconds(retry_after_seconds);
    } else {
      const double factor = std::pow(2.0, std::min(attempt, 30));
      wait = std::chrono::duration_cast<Duration>(options_.retry_base * factor);
    }
    wait = std::min(
        wait, std::max(options_.retry_cap, Duration(std::chrono::seconds(retry_after_seconds))));
    // Wakes at least every 100 ms (FakeClock: every few real ms) to notice a cancellation.
    std::mutex mu;
    std::condition_variable cv;
    std::unique_lock<std::mutex> l(mu);
    const MonoTime deadline = clock_->NowMonotonic() + wait;
    while (!Cancelled(req) && clock_->NowMonotonic() < deadline) {
      clock_->WaitUntil(
          cv, l, std::min(deadline, clock_->NowMonotonic() + std::chrono::milliseconds(100)));
    }
  }

  // Decides whether an answer (or transport error) is retried.
  bool ShouldRetry(const HttpRequest& req, const Status& s, bool has_retry_after) const {
    if (IsTransportError(s)) return req.idempotent;
    const int code = s.http_code();
    if (code == 429) return true;  // the server did not process it
    if (code >= 500 && code != 501) return req.idempotent || has_retry_after;
    return false;
  }

  StatusOr<Credentials> GetCredentials() { return credentials_->Get(); }

  // One request with throttling, retries and 401 re-authentication. Returns the 2xx body.
  StatusOr<std::string> Do(const HttpRequest& req) {
    bool reauthenticated = false;
    Status last;
    for (int attempt = 0;; ++attempt) {
      if (Cancelled(req)) return CancelledError(req.method + " " + req.path + ": cancelled");
      if (limiter_.Delay().count() > 0) ++stats_throttled_;
      if (!limiter_.Accept()) return CancelledError("client stopped");
      KAI_ASSIGN_OR_RETURN(Credentials cred, GetCredentials());
      HttpResponse resp;
      CURLcode rc;
      char errbuf[CURL_ERROR_SIZE] = {0};
      {
        CURL* h = Acquire();
        Slist headers;
        KAI_RETURN_IF_ERROR(Setup(h, req, cred, false, &resp, &headers, errbuf));
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &WriteToString);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &resp);
        if (req.cancel != nullptr) {
          curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
          curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &CancelProgress);
          curl_easy_setopt(h, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(req.cancel));
        }
        ++stats_requests_;
        if (attempt > 0) ++stats_retries_;
        rc = curl_easy_perform(h);
        long code = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
        resp.code = static_cast<int>(code);
        long connects = 0;
        curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &connects);
        stats_connections_ += connects;
        Release(h);
      }
      if (rc != CURLE_OK) {
        if (Cancelled(req)) return CancelledError(req.method + " " + req.path + ": cancelled");
        last = CurlError(rc, errbuf, req.method, base_url_ + req.path);
      } else if (resp.code >= 200 && resp.code < 300) {
        return std::move(resp.body);
      } else {
        last = StatusFromResponse(resp.code, resp.body, resp.retry_after, req.method, req.path);
        if (resp.code == 401) {
          ++stats_unauthorized_;
          if (!reauthenticated && credentials_->Invalidate()) {
            reauthenticated = true;
            --attempt;  // a fresh credential is not a retry
            continue;
          }
        }
      }
      if (attempt >= options_.max_retries ||
          !ShouldRetry(req, last, last.retry_after_seconds() > 0)) {
        return last;
      }
      VLOG(2) << "retrying " << req.method << " " << req.path << " after " << last;
      WaitBeforeRetry(req, attempt, last.retry_after_seconds());
    }
  }

  StatusOr<std::unique_ptr<Watcher>> OpenWatch(const HttpRequest& req);

  RestConfig config_;
  RestClientOptions options_;
  Clock* clock_;
  Random* random_;
  TokenBucket limiter_;
  std::unique_ptr<CredentialSource> credentials_;
  std::string user_agent_;
  std::string base_url_;
  std::string connect_to_;
  Slist connect_list_;

  static constexpr size_t kLocks = 8;
  std::array<std::mutex, kLocks> share_locks_;
  CURLSH* share_ = nullptr;
  std::mutex pool_mu_;
  std::vector<CURL*> idle_;

  std::atomic<int64_t> stats_requests_{0};
  std::atomic<int64_t> stats_retries_{0};
  std::atomic<int64_t> stats_throttled_{0};
  std::atomic<int64_t> stats_unauthorized_{0};
  std::atomic<int64_t> stats_connections_{0};
};

namespace {

// A watch stream pulled through a curl multi handle: Next() drives the transfer until a whole
// line is buffered, so a slow consumer simply reads later (TCP flow control) and no extra
// thread is needed. Stop() wakes a blocked poll from any thread.
class CurlWatcher final : public Watcher {
 public:
  CurlWatcher() : multi_(curl_multi_init()) {}
  ~CurlWatcher() override {
    if (easy_ != nullptr) {
      curl_multi_remove_handle(multi_, easy_);
      curl_easy_cleanup(easy_);
    }
    curl_multi_cleanup(multi_);
  }

  // Starts the transfer and drives it until the response headers arrived (or it ended).
  Status Start(RestClient::Impl* impl, const HttpRequest& req, const Credentials& cred) {
    req_ = req;
    easy_ = curl_easy_init();
    KAI_RETURN_IF_ERROR(impl->Setup(easy_, req_, cred, true, &resp_, &headers_, errbuf_));
    curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, &CurlWatcher::OnData);
    curl_easy_setopt(easy_, CURLOPT_WRITEDATA, this);
    curl_easy_setopt(easy_, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(easy_, CURLOPT_XFERINFOFUNCTION, &CurlWatcher::OnProgress);
    curl_easy_setopt(easy_, CURLOPT_XFERINFODATA, this);
    url_ = impl->base_url_ + req.path;
    curl_multi_add_handle(multi_, easy_);
    while (!resp_.headers_done && !done_ && !Cancelled(req_)) Drive(100);
    if (Cancelled(req_)) return CancelledError("watch " + req.path + ": cancelled");
    if (done_ && !transfer_status_.ok()) return transfer_status_;
    long code = 0;
    curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &code);
    resp_.code = static_cast<int>(code);
    if (resp_.code != 200) {
      while (!done_ && !Cancelled(req_)) Drive(100);
      if (!transfer_status_.ok() && transfer_status_.code() != StatusCode::kCancelled) {
        return transfer_status_;
      }
      return StatusFromResponse(resp_.code, lines_.TakeRest(), resp_.retry_after, "GET", req.path);
    }
    started_ = true;
    return Status::OK();
  }

  int response_code() const { return resp_.code; }

  bool Next(WatchEvent* event) override {
    std::string line;
    while (true) {
      if (stop_.load()) return Finish(CancelledError("watch stopped"));
      if (lines_.NextLine(&line)) return Decode(line, event);
      if (done_) {
        std::string rest = lines_.TakeRest();
        if (!rest.empty()) return Decode(rest, event);
        return Finish(transfer_status_);
      }
      Drive(1000);
    }
  }

  void Stop() override {
    stop_.store(true);
    curl_multi_wakeup(multi_);
  }

  Status Result() const override {
    std::lock_guard<std::mutex> l(mu_);
    return result_;
  }

 private:
  bool Decode(const std::string& line, WatchEvent* event) {
    Status s = internal::DecodeWatchEvent(line, event);
    if (!s.ok()) return Finish(s);
    return true;
  }

  bool Finish(Status s) {
    std::lock_guard<std::mutex> l(mu_);
    if (result_.ok()) result_ = std::move(s);
    done_ = true;
    return false;
  }

  void Drive(int poll_ms) {
    int running = 0;
    curl_multi_perform(multi_, &running);
    int queued = 0;
    while (CURLMsg* m = curl_multi_info_read(multi_, &queued)) {
      if (m->msg != CURLMSG_DONE) continue;
      done_ = true;
      const CURLcode rc = m->data.result;
      if (rc == CURLE_OK) {
        transfer_status_ = Status::OK();  // the server closed the stream
      } else if (stop_.load()) {
        transfer_status_ = CancelledError("watch stopped");
      } else {
        transfer_status_ = CurlError(rc, errbuf_, "GET", url_);
      }
    }
    if (done_ || lines_.buffered() > 0) {
      // Data may already hold a complete line; let the caller look before polling again.
      if (done_ || got_data_) {
        got_data_ = false;
        return;
      }
    }
    // Respect libcurl's own schedule: it asks for an immediate call when it holds data already
    // read from the socket (e.g. decrypted TLS records) that polling the socket would not
    // reveal.
    long curl_ms = -1;
    curl_multi_timeout(multi_, &curl_ms);
    const int wait = curl_ms >= 0 && curl_ms < poll_ms ? static_cast<int>(curl_ms) : poll_ms;
    if (wait > 0) curl_multi_poll(multi_, nullptr, 0, wait, nullptr);
  }

  static size_t OnData(char* ptr, size_t size, size_t n, void* user) {
    auto* self = static_cast<CurlWatcher*>(user);
    if (self->resp_.code == 0) {
      long code = 0;
      curl_easy_getinfo(self->easy_, CURLINFO_RESPONSE_CODE, &code);
      self->resp_.code = static_cast<int>(code);
    }
    self->lines_.Append(std::string_view(ptr, size * n));
    self->got_data_ = true;
    return size * n;
  }

  static int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* self = static_cast<CurlWatcher*>(user);
    return self->stop_.load() || (!self->started_ && Cancelled(self->req_)) ? 1 : 0;
  }

  CURLM* multi_;
  CURL* easy_ = nullptr;
  HttpRequest req_;
  HttpResponse resp_;
  Slist headers_;
  char errbuf_[CURL_ERROR_SIZE] = {0};
  std::string url_;
  internal::LineBuffer lines_;
  bool got_data_ = false;
  bool done_ = false;
  bool started_ = false;  // the cancel flag only matters until the stream is handed out
  Status transfer_status_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  Status result_;
};

}  // namespace

StatusOr<std::unique_ptr<Watcher>> RestClient::Impl::OpenWatch(const HttpRequest& req) {
  bool reauthenticated = false;
  for (int attempt = 0;; ++attempt) {
    if (Cancelled(req)) return CancelledError("watch " + req.path + ": cancelled");
    if (limiter_.Delay().count() > 0) ++stats_throttled_;
    if (!limiter_.Accept()) return CancelledError("client stopped");
    KAI_ASSIGN_OR_RETURN(Credentials cred, GetCredentials());
    auto w = std::make_unique<CurlWatcher>();
    ++stats_requests_;
    if (attempt > 0) ++stats_retries_;
    Status s = w->Start(this, req, cred);
    if (s.ok()) return std::unique_ptr<Watcher>(std::move(w));
    if (Cancelled(req)) return CancelledError("watch " + req.path + ": cancelled");
    if (s.http_code() == 401) {
      ++stats_unauthorized_;
      if (!reauthenticated && credentials_->Invalidate()) {
        reauthenticated = true;
        --attempt;
        continue;
      }
    }
    if (attempt >= options_.max_retries || !ShouldRetry(req, s, s.retry_after_seconds() > 0)) {
      return s;
    }
    VLOG(2) << "retrying watch " << req.path << " after " << s;
    WaitBeforeRetry(req, attempt, s.retry_after_seconds());
  }
}

RestClient::RestClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestClient::~RestClient() = default;

StatusOr<std::unique_ptr<RestClient>> RestClient::New(RestConfig config,
                                                      RestClientOptions options) {
  if (config.host.empty()) return InvalidArgumentError("rest client: no server (host) configured");
  if (config.host.rfind("https://", 0) != 0 && config.host.rfind("http://", 0) != 0) {
    return InvalidArgumentError("rest client: server must be an http:// or https:// URL, got " +
                                config.host);
  }
  while (!config.host.empty() && config.host.back() == '/') config.host.pop_back();
  auto impl = std::make_unique<Impl>(std::move(config), std::move(options));
  KAI_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<RestClient>(new RestClient(std::move(impl)));
}

StatusOr<std::string> RestClient::Get(const GroupVersionResource& gvr, std::string_view ns,
                                      std::string_view name, const GetOptions& options) {
  if (name.empty()) return InvalidArgumentError("get " + gvr.resource + ": empty name");
  HttpRequest req;
  req.path = ResourcePath(gvr, ns, name, options.subresource) +
             Query().Add("resourceVersion", options.resource_version).str();
  return impl_->Do(req);
}

StatusOr<ObjectList> RestClient::List(const GroupVersionResource& gvr, std::string_view ns,
                                      const ListOptions& options) {
  HttpRequest req;
  req.path =
      ResourcePath(gvr, ns) + Query()
                                  .Add("labelSelector", options.label_selector)
                                  .Add("fieldSelector", options.field_selector)
                                  .Add("resourceVersion", options.resource_version)
                                  .Add("resourceVersionMatch", options.resource_version_match)
                                  .AddInt("limit", options.limit)
                                  .Add("continue", options.continue_token)
                                  .AddInt("timeoutSeconds", options.timeout_seconds)
                                  .str();
  req.cancel = options.cancel;
  KAI_ASSIGN_OR_RETURN(std::string body, impl_->Do(req));
  ObjectList list;
  KAI_RETURN_IF_ERROR(internal::DecodeList(body, &list));
  if (list.api_version.empty()) list.api_version = gvr.ApiVersion();
  return list;
}

StatusOr<std::string> RestClient::Create(const GroupVersionResource& gvr, std::string_view ns,
                                         std::string_view body, const WriteOptions& options) {
  HttpRequest req;
  req.method = "POST";
  req.idempotent = false;
  Query q;
  AddWriteOptions(q, options);
  req.path = ResourcePath(gvr, ns) + q.str();
  req.body = std::string(body);
  req.has_body = true;
  req.content_type = "application/json";
  return impl_->Do(req);
}

StatusOr<std::string> RestClient::Update(const GroupVersionResource& gvr, std::string_view ns,
                                         std::string_view name, std::string_view body,
                                         const WriteOptions& options) {
  if (name.empty()) return InvalidArgumentError("update " + gvr.resource + ": empty name");
  HttpRequest req;
  req.method = "PUT";
  Query q;
  AddWriteOptions(q, options);
  req.path = ResourcePath(gvr, ns, name, options.subresource) + q.str();
  req.body = std::string(body);
  req.has_body = true;
  req.content_type = "application/json";
  return impl_->Do(req);
}

StatusOr<std::string> RestClient::Patch(const GroupVersionResource& gvr, std::string_view ns,
                                        std::string_view name, PatchType type,
                                        std::string_view patch, const PatchOptions& options) {
  if (name.empty()) return InvalidArgumentError("patch " + gvr.resource + ": empty name");
  HttpRequest req;
  req.method = "PATCH";
  // A JSON patch may add to lists; merge/strategic/apply patches converge when repeated.
  req.idempotent = type != PatchType::kJson;
  Query q;
  AddWriteOptions(q, options);
  if (type == PatchType::kApply && options.force) q.Add("force", "true");
  req.path = ResourcePath(gvr, ns, name, options.subresource) + q.str();
  req.body = std::string(patch);
  req.has_body = true;
  req.content_type = std::string(PatchContentType(type));
  return impl_->Do(req);
}

StatusOr<std::string> RestClient::Delete(const GroupVersionResource& gvr, std::string_view ns,
                                         std::string_view name, const DeleteOptions& options) {
  if (name.empty()) return InvalidArgumentError("delete " + gvr.resource + ": empty name");
  HttpRequest req;
  req.method = "DELETE";
  req.path = ResourcePath(gvr, ns, name);
  req.body = internal::DeleteOptionsJson(options);
  req.has_body = true;
  req.content_type = "application/json";
  return impl_->Do(req);
}

StatusOr<std::string> RestClient::CreateSubresource(const GroupVersionResource& gvr,
                                                    std::string_view ns, std::string_view name,
                                                    std::string_view subresource,
                                                    std::string_view body,
                                                    const WriteOptions& options) {
  if (name.empty() || subresource.empty()) {
    return InvalidArgumentError("create " + gvr.resource + " subresource: empty name");
  }
  HttpRequest req;
  req.method = "POST";
  req.idempotent = false;
  Query q;
  AddWriteOptions(q, options);
  req.path = ResourcePath(gvr, ns, name, subresource) + q.str();
  req.body = std::string(body);
  req.has_body = true;
  req.content_type = "application/json";
  return impl_->Do(req);
}

StatusOr<std::unique_ptr<Watcher>> RestClient::Watch(const GroupVersionResource& gvr,
                                                     std::string_view ns,
                                                     const WatchOptions& options) {
  HttpRequest req;
  Query q;
  q.Add("watch", "true")
      .Add("labelSelector", options.label_selector)
      .Add("fieldSelector", options.field_selector)
      .Add("resourceVersion", options.resource_version)
      .AddInt("timeoutSeconds", options.timeout_seconds);
  if (options.allow_bookmarks) q.Add("allowWatchBookmarks", "true");
  if (options.send_initial_events) {
    q.Add("sendInitialEvents", "true").Add("resourceVersionMatch", "NotOlderThan");
  }
  req.path = ResourcePath(gvr, ns) + q.str();
  req.cancel = options.cancel;
  return impl_->OpenWatch(req);
}

StatusOr<std::string> RestClient::Raw(std::string_view method, std::string_view path,
                                      std::string_view body, std::string_view content_type) {
  HttpRequest req;
  req.method = std::string(method);
  req.idempotent = method == "GET" || method == "PUT" || method == "DELETE" || method == "HEAD";
  req.path = std::string(path);
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    req.body = std::string(body);
    req.has_body = true;
    req.content_type = content_type.empty() ? "application/json" : std::string(content_type);
  }
  return impl_->Do(req);
}

void RestClient::SetRateLimit(double qps, int burst) { impl_->limiter_.SetRate(qps, burst); }

const RestConfig& RestClient::config() const { return impl_->config_; }

RestClientStats RestClient::stats() const {
  RestClientStats s;
  s.requests = impl_->stats_requests_.load();
  s.retries = impl_->stats_retries_.load();
  s.throttled = impl_->stats_throttled_.load();
  s.unauthorized = impl_->stats_unauthorized_.load();
  s.connections = impl_->stats_connections_.load();
  if (auto* exec = dynamic_cast<ExecCredentialSource*>(impl_->credentials_.get())) {
    s.exec_runs = exec->runs();
  }
  return s;
}

std::string DefaultUserAgent(std::string_view suffix) {
  // client-go names the command (os.Args[0]'s base name), so the API server's audit log and
  // request metrics tell the scheduler from the binder.
  std::string command =
      program_invocation_short_name != nullptr && *program_invocation_short_name != '\0'
          ? program_invocation_short_name
          : "kai";
  std::string ua = command + "/v0.1.0 (linux/amd64) kai";
  if (!suffix.empty()) ua += " " + std::string(suffix);
  return ua;
}

}  // namespace kai::kube
