#include "test/localkube/http_server.h"

#include <arpa/inet.h>
#include <glog/logging.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>

#include "kube/base/strings.h"
#include "test/localkube/api_handler.h"
#include "test/localkube/errors.h"

namespace kai::localkube {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

struct HttpServer::Impl {
  net::io_context ioc{1};
  std::unique_ptr<net::ssl::context> ssl;
  int listen_fd = -1;
};

std::string PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else if (plus_is_space && s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

std::multimap<std::string, std::string> ParseQuery(std::string_view q) {
  std::multimap<std::string, std::string> out;
  size_t start = 0;
  while (start <= q.size()) {
    size_t amp = q.find('&', start);
    if (amp == std::string_view::npos) amp = q.size();
    const std::string_view kv = q.substr(start, amp - start);
    if (!kv.empty()) {
      const size_t eq = kv.find('=');
      if (eq == std::string_view::npos) {
        out.emplace(PercentDecode(kv, true), "");
      } else {
        out.emplace(PercentDecode(kv.substr(0, eq), true), PercentDecode(kv.substr(eq + 1), true));
      }
    }
    start = amp + 1;
  }
  return out;
}

HttpServer::HttpServer(HttpServerOptions options, Handler handler)
    : options_(std::move(options)), handler_(std::move(handler)), impl_(std::make_unique<Impl>()) {}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start() {
  if (options_.tls) {
    impl_->ssl = std::make_unique<net::ssl::context>(net::ssl::context::tls_server);
    boost::system::error_code ec;
    impl_->ssl->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                                net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                                net::ssl::context::no_tlsv1_1,
                            ec);
    impl_->ssl->use_certificate_chain(net::buffer(options_.cert_pem), ec);
    if (ec) return InvalidArgumentError("TLS certificate: " + ec.message());
    impl_->ssl->use_private_key(net::buffer(options_.key_pem), net::ssl::context::pem, ec);
    if (ec) return InvalidArgumentError("TLS private key: " + ec.message());
  }
  const bool v6 = options_.host.find(':') != std::string::npos;
  const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return InternalError("socket: " + std::string(strerror(errno)));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (v6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(options_.port);
    if (inet_pton(AF_INET6, options_.host.c_str(), &a->sin6_addr) != 1) {
      ::close(fd);
      return InvalidArgumentError("invalid listen address " + options_.host);
    }
    len = sizeof(sockaddr_in6);
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(options_.port);
    const std::string host = options_.host == "localhost" ? "127.0.0.1" : options_.host;
    if (inet_pton(AF_INET, host.c_str(), &a->sin_addr) != 1) {
      ::close(fd);
      return InvalidArgumentError("invalid listen address " + options_.host);
    }
    len = sizeof(sockaddr_in);
  }
  if (::bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0) {
    const std::string err = strerror(errno);
    ::close(fd);
    return UnavailableError("bind " + options_.host + ":" + std::to_string(options_.port) + ": " +
                            err);
  }
  if (::listen(fd, 1024) != 0) {
    ::close(fd);
    return InternalError("listen: " + std::string(strerror(errno)));
  }
  sockaddr_storage bound{};
  socklen_t blen = sizeof(bound);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &blen);
  port_ = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                   : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  impl_->listen_fd = fd;
  accept_thread_ = std::thread([this] { AcceptLoop(); });
  return Status::OK();
}

void HttpServer::Stop() {
  if (stopping_.exchange(true)) return;
  if (impl_->listen_fd >= 0) ::shutdown(impl_->listen_fd, SHUT_RDWR);
  if (accept_thread_.joinable()) accept_thread_.join();
  if (impl_->listen_fd >= 0) ::close(impl_->listen_fd);
  impl_->listen_fd = -1;
  std::unique_lock l(mu_);
  for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
  cv_.wait(l, [&] { return connections_.load() == 0; });
}

void HttpServer::AcceptLoop() {
  while (!stopping_) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    const int fd =
        ::accept4(impl_->listen_fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_) break;
      if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN) continue;
      if (errno == EMFILE || errno == ENFILE) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      break;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    char buf[INET6_ADDRSTRLEN] = {0};
    bool loopback = false;
    std::string remote;
    if (ss.ss_family == AF_INET) {
      auto* a = reinterpret_cast<sockaddr_in*>(&ss);
      inet_ntop(AF_INET, &a->sin_addr, buf, sizeof(buf));
      loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
      remote = std::string(buf) + ":" + std::to_string(ntohs(a->sin_port));
    } else {
      auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
      inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof(buf));
      loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
      remote = "[" + std::string(buf) + "]:" + std::to_string(ntohs(a->sin6_port));
    }
    if (connections_.load() >= options_.max_connections) {
      // Over the limit: answer 429 without blocking the accept loop, then close.
      static constexpr char kBusy[] =
          "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
          "Connection: close\r\nContent-Length: 145\r\n\r\n"
          "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
          "\"message\":"
          "\"too many connections\",\"reason\":\"TooManyRequests\",\"code\":429}      ";
      if (options_.tls) {
        ::close(fd);  // a TLS client could not read a plain answer
      } else {
        ::send(fd, kBusy, sizeof(kBusy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
        ::close(fd);
      }
      continue;
    }
    {
      std::lock_guard l(mu_);
      fds_.insert(fd);
      ++connections_;
    }
    std::thread([this, fd, loopback, remote] {
      Serve(fd, loopback, remote);
      std::lock_guard l(mu_);
      fds_.erase(fd);
      ::close(fd);
      --connections_;
      cv_.notify_all();
    }).detach();
  }
}

