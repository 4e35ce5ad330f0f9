#include "kube/rest/fake_client.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>

#include "api/kinds.h"
#include "api/labels.h"
#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "kube/patch/json_patch.h"
#include "kube/patch/merge_patch.h"
#include "kube/patch/strategic_merge_patch.h"
#include "kube/rest/errors.h"

namespace kai::kube {

namespace {

using rapidjson::Document;
using rapidjson::Value;

std::string Key(std::string_view ns, std::string_view name) {
  return ns.empty() ? std::string(name) : std::string(ns) + "/" + std::string(name);
}

Value* Member(Value& obj, const char* name) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(name);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

Value& EnsureObject(Document& doc, Value& obj, const char* name) {
  Value* v = Member(obj, name);
  if (v == nullptr) {
    obj.AddMember(Value(name, doc.GetAllocator()), Value(rapidjson::kObjectType),
                  doc.GetAllocator());
    v = Member(obj, name);
  } else if (!v->IsObject()) {
    v->SetObject();
  }
  return *v;
}

void SetString(Document& doc, Value& obj, const char* name, std::string_view value) {
  Value* v = Member(obj, name);
  if (v != nullptr) {
    v->SetString(value.data(), static_cast<rapidjson::SizeType>(value.size()), doc.GetAllocator());
  } else {
    obj.AddMember(Value(name, doc.GetAllocator()), api::JsonString(value, doc.GetAllocator()),
                  doc.GetAllocator());
  }
}

std::string GetString(const Value& obj, const char* a, const char* b = nullptr) {
  const Value* v = api::FindMember(obj, a);
  if (v != nullptr && b != nullptr) v = v->IsObject() ? api::FindMember(*v, b) : nullptr;
  if (v == nullptr || !v->IsString()) return "";
  return {v->GetString(), v->GetStringLength()};
}

std::string_view StatusSuccessJson() {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})";
}

// Field selector terms ("a.b=x", "a.b!=y") evaluated on dotted string paths.
struct FieldTerm {
  std::vector<std::string> path;
  bool negate = false;
  std::string value;
};

struct Filter {
  std::string ns;
  api::LabelSelectorMatcher labels;
  std::vector<FieldTerm> fields;

  bool Matches(const Document& obj) const {
    if (!ns.empty() && GetString(obj, "metadata", "namespace") != ns) return false;
    if (!labels.Empty()) {
      std::map<std::string, std::string> l;
      if (const Value* md = api::FindMember(obj, "metadata"); md != nullptr && md->IsObject()) {
        if (const Value* lv = api::FindMember(*md, "labels"); lv != nullptr && lv->IsObject()) {
          for (auto it = lv->MemberBegin(); it != lv->MemberEnd(); ++it) {
            if (it->value.IsString()) l[it->name.GetString()] = it->value.GetString();
          }
        }
      }
      if (!labels.Matches(l)) return false;
    }
    for (const FieldTerm& t : fields) {
      const Value* v = &obj;
      for (const std::string& seg : t.path) {
        v = v->IsObject() ? api::FindMember(*v, seg) : nullptr;
        if (v == nullptr) break;
      }
      std::string s;
      if (v != nullptr && v->IsString()) s = v->GetString();
      if (v != nullptr && v->IsBool()) s = v->GetBool() ? "true" : "false";
      if (v != nullptr && v->IsInt64()) s = std::to_string(v->GetInt64());
      if ((s == t.value) == t.negate) return false;
    }
    return true;
  }
};

StatusOr<Filter> MakeFilter(std::string_view ns, std::string_view label_selector,
                            std::string_view field_selector) {
  Filter f;
  f.ns = std::string(ns);
  KAI_ASSIGN_OR_RETURN(f.labels, api::LabelSelectorMatcher::Parse(label_selector));
  for (const std::string& term : StrSplit(field_selector, ',')) {
    std::string_view t = StripWhitespace(term);
    if (t.empty()) continue;
    FieldTerm ft;
    size_t op = t.find("!=");
    size_t len = 2;
    if (op != std::string_view::npos) {
      ft.negate = true;
    } else if ((op = t.find("==")) == std::string_view::npos) {
      op = t.find('=');
      len = 1;
    }
    if (op == std::string_view::npos) {
      return NewBadRequest("invalid field selector: " + std::string(t));
    }
    ft.path = StrSplit(t.substr(0, op), '.');
    ft.value = std::string(t.substr(op + len));
    f.fields.push_back(std::move(ft));
  }
  return f;
}

struct Event {
  WatchEventType type;
  uint64_t rv;
  std::shared_ptr<const std::string> old_json;  // previous state (MODIFIED/DELETED)
  std::shared_ptr<const std::string> json;      // new state (the last state for DELETED)
};

