// HTTP request/response values and the handler type served by HttpServer (no Beast here).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kai::server {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: "/healthz?verbose"
  std::string path;    // target without the query: "/healthz"
  // Decoded query parameters in order; a key without "=" has an empty value ("?verbose").
  std::vector<std::pair<std::string, std::string>> query;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  std::string remote_address;  // "ip:port"

  bool HasQuery(std::string_view key) const;
  std::vector<std::string> QueryValues(std::string_view key) const;
  // The header's value, or "" (name in any case).
  std::string Header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers

  static HttpResponse Text(int status, std::string body);
  static HttpResponse Json(int status, std::string body);
  // As Go's http.Error: text/plain, nosniff, message plus "\n".
  static HttpResponse Error(int status, std::string_view message);
  // Go's NotFound: 404 "404 page not found\n".
  static HttpResponse NotFound();
};

// Runs on a server thread; it may block briefly (it holds one of the server's threads).
using Handler = std::function<HttpResponse(const HttpRequest&)>;

// Splits "/p?a=1&b" into path and decoded query parameters (percent-decoding, '+' = space).
void ParseTarget(std::string_view target, std::string* path,
                 std::vector<std::pair<std::string, std::string>>* query);

// Path routing with Go ServeMux rules: a pattern ending in "/" matches its whole subtree, any
// other pattern only itself; the longest matching pattern wins.
class Router {
 public:
  void Handle(std::string pattern, Handler handler);
  HttpResponse Serve(const HttpRequest& request) const;
  // The handler for a path, or null.
  const Handler* Match(std::string_view path) const;

 private:
  std::map<std::string, Handler, std::less<>> routes_;
};

}  // namespace kai::server