namespace {

// Responses and watch chunks up to this size are copied into one buffer and written at once (see
// BeastChunkWriter::Write, WriteMessage); above it (large list pages) the copy would not pay.
constexpr size_t kCoalesceLimit = 256 * 1024;

template <typename Stream>
class BeastChunkWriter : public ChunkWriter {
 public:
  BeastChunkWriter(Stream& s, int fd) : s_(s), fd_(fd) {}
  bool Write(std::string_view data) override {
    if (failed_) return false;
    if (data.empty()) return true;  // an empty chunk would end the body
    // One buffer, one write: "<hex size>\r\n<data>\r\n" exactly as http::make_chunk frames it.
    // A TLS stream's write_some linearises at most 8 KiB of a buffer sequence (Boost 1.74), so a
    // batch of watch events above that went out as three TLS records and send() calls.
    boost::system::error_code ec;
    if (data.size() > kCoalesceLimit) {
      net::write(s_, http::make_chunk(net::buffer(data.data(), data.size())), ec);
      if (ec) failed_ = true;
      return !failed_;
    }
    char size[20];
    const int n = std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
    frame_.clear();
    frame_.reserve(static_cast<size_t>(n) + data.size() + 2);
    frame_.append(size, static_cast<size_t>(n));
    frame_.append(data);
    frame_.append("\r\n");
    net::write(s_, net::buffer(frame_), ec);
    if (ec) failed_ = true;
    return !failed_;
  }
  bool Closed() override {
    if (failed_) return true;
    pollfd p{fd_, POLLIN | POLLRDHUP, 0};
    if (::poll(&p, 1, 0) <= 0) return false;
    // A watching client sends nothing: readable means EOF, reset or a TLS close alert.
    return (p.revents & (POLLIN | POLLRDHUP | POLLHUP | POLLERR)) != 0;
  }
  bool failed() const { return failed_; }

