#include "kube/rest/client.h"

#include "api/json_quote.h"
#include "api/rapidjson_util.h"
#include "kube/rest/errors.h"
#include "kube/rest/json_writer.h"

namespace kai::kube {

namespace internal {

std::string DeleteOptionsJson(const DeleteOptions& options) {
  std::string out = R"({"kind":"DeleteOptions","apiVersion":"v1")";
  if (options.grace_period_seconds.has_value()) {
    out += R"(,"gracePeriodSeconds":)" + std::to_string(*options.grace_period_seconds);
  }
  if (!options.propagation_policy.empty()) {
    out += R"(,"propagationPolicy":)" + api::JsonQuote(options.propagation_policy);
  }
  if (!options.precondition_uid.empty() || !options.precondition_resource_version.empty()) {
    out += R"(,"preconditions":{)";
    bool first = true;
    if (!options.precondition_uid.empty()) {
      out += R"("uid":)" + api::JsonQuote(options.precondition_uid);
      first = false;
    }
    if (!options.precondition_resource_version.empty()) {
      if (!first) out += ",";
      out += R"("resourceVersion":)" + api::JsonQuote(options.precondition_resource_version);
    }
    out += "}";
  }
  if (options.dry_run) out += R"(,"dryRun":["All"])";
  out += "}";
  return out;
}

}  // namespace internal

StatusOr<std::string> Client::UpdateStatus(const GroupVersionResource& gvr, std::string_view ns,
                                           std::string_view name, std::string_view body,
                                           WriteOptions options) {
  options.subresource = "status";
  return Update(gvr, ns, name, body, options);
}

Status Client::Bind(std::string_view ns, std::string_view pod, std::string_view node,
                    std::string_view pod_uid,
                    const std::map<std::string, std::string>& annotations) {
  using api::JsonQuote;
  std::string body = R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":)" + JsonQuote(pod) +
                     R"(,"namespace":)" + JsonQuote(ns);
  if (!pod_uid.empty()) body += R"(,"uid":)" + JsonQuote(pod_uid);
  if (!annotations.empty()) {
    body += R"(,"annotations":{)";
    for (auto it = annotations.begin(); it != annotations.end(); ++it) {
      if (it != annotations.begin()) body += ",";
      body += JsonQuote(it->first) + ":" + JsonQuote(it->second);
    }
    body += "}";
  }
  body += R"(},"target":{"apiVersion":"v1","kind":"Node","name":)" + JsonQuote(node) + "}}";
  return CreateSubresource({"", "v1", "pods"}, ns, pod, "binding", body).status();
}

Status Client::Evict(std::string_view ns, std::string_view pod, const DeleteOptions& options) {
  using api::JsonQuote;
  std::string body = R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":)" +
                     JsonQuote(pod) + R"(,"namespace":)" + JsonQuote(ns) + R"(},"deleteOptions":)" +
                     internal::DeleteOptionsJson(options) + "}";
  return CreateSubresource({"", "v1", "pods"}, ns, pod, "eviction", body).status();
}

StatusOr<std::string> PatchJsonWithUid(Client& client, const GroupVersionResource& gvr,
                                       std::string_view ns, std::string_view name,
                                       std::string_view uid, std::string_view ops,
                                       const PatchOptions& options) {
  if (uid.empty()) return client.Patch(gvr, ns, name, PatchType::kJson, ops, options);
  const size_t open = ops.find('[');
  if (open == std::string_view::npos) return NewBadRequest("a JSON patch is a JSON array");
  std::string rest(ops.substr(open + 1));
  const bool no_ops = rest.find_first_not_of(" \t\r\n]") == std::string::npos;
  std::string patch = R"([{"op":"test","path":"/metadata/uid","value":)" + api::JsonQuote(uid) +
                      "}" + (no_ops ? "]" : "," + rest);
  StatusOr<std::string> out = client.Patch(gvr, ns, name, PatchType::kJson, patch, options);
  if (out.ok() || !IsInvalid(out.status())) return out;
  StatusOr<std::string> now = client.Get(gvr, ns, name);
  if (!now.ok()) return IsNotFound(now.status()) ? now.status() : out.status();
  rapidjson::Document doc;
  if (!api::ParseJson(*now, &doc).ok() || !doc.IsObject()) return out.status();
  const rapidjson::Value* md = api::FindMember(doc, "metadata");
  const rapidjson::Value* id =
      md != nullptr && md->IsObject() ? api::FindMember(*md, "uid") : nullptr;
  const std::string current = id != nullptr && id->IsString() ? id->GetString() : "";
  if (current == uid) return out.status();
  return NewPreconditionFailed(gvr.GroupResource(), name, "UID", uid, current);
}

StatusOr<ObjectList> ListAll(Client& client, const GroupVersionResource& gvr, std::string_view ns,
                             ListOptions options, int64_t page_size) {
  options.limit = page_size;
  options.continue_token.clear();
  const ListOptions original = options;
  ObjectList all;
  bool first = true;
  while (true) {
    StatusOr<ObjectList> page = client.List(gvr, ns, options);
    if (!page.ok()) {
      // client-go pager: an expired continue token falls back to one full list.
      if (!first && IsResourceExpired(page.status())) {
        ListOptions full = original;
        full.limit = 0;
        full.continue_token.clear();
        return client.List(gvr, ns, full);
      }
      return std::move(page).status();
    }
    if (first) {
      all.api_version = page->api_version;
      all.kind = page->kind;
      all.resource_version = page->resource_version;
      if (page->continue_token.empty()) return std::move(page).value();
      all.items.reserve(page->items.size() +
                        static_cast<size_t>(page->remaining_item_count.value_or(0)));
    }
    for (std::string& item : page->items) all.items.push_back(std::move(item));
    if (page->continue_token.empty()) break;
    first = false;
    // A continue token carries the snapshot's RV; the server refuses both together.
    options.continue_token = page->continue_token;
    options.resource_version.clear();
    options.resource_version_match.clear();
  }
  return all;
}

}  // namespace kai::kube
