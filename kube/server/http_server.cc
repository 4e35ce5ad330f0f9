#include "kube/server/http_server.h"

#include <glog/logging.h>
#include <sys/stat.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "kube/base/file.h"
#include "kube/base/strings.h"

namespace kai::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using error_code = boost::system::error_code;

StatusOr<std::pair<std::string, uint16_t>> ParseBindAddress(std::string_view address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) {
    return InvalidArgumentError("bind address \"" + std::string(address) +
                                "\": want host:port, e.g. \":8080\"");
  }
  std::string host(address.substr(0, colon));
  const std::string_view port_text = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int port = 0;
  if (port_text.empty() || port_text.size() > 5) port = -1;
  for (char c : port_text) {
    if (c < '0' || c > '9') {
      port = -1;
      break;
    }
    port = port * 10 + (c - '0');
  }
  if (port < 0 || port > 65535) {
    return InvalidArgumentError("bind address \"" + std::string(address) + "\": invalid port \"" +
                                std::string(port_text) + "\"");
  }
  return std::make_pair(host, static_cast<uint16_t>(port));
}

bool IsDisabledAddress(std::string_view address) { return address.empty() || address == "0"; }

Status ValidateBindAddressFlag(std::string_view flag, std::string_view value) {
  if (IsDisabledAddress(value)) return Status::OK();
  return ParseBindAddress(value).status().WithPrefix(StrCat("--", flag));
}

namespace {

// A TLS certificate from memory or from files that may be replaced at runtime.
class CertificateStore {
 public:
  explicit CertificateStore(TlsOptions options) : options_(std::move(options)) {}

  Status Load() {
    std::lock_guard<std::mutex> l(mu_);
    return LoadLocked();
  }

  // The context for a new connection, reloaded first when the files changed.
  std::shared_ptr<ssl::context> Current() {
    std::lock_guard<std::mutex> l(mu_);
    if (!options_.cert_file.empty()) {
      const FileId cert = Stat(options_.cert_file);
      const FileId key = Stat(options_.key_file);
      if (cert != cert_id_ || key != key_id_) {
        Status s = LoadLocked();
        if (!s.ok()) {
          LOG(ERROR) << "keeping the previous serving certificate: " << s;
          // Do not retry on every connection until the files change again.
          cert_id_ = cert;
          key_id_ = key;
        }
      }
    }
    return context_;
  }

  int loads() const { return loads_.load(); }

 private:
  struct FileId {
    dev_t dev = 0;
    ino_t ino = 0;
    int64_t mtime_ns = 0;
    off_t size = -1;
    bool operator==(const FileId&) const = default;
  };

  static FileId Stat(const std::string& path) {
    struct stat st {};
    FileId id;
    if (::stat(path.c_str(), &st) != 0) return id;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    id.size = st.st_size;
    return id;
  }

  Status LoadLocked() {
    std::string cert_pem = options_.cert_pem;
    std::string key_pem = options_.key_pem;
    std::string what = "in-memory certificate";
    FileId cert_id, key_id;
    if (!options_.cert_file.empty()) {
      what = "certificate " + options_.cert_file + " / key " + options_.key_file;
      // Stat before reading: a change during the read is seen again at the next connection.
      cert_id = Stat(options_.cert_file);
      key_id = Stat(options_.key_file);
      KAI_ASSIGN_OR_RETURN(cert_pem, ReadFile(options_.cert_file));
      KAI_ASSIGN_OR_RETURN(key_pem, ReadFile(options_.key_file));
    }
    if (cert_pem.empty() || key_pem.empty()) {
      return InvalidArgumentError("TLS: " + what + ": certificate and key are both required");
    }
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    error_code ec;
    ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                         ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                         ssl::context::no_tlsv1_1 | ssl::context::single_dh_use,
                     ec);
    ctx->use_certificate_chain(asio::buffer(cert_pem), ec);
    if (ec) return InvalidArgumentError("TLS: " + what + ": bad certificate: " + ec.message());
    ctx->use_private_key(asio::buffer(key_pem), ssl::context::pem, ec);
    if (ec) return InvalidArgumentError("TLS: " + what + ": bad private key: " + ec.message());
    // use_private_key already rejects a key that does not match ("key values mismatch").
    context_ = std::move(ctx);
    cert_id_ = cert_id;
    key_id_ = key_id;
    loads_.fetch_add(1);
    if (loads_.load() > 1) LOG(INFO) << "TLS: reloaded " << what;
    return Status::OK();
  }

  const TlsOptions options_;
  std::mutex mu_;
  std::shared_ptr<ssl::context> context_;
  FileId cert_id_, key_id_;
  std::atomic<int> loads_{0};
};

}  // namespace