struct ResourceState {
  std::map<std::string, std::shared_ptr<const std::string>> objects;  // by key, sorted
  std::deque<Event> history;
  uint64_t compacted_rv = 0;  // events with rv <= this may be gone
};

struct ReactorEntry {
  std::string verb;
  std::string resource;
  FakeClient::Reactor reactor;
};

}  // namespace

class FakeClient::Impl : public std::enable_shared_from_this<FakeClient::Impl> {
 public:
  explicit Impl(FakeClientOptions options)
      : options_(options), clock_(options.clock != nullptr ? options.clock : RealClock::Get()) {}

  FakeClientOptions options_;
  Clock* clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t rv_ = 1000;
  uint64_t uid_counter_ = 0;
  uint64_t drop_generation_ = 0;
  uint64_t bookmark_generation_ = 0;
  int open_watches_ = 0;
  std::map<GroupVersionResource, ResourceState> resources_;
  std::vector<FakeAction> actions_;
  std::vector<ReactorEntry> reactors_;

  std::optional<StatusOr<std::string>> React(const FakeAction& action) {
    std::vector<FakeClient::Reactor> matching;
    {
      std::lock_guard<std::mutex> l(mu_);
      actions_.push_back(action);
      const std::string resource = action.subresource.empty()
                                       ? action.gvr.resource
                                       : action.gvr.resource + "/" + action.subresource;
      for (auto it = reactors_.rbegin(); it != reactors_.rend(); ++it) {
        if ((it->verb == "*" || it->verb == action.verb) &&
            (it->resource == "*" || it->resource == resource)) {
          matching.push_back(it->reactor);
        }
      }
    }
    for (const auto& r : matching) {
      std::optional<StatusOr<std::string>> result = r(action);
      if (result.has_value()) return result;
    }
    return std::nullopt;
  }

  std::string KindOf(const GroupVersionResource& gvr, const Value& obj) const {
    std::string kind = GetString(obj, "kind");
    if (!kind.empty()) return kind;
    const api::TypeInfo* t = api::FindResource(gvr.group, gvr.resource, gvr.version);
    return t == nullptr ? "" : std::string(t->kind);
  }

  // Records a change (mu_ held) and wakes the watchers.
  void Commit(const GroupVersionResource& gvr, WatchEventType type,
              std::shared_ptr<const std::string> old_json, std::shared_ptr<const std::string> json,
              uint64_t rv) {
    ResourceState& rs = resources_[gvr];
    rs.history.push_back(Event{type, rv, std::move(old_json), std::move(json)});
    while (rs.history.size() > std::max<size_t>(1, options_.watch_history)) {
      rs.compacted_rv = rs.history.front().rv;
      rs.history.pop_front();
    }
    cv_.notify_all();
  }

  std::string NextUid() {
    ++uid_counter_;
    char buf[40];
    std::snprintf(buf, sizeof(buf), "00000000-0000-4000-8000-%012llu",
                  static_cast<unsigned long long>(uid_counter_));
    return buf;
  }

  // Fills the server-owned metadata of a new object (mu_ held). Returns its key.
  StatusOr<std::string> PrepareCreate(const GroupVersionResource& gvr, std::string_view ns,
                                      Document& doc, bool keep_uid) {
    if (!doc.IsObject()) return NewBadRequest("the body of the request is not a JSON object");
    Value& md = EnsureObject(doc, doc, "metadata");
    std::string name = GetString(doc, "metadata", "name");
    if (name.empty()) {
      const std::string gen = GetString(doc, "metadata", "generateName");
      if (gen.empty()) {
        return NewInvalid(
            KindOf(gvr, doc), "",
            {{"FieldValueRequired", "metadata.name", "name or generateName is required"}});
      }
      name = gen + std::to_string(10000 + uid_counter_ + 1).substr(1);
      SetString(doc, md, "name", name);
    }
    const std::string body_ns = GetString(doc, "metadata", "namespace");
    if (!ns.empty() && !body_ns.empty() && body_ns != ns) {
      return NewBadRequest(
          "the namespace of the provided object does not match the namespace sent on the "
          "request");
    }
    if (!ns.empty()) SetString(doc, md, "namespace", ns);
    std::string key = Key(ns, name);  // returned: not const, so it moves
    if (resources_[gvr].objects.count(key) > 0) return NewAlreadyExists(gvr.GroupResource(), name);
    if (!keep_uid || GetString(doc, "metadata", "uid").empty())
      SetString(doc, md, "uid", NextUid());
    SetString(doc, md, "creationTimestamp", FormatRfc3339(clock_->Now()));
    SetString(doc, md, "resourceVersion", std::to_string(++rv_));
    if (Value* g = Member(md, "generation"); g != nullptr) {
      g->SetInt64(1);
    } else {
      md.AddMember("generation", 1, doc.GetAllocator());
    }
    if (Member(doc, "kind") == nullptr) {
      const std::string kind = KindOf(gvr, doc);
      if (!kind.empty()) {
        doc.AddMember("kind", api::JsonString(kind, doc.GetAllocator()), doc.GetAllocator());
        doc.AddMember("apiVersion", api::JsonString(gvr.ApiVersion(), doc.GetAllocator()),
                      doc.GetAllocator());
      }
    }
    return key;
  }

