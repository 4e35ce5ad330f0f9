// Transport-neutral HTTP request/response used between the Beast server and the API handler.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kai::localkube {

struct HttpRequest {
  std::string method;  // GET, POST, ...
  std::string target;  // raw request-target
  std::string path;    // decoded path without query
  std::multimap<std::string, std::string> query;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string remote_address;
  bool loopback = false;
  bool tls = false;

  const std::string* Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? nullptr : &it->second;
  }
  // First value of a query parameter, or nullptr.
  const std::string* Query(const std::string& name) const {
    auto it = query.find(name);
    return it == query.end() ? nullptr : &it->second;
  }
};

// Writes chunks of a streaming response (watches). Write returns false once the client is
// gone; Closed polls for that without writing.
class ChunkWriter {
 public:
  virtual ~ChunkWriter() = default;
  virtual bool Write(std::string_view data) = 0;
  virtual bool Closed() = 0;
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // When set the server sends the headers with chunked encoding and calls this with a writer.
  std::function<void(ChunkWriter&)> stream;

  void SetHeader(std::string name, std::string value) {
    for (auto& h : headers) {
      if (h.first == name) {
        h.second = std::move(value);
        return;
      }
    }
    headers.emplace_back(std::move(name), std::move(value));
  }
};

// Parses "a=1&b=x%20y" into a multimap (percent- and plus-decoded).
std::multimap<std::string, std::string> ParseQuery(std::string_view q);
std::string PercentDecode(std::string_view s, bool plus_is_space);

}  // namespace kai::localkube
