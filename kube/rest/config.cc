#include "kube/rest/config.h"

#include <glog/logging.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/base64.h"
#include "kube/base/file.h"
#include "kube/base/strings.h"

namespace kai::kube {
namespace {

using rapidjson::Value;

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string DirOf(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string Resolve(std::string_view dir, std::string_view path) {
  if (path.empty() || path.front() == '/') return std::string(path);
  return std::string(dir) + "/" + std::string(path);
}

// One named entry of clusters/users/contexts, with the file it came from (relative paths in it
// resolve against that file's directory; errors name it).
struct Entry {
  const Value* value = nullptr;  // the "cluster" / "user" / "context" object (may be null)
  std::string origin;
  std::string dir;
};

struct ParsedFile {
  std::string origin;
  std::string dir;
  rapidjson::Document doc;
};

// The kubeconfig files merged first-wins (client-go's ClientConfigLoadingRules.Load).
struct Merged {
  std::vector<std::unique_ptr<ParsedFile>> files;
  std::map<std::string, Entry> clusters, users, contexts;
  std::string current_context;
  std::string current_context_origin;
};

Status TypeError(std::string_view origin, std::string_view key, std::string_view expected) {
  return InvalidArgumentError("kubeconfig " + std::string(origin) + ": " + std::string(key) +
                              ": expected " + std::string(expected));
}

// Adds the named entries of `list_key` ("clusters", with `item_key` "cluster") unless an earlier
// file defined the name.
Status MergeNamed(const ParsedFile& f, const char* list_key, const char* item_key,
                  std::map<std::string, Entry>* out) {
  const Value* list = api::FindMember(f.doc, list_key);
  if (list == nullptr) return Status::OK();
  if (!list->IsArray()) return TypeError(f.origin, list_key, "a list");
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const Value& item = (*list)[i];
    const std::string where = std::string(list_key) + "[" + std::to_string(i) + "]";
    if (!item.IsObject()) return TypeError(f.origin, where, "an object");
    const Value* name = api::FindMember(item, "name");
    if (name == nullptr || !name->IsString() || name->GetStringLength() == 0) {
      return InvalidArgumentError("kubeconfig " + f.origin + ": " + where +
                                  ".name: required (a non-empty string)");
    }
    const Value* body = api::FindMember(item, item_key);
    if (body != nullptr && !body->IsObject()) {
      return TypeError(f.origin, where + "." + item_key, "an object");
    }
    out->emplace(name->GetString(), Entry{body, f.origin, f.dir});  // first file wins
  }
  return Status::OK();
}

Status AddFile(Merged* m, std::string origin, std::string_view text) {
  auto f = std::make_unique<ParsedFile>();
  f->origin = std::move(origin);
  f->dir = DirOf(f->origin);
  std::string json = "{}";
  if (!StripWhitespace(text).empty()) {
    StatusOr<std::string> converted = api::YamlToJson(text);
    if (!converted.ok()) {
      return InvalidArgumentError("kubeconfig " + f->origin + ": " +
                                  std::string(converted.status().message()));
    }
    json = std::move(converted).value();
  }
  if (json == "null") json = "{}";
  Status parsed = api::ParseJson(json, &f->doc);
  if (!parsed.ok()) {
    return InvalidArgumentError("kubeconfig " + f->origin + ": " + std::string(parsed.message()));
  }
  if (!f->doc.IsObject()) return TypeError(f->origin, "(document)", "a mapping");
  KAI_RETURN_IF_ERROR(MergeNamed(*f, "clusters", "cluster", &m->clusters));
  KAI_RETURN_IF_ERROR(MergeNamed(*f, "users", "user", &m->users));
  KAI_RETURN_IF_ERROR(MergeNamed(*f, "contexts", "context", &m->contexts));
  if (const Value* cc = api::FindMember(f->doc, "current-context"); cc != nullptr) {
    if (!cc->IsString()) return TypeError(f->origin, "current-context", "a string");
    if (m->current_context.empty() && cc->GetStringLength() > 0) {
      m->current_context = cc->GetString();
      m->current_context_origin = f->origin;
    }
  }
  m->files.push_back(std::move(f));
  return Status::OK();
}

// Typed field readers naming the key in errors.
class Fields {
 public:
  Fields(const Value* obj, std::string origin, std::string prefix)
      : obj_(obj), origin_(std::move(origin)), prefix_(std::move(prefix)) {}