  StatusOr<std::string> Create(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view body, const WriteOptions& options,
                               bool keep_uid = false) {
    Document doc;
    KAI_RETURN_IF_ERROR(api::ParseJson(body, &doc).WithPrefix("request body"));
    std::lock_guard<std::mutex> l(mu_);
    KAI_ASSIGN_OR_RETURN(std::string key, PrepareCreate(gvr, ns, doc, keep_uid));
    auto json = std::make_shared<const std::string>(api::ToJsonString(doc));
    if (options.dry_run) return *json;
    resources_[gvr].objects[key] = json;
    Commit(gvr, WatchEventType::kAdded, nullptr, json, rv_);
    return *json;
  }

  // Stores `next` as the new state of `key` (mu_ held): keeps server-owned metadata, applies the
  // status-subresource rules, bumps generation and resourceVersion, finishes deletions whose
  // finalizers are gone. `expected_rv` non-empty: optimistic concurrency.
  StatusOr<std::string> Store(const GroupVersionResource& gvr, const std::string& key,
                              std::string_view name, Document& next, const std::string& subresource,
                              bool dry_run) {
    ResourceState& rs = resources_[gvr];
    auto it = rs.objects.find(key);
    if (it == rs.objects.end()) return NewNotFound(gvr.GroupResource(), name);
    Document cur;
    KAI_RETURN_IF_ERROR(api::ParseJson(*it->second, &cur));
    if (!next.IsObject()) return NewBadRequest("the body of the request is not a JSON object");
    const std::string want_rv = GetString(next, "metadata", "resourceVersion");
    const std::string cur_rv = GetString(cur, "metadata", "resourceVersion");
    if (!want_rv.empty() && want_rv != cur_rv) {
      return NewConflict(gvr.GroupResource(), name,
                         "the object has been modified; please apply your changes to the latest "
                         "version and try again");
    }
    Document out;
    if (subresource == "status") {
      // Only .status changes.
      out.CopyFrom(cur, out.GetAllocator());
      Value* status = Member(next, "status");
      if (Value* old = Member(out, "status"); old != nullptr) out.EraseMember("status");
      if (status != nullptr)
        out.AddMember("status", Value(*status, out.GetAllocator()), out.GetAllocator());
    } else {
      out.CopyFrom(next, out.GetAllocator());
      if (options_.status_subresource) {
        if (Member(out, "status") != nullptr) out.EraseMember("status");
        if (Value* old = Member(cur, "status"); old != nullptr) {
          out.AddMember("status", Value(*old, out.GetAllocator()), out.GetAllocator());
        }
      }
      // Server-owned metadata survives.
      Value& md = EnsureObject(out, out, "metadata");
      const Value& cmd = *Member(cur, "metadata");
      for (const char* f : {"uid", "creationTimestamp", "deletionTimestamp", "namespace", "name",
                            "generation", "deletionGracePeriodSeconds"}) {
        if (md.HasMember(f)) md.EraseMember(f);
        if (auto c = cmd.FindMember(f); c != cmd.MemberEnd()) {
          md.AddMember(Value(f, out.GetAllocator()), Value(c->value, out.GetAllocator()),
                       out.GetAllocator());
        }
      }
      if (!out.HasMember("kind") && cur.HasMember("kind")) {
        out.AddMember("kind", Value(cur["kind"], out.GetAllocator()), out.GetAllocator());
      }
      if (!out.HasMember("apiVersion") && cur.HasMember("apiVersion")) {
        out.AddMember("apiVersion", Value(cur["apiVersion"], out.GetAllocator()),
                      out.GetAllocator());
      }
      // generation bumps when anything outside metadata and status changed.
      bool spec_changed = false;
      for (auto m = out.MemberBegin(); m != out.MemberEnd(); ++m) {
        const std::string_view n(m->name.GetString(), m->name.GetStringLength());
        if (n == "metadata" || n == "status" || n == "kind" || n == "apiVersion") continue;
        auto c = cur.FindMember(m->name);
        if (c == cur.MemberEnd() || c->value != m->value) spec_changed = true;
      }
      for (auto m = cur.MemberBegin(); m != cur.MemberEnd(); ++m) {
        const std::string_view n(m->name.GetString(), m->name.GetStringLength());
        if (n == "metadata" || n == "status" || n == "kind" || n == "apiVersion") continue;
        if (!out.HasMember(m->name)) spec_changed = true;
      }
      if (spec_changed) {
        Value& g = md["generation"];
        if (g.IsInt64()) g.SetInt64(g.GetInt64() + 1);
      }
    }
    // A write that changes nothing is a no-op (same resourceVersion, no event).
    {
      Value& md = EnsureObject(out, out, "metadata");
      SetString(out, md, "resourceVersion", cur_rv);
      if (out == cur) return *it->second;
    }
    if (dry_run) return api::ToJsonString(out);
    Value& md = EnsureObject(out, out, "metadata");
    SetString(out, md, "resourceVersion", std::to_string(++rv_));
    auto old_json = it->second;
    auto json = std::make_shared<const std::string>(api::ToJsonString(out));
    const Value* fin = api::FindMember(md, "finalizers");
    if (md.HasMember("deletionTimestamp") && (fin == nullptr || !fin->IsArray() || fin->Empty())) {
      rs.objects.erase(it);
      Commit(gvr, WatchEventType::kDeleted, old_json, json, rv_);
      return *json;
    }
    it->second = json;
    Commit(gvr, WatchEventType::kModified, old_json, json, rv_);
    return *json;
  }

