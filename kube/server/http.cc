#include "kube/server/http.h"

#include "kube/base/strings.h"

namespace kai::server {

bool HttpRequest::HasQuery(std::string_view key) const {
  for (const auto& [k, v] : query) {
    if (k == key) return true;
  }
  return false;
}

std::vector<std::string> HttpRequest::QueryValues(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : query) {
    if (k == key) out.push_back(v);
  }
  return out;
}

std::string HttpRequest::Header(std::string_view name) const {
  auto it = headers.find(AsciiToLower(name));
  return it == headers.end() ? "" : it->second;
}

HttpResponse HttpResponse::Text(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse HttpResponse::Json(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = std::move(body);
  return r;
}

HttpResponse HttpResponse::Error(int status, std::string_view message) {
  HttpResponse r;
  r.status = status;
  r.body = std::string(message) + "\n";
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

HttpResponse HttpResponse::NotFound() { return Error(404, "404 page not found"); }

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out.push_back(' ');
    } else if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 &&
               HexValue(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

void ParseTarget(std::string_view target, std::string* path,
                 std::vector<std::pair<std::string, std::string>>* query) {
  const size_t q = target.find('?');
  *path = std::string(target.substr(0, q));
  query->clear();
  if (q == std::string_view::npos) return;
  for (const std::string& part : StrSplit(target.substr(q + 1), '&')) {
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    if (eq == std::string::npos) {
      query->emplace_back(Unescape(part), "");
    } else {
      query->emplace_back(Unescape(std::string_view(part).substr(0, eq)),
                          Unescape(std::string_view(part).substr(eq + 1)));
    }
  }
}

void Router::Handle(std::string pattern, Handler handler) {
  routes_[std::move(pattern)] = std::move(handler);
}

const Handler* Router::Match(std::string_view path) const {
  auto exact = routes_.find(path);
  if (exact != routes_.end()) return &exact->second;
  const Handler* best = nullptr;
  size_t best_len = 0;
  for (const auto& [pattern, handler] : routes_) {
    if (pattern.empty() || pattern.back() != '/') continue;
    if (path.substr(0, pattern.size()) == pattern && pattern.size() > best_len) {
      best = &handler;
      best_len = pattern.size();
    }
  }
  return best;
}

HttpResponse Router::Serve(const HttpRequest& request) const {
  const Handler* h = Match(request.path);
  if (h == nullptr) return HttpResponse::NotFound();
  return (*h)(request);
}

}  // namespace kai::server