  Status String(const char* key, std::string* out) const {
    const Value* v = Find(key);
    if (v == nullptr) return Status::OK();
    if (!v->IsString()) return Error(key, "expected a string");
    out->assign(v->GetString(), v->GetStringLength());
    return Status::OK();
  }
  Status Bool(const char* key, bool* out) const {
    const Value* v = Find(key);
    if (v == nullptr) return Status::OK();
    if (!v->IsBool()) return Error(key, "expected true or false");
    *out = v->GetBool();
    return Status::OK();
  }
  Status StringList(const char* key, std::vector<std::string>* out) const {
    const Value* v = Find(key);
    if (v == nullptr) return Status::OK();
    if (!v->IsArray()) return Error(key, "expected a list of strings");
    for (const Value& e : v->GetArray()) {
      if (!e.IsString()) return Error(key, "expected a list of strings");
      out->emplace_back(e.GetString(), e.GetStringLength());
    }
    return Status::OK();
  }
  const Value* Find(const char* key) const {
    return obj_ == nullptr ? nullptr : api::FindMember(*obj_, key);
  }
  Status Error(std::string_view key, std::string_view what) const {
    return InvalidArgumentError("kubeconfig " + origin_ + ": " + prefix_ + "." + std::string(key) +
                                ": " + std::string(what));
  }
  const std::string& origin() const { return origin_; }
  const std::string& prefix() const { return prefix_; }