  StatusOr<std::string> Update(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view name, std::string_view body,
                               const WriteOptions& options) {
    Document doc;
    KAI_RETURN_IF_ERROR(api::ParseJson(body, &doc).WithPrefix("request body"));
    if (doc.IsObject()) {
      const std::string body_name = GetString(doc, "metadata", "name");
      if (!body_name.empty() && body_name != name) {
        return NewBadRequest("the name of the object (" + body_name +
                             ") does not match the name on the URL (" + std::string(name) + ")");
      }
    }
    std::lock_guard<std::mutex> l(mu_);
    return Store(gvr, Key(ns, name), name, doc, options.subresource, options.dry_run);
  }

  StatusOr<std::string> Patch(const GroupVersionResource& gvr, std::string_view ns,
                              std::string_view name, PatchType type, std::string_view patch,
                              const PatchOptions& options) {
    std::lock_guard<std::mutex> l(mu_);
    ResourceState& rs = resources_[gvr];
    const std::string key = Key(ns, name);
    auto it = rs.objects.find(key);
    std::string current;
    if (it == rs.objects.end()) {
      if (type != PatchType::kApply) return NewNotFound(gvr.GroupResource(), name);
    } else {
      current = *it->second;
    }
    StatusOr<std::string> patched = InvalidArgumentError("unknown patch type");
    switch (type) {
      case PatchType::kMerge:
        patched = ApplyMergePatch(current, patch);
        break;
      case PatchType::kJson:
        patched = ApplyJsonPatch(current, patch);
        break;
      case PatchType::kStrategicMerge:
        patched = ApplyStrategicMergePatch(current, patch);
        break;
      case PatchType::kApply: {
        if (options.field_manager.empty()) {
          return NewBadRequest(
              "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required "
              "value: is required for apply patch");
        }
        StatusOr<std::string> json = api::YamlToJson(patch);
        if (!json.ok()) return NewBadRequest(json.status().message());
        patched = ApplyMergePatch(current.empty() ? "{}" : current, *json);
        break;
      }
    }
    if (!patched.ok()) {
      return NewApiError(422, kReasonInvalid, patched.status().message());
    }
    Document doc;
    KAI_RETURN_IF_ERROR(api::ParseJson(*patched, &doc));
    if (it == rs.objects.end()) {
      // Apply creates.
      KAI_ASSIGN_OR_RETURN(std::string k, PrepareCreate(gvr, ns, doc, /*keep_uid=*/false));
      auto json = std::make_shared<const std::string>(api::ToJsonString(doc));
      if (options.dry_run) return *json;
      rs.objects[k] = json;
      Commit(gvr, WatchEventType::kAdded, nullptr, json, rv_);
      return *json;
    }
    // The uid is immutable (422 on the real server), except through a custom resource's status
    // subresource, which keeps the stored metadata; the fake takes the core group as built-in.
    const std::string uid = GetString(doc, "metadata", "uid");
    Document cur_doc;
    KAI_RETURN_IF_ERROR(api::ParseJson(current, &cur_doc));
    const std::string cur_uid = GetString(cur_doc, "metadata", "uid");
    if (!uid.empty() && uid != cur_uid && (options.subresource != "status" || gvr.group.empty())) {
      return NewInvalid(KindOf(gvr, doc), name,
                        {{"FieldValueInvalid", "metadata.uid",
                          "Invalid value: \"" + uid + "\": field is immutable"}});
    }
    // A resourceVersion the patch did not set is the current one (no precondition).
    return Store(gvr, key, name, doc, options.subresource, options.dry_run);
  }