 private:
  Stream& s_;
  int fd_;
  bool failed_ = false;
  std::string frame_;
};

// Writes a whole response (status line, headers and body) with one write. http::write hands a
// TLS stream the header and the body as separate buffers, and its write_some linearises at most
// 8 KiB of them (Boost 1.74): a larger response went out as two TLS records and send() calls.
// Large bodies (unpaged lists) are written as before: copying them would not pay.
template <typename Stream>
void WriteMessage(Stream& stream, http::response<http::string_body>& msg,
                  boost::system::error_code& ec) {
  if (msg.body().size() > kCoalesceLimit) {
    http::write(stream, msg, ec);
    return;
  }
  http::response_serializer<http::string_body> sr{msg};
  std::string out;
  out.reserve(msg.body().size() + 512);
  do {
    sr.next(ec, [&](boost::system::error_code& next_ec, const auto& buffers) {
      next_ec = {};
      for (auto b : beast::buffers_range_ref(buffers)) {
        out.append(static_cast<const char*>(b.data()), b.size());
      }
      sr.consume(beast::buffer_bytes(buffers));
    });
  } while (!ec && !sr.is_done());
  if (ec) return;
  net::write(stream, net::buffer(out), ec);
}

template <typename Stream>
void SendSimple(Stream& stream, int status, const std::string& body, bool keep_alive,
                unsigned version) {
  http::response<http::string_body> res{static_cast<http::status>(status), version};
  res.set(http::field::content_type, "application/json");
  res.keep_alive(keep_alive);
  res.body() = body;
  res.prepare_payload();
  boost::system::error_code ec;
  WriteMessage(stream, res, ec);
}

template <typename Stream>
void ServeStream(Stream& stream, int fd, bool loopback, const std::string& remote, bool tls,
                 size_t max_body, const HttpServer::Handler& handler,
                 const std::atomic<bool>& stopping) {
  beast::flat_buffer buffer;
  while (!stopping) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(max_body + 1);
    parser.header_limit(1024 * 1024);
    boost::system::error_code ec;
    http::read(stream, buffer, parser, ec);
    if (ec == http::error::end_of_stream || ec == net::error::eof ||
        ec == net::error::connection_reset || ec == net::ssl::error::stream_truncated) {
      return;
    }
    if (ec == http::error::body_limit) {
      SendSimple(stream, 413,
                 StatusJson(kube::NewRequestEntityTooLarge("Request entity too large: limit is " +
                                                           std::to_string(max_body))),
                 false, 11);
      return;
    }
    if (ec) {
      if (parser.is_header_done() || buffer.size() > 0) {
        SendSimple(stream, 400,
                   StatusJson(kube::NewBadRequest("malformed HTTP request: " + ec.message())),
                   false, 11);
      }
      return;
    }
    auto& req = parser.get();
    HttpRequest hr;
    hr.method = std::string(req.method_string());
    hr.target = std::string(req.target());
    const size_t q = hr.target.find('?');
    hr.path = PercentDecode(std::string_view(hr.target).substr(0, q), false);
    if (q != std::string::npos) hr.query = ParseQuery(std::string_view(hr.target).substr(q + 1));
    for (const auto& f : req) {
      std::string name =
          AsciiToLower(std::string_view(f.name_string().data(), f.name_string().size()));
      std::string value(f.value().data(), f.value().size());
      auto it = hr.headers.find(name);
      if (it == hr.headers.end()) {
        hr.headers.emplace(std::move(name), std::move(value));
      } else {
        it->second += "," + value;
      }
    }
    hr.body = std::move(req.body());
    hr.remote_address = remote;
    hr.loopback = loopback;
    hr.tls = tls;
    const bool keep_alive = req.keep_alive();
    const unsigned version = req.version();
    if (hr.body.size() > max_body) {
      SendSimple(stream, 413,
                 StatusJson(kube::NewRequestEntityTooLarge("Request entity too large: limit is " +
                                                           std::to_string(max_body))),
                 false, version);
      return;
    }
    HttpResponse resp;
    try {
      resp = handler(hr);
    } catch (const std::exception& e) {
      LOG(ERROR) << "handler threw: " << e.what();
      resp = ErrorResponse(kube::NewInternalError(std::string("internal error: ") + e.what()));
    }
    if (resp.stream) {
      http::response<http::empty_body> res{static_cast<http::status>(resp.status), version};
      for (const auto& [k, v] : resp.headers) {
        if (k == "Transfer-Encoding") continue;
        res.insert(k, v);
      }
      res.chunked(true);
      res.keep_alive(keep_alive);
      http::response_serializer<http::empty_body> sr{res};
      http::write_header(stream, sr, ec);
      if (ec) return;
      BeastChunkWriter<Stream> w(stream, fd);
      resp.stream(w);
      if (w.failed()) return;
      net::write(stream, http::make_chunk_last(), ec);
      if (ec || !keep_alive) return;
      continue;
    }
    http::response<http::string_body> res{static_cast<http::status>(resp.status), version};
    for (const auto& [k, v] : resp.headers) res.insert(k, v);
    res.keep_alive(keep_alive);
    res.body() = std::move(resp.body);
    res.prepare_payload();
    WriteMessage(stream, res, ec);
    if (ec || !keep_alive) return;
  }
}

}  // namespace

void HttpServer::Serve(int fd, bool loopback, std::string remote) {
  // Peek the first byte: 0x16 starts a TLS handshake.
  unsigned char first = 0;
  pollfd p{fd, POLLIN, 0};
  // Idle connections that never send anything are dropped after a while.
  if (::poll(&p, 1, 60000) <= 0) return;
  const ssize_t n = ::recv(fd, &first, 1, MSG_PEEK);
  if (n <= 0) return;
  const int dupfd = ::dup(fd);
  if (dupfd < 0) return;
  tcp::socket sock(impl_->ioc);
  boost::system::error_code ec;
  sock.assign(fd == -1 ? tcp::v4() : (remote[0] == '[' ? tcp::v6() : tcp::v4()), dupfd, ec);
  if (ec) {
    ::close(dupfd);
    return;
  }
  const bool is_tls = first == 0x16;
  if (is_tls) {
    if (!impl_->ssl) return;
    net::ssl::stream<tcp::socket&> tls(sock, *impl_->ssl);
    tls.handshake(net::ssl::stream_base::server, ec);
    if (ec) return;
    ServeStream(tls, fd, loopback, remote, true, options_.max_body_bytes, handler_, stopping_);
    tls.shutdown(ec);
  } else {
    if (options_.tls_only) return;
    ServeStream(sock, fd, loopback, remote, false, options_.max_body_bytes, handler_, stopping_);
  }
  sock.shutdown(tcp::socket::shutdown_both, ec);
}

}  // namespace kai::localkube
