#include "test/localkube/managed_fields.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "test/localkube/errors.h"
#include "test/localkube/patch.h"
#include "test/localkube/types.h"

namespace kai::localkube {
namespace {

// A field path as fieldsV1 spells its elements ("f:spec", "k:{\"name\":\"c\"}", "v:\"x\"",
// ".") joined by \x1f; a field set is a sorted set of such paths.
using FieldSet = std::set<std::string>;
constexpr char kSep = '\x1f';
constexpr std::string_view kSepStr(&kSep, 1);  // kSep as a StrCat piece

// Where we are in the type: a built-in SMP type name and/or a CRD schema node.
struct Cursor {
  std::string type;
  const Json* schema = nullptr;
};

const Json* SchemaProp(const Json* schema, std::string_view field) {
  if (schema == nullptr) return nullptr;
  if (const Json* props = Member(*schema, "properties"); props != nullptr) {
    if (const Json* p = Member(*props, field); p != nullptr) return p;
  }
  if (const Json* ap = Member(*schema, "additionalProperties"); ap != nullptr && ap->IsObject()) {
    return ap;
  }
  return nullptr;
}

Cursor Child(const Cursor& c, std::string_view field) {
  return Cursor{SmpFieldType(c.type, field), SchemaProp(c.schema, field)};
}

Cursor Elem(const Cursor& list_cursor) {
  Cursor e{list_cursor.type, nullptr};
  if (list_cursor.schema != nullptr) e.schema = Member(*list_cursor.schema, "items");
  return e;
}

ListStrategy ListAt(const Cursor& parent, std::string_view field) {
  if (parent.schema != nullptr) {
    ListStrategy s;
    const Json* ls = SchemaProp(parent.schema, field);
    if (ls == nullptr) return s;
    const std::string t = GetStr(*ls, {"x-kubernetes-list-type"});
    if (t == "map") {
      s.map_list = true;
      s.merge = true;
      if (const Json* keys = Member(*ls, "x-kubernetes-list-map-keys"); keys && keys->IsArray()) {
        for (const Json& k : keys->GetArray()) s.keys.emplace_back(View(k));
      }
      if (!s.keys.empty()) s.merge_key = s.keys[0];
    } else if (t == "set") {
      s.merge = true;
    }
    return s;
  }
  return SmpListStrategy(parent.type, field);
}

std::string KeyElement(const Json& elem, const std::vector<std::string>& keys) {
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  std::string out = "k:{";
  bool first = true;
  for (const auto& k : sorted) {
    const Json* v = Member(elem, k);
    if (v == nullptr) continue;
    if (!first) out += ",";
    first = false;
    AppendQuoted(&out, k);
    out += ":" + Serialize(*v);
  }
  return out + "}";
}

bool SkipTopLevel(std::string_view k) { return k == "apiVersion" || k == "kind"; }

bool SkipMeta(std::string_view k) {
  return k == "name" || k == "namespace" || k == "uid" || k == "resourceVersion" ||
         k == "generation" || k == "creationTimestamp" || k == "managedFields" ||
         k == "deletionTimestamp" || k == "deletionGracePeriodSeconds" || k == "selfLink" ||
         k == "generateName";
}

void Collect(const Json& v, const Cursor& c, const std::string& prefix, FieldSet* out);

void CollectMember(std::string_view k, const Json& value, const Cursor& parent,
                   const std::string& prefix, FieldSet* out) {
  const std::string path =
      prefix.empty() ? "f:" + std::string(k) : prefix + kSep + "f:" + std::string(k);
  const Cursor child = Child(parent, k);
  if (value.IsObject() && value.MemberCount() > 0) {
    Collect(value, child, path, out);
    return;
  }
  if (value.IsArray() && !value.Empty()) {
    const ListStrategy s = ListAt(parent, k);
    const Cursor elem =
        Elem(child.schema ? child : Cursor{child.type, SchemaProp(parent.schema, k)});
    if (s.map_list && !s.keys.empty()) {
      bool ok = true;
      for (const Json& e : value.GetArray()) ok = ok && e.IsObject();
      if (ok) {
        for (const Json& e : value.GetArray()) {
          const std::string ep = path + kSep + KeyElement(e, s.keys);
          out->insert(ep + kSep + ".");
          Collect(e, elem, ep, out);
        }
        return;
      }
    } else if (s.merge && s.merge_key.empty()) {
      for (const Json& e : value.GetArray()) out->insert(path + kSep + "v:" + Serialize(e));
      return;
    }
  }
  out->insert(path);
}

void Collect(const Json& v, const Cursor& c, const std::string& prefix, FieldSet* out) {
  if (!v.IsObject()) return;
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    CollectMember(View(it->name), it->value, c, prefix, out);
  }
}

Cursor RootCursor(const ResourceInfo& r) {
  Cursor c;
  if (r.hooks) {
    c.type = r.hooks->smp_type;
    if (r.hooks->openapi_schema) c.schema = r.hooks->openapi_schema.get();
  }
  if (c.type.empty() && c.schema == nullptr) c.type = "";
  return c;
}

// Field set of an object, restricted to the main resource or the status subresource.
FieldSet SetOf(const ResourceInfo& r, const Json& obj, std::string_view subresource) {
  FieldSet out;
  if (!obj.IsObject()) return out;
  const Cursor root = RootCursor(r);
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    const std::string_view k = View(it->name);
    if (SkipTopLevel(k)) continue;
    if (r.has_status()) {
      if (subresource == "status" && k != "status") continue;
      if (subresource != "status" && k == "status") continue;
    }
    if (k == "metadata") {
      if (!it->value.IsObject()) continue;
      const Cursor mc = Child(root, "metadata");
      for (auto m = it->value.MemberBegin(); m != it->value.MemberEnd(); ++m) {
        if (SkipMeta(View(m->name))) continue;
        CollectMember(View(m->name), m->value, mc, "f:metadata", &out);
      }
      continue;
    }
    CollectMember(k, it->value, root, "", &out);
  }
  return out;
}

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t p = path.find(kSep, start);
    out.push_back(path.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

bool ElementMatches(const Json& e, const std::string& elem) {
  if (elem.rfind("k:", 0) == 0) {
    auto keys = Parse(elem.substr(2));
    if (!keys.ok() || !keys->IsObject() || !e.IsObject()) return false;
    for (auto it = keys->MemberBegin(); it != keys->MemberEnd(); ++it) {
      const Json* v = Member(e, View(it->name));
      if (v == nullptr || !(*v == it->value)) return false;
    }
    return true;
  }
  if (elem.rfind("v:", 0) == 0) {
    auto val = Parse(elem.substr(2));
    return val.ok() && e == *val;
  }
  return false;
}

// The value at a field path, or null. For "." the container itself.
const Json* ValueAt(const Json& root, const std::vector<std::string>& path) {
  const Json* cur = &root;
  for (const std::string& el : path) {
    if (el == ".") return cur;
    if (el.rfind("f:", 0) == 0) {
      cur = Member(*cur, std::string_view(el).substr(2));
    } else if (cur->IsArray()) {
      const Json* found = nullptr;
      for (const Json& e : cur->GetArray()) {
        if (ElementMatches(e, el)) {
          found = &e;
          break;
        }
      }
      cur = found;
    } else {
      return nullptr;
    }
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

// Removes the field at `path` from `root` (a list element for k:/v: paths ending in ".").
void RemoveAtPath(Json& root, std::vector<std::string> path) {
  if (!path.empty() && path.back() == ".") path.pop_back();
  if (path.empty()) return;
  Json* cur = &root;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const std::string& el = path[i];
    Json* next = nullptr;
    if (el.rfind("f:", 0) == 0) {
      next = Member(*cur, std::string_view(el).substr(2));
    } else if (cur->IsArray()) {
      for (Json& e : cur->GetArray()) {
        if (ElementMatches(e, el)) {
          next = &e;
          break;
        }
      }
    }
    if (next == nullptr) return;
    cur = next;
  }
  const std::string& last = path.back();
  if (last.rfind("f:", 0) == 0) {
    RemoveMember(*cur, std::string_view(last).substr(2));
  } else if (cur->IsArray()) {
    for (auto it = cur->Begin(); it != cur->End(); ++it) {
      if (ElementMatches(*it, last)) {
        cur->Erase(it);
        return;
      }
    }
  }
}

std::string HumanPath(const std::string& path) {
  std::string out;
  for (const std::string& el : Split(path)) {
    if (el == ".") continue;
    if (el.rfind("f:", 0) == 0) {
      out += "." + el.substr(2);
    } else if (el.rfind("k:", 0) == 0) {
      auto keys = Parse(el.substr(2));
      out += "[";
      bool first = true;
      if (keys.ok() && keys->IsObject()) {
        for (auto it = keys->MemberBegin(); it != keys->MemberEnd(); ++it) {
          if (!first) out += ",";
          first = false;
          out += std::string(View(it->name)) + "=" + Serialize(it->value);
        }
      }
      out += "]";
    } else if (el.rfind("v:", 0) == 0) {
      out += "[" + el.substr(2) + "]";
    }
  }
  return out;
}

// ---- managedFields entries

struct Entry {
  std::string manager;
  std::string operation;
  std::string api_version;
  std::string time;
  std::string subresource;
  FieldSet fields;
};

// The paths of a fieldsV1 tree, joined by kSep; `path` is the prefix, restored on return (one
// buffer for the whole walk: this runs for every entry of every write).
void Flatten(const Json& node, std::string* path, FieldSet* out) {
  if (!node.IsObject()) return;
  const size_t base = path->size();
  for (auto it = node.MemberBegin(); it != node.MemberEnd(); ++it) {
    const std::string_view el = View(it->name);
    if (base > 0) path->push_back(kSep);
    path->append(el);
    if (el != "." && it->value.IsObject() && it->value.MemberCount() > 0) {
      Flatten(it->value, path, out);
    } else {
      out->insert(*path);
    }
    path->resize(base);
  }
}

std::vector<Entry> ReadEntries(const Json& obj) {
  std::vector<Entry> out;
  const Json* mf = Path(obj, {"metadata", "managedFields"});
  if (mf == nullptr || !mf->IsArray()) return out;
  for (const Json& e : mf->GetArray()) {
    Entry en;
    en.manager = GetStr(e, {"manager"});
    en.operation = GetStr(e, {"operation"});
    en.api_version = GetStr(e, {"apiVersion"});
    en.time = GetStr(e, {"time"});
    en.subresource = GetStr(e, {"subresource"});
    if (const Json* f = Member(e, "fieldsV1"); f != nullptr) {
      std::string path;
      Flatten(*f, &path, &en.fields);
    }
    out.push_back(std::move(en));
  }
  return out;
}

// The fieldsV1 tree of a (sorted) field set: the tree inserting every path from the root
// builds, without looking up again the nodes a path shares with the previous one (sorted paths
// share long prefixes) and without splitting paths into strings. Below a node created for this
// path nothing can exist yet, so only the first new component is looked up.
Json BuildTree(const FieldSet& fields, JsonAlloc& a) {
  Json tree(rapidjson::kObjectType);
  std::vector<std::string_view> prev, comps;
  std::vector<Json*> nodes;  // nodes[i]: the node of prev[i]
  for (const std::string& path : fields) {
    comps.clear();
    for (size_t start = 0;;) {
      const size_t p = path.find(kSep, start);
      comps.push_back(std::string_view(path).substr(start, p == std::string::npos ? p : p - start));
      if (p == std::string::npos) break;
      start = p + 1;
    }
    size_t k = 0;
    while (k < comps.size() && k < prev.size() && comps[k] == prev[k]) ++k;
    // Members are added to nodes[k-1] (or the root) only: deeper pointers are dropped first.
    nodes.resize(k);
    Json* cur = k == 0 ? &tree : nodes[k - 1];
    bool created = false;
    for (size_t i = k; i < comps.size(); ++i) {
      Json* next = created ? nullptr : Member(*cur, comps[i]);
      if (next == nullptr) {
        cur->AddMember(Str(comps[i], a), Json(rapidjson::kObjectType), a);
        next = &(cur->MemberEnd() - 1)->value;
        created = true;
      }
      nodes.push_back(next);
      cur = next;
    }
    prev.swap(comps);  // views into the set's strings, which outlive the loop
  }
  return tree;
}

void WriteEntries(Json& obj, JsonAlloc& a, const std::vector<Entry>& entries) {
  Json& meta = EnsureObject(obj, "metadata", a);
  Json arr(rapidjson::kArrayType);
  for (const Entry& e : entries) {
    if (e.fields.empty()) continue;
    Json je(rapidjson::kObjectType);
    je.AddMember("manager", Str(e.manager, a), a);
    je.AddMember("operation", Str(e.operation, a), a);
    je.AddMember("apiVersion", Str(e.api_version, a), a);
    je.AddMember("time", Str(e.time, a), a);
    je.AddMember("fieldsType", "FieldsV1", a);
    Json tree = BuildTree(e.fields, a);
    je.AddMember("fieldsV1", tree, a);
    if (!e.subresource.empty()) je.AddMember("subresource", Str(e.subresource, a), a);
    arr.PushBack(je, a);
  }
  if (arr.Empty()) {
    RemoveMember(meta, "managedFields");
  } else {
    SetMember(meta, "managedFields", std::move(arr), a);
  }
}

Entry* FindEntry(std::vector<Entry>& entries, std::string_view manager, std::string_view op,
                 std::string_view subresource) {
  for (Entry& e : entries) {
    if (e.manager == manager && e.operation == op && e.subresource == subresource) return &e;
  }
  return nullptr;
}

// Structured merge of an applied configuration into the live object.
void MergeApplied(Json& live, const Json& applied, const Cursor& c, JsonAlloc& a) {
  if (!applied.IsObject()) {
    live.CopyFrom(applied, a);
    return;
  }
  if (!live.IsObject()) live.SetObject();
  for (auto it = applied.MemberBegin(); it != applied.MemberEnd(); ++it) {
    const std::string_view k = View(it->name);
    Json* lv = Member(live, k);
    const Json& av = it->value;
    if (av.IsNull()) {
      RemoveMember(live, k);
      continue;
    }
    if (lv == nullptr) {
      live.AddMember(Str(k, a), Json(av, a), a);
      continue;
    }
    if (av.IsObject() && lv->IsObject()) {
      MergeApplied(*lv, av, Child(c, k), a);
      continue;
    }
    if (av.IsArray() && lv->IsArray()) {
      const ListStrategy s = ListAt(c, k);
      const Cursor child = Child(c, k);
      if (s.map_list && !s.keys.empty()) {
        const Cursor ec = Elem(child);
        for (const Json& e : av.GetArray()) {
          if (!e.IsObject()) continue;
          const std::string key = KeyElement(e, s.keys);
          Json* match = nullptr;
          for (Json& le : lv->GetArray()) {
            if (le.IsObject() && KeyElement(le, s.keys) == key) match = &le;
          }
          if (match != nullptr) {
            MergeApplied(*match, e, ec, a);
          } else {
            lv->PushBack(Json(e, a), a);
          }
        }
        continue;
      }
      if (s.merge && s.merge_key.empty()) {
        for (const Json& e : av.GetArray()) {
          bool found = false;
          for (const Json& le : lv->GetArray()) found = found || le == e;
          if (!found) lv->PushBack(Json(e, a), a);
        }
        continue;
      }
    }
    lv->CopyFrom(av, a);
  }
}

}  // namespace

std::string ManagerFromUserAgent(std::string_view user_agent) {
  if (user_agent.empty()) return "unknown";
  const size_t slash = user_agent.find('/');
  std::string m(user_agent.substr(0, slash));
  if (m.size() > 128) m.resize(128);
  return m;
}

namespace {

void DiffObject(const Json& ov, const Json& nv, const Cursor& c, const std::string& prefix,
                FieldSet* changed, FieldSet* removed, bool meta);

// The field paths that changed (added or with a new value) and were removed between the old
// and new value of member `k`, without building the full sets (writes are hot).
void DiffMember(std::string_view k, const Json* ov, const Json* nv, const Cursor& parent,
                const std::string& prefix, FieldSet* changed, FieldSet* removed) {
  if (ov == nullptr) {
    if (nv != nullptr) CollectMember(k, *nv, parent, prefix, changed);
    return;
  }
  if (nv == nullptr) {
    CollectMember(k, *ov, parent, prefix, removed);
    return;
  }
  if (*ov == *nv) return;
  const std::string path =
      prefix.empty() ? "f:" + std::string(k) : prefix + kSep + "f:" + std::string(k);
  const Cursor child = Child(parent, k);
  if (ov->IsObject() && nv->IsObject() && ov->MemberCount() > 0 && nv->MemberCount() > 0) {
    DiffObject(*ov, *nv, child, path, changed, removed, false);
    return;
  }
  if (ov->IsArray() && nv->IsArray() && !ov->Empty() && !nv->Empty()) {
    const ListStrategy s = ListAt(parent, k);
    const Cursor elem =
        Elem(child.schema ? child : Cursor{child.type, SchemaProp(parent.schema, k)});
    bool objects = true;
    for (const Json& e : ov->GetArray()) objects = objects && e.IsObject();
    for (const Json& e : nv->GetArray()) objects = objects && e.IsObject();
    if (s.map_list && !s.keys.empty() && objects) {
      std::map<std::string, const Json*> old_by_key;
      for (const Json& e : ov->GetArray()) old_by_key[KeyElement(e, s.keys)] = &e;
      std::set<std::string> seen;
      for (const Json& e : nv->GetArray()) {
        const std::string key = KeyElement(e, s.keys);
        seen.insert(key);
        const std::string ep = StrCat(path, kSepStr, key);
        auto it = old_by_key.find(key);
        if (it == old_by_key.end()) {
          changed->insert(ep + kSep + ".");
          Collect(e, elem, ep, changed);
        } else if (!(*it->second == e)) {
          DiffObject(*it->second, e, elem, ep, changed, removed, false);
        }
      }
      for (const auto& [key, e] : old_by_key) {
        if (seen.count(key)) continue;
        const std::string ep = StrCat(path, kSepStr, key);
        removed->insert(ep + kSep + ".");
        Collect(*e, elem, ep, removed);
      }
      return;
    }
    if (s.merge && s.merge_key.empty()) {
      std::set<std::string> olds, news;
      for (const Json& e : ov->GetArray()) olds.insert(path + kSep + "v:" + Serialize(e));
      for (const Json& e : nv->GetArray()) news.insert(path + kSep + "v:" + Serialize(e));
      for (const auto& x : news) {
        if (!olds.count(x)) changed->insert(x);
      }
      for (const auto& x : olds) {
        if (!news.count(x)) removed->insert(x);
      }
      return;
    }
  }
  // Shape changed or an atomic value changed: everything new is changed, the rest removed.
  FieldSet before, after;
  CollectMember(k, *ov, parent, prefix, &before);
  CollectMember(k, *nv, parent, prefix, &after);
  changed->insert(after.begin(), after.end());
  for (const auto& x : before) {
    if (!after.count(x)) removed->insert(x);
  }
}

void DiffObject(const Json& ov, const Json& nv, const Cursor& c, const std::string& prefix,
                FieldSet* changed, FieldSet* removed, bool meta) {
  for (auto it = nv.MemberBegin(); it != nv.MemberEnd(); ++it) {
    const std::string_view k = View(it->name);
    if (meta && SkipMeta(k)) continue;
    DiffMember(k, Member(ov, k), &it->value, c, prefix, changed, removed);
  }
  for (auto it = ov.MemberBegin(); it != ov.MemberEnd(); ++it) {
    const std::string_view k = View(it->name);
    if (meta && SkipMeta(k)) continue;
    if (Member(nv, k) == nullptr) CollectMember(k, it->value, c, prefix, removed);
  }
}

}  // namespace

void RecordUpdate(const ResourceInfo& r, const Json* old_obj, Json& obj, JsonAlloc& a,
                  std::string_view manager, std::string_view subresource, WallTime now) {
  std::string_view sub = subresource;
  if (sub != "status") sub = "";
  FieldSet changed;
  FieldSet removed;
  if (old_obj == nullptr) {
    changed = SetOf(r, obj, sub);
  } else {
    const Cursor root = RootCursor(r);
    static const Json kEmpty(rapidjson::kObjectType);
    auto included = [&](std::string_view k) {
      if (SkipTopLevel(k)) return false;
      if (r.has_status()) {
        if (sub == "status") return k == "status";
        return k != "status";
      }
      return true;
    };
    auto visit = [&](std::string_view k, const Json* ov, const Json* nv) {
      if (!included(k)) return;
      if (k == "metadata") {
        const Json& om = (ov && ov->IsObject()) ? *ov : kEmpty;
        const Json& nm = (nv && nv->IsObject()) ? *nv : kEmpty;
        DiffObject(om, nm, Child(root, "metadata"), "f:metadata", &changed, &removed, true);
        return;
      }
      DiffMember(k, ov, nv, root, "", &changed, &removed);
    };
    for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
      visit(View(it->name), Member(*old_obj, View(it->name)), &it->value);
    }
    for (auto it = old_obj->MemberBegin(); it != old_obj->MemberEnd(); ++it) {
      if (Member(obj, View(it->name)) == nullptr) visit(View(it->name), &it->value, nullptr);
    }
  }
  std::vector<Entry> entries = ReadEntries(obj);
  if (changed.empty() && removed.empty()) return;
  for (Entry& e : entries) {
    for (const std::string& p : changed) e.fields.erase(p);
    for (const std::string& p : removed) e.fields.erase(p);
  }
  if (!changed.empty()) {
    Entry* mine = FindEntry(entries, manager, "Update", sub);
    if (mine == nullptr) {
      entries.push_back(
          Entry{std::string(manager), "Update", r.api_version(), "", std::string(sub), {}});
      mine = &entries.back();
    }
    mine->fields.insert(changed.begin(), changed.end());
    mine->time = FormatRfc3339(now);
    mine->api_version = r.api_version();
  }
  WriteEntries(obj, a, entries);
}