struct HttpServer::Impl {
  explicit Impl(HttpServerOptions o) : options(std::move(o)) {}

  HttpServerOptions options;
  Router router;
  std::unique_ptr<CertificateStore> certs;
  // Destroyed by Stop(): that destroys every pending handler and so closes open connections.
  std::unique_ptr<asio::io_context> ioc = std::make_unique<asio::io_context>();
  std::unique_ptr<tcp::acceptor> acceptor;
  std::vector<std::thread> threads;
  std::atomic<bool> running{false};
  uint16_t port = 0;

  void DoAccept();
  HttpResponse Dispatch(const HttpRequest& request);
};

namespace {

HttpRequest ToRequest(const bhttp::request<bhttp::string_body>& req, std::string remote) {
  HttpRequest r;
  r.method = std::string(req.method_string());
  r.target = std::string(req.target());
  ParseTarget(r.target, &r.path, &r.query);
  for (const auto& field : req) {
    const auto n = field.name_string();
    std::string name = AsciiToLower(std::string_view(n.data(), n.size()));
    auto [it, inserted] = r.headers.emplace(name, std::string(field.value()));
    if (!inserted) it->second += ", " + std::string(field.value());
  }
  r.body = req.body();
  r.remote_address = std::move(remote);
  return r;
}

template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

  // Plain HTTP.
  Session(tcp::socket socket, HttpServer::Impl* server) requires(!kTls)
      : server_(server), stream_(std::move(socket)) {}
  // HTTPS; `ctx` is kept alive by the session (it may be replaced by a reload meanwhile).
  Session(tcp::socket socket, HttpServer::Impl* server,
          std::shared_ptr<ssl::context> ctx) requires(kTls)
      : server_(server), ctx_(std::move(ctx)), stream_(std::move(socket), *ctx_) {}

  void Run() {
    error_code ec;
    const auto ep = beast::get_lowest_layer(stream_).socket().remote_endpoint(ec);
    if (!ec) remote_ = ep.address().to_string() + ":" + std::to_string(ep.port());
    if constexpr (kTls) {
      beast::get_lowest_layer(stream_).expires_after(server_->options.request_timeout);
      stream_.async_handshake(
          ssl::stream_base::server,
          beast::bind_front_handler(&Session::OnHandshake, this->shared_from_this()));
    } else {
      DoRead();
    }
  }

 private:
  void OnHandshake(error_code ec) {
    if (ec) {
      VLOG(2) << server_->options.name << ": TLS handshake with " << remote_
              << " failed: " << ec.message();
      return;
    }
    DoRead();
  }

  void DoRead() {
    parser_.emplace();
    parser_->body_limit(server_->options.max_body_bytes);
    beast::get_lowest_layer(stream_).expires_after(server_->options.request_timeout);
    bhttp::async_read(stream_, buffer_, *parser_,
                      beast::bind_front_handler(&Session::OnRead, this->shared_from_this()));
  }

  void OnRead(error_code ec, size_t) {
    if (ec == bhttp::error::end_of_stream) return DoClose();
    if (ec == bhttp::error::body_limit) {
      HttpResponse too_large = HttpResponse::Error(413, "request body too large");
      return Write(too_large, /*keep_alive=*/false, 11);
    }
    if (ec) return;  // timeout, reset, garbage: drop the connection
    const auto& req = parser_->get();
    HttpResponse resp = server_->Dispatch(ToRequest(req, remote_));
    Write(resp, req.keep_alive(), req.version());
  }

  void Write(const HttpResponse& resp, bool keep_alive, unsigned version) {
    res_ = {};
    res_.version(version);
    res_.result(static_cast<unsigned>(resp.status));
    res_.set(bhttp::field::content_type, resp.content_type);
    for (const auto& [k, v] : resp.headers) res_.set(k, v);
    res_.body() = resp.body;
    res_.keep_alive(keep_alive);
    res_.prepare_payload();
    beast::get_lowest_layer(stream_).expires_after(server_->options.request_timeout);
    bhttp::async_write(stream_, res_,
                       beast::bind_front_handler(&Session::OnWrite, this->shared_from_this()));
  }

  void OnWrite(error_code ec, size_t) {
    if (ec) return;
    if (!res_.keep_alive()) return DoClose();
    DoRead();
  }

  void DoClose() {
    if constexpr (kTls) {
      beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(5));
      stream_.async_shutdown([self = this->shared_from_this()](error_code) {});
    } else {
      error_code ec;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    }
  }

  HttpServer::Impl* const server_;
  std::shared_ptr<ssl::context> ctx_;  // before stream_: constructed first, destroyed last
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  bhttp::response<bhttp::string_body> res_;
  std::string remote_;
};

}  // namespace