  StatusOr<std::string> Delete(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view name, const DeleteOptions& options) {
    std::lock_guard<std::mutex> l(mu_);
    ResourceState& rs = resources_[gvr];
    auto it = rs.objects.find(Key(ns, name));
    if (it == rs.objects.end()) return NewNotFound(gvr.GroupResource(), name);
    Document cur;
    KAI_RETURN_IF_ERROR(api::ParseJson(*it->second, &cur));
    if (!options.precondition_uid.empty() &&
        options.precondition_uid != GetString(cur, "metadata", "uid")) {
      return NewPreconditionFailed(gvr.GroupResource(), name, "UID", options.precondition_uid,
                                   GetString(cur, "metadata", "uid"));
    }
    if (!options.precondition_resource_version.empty() &&
        options.precondition_resource_version != GetString(cur, "metadata", "resourceVersion")) {
      return NewPreconditionFailed(gvr.GroupResource(), name, "ResourceVersion",
                                   options.precondition_resource_version,
                                   GetString(cur, "metadata", "resourceVersion"));
    }
    if (options.dry_run) return *it->second;
    Value& md = EnsureObject(cur, cur, "metadata");
    const Value* fin = api::FindMember(md, "finalizers");
    const bool has_finalizers = fin != nullptr && fin->IsArray() && !fin->Empty();
    auto old_json = it->second;
    if (has_finalizers) {
      if (md.HasMember("deletionTimestamp")) return *it->second;
      SetString(cur, md, "deletionTimestamp", FormatRfc3339(clock_->Now()));
      md.AddMember("deletionGracePeriodSeconds", 0, cur.GetAllocator());
      SetString(cur, md, "resourceVersion", std::to_string(++rv_));
      auto json = std::make_shared<const std::string>(api::ToJsonString(cur));
      it->second = json;
      Commit(gvr, WatchEventType::kModified, old_json, json, rv_);
      return *json;
    }
    SetString(cur, md, "resourceVersion", std::to_string(++rv_));
    auto json = std::make_shared<const std::string>(api::ToJsonString(cur));
    rs.objects.erase(it);
    Commit(gvr, WatchEventType::kDeleted, old_json, json, rv_);
    return *json;
  }

  StatusOr<std::string> Bind(const GroupVersionResource& gvr, std::string_view ns,
                             std::string_view name, std::string_view body) {
    Document binding;
    KAI_RETURN_IF_ERROR(api::ParseJson(body, &binding).WithPrefix("binding"));
    const std::string node = GetString(binding, "target", "name");
    if (node.empty()) {
      return NewInvalid("Binding", name, {{"FieldValueRequired", "target.name", "Required value"}});
    }
    std::lock_guard<std::mutex> l(mu_);
    ResourceState& rs = resources_[gvr];
    auto it = rs.objects.find(Key(ns, name));
    if (it == rs.objects.end()) return NewNotFound("pods", name);
    Document cur;
    KAI_RETURN_IF_ERROR(api::ParseJson(*it->second, &cur));
    // As the real registry: the Binding's uid is a precondition, its annotations are merged.
    const std::string want_uid = GetString(binding, "metadata", "uid");
    const std::string uid = GetString(cur, "metadata", "uid");
    if (!want_uid.empty() && want_uid != uid) {
      return NewPreconditionFailed("pods", name, "UID", want_uid, uid);
    }
    if (!GetString(cur, "metadata", "deletionTimestamp").empty()) {
      return NewConflict(
          "pods/binding", name,
          "pod " + std::string(name) + " is being deleted, cannot be assigned to a host");
    }
    const std::string bound = GetString(cur, "spec", "nodeName");
    if (!bound.empty()) {
      return NewConflict(
          "pods/binding", name,
          "pod " + std::string(name) + " is already assigned to node \"" + bound + "\"");
    }
    Value& spec = EnsureObject(cur, cur, "spec");
    SetString(cur, spec, "nodeName", node);
    Value& md = EnsureObject(cur, cur, "metadata");
    if (Value* bmd = Member(binding, "metadata"); bmd != nullptr && bmd->IsObject()) {
      if (Value* ann = Member(*bmd, "annotations"); ann != nullptr && ann->IsObject()) {
        Value& out = EnsureObject(cur, md, "annotations");
        for (const auto& m : ann->GetObject()) {
          if (!m.value.IsString()) return NewBadRequest("binding: annotation values are strings");
          SetString(cur, out, m.name.GetString(),
                    std::string_view(m.value.GetString(), m.value.GetStringLength()));
        }
      }
    }
    SetString(cur, md, "resourceVersion", std::to_string(++rv_));
    auto old_json = it->second;
    auto json = std::make_shared<const std::string>(api::ToJsonString(cur));
    it->second = json;
    Commit(gvr, WatchEventType::kModified, old_json, json, rv_);
    return std::string(StatusSuccessJson());
  }
};