 private:
  const Value* obj_;
  std::string origin_;
  std::string prefix_;
};

// A PEM from `<key>` (a file path) or `<key>-data` (base64 of the PEM); the -data form wins,
// as in client-go.
Status ReadPem(const Fields& f, const std::string& dir, const std::string& key,
               std::string_view pem_kind, std::string* out) {
  std::string path, data;
  KAI_RETURN_IF_ERROR(f.String(key.c_str(), &path));
  const std::string data_key = key + "-data";
  KAI_RETURN_IF_ERROR(f.String(data_key.c_str(), &data));
  if (!data.empty()) {
    StatusOr<std::string> decoded = Base64Decode(data);
    if (!decoded.ok()) return f.Error(data_key, "illegal base64 data");
    *out = std::move(decoded).value();
    if (out->find("-----BEGIN") == std::string::npos) {
      return f.Error(data_key, "does not contain a PEM " + std::string(pem_kind));
    }
    return Status::OK();
  }
  if (path.empty()) return Status::OK();
  const std::string resolved = Resolve(dir, path);
  StatusOr<std::string> content = ReadFile(resolved);
  if (!content.ok()) {
    return f.Error(
        key, "cannot read " + Quote(resolved) + ": " + std::string(content.status().message()));
  }
  *out = std::move(content).value();
  if (out->find("-----BEGIN") == std::string::npos) {
    return f.Error(key, Quote(resolved) + " does not contain a PEM " + std::string(pem_kind));
  }
  return Status::OK();
}

Status ReadCluster(const std::string& name, const Entry& e, RestConfig* cfg) {
  Fields f(e.value, e.origin, "clusters[" + Quote(name) + "].cluster");
  KAI_RETURN_IF_ERROR(f.String("server", &cfg->host));
  if (cfg->host.empty()) return f.Error("server", "required (no server found for cluster)");
  if (cfg->host.rfind("https://", 0) != 0 && cfg->host.rfind("http://", 0) != 0) {
    return f.Error("server", "must be an http:// or https:// URL, got " + Quote(cfg->host));
  }
  while (!cfg->host.empty() && cfg->host.back() == '/') cfg->host.pop_back();
  KAI_RETURN_IF_ERROR(f.Bool("insecure-skip-tls-verify", &cfg->tls.insecure));
  KAI_RETURN_IF_ERROR(f.String("tls-server-name", &cfg->tls.server_name));
  KAI_RETURN_IF_ERROR(f.String("proxy-url", &cfg->proxy_url));
  KAI_RETURN_IF_ERROR(ReadPem(f, e.dir, "certificate-authority", "certificate", &cfg->tls.ca_pem));
  if (cfg->tls.insecure && !cfg->tls.ca_pem.empty()) {
    // client-go's validation rejects this combination.
    return f.Error("insecure-skip-tls-verify",
                   "certificate-authority cannot be used together with insecure-skip-tls-verify");
  }
  return Status::OK();
}

Status ReadExec(const Fields& user, RestConfig* cfg) {
  const Value* v = user.Find("exec");
  if (v == nullptr) return Status::OK();
  if (!v->IsObject()) return user.Error("exec", "expected an object");
  Fields f(v, user.origin(), user.prefix() + ".exec");
  ExecConfig exec;
  KAI_RETURN_IF_ERROR(f.String("command", &exec.command));
  if (exec.command.empty()) return f.Error("command", "required");
  std::string api_version;
  KAI_RETURN_IF_ERROR(f.String("apiVersion", &api_version));
  if (api_version != "client.authentication.k8s.io/v1" &&
      api_version != "client.authentication.k8s.io/v1beta1") {
    return f.Error("apiVersion", api_version.empty()
                                     ? "required (client.authentication.k8s.io/v1)"
                                     : "unsupported " + Quote(api_version) +
                                           " (client.authentication.k8s.io/v1 or v1beta1)");
  }
  exec.api_version = api_version;
  KAI_RETURN_IF_ERROR(f.StringList("args", &exec.args));
  KAI_RETURN_IF_ERROR(f.Bool("provideClusterInfo", &exec.provide_cluster_info));
  KAI_RETURN_IF_ERROR(f.String("installHint", &exec.install_hint));
  std::string mode;
  KAI_RETURN_IF_ERROR(f.String("interactiveMode", &mode));
  if (mode.empty()) {
    // client-go: v1 requires it; v1beta1 defaults to IfAvailable.
    mode = "IfAvailable";
  } else if (mode != "Never" && mode != "IfAvailable" && mode != "Always") {
    return f.Error("interactiveMode",
                   "invalid " + Quote(mode) + " (one of Never, IfAvailable, Always)");
  }
  exec.interactive_mode = mode;
  if (const Value* env = f.Find("env"); env != nullptr) {
    if (!env->IsArray()) return f.Error("env", "expected a list of {name, value}");
    for (rapidjson::SizeType i = 0; i < env->Size(); ++i) {
      const Value& e = (*env)[i];
      Fields ef(&e, f.origin(), f.prefix() + ".env[" + std::to_string(i) + "]");
      if (!e.IsObject()) return f.Error("env[" + std::to_string(i) + "]", "expected an object");
      std::string name, value;
      KAI_RETURN_IF_ERROR(ef.String("name", &name));
      KAI_RETURN_IF_ERROR(ef.String("value", &value));
      if (name.empty()) return ef.Error("name", "required");
      exec.env.emplace_back(std::move(name), std::move(value));
    }
  }
  cfg->exec = std::move(exec);
  return Status::OK();
}

Status ReadUser(const std::string& name, const Entry& e, RestConfig* cfg) {
  Fields f(e.value, e.origin, "users[" + Quote(name) + "].user");
  KAI_RETURN_IF_ERROR(f.String("token", &cfg->bearer_token));
  std::string token_file;
  KAI_RETURN_IF_ERROR(f.String("tokenFile", &token_file));
  if (!token_file.empty()) {
    cfg->bearer_token_file = Resolve(e.dir, token_file);
    StatusOr<std::string> token = ReadFile(cfg->bearer_token_file);
    if (!token.ok()) {
      return f.Error("tokenFile", "cannot read " + Quote(cfg->bearer_token_file) + ": " +
                                      std::string(token.status().message()));
    }
  }
  KAI_RETURN_IF_ERROR(f.String("username", &cfg->username));
  KAI_RETURN_IF_ERROR(f.String("password", &cfg->password));
  KAI_RETURN_IF_ERROR(ReadPem(f, e.dir, "client-certificate", "certificate", &cfg->tls.cert_pem));
  KAI_RETURN_IF_ERROR(ReadPem(f, e.dir, "client-key", "private key", &cfg->tls.key_pem));
  if (cfg->tls.cert_pem.empty() != cfg->tls.key_pem.empty()) {
    return f.Error(cfg->tls.cert_pem.empty() ? "client-certificate" : "client-key",
                   "client-certificate and client-key must be given together");
  }
  if (f.Find("auth-provider") != nullptr) {
    return f.Error("auth-provider", "not supported (deprecated; use an exec plugin)");
  }
  KAI_RETURN_IF_ERROR(ReadExec(f, cfg));
  if ((!cfg->bearer_token.empty() || !cfg->bearer_token_file.empty()) && !cfg->username.empty()) {
    // client-go: "more than one authentication method found".
    return f.Error("username", "basic auth cannot be combined with a token");
  }
  return Status::OK();
}

StatusOr<RestConfig> Resolve(const Merged& m, const KubeconfigOptions& options,
                             std::string_view sources) {
  const std::string files = std::string(sources);
  std::string context_name = options.context.empty() ? m.current_context : options.context;
  if (context_name.empty()) {
    return InvalidArgumentError("kubeconfig " + files +
                                ": current-context is not set (and no --context was given)");
  }
  auto ctx = m.contexts.find(context_name);
  if (ctx == m.contexts.end()) {
    return InvalidArgumentError("kubeconfig " + files + ": context " + Quote(context_name) +
                                " not found" +
                                (options.context.empty() ? " (named by current-context)" : ""));
  }
  Fields cf(ctx->second.value, ctx->second.origin, "contexts[" + Quote(context_name) + "].context");
  std::string cluster_name, user_name, ns;
  KAI_RETURN_IF_ERROR(cf.String("cluster", &cluster_name));
  KAI_RETURN_IF_ERROR(cf.String("user", &user_name));
  KAI_RETURN_IF_ERROR(cf.String("namespace", &ns));
  if (cluster_name.empty()) return cf.Error("cluster", "required");
  auto cluster = m.clusters.find(cluster_name);
  if (cluster == m.clusters.end()) {
    return cf.Error("cluster", "cluster " + Quote(cluster_name) + " not found");
  }
  RestConfig cfg;
  KAI_RETURN_IF_ERROR(ReadCluster(cluster_name, cluster->second, &cfg));
  if (!user_name.empty()) {
    auto user = m.users.find(user_name);
    if (user == m.users.end()) return cf.Error("user", "user " + Quote(user_name) + " not found");
    KAI_RETURN_IF_ERROR(ReadUser(user_name, user->second, &cfg));
  }
  if (!options.namespace_.empty()) {
    cfg.namespace_ = options.namespace_;
  } else if (!ns.empty()) {
    cfg.namespace_ = ns;
  }
  cfg.source = "kubeconfig " + files + " context " + Quote(context_name);
  return cfg;
}

std::string EnvOr(const std::optional<std::string>& injected, const char* name) {
  if (injected.has_value()) return *injected;
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string HomeKubeconfig(const KubeconfigOptions& options) {
  std::string home = options.home;
  if (home.empty()) {
    const char* h = std::getenv("HOME");
    home = h == nullptr ? "" : h;
  }
  if (home.empty()) return "";
  return home + "/.kube/config";
}

StatusOr<RestConfig> LoadFiles(const std::vector<std::string>& paths,
                               const KubeconfigOptions& options) {
  Merged m;
  for (const std::string& p : paths) {
    StatusOr<std::string> text = ReadFile(p);
    if (!text.ok()) {
      return Status(text.status().code(),
                    "kubeconfig " + p + ": " + std::string(text.status().message()));
    }
    KAI_RETURN_IF_ERROR(AddFile(&m, p, *text));
  }
  return Resolve(m, options, StrJoin(paths, ":"));
}

}  // namespace

StatusOr<RestConfig> KubeconfigFromString(std::string_view yaml, const KubeconfigOptions& options,
                                          std::string_view origin, std::string_view dir) {
  Merged m;
  KAI_RETURN_IF_ERROR(AddFile(&m, std::string(origin), yaml));
  m.files.back()->dir = std::string(dir);
  // Entries captured the directory before it was overridden.
  for (auto* map : {&m.clusters, &m.users, &m.contexts}) {
    for (auto& [name, e] : *map) e.dir = std::string(dir);
  }
  return Resolve(m, options, origin);
}

StatusOr<RestConfig> LoadKubeconfig(const KubeconfigOptions& options) {
  if (!options.path.empty()) return LoadFiles({options.path}, options);
  const std::string env = EnvOr(options.kubeconfig_env, "KUBECONFIG");
  if (!env.empty()) {
    // client-go: files of the list that do not exist are skipped; duplicates count once.
    std::vector<std::string> paths;
    for (std::string& p : StrSplit(env, ':')) {
      if (p.empty() || !FileExists(p)) continue;
      if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
    }
    if (paths.empty()) {
      return NotFoundError("kubeconfig: none of the files in KUBECONFIG=" + env + " exists");
    }
    return LoadFiles(paths, options);
  }
  const std::string home = HomeKubeconfig(options);
  if (home.empty() || !FileExists(home)) {
    return NotFoundError("kubeconfig: no --kubeconfig, no KUBECONFIG and no " +
                         (home.empty() ? std::string("~/.kube/config") : home));
  }
  return LoadFiles({home}, options);
}

StatusOr<RestConfig> InClusterConfig(const InClusterOptions& options) {
  const std::string host = EnvOr(options.host, "KUBERNETES_SERVICE_HOST");
  const std::string port = EnvOr(options.port, "KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    return FailedPreconditionError(
        "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT must be defined");
  }
  RestConfig cfg;
  const bool ipv6 = host.find(':') != std::string::npos;
  cfg.host = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
  const std::string dir = options.service_account_dir;
  cfg.bearer_token_file = dir + "/token";
  StatusOr<std::string> token = ReadFile(cfg.bearer_token_file);
  if (!token.ok()) {
    return Status(token.status().code(), "in-cluster config: service-account token " +
                                             cfg.bearer_token_file + ": " +
                                             std::string(token.status().message()));
  }
  cfg.bearer_token = std::string(StripWhitespace(*token));
  if (StatusOr<std::string> ca = ReadFile(dir + "/ca.crt"); ca.ok()) {
    cfg.tls.ca_pem = std::move(ca).value();
  } else {
    // client-go logs and continues with the system roots.
    LOG(WARNING) << "in-cluster config: " << dir << "/ca.crt: " << ca.status();
  }
  if (StatusOr<std::string> ns = ReadFile(dir + "/namespace"); ns.ok()) {
    std::string_view n = StripWhitespace(*ns);
    if (!n.empty()) cfg.namespace_ = std::string(n);
  }
  cfg.source = "in-cluster (" + cfg.host + ")";
  return cfg;
}

StatusOr<RestConfig> LoadConfig(const KubeconfigOptions& options,
                                const InClusterOptions& in_cluster) {
  if (!options.path.empty() || !EnvOr(options.kubeconfig_env, "KUBECONFIG").empty()) {
    return LoadKubeconfig(options);
  }
  StatusOr<RestConfig> cluster = InClusterConfig(in_cluster);
  if (cluster.ok() || cluster.status().code() != StatusCode::kFailedPrecondition) {
    if (cluster.ok() && !options.namespace_.empty()) cluster->namespace_ = options.namespace_;
    return cluster;
  }
  StatusOr<RestConfig> home = LoadKubeconfig(options);
  if (!home.ok() && home.status().code() == StatusCode::kNotFound) {
    return NotFoundError(
        "no Kubernetes configuration: give --kubeconfig or KUBECONFIG, run in a cluster, or "
        "create ~/.kube/config");
  }
  return home;
}

}  // namespace kai::kube
