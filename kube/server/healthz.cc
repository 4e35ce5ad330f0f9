#include "kube/server/healthz.h"

#include <glog/logging.h>

#include <set>
#include <vector>

#include "kube/base/strings.h"

namespace kai::server {

Status Ping() { return Status::OK(); }

void HealthChecks::Add(std::string name, HealthChecker check) {
  std::lock_guard<std::mutex> l(mu_);
  checks_[std::move(name)] = std::move(check);
}

void HealthChecks::Register(Router* router, const std::string& root) const {
  auto serve = [this, root](const HttpRequest& r) { return Serve(r, root); };
  router->Handle(root, serve);
  router->Handle(root + "/", serve);
}

HttpResponse HealthChecks::Serve(const HttpRequest& request, std::string_view root) const {
  std::string_view rest = std::string_view(request.path).substr(root.size());
  if (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  if (rest.empty()) return ServeAggregated(request);
  return ServeOne(rest);
}

HttpResponse HealthChecks::ServeOne(std::string_view name) const {
  HealthChecker check;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = checks_.find(std::string(name));
    if (it == checks_.end()) return HttpResponse::NotFound();
    check = it->second;
  }
  const Status s = check();
  if (!s.ok()) {
    return HttpResponse::Error(500, "internal server error: " + std::string(s.message()));
  }
  return HttpResponse::Text(200, "ok");
}

namespace {

struct CheckStatus {
  std::string name;
  bool healthy;
  bool excluded;
};

}  // namespace

HttpResponse HealthChecks::ServeAggregated(const HttpRequest& request) const {
  std::set<std::string> excluded;
  for (const std::string& v : request.QueryValues("exclude")) {
    const std::string_view name = StripWhitespace(v);
    if (!name.empty()) excluded.emplace(name);
  }
  std::map<std::string, HealthChecker> checks;
  {
    std::lock_guard<std::mutex> l(mu_);
    checks = checks_;
  }
  std::vector<CheckStatus> parts;
  bool failed = false;
  for (const auto& [name, check] : checks) {
    if (excluded.erase(name) > 0) {
      parts.push_back({name, true, true});
      continue;
    }
    const Status s = check();
    if (!s.ok()) {
      VLOG(1) << "healthz check " << name << " failed: " << s;
      failed = true;
    }
    parts.push_back({name, s.ok(), false});
  }
  if (checks.empty()) parts.push_back({"ping", true, false});

  HttpResponse r;
  r.status = failed ? 500 : 200;
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  if (!failed && !request.HasQuery("verbose")) {
    r.body = "ok";
    return r;
  }
  for (const CheckStatus& c : parts) {
    if (c.excluded) {
      r.body += "[+]" + c.name + " excluded: ok\n";
    } else if (c.healthy) {
      r.body += "[+]" + c.name + " ok\n";
    } else {
      // The reason stays in the log: this endpoint is public.
      r.body += "[-]" + c.name + " failed: reason withheld\n";
    }
  }
  if (!excluded.empty()) {
    std::vector<std::string> quoted;
    quoted.reserve(excluded.size());
    for (const auto& e : excluded) quoted.push_back(StrCat("\"", e, "\""));
    r.body += "warn: some health checks cannot be excluded: no matches for " +
              StrJoin(quoted, ", ") + "\n";
  }
  if (failed) {
    LOG(INFO) << "healthz check failed: " << r.body;
    r.body += "healthz check failed\n";
  } else {
    r.body += "healthz check passed\n";
  }
  return r;
}

}  // namespace kai::server