namespace {

class FakeWatcher final : public Watcher {
 public:
  FakeWatcher(std::shared_ptr<FakeClient::Impl> impl, GroupVersionResource gvr, Filter filter,
              bool bookmarks, std::deque<WatchEvent> initial, uint64_t start_rv)
      : impl_(std::move(impl)),
        gvr_(std::move(gvr)),
        filter_(std::move(filter)),
        bookmarks_(bookmarks),
        pending_(std::move(initial)),
        last_rv_(start_rv) {
    drop_generation_ = impl_->drop_generation_;
    bookmark_generation_ = impl_->bookmark_generation_;
    ++impl_->open_watches_;
  }
  ~FakeWatcher() override {
    std::lock_guard<std::mutex> l(impl_->mu_);
    --impl_->open_watches_;
  }

  bool Next(WatchEvent* event) override {
    std::unique_lock<std::mutex> l(impl_->mu_);
    while (true) {
      if (stopped_) {
        result_ = CancelledError("watch stopped");
        return false;
      }
      if (ended_) return false;
      if (!pending_.empty()) {
        *event = std::move(pending_.front());
        pending_.pop_front();
        return true;
      }
      if (impl_->drop_generation_ != drop_generation_) {
        ended_ = true;  // clean close
        return false;
      }
      ResourceState& rs = impl_->resources_[gvr_];
      if (rs.compacted_rv > last_rv_) {
        ended_ = true;
        const Status expired = NewExpired("too old resource version: " + std::to_string(last_rv_) +
                                          " (" + std::to_string(rs.compacted_rv + 1) + ")");
        *event = WatchEvent{WatchEventType::kError, StatusToJson(expired), "", expired};
        return true;
      }
      auto it = std::upper_bound(rs.history.begin(), rs.history.end(), last_rv_,
                                 [](uint64_t rv, const Event& e) { return rv < e.rv; });
      for (; it != rs.history.end(); ++it) {
        last_rv_ = it->rv;
        if (Translate(*it, event)) return true;
      }
      if (bookmarks_ && impl_->bookmark_generation_ != bookmark_generation_) {
        bookmark_generation_ = impl_->bookmark_generation_;
        const std::string rv = std::to_string(impl_->rv_);
        last_rv_ = std::max(last_rv_, impl_->rv_);
        *event = WatchEvent{WatchEventType::kBookmark,
                            R"({"kind":"Bookmark","metadata":{"resourceVersion":")" + rv + "\"}}",
                            rv,
                            {}};
        return true;
      }
      impl_->cv_.wait(l);
    }
  }

  void Stop() override {
    {
      std::lock_guard<std::mutex> l(impl_->mu_);
      stopped_ = true;
    }
    impl_->cv_.notify_all();
  }

  Status Result() const override {
    std::lock_guard<std::mutex> l(impl_->mu_);
    return result_;
  }

 private:
  // Selector transitions: MODIFIED into the selection is ADDED, out of it DELETED.
  bool Translate(const Event& e, WatchEvent* out) {
    Document now;
    if (!api::ParseJson(*e.json, &now).ok()) return false;
    const bool now_matches = filter_.Matches(now);
    bool old_matches = false;
    if (e.old_json != nullptr) {
      Document old;
      old_matches = api::ParseJson(*e.old_json, &old).ok() && filter_.Matches(old);
    }
    WatchEventType type = e.type;
    if (e.type == WatchEventType::kAdded) {
      if (!now_matches) return false;
    } else if (e.type == WatchEventType::kModified) {
      if (!now_matches && !old_matches) return false;
      if (now_matches && !old_matches) type = WatchEventType::kAdded;
      if (!now_matches && old_matches) type = WatchEventType::kDeleted;
    } else if (e.type == WatchEventType::kDeleted) {
      if (!old_matches && !now_matches) return false;
    }
    *out = WatchEvent{type, *e.json, std::to_string(e.rv), {}};
    return true;
  }