HttpResponse HttpServer::Impl::Dispatch(const HttpRequest& request) {
  // No exception leaves a handler: it becomes a 500 for this request only.
  try {
    return router.Serve(request);
  } catch (const std::exception& e) {
    LOG(ERROR) << options.name << ": handler for " << request.method << " " << request.path
               << " threw: " << e.what();
  } catch (...) {
    LOG(ERROR) << options.name << ": handler for " << request.method << " " << request.path
               << " threw a non-standard exception";
  }
  return HttpResponse::Error(500, "internal server error");
}

void HttpServer::Impl::DoAccept() {
  acceptor->async_accept(asio::make_strand(*ioc), [this](error_code ec, tcp::socket socket) {
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor->is_open()) return;
      LOG(WARNING) << options.name << ": accept failed: " << ec.message();
    } else if (certs != nullptr) {
      std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(std::move(socket), this,
                                                                      certs->Current())
          ->Run();
    } else {
      std::make_shared<Session<beast::tcp_stream>>(std::move(socket), this)->Run();
    }
    DoAccept();
  });
}

HttpServer::HttpServer(HttpServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Handle(std::string pattern, Handler handler) {
  impl_->router.Handle(std::move(pattern), std::move(handler));
}

Router* HttpServer::router() { return &impl_->router; }

bool HttpServer::running() const { return impl_->running.load(); }
uint16_t HttpServer::port() const { return impl_->port; }
const HttpServerOptions& HttpServer::options() const { return impl_->options; }
int HttpServer::certificate_loads() const {
  return impl_->certs == nullptr ? 0 : impl_->certs->loads();
}

Status HttpServer::Start() {
  Impl& s = *impl_;
  if (s.running) return FailedPreconditionError(s.options.name + ": server already started");
  if (s.ioc == nullptr) return FailedPreconditionError(s.options.name + ": server was stopped");
  KAI_ASSIGN_OR_RETURN(auto host_port, ParseBindAddress(s.options.bind_address));
  if (s.options.tls.has_value()) {
    s.certs = std::make_unique<CertificateStore>(*s.options.tls);
    KAI_RETURN_IF_ERROR(s.certs->Load().WithPrefix(s.options.name));
  }
  const std::string where = s.options.name + ": listen on " + s.options.bind_address;
  error_code ec;
  tcp::endpoint endpoint;
  if (host_port.first.empty()) {
    endpoint = tcp::endpoint(tcp::v4(), host_port.second);
  } else {
    const auto address = asio::ip::make_address(host_port.first, ec);
    if (!ec) {
      endpoint = tcp::endpoint(address, host_port.second);
    } else {
      tcp::resolver resolver(*s.ioc);
      auto results = resolver.resolve(host_port.first, std::to_string(host_port.second), ec);
      if (ec || results.empty()) {
        return InvalidArgumentError(where + ": cannot resolve host \"" + host_port.first + "\"");
      }
      endpoint = results.begin()->endpoint();
    }
  }
  auto acceptor = std::make_unique<tcp::acceptor>(*s.ioc);
  if (acceptor->open(endpoint.protocol(), ec)) return UnavailableError(where + ": " + ec.message());
  if (acceptor->set_option(asio::socket_base::reuse_address(true), ec)) {
    return UnavailableError(where + ": " + ec.message());
  }
  if (acceptor->bind(endpoint, ec)) return UnavailableError(where + ": " + ec.message());
  if (acceptor->listen(asio::socket_base::max_listen_connections, ec)) {
    return UnavailableError(where + ": " + ec.message());
  }
  s.port = acceptor->local_endpoint(ec).port();
  s.acceptor = std::move(acceptor);
  s.DoAccept();
  s.running = true;
  const int threads = std::max(1, s.options.threads);
  for (int i = 0; i < threads; ++i) {
    s.threads.emplace_back([&s] {
      while (true) {
        try {
          s.ioc->run();
          return;
        } catch (const std::exception& e) {
          LOG(ERROR) << s.options.name << ": server thread caught: " << e.what();
        }
      }
    });
  }
  LOG(INFO) << s.options.name << ": serving " << (s.certs != nullptr ? "HTTPS" : "HTTP")
            << " on port " << s.port;
  return Status::OK();
}

void HttpServer::Stop() {
  Impl& s = *impl_;
  if (!s.running.exchange(false)) return;
  s.ioc->stop();
  for (auto& t : s.threads) t.join();
  s.threads.clear();
  error_code ec;
  s.acceptor->close(ec);
  s.acceptor.reset();
  s.ioc.reset();
  LOG(INFO) << s.options.name << ": stopped";
}

}  // namespace kai::server