Status ServerSideApply(const ResourceInfo& r, Json& obj, const Json& applied_in, JsonAlloc& a,
                       std::string_view manager, bool force, std::string_view subresource,
                       WallTime now) {
  std::string_view sub = subresource == "status" ? "status" : "";
  JsonDoc applied;
  applied.CopyFrom(applied_in, applied.GetAllocator());
  if (Json* m = Member(applied, "metadata"); m != nullptr && m->IsObject()) {
    RemoveMember(*m, "managedFields");
    RemoveMember(*m, "resourceVersion");
  }
  if (r.has_status()) {
    if (sub == "status") {
      for (auto it = applied.MemberBegin(); it != applied.MemberEnd();) {
        const std::string_view k = View(it->name);
        if (k == "status" || k == "metadata" || k == "apiVersion" || k == "kind") {
          ++it;
        } else {
          it = applied.EraseMember(it);
        }
      }
    } else {
      RemoveMember(applied, "status");
    }
  }
  const FieldSet applied_set = SetOf(r, applied, sub);
  std::vector<Entry> entries = ReadEntries(obj);
  FieldSet previous;
  if (Entry* prev = FindEntry(entries, manager, "Apply", sub); prev != nullptr) {
    previous = prev->fields;
  }
  // Conflicts: another manager owns a field this configuration sets to a different value.
  std::map<std::string, std::vector<std::string>> conflicts;  // path -> managers
  std::vector<StatusCause> causes;
  for (const std::string& p : applied_set) {
    const auto parts = Split(p);
    if (parts.back() == ".") continue;
    const Json* live = ValueAt(obj, parts);
    const Json* want = ValueAt(applied, parts);
    if (live == nullptr || want == nullptr || *live == *want) continue;
    for (Entry& e : entries) {
      if (e.manager == manager && e.operation == "Apply") continue;
      if (e.subresource != sub) continue;
      if (e.fields.count(p)) conflicts[p].push_back(e.manager + "\x1e" + e.api_version);
    }
  }
  if (!conflicts.empty() && !force) {
    size_t n = 0;
    std::string detail;
    for (const auto& [p, owners] : conflicts) {
      for (const std::string& o : owners) {
        ++n;
        const size_t sep = o.find('\x1e');
        const std::string msg =
            "conflict with \"" + o.substr(0, sep) + "\" using " + o.substr(sep + 1);
        causes.push_back({"FieldManagerConflict", HumanPath(p), msg});
        detail += "\n- " + msg + ": " + HumanPath(p);
      }
    }
    std::string message =
        "Apply failed with " + std::to_string(n) + " conflict" + (n == 1 ? "" : "s") + ":";
    if (n == 1) {
      message += " " + causes[0].message + ": " + causes[0].field;
    } else {
      message += detail;
    }
    Status s(StatusCode::kAborted, message);
    s.SetHttpCode(409).SetReason("Conflict");
    for (auto& c : causes) s.AddCause(std::move(c));
    return s;
  }
  for (const auto& [p, owners] : conflicts) {
    for (Entry& e : entries) {
      if (!(e.manager == manager && e.operation == "Apply")) e.fields.erase(p);
    }
  }
  // Merge, then remove what this manager applied before but no longer does (unless shared).
  Cursor root = RootCursor(r);
  JsonDoc body;
  body.CopyFrom(applied, body.GetAllocator());
  RemoveMember(body, "apiVersion");
  RemoveMember(body, "kind");
  if (Json* m = Member(body, "metadata"); m != nullptr && m->IsObject()) {
    for (std::string_view k : {"name", "namespace", "uid", "creationTimestamp", "generation",
                               "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"}) {
      RemoveMember(*m, k);
    }
  }
  MergeApplied(obj, body, root, a);
  std::vector<std::string> to_remove;
  for (const std::string& p : previous) {
    if (applied_set.count(p)) continue;
    bool shared = false;
    for (const Entry& e : entries) {
      if (e.manager == manager && e.operation == "Apply" && e.subresource == sub) continue;
      if (e.fields.count(p)) shared = true;
    }
    if (!shared) to_remove.push_back(p);
  }
  std::sort(to_remove.begin(), to_remove.end(),
            [](const std::string& x, const std::string& y) { return x.size() > y.size(); });
  for (const std::string& p : to_remove) RemoveAtPath(obj, Split(p));
  Entry* mine = FindEntry(entries, manager, "Apply", sub);
  if (mine == nullptr) {
    entries.push_back(
        Entry{std::string(manager), "Apply", r.api_version(), "", std::string(sub), {}});
    mine = &entries.back();
  }
  mine->fields = applied_set;
  mine->time = FormatRfc3339(now);
  mine->api_version = r.api_version();
  // Apply entries come before Update entries, as the real server orders them.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) {
    return (x.operation == "Apply") > (y.operation == "Apply");
  });
  WriteEntries(obj, a, entries);
  return Status::OK();
}

}  // namespace kai::localkube