  std::shared_ptr<FakeClient::Impl> impl_;
  GroupVersionResource gvr_;
  Filter filter_;
  bool bookmarks_;
  std::deque<WatchEvent> pending_;
  uint64_t last_rv_;
  uint64_t drop_generation_ = 0;
  uint64_t bookmark_generation_ = 0;
  bool stopped_ = false;
  bool ended_ = false;
  Status result_;
};

}  // namespace

FakeClient::FakeClient(FakeClientOptions options) : impl_(std::make_shared<Impl>(options)) {}
FakeClient::~FakeClient() = default;

Status FakeClient::Seed(const GroupVersionResource& gvr, std::string_view json) {
  Document doc;
  KAI_RETURN_IF_ERROR(api::ParseJson(json, &doc).WithPrefix("seed"));
  const std::string ns = doc.IsObject() ? GetString(doc, "metadata", "namespace") : "";
  return impl_->Create(gvr, ns, json, {}, /*keep_uid=*/true).status();
}

void FakeClient::PrependReactor(std::string verb, std::string resource, Reactor reactor) {
  std::lock_guard<std::mutex> l(impl_->mu_);
  impl_->reactors_.push_back({std::move(verb), std::move(resource), std::move(reactor)});
}

void FakeClient::InjectError(std::string verb, std::string resource, const Status& error,
                             int count) {
  auto remaining = std::make_shared<std::atomic<int>>(count);
  PrependReactor(std::move(verb), std::move(resource),
                 [remaining, error](const FakeAction&) -> std::optional<StatusOr<std::string>> {
                   if (remaining->load() == 0) return std::nullopt;
                   if (remaining->load() > 0) remaining->fetch_sub(1);
                   return StatusOr<std::string>(error);
                 });
}

std::vector<FakeAction> FakeClient::actions() const {
  std::lock_guard<std::mutex> l(impl_->mu_);
  return impl_->actions_;
}

void FakeClient::ClearActions() {
  std::lock_guard<std::mutex> l(impl_->mu_);
  impl_->actions_.clear();
}

std::string FakeClient::resource_version() const {
  std::lock_guard<std::mutex> l(impl_->mu_);
  return std::to_string(impl_->rv_);
}

void FakeClient::DropWatches() {
  {
    std::lock_guard<std::mutex> l(impl_->mu_);
    ++impl_->drop_generation_;
  }
  impl_->cv_.notify_all();
}

void FakeClient::CompactHistory() {
  {
    std::lock_guard<std::mutex> l(impl_->mu_);
    for (auto& [gvr, rs] : impl_->resources_) {
      if (!rs.history.empty()) rs.compacted_rv = rs.history.back().rv;
      rs.history.clear();
    }
  }
  impl_->cv_.notify_all();
}

void FakeClient::Bookmark() {
  {
    std::lock_guard<std::mutex> l(impl_->mu_);
    ++impl_->bookmark_generation_;
  }
  impl_->cv_.notify_all();
}

int FakeClient::open_watches() const {
  std::lock_guard<std::mutex> l(impl_->mu_);
  return impl_->open_watches_;
}

StatusOr<std::string> FakeClient::Get(const GroupVersionResource& gvr, std::string_view ns,
                                      std::string_view name, const GetOptions& options) {
  if (auto r = impl_->React({"get", gvr, std::string(ns), std::string(name), options.subresource,
                             "", std::nullopt})) {
    return *r;
  }
  std::lock_guard<std::mutex> l(impl_->mu_);
  auto& objects = impl_->resources_[gvr].objects;
  auto it = objects.find(Key(ns, name));
  if (it == objects.end()) return NewNotFound(gvr.GroupResource(), name);
  return *it->second;
}

StatusOr<ObjectList> FakeClient::List(const GroupVersionResource& gvr, std::string_view ns,
                                      const ListOptions& options) {
  if (auto r = impl_->React({"list", gvr, std::string(ns), "", "", "", std::nullopt})) {
    if (!r->ok()) return r->status();
  }
  KAI_ASSIGN_OR_RETURN(Filter filter,
                       MakeFilter(ns, options.label_selector, options.field_selector));
  std::lock_guard<std::mutex> l(impl_->mu_);
  ObjectList list;
  list.api_version = gvr.ApiVersion();
  const api::TypeInfo* t = api::FindResource(gvr.group, gvr.resource, gvr.version);
  list.kind = (t == nullptr ? "" : std::string(t->kind)) + "List";
  list.resource_version = std::to_string(impl_->rv_);
  auto& objects = impl_->resources_[gvr].objects;
  // Paging: the continue token is the last key returned (a snapshot is not kept).
  auto it = options.continue_token.empty() ? objects.begin()
                                           : objects.upper_bound(options.continue_token);
  for (; it != objects.end(); ++it) {
    Document doc;
    if (!api::ParseJson(*it->second, &doc).ok() || !filter.Matches(doc)) continue;
    if (options.limit > 0 && static_cast<int64_t>(list.items.size()) == options.limit) {
      list.continue_token = std::prev(it)->first;
      break;
    }
    list.items.push_back(*it->second);
  }
  return list;
}

