#include "scheduler/plugins/proportion/usage/usage_params.h"

#include <algorithm>

#include "api/rapidjson_util.h"
#include "kube/base/time.h"
#include "scheduler/plugins/proportion/usage/duration.h"

namespace kai::proportion {

std::string_view WindowTypeString(WindowType t) {
  switch (t) {
    case WindowType::kSliding:
      return "sliding";
    case WindowType::kTumbling:
      return "tumbling";
    case WindowType::kCron:
      return "cron";
  }
  return "";
}

Duration UsageParams::ExtraDuration(const std::string& key, Duration default_value) const {
  auto it = extra_params.find(key);
  if (it == extra_params.end()) return default_value;
  StatusOr<Duration> d = ParseGoDuration(it->second);
  return d.ok() ? *d : default_value;
}

std::string UsageParams::ExtraString(const std::string& key,
                                     const std::string& default_value) const {
  auto it = extra_params.find(key);
  return it == extra_params.end() ? default_value : it->second;
}

namespace {

Status FieldError(std::string_view field, std::string_view why) {
  return InvalidArgumentError("usageDBConfig." + std::string(field) + ": " + std::string(why));
}

StatusOr<std::optional<std::string>> OptionalString(const rapidjson::Value& obj,
                                                    std::string_view name, std::string_view path) {
  const rapidjson::Value* v = api::FindMember(obj, name);
  if (v == nullptr) return std::optional<std::string>();
  if (!v->IsString()) return FieldError(path, "must be a string");
  return std::optional<std::string>(std::string(v->GetString(), v->GetStringLength()));
}

StatusOr<std::optional<Duration>> OptionalDuration(const rapidjson::Value& obj,
                                                   std::string_view name, std::string_view path) {
  KAI_ASSIGN_OR_RETURN(std::optional<std::string> s, OptionalString(obj, name, path));
  if (!s) return std::optional<Duration>();
  StatusOr<Duration> d = ParseConfigDuration(*s);
  if (!d.ok()) return FieldError(path, d.status().message());
  return std::optional<Duration>(*d);
}

Status ReadExtraParams(const rapidjson::Value& obj, std::string_view path,
                       std::map<std::string, std::string>& out, bool overwrite) {
  const rapidjson::Value* extra = api::FindMember(obj, "extraParams");
  if (extra == nullptr) return Status::OK();
  if (!extra->IsObject()) return FieldError(path, "must be an object of strings");
  for (auto it = extra->MemberBegin(); it != extra->MemberEnd(); ++it) {
    std::string key(it->name.GetString(), it->name.GetStringLength());
    if (!it->value.IsString()) return FieldError(std::string(path) + "." + key, "must be a string");
    std::string value(it->value.GetString(), it->value.GetStringLength());
    if (overwrite || !out.count(key)) out[key] = value;
  }
  return Status::OK();
}

}  // namespace

StatusOr<UsageDbConfig> ParseUsageDbConfig(std::string_view json) {
  rapidjson::Document doc;
  KAI_RETURN_IF_ERROR(api::ParseJson(json, &doc).WithPrefix("usageDBConfig"));
  if (!doc.IsObject()) return InvalidArgumentError("usageDBConfig: must be an object");
  UsageDbConfig c;
  KAI_ASSIGN_OR_RETURN(std::optional<std::string> client_type,
                       OptionalString(doc, "clientType", "clientType"));
  c.client_type = client_type.value_or("");
  if (!c.client_type.empty() && c.client_type != "prometheus" && c.client_type != "fake" &&
      c.client_type != "fake-with-history") {
    return FieldError("clientType", "unknown client type \"" + c.client_type +
                                        "\" (expected prometheus, fake or fake-with-history)");
  }
  KAI_ASSIGN_OR_RETURN(std::optional<std::string> conn,
                       OptionalString(doc, "connectionString", "connectionString"));
  c.connection_string = conn.value_or("");
  KAI_ASSIGN_OR_RETURN(std::optional<std::string> env,
                       OptionalString(doc, "connectionStringEnvVar", "connectionStringEnvVar"));
  c.connection_string_env_var = env.value_or("");

  UsageParams& p = c.usage_params;
  if (const rapidjson::Value* up = api::FindMember(doc, "usageParams")) {
    if (!up->IsObject()) return FieldError("usageParams", "must be an object");
    KAI_ASSIGN_OR_RETURN(std::optional<Duration> window,
                         OptionalDuration(*up, "windowSize", "usageParams.windowSize"));
    if (window) {
      if (*window <= Duration::zero()) {
        return FieldError("usageParams.windowSize", "must be positive");
      }
      p.window_size = *window;
    }
    KAI_ASSIGN_OR_RETURN(std::optional<std::string> type,
                         OptionalString(*up, "windowType", "usageParams.windowType"));
    if (type) {
      if (*type == "sliding") {
        p.window_type = WindowType::kSliding;
      } else if (*type == "tumbling") {
        p.window_type = WindowType::kTumbling;
      } else if (*type == "cron") {
        p.window_type = WindowType::kCron;
      } else {
        return FieldError("usageParams.windowType",
                          "unknown window type \"" + *type + "\" (sliding, tumbling or cron)");
      }
    }
    KAI_ASSIGN_OR_RETURN(
        std::optional<std::string> start,
        OptionalString(*up, "tumblingWindowStartTime", "usageParams.tumblingWindowStartTime"));
    if (start) {
      StatusOr<WallTime> t = ParseRfc3339(*start);
      if (!t.ok()) return FieldError("usageParams.tumblingWindowStartTime", t.status().message());
      p.tumbling_window_start_time = *t;
    }
    KAI_ASSIGN_OR_RETURN(std::optional<std::string> cron,
                         OptionalString(*up, "cronString", "usageParams.cronString"));
    p.cron_string = cron.value_or("");
    KAI_ASSIGN_OR_RETURN(std::optional<Duration> half_life,
                         OptionalDuration(*up, "halfLifePeriod", "usageParams.halfLifePeriod"));
    if (half_life && *half_life > Duration::zero()) p.half_life_period = *half_life;
    KAI_ASSIGN_OR_RETURN(std::optional<Duration> fetch,
                         OptionalDuration(*up, "fetchInterval", "usageParams.fetchInterval"));
    if (fetch) {
      if (*fetch <= Duration::zero()) {
        return FieldError("usageParams.fetchInterval", "must be positive");
      }
      p.fetch_interval = *fetch;
    }
    KAI_ASSIGN_OR_RETURN(std::optional<Duration> stale,
                         OptionalDuration(*up, "stalenessPeriod", "usageParams.stalenessPeriod"));
    if (stale) p.staleness_period = *stale;
    KAI_ASSIGN_OR_RETURN(std::optional<Duration> wait,
                         OptionalDuration(*up, "waitTimeout", "usageParams.waitTimeout"));
    if (wait) p.wait_timeout = *wait;
    KAI_RETURN_IF_ERROR(ReadExtraParams(*up, "usageParams.extraParams", p.extra_params, true));
  }
  KAI_RETURN_IF_ERROR(ReadExtraParams(doc, "extraParams", p.extra_params, false));
  p.staleness_period = std::max(p.staleness_period, p.fetch_interval);

  if (p.window_type == WindowType::kTumbling && !p.tumbling_window_start_time) {
    return FieldError("usageParams.tumblingWindowStartTime",
                      "required when windowType is \"tumbling\"");
  }
  if (p.window_type == WindowType::kCron && p.cron_string.empty()) {
    return FieldError("usageParams.cronString", "required when windowType is \"cron\"");
  }
  return c;
}

StatusOr<std::string> ResolveConnectionString(
    const UsageDbConfig& config,
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  if (!config.connection_string_env_var.empty()) {
    std::optional<std::string> v = getenv(config.connection_string_env_var);
    if (v && !v->empty()) return *v;
  }
  if (config.connection_string.empty()) {
    return InvalidArgumentError(
        "usageDBConfig: connectionString is empty (and connectionStringEnvVar is not set)");
  }
  return config.connection_string;
}

}  // namespace kai::proportion
