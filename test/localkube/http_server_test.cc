// The bytes HttpServer puts on the wire: one write per response and per chunk must not change
// the HTTP framing (Content-Length responses, chunked streams ended by the last chunk).
#include "test/localkube/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace kai::localkube {
namespace {

// Sends `request` on a fresh plain-TCP connection and returns everything until the server
// closes it.
std::string RoundTrip(uint16_t port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(::send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  std::string out;
  char buf[4096];
  while (true) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string Body(const std::string& response) {
  const size_t p = response.find("\r\n\r\n");
  return p == std::string::npos ? "" : response.substr(p + 4);
}

TEST(HttpServerTest, ResponsesAndChunkedStreamsAreFramedExactly) {
  HttpServerOptions so;
  so.tls = false;
  HttpServer server(so, [](const HttpRequest& req) {
    HttpResponse resp;
    resp.SetHeader("Content-Type", "application/json");
    if (req.path == "/stream") {
      resp.stream = [](ChunkWriter& w) {
        EXPECT_TRUE(w.Write("{\"a\":1}\n"));
        EXPECT_TRUE(w.Write(""));  // nothing to send: not a last chunk
        EXPECT_TRUE(w.Write(std::string(300, 'x')));
      };
      return resp;
    }
    resp.body = "{\"kind\":\"Status\"}";
    return resp;
  });
  ASSERT_TRUE(server.Start().ok());

  const std::string plain = RoundTrip(
      server.port(), "GET /plain HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(plain.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << plain;
  EXPECT_NE(plain.find("Content-Length: 17\r\n"), std::string::npos) << plain;
  EXPECT_EQ(Body(plain), "{\"kind\":\"Status\"}");

  const std::string streamed = RoundTrip(
      server.port(), "GET /stream HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  EXPECT_NE(streamed.find("Transfer-Encoding: chunked\r\n"), std::string::npos) << streamed;
  EXPECT_EQ(Body(streamed),
            "8\r\n{\"a\":1}\n\r\n12c\r\n" + std::string(300, 'x') + "\r\n0\r\n\r\n");
  server.Stop();
}

}  // namespace
}  // namespace kai::localkube