StatusOr<std::string> FakeClient::Create(const GroupVersionResource& gvr, std::string_view ns,
                                         std::string_view body, const WriteOptions& options) {
  if (auto r = impl_->React({"create", gvr, std::string(ns), "", options.subresource,
                             std::string(body), std::nullopt})) {
    return *r;
  }
  return impl_->Create(gvr, ns, body, options);
}

StatusOr<std::string> FakeClient::Update(const GroupVersionResource& gvr, std::string_view ns,
                                         std::string_view name, std::string_view body,
                                         const WriteOptions& options) {
  if (auto r = impl_->React({"update", gvr, std::string(ns), std::string(name), options.subresource,
                             std::string(body), std::nullopt})) {
    return *r;
  }
  return impl_->Update(gvr, ns, name, body, options);
}

StatusOr<std::string> FakeClient::Patch(const GroupVersionResource& gvr, std::string_view ns,
                                        std::string_view name, PatchType type,
                                        std::string_view patch, const PatchOptions& options) {
  if (auto r = impl_->React({"patch", gvr, std::string(ns), std::string(name), options.subresource,
                             std::string(patch), type})) {
    return *r;
  }
  return impl_->Patch(gvr, ns, name, type, patch, options);
}

StatusOr<std::string> FakeClient::Delete(const GroupVersionResource& gvr, std::string_view ns,
                                         std::string_view name, const DeleteOptions& options) {
  if (auto r =
          impl_->React({"delete", gvr, std::string(ns), std::string(name), "", "", std::nullopt})) {
    return *r;
  }
  return impl_->Delete(gvr, ns, name, options);
}

StatusOr<std::string> FakeClient::CreateSubresource(const GroupVersionResource& gvr,
                                                    std::string_view ns, std::string_view name,
                                                    std::string_view subresource,
                                                    std::string_view body,
                                                    const WriteOptions& options) {
  if (auto r = impl_->React({"create-subresource", gvr, std::string(ns), std::string(name),
                             std::string(subresource), std::string(body), std::nullopt})) {
    return *r;
  }
  const bool pods = gvr.group.empty() && gvr.resource == "pods";
  if (pods && subresource == "binding") return impl_->Bind(gvr, ns, name, body);
  if (pods && subresource == "eviction") {
    DeleteOptions del;
    Document ev;
    if (api::ParseJson(body, &ev).ok() && ev.IsObject()) {
      if (const Value* d = api::FindMember(ev, "deleteOptions"); d != nullptr && d->IsObject()) {
        if (const Value* g = api::FindMember(*d, "gracePeriodSeconds"); g && g->IsInt64()) {
          del.grace_period_seconds = g->GetInt64();
        }
      }
    }
    KAI_RETURN_IF_ERROR(impl_->Delete(gvr, ns, name, del).status());
    return std::string(StatusSuccessJson());
  }
  return std::string(body);
}

StatusOr<std::unique_ptr<Watcher>> FakeClient::Watch(const GroupVersionResource& gvr,
                                                     std::string_view ns,
                                                     const WatchOptions& options) {
  if (auto r = impl_->React({"watch", gvr, std::string(ns), "", "", "", std::nullopt})) {
    if (!r->ok()) return r->status();
  }
  KAI_ASSIGN_OR_RETURN(Filter filter,
                       MakeFilter(ns, options.label_selector, options.field_selector));
  std::lock_guard<std::mutex> l(impl_->mu_);
  std::deque<WatchEvent> initial;
  uint64_t start = impl_->rv_;
  if (options.resource_version.empty() || options.resource_version == "0") {
    for (const auto& [key, json] : impl_->resources_[gvr].objects) {
      Document doc;
      if (!api::ParseJson(*json, &doc).ok() || !filter.Matches(doc)) continue;
      initial.push_back(WatchEvent{
          WatchEventType::kAdded, *json, GetString(doc, "metadata", "resourceVersion"), {}});
    }
  } else {
    const std::string& rv = options.resource_version;
    auto [p, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), start);
    if (ec != std::errc() || p != rv.data() + rv.size()) {
      return NewBadRequest("invalid resource version \"" + rv + "\"");
    }
  }
  return std::unique_ptr<Watcher>(std::make_unique<FakeWatcher>(
      impl_, gvr, std::move(filter), options.allow_bookmarks, std::move(initial), start));
}

}  // namespace kai::kube
