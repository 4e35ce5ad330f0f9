// CurlHttpClient against a one-shot HTTP server on loopback.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

#include "kube/base/strings.h"
#include "scheduler/plugins/proportion/usage/http_client.h"

namespace kai::proportion {
namespace {

class OneShotServer {
 public:
  explicit OneShotServer(std::string response) : response_(std::move(response)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0)
        << std::strerror(errno);
    EXPECT_EQ(listen(fd_, 1), 0) << std::strerror(errno);
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      std::string req;
      while (req.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = read(c, buf, sizeof(buf));
        if (n <= 0) break;
        req.append(buf, static_cast<size_t>(n));
      }
      request_line_ = req.substr(0, req.find("\r\n"));
      ssize_t unused = write(c, response_.data(), response_.size());
      (void)unused;
      close(c);
    });
  }
  ~OneShotServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }
  std::string request_line() const { return request_line_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::string response_;
  std::string request_line_;
  std::thread thread_;
};

TEST(CurlHttpClient, GetsBodyAndStatus) {
  const std::string body = R"({"status":"success"})";
  std::string response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  std::string request_line;
  {
    OneShotServer server(response);
    CurlHttpClient client;
    StatusOr<HttpResponse> r =
        client.Get("http://127.0.0.1:" + std::to_string(server.port()) +
                       "/api/v1/query?query=" + UrlQueryEscape("sum(x{a=\"b\"})"),
                   std::chrono::seconds(5));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, body);
    // The server thread stores the request line before it writes the response.
    request_line = server.request_line();
  }
  EXPECT_EQ(request_line, "GET /api/v1/query?query=sum%28x%7Ba%3D%22b%22%7D%29 HTTP/1.1");
}

TEST(CurlHttpClient, HttpErrorsAreResponses) {
  OneShotServer server("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n");
  CurlHttpClient client;
  StatusOr<HttpResponse> r = client.Get("http://127.0.0.1:" + std::to_string(server.port()) + "/",
                                        std::chrono::seconds(5));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, 503);
}

TEST(CurlHttpClient, ConnectionRefusedIsUnavailable) {
  int port = 0;
  {
    OneShotServer server("");  // closes at scope end: nothing listens on the port afterwards
    port = server.port();
  }
  CurlHttpClient client;
  StatusOr<HttpResponse> r =
      client.Get("http://127.0.0.1:" + std::to_string(port) + "/", std::chrono::seconds(2));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace kai::proportion
