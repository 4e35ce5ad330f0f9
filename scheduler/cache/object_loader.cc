#include "scheduler/cache/object_loader.h"

#include <cmath>
#include <type_traits>

#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/time.h"

// Until the api branch's JSON codecs and Quantity implementation land, the snapshot is decoded
// here with a visitor over the api types' Fields() lists. Resource lists (Quantity maps) are not
// filled in the api objects; the scheduler reads them through ResourceAmounts instead.
// TODO(sched): switch to api::DecodeJson / api::PodRequests once they are implemented.

namespace kai::scheduler {

namespace {

using rapidjson::Value;

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};
template <typename T>
struct IsStringMap : std::false_type {};
template <typename T>
struct IsStringMap<std::map<std::string, T>> : std::true_type {};

template <typename T, typename = void>
struct HasFields : std::false_type {};
template <typename T>
struct HasFields<T, std::void_t<decltype(&T::template Fields<T, int>)>> : std::true_type {};

class Decoder {
 public:
  explicit Decoder(std::string object) : object_(std::move(object)) {}

  template <typename T>
  Status DecodeStruct(const Value& v, const std::string& path, T* out) {
    if (!v.IsObject()) return Error(path, "expected an object");
    FieldVisitor fv{this, &v, path, Status::OK()};
    T::Fields(*out, fv);
    return fv.status;
  }

  template <typename T>
  Status Decode(const Value& v, const std::string& path, T* out) {
    if constexpr (std::is_same_v<T, api::ResourceList> || std::is_same_v<T, api::Quantity>) {
      return Status::OK();  // read separately as ResourceAmounts
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (v.IsString()) {
        *out = v.GetString();
      } else if (v.IsNumber()) {
        *out = api::ToJsonString(v);
      } else if (v.IsBool()) {
        *out = v.GetBool() ? "true" : "false";
      } else {
        return Error(path, "expected a string");
      }
      return Status::OK();
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!v.IsBool()) return Error(path, "expected a boolean");
      *out = v.GetBool();
      return Status::OK();
    } else if constexpr (std::is_integral_v<T>) {
      if (v.IsInt64()) {
        *out = static_cast<T>(v.GetInt64());
      } else if (v.IsDouble() && std::floor(v.GetDouble()) == v.GetDouble()) {
        *out = static_cast<T>(v.GetDouble());
      } else {
        return Error(path, "expected an integer");
      }
      return Status::OK();
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!v.IsNumber()) return Error(path, "expected a number");
      *out = v.GetDouble();
      return Status::OK();
    } else if constexpr (std::is_same_v<T, WallTime>) {
      if (!v.IsString()) return Error(path, "expected an RFC 3339 time");
      auto t = ParseRfc3339(v.GetString());
      if (!t.ok()) return Error(path, std::string(t.status().message()));
      *out = *t;
      return Status::OK();
    } else if constexpr (std::is_same_v<T, Duration>) {
      if (!v.IsString()) return Error(path, "expected a duration string");
      auto d = ParseGoDuration(v.GetString());
      if (!d.ok()) return Error(path, std::string(d.status().message()));
      *out = *d;
      return Status::OK();
    } else if constexpr (std::is_same_v<T, api::MicroTime>) {
      return Decode(v, path, &out->value);
    } else if constexpr (std::is_same_v<T, api::RawJson>) {
      out->json = api::ToJsonString(v);
      return Status::OK();
    } else if constexpr (IsOptional<T>::value) {
      typename T::value_type inner{};
      KAI_RETURN_IF_ERROR(Decode(v, path, &inner));
      *out = std::move(inner);
      return Status::OK();
    } else if constexpr (IsVector<T>::value) {
      if (!v.IsArray()) return Error(path, "expected a list");
      out->clear();
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        if (v[i].IsNull()) continue;
        typename T::value_type item{};
        KAI_RETURN_IF_ERROR(Decode(v[i], path + "[" + std::to_string(i) + "]", &item));
        out->push_back(std::move(item));
      }
      return Status::OK();
    } else if constexpr (IsStringMap<T>::value) {
      if (!v.IsObject()) return Error(path, "expected a mapping");
      for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
        if (m->value.IsNull()) continue;
        typename T::mapped_type item{};
        std::string key = m->name.GetString();
        KAI_RETURN_IF_ERROR(Decode(m->value, path + "." + key, &item));
        (*out)[key] = std::move(item);
      }
      return Status::OK();
    } else {
      return DecodeStruct(v, path, out);
    }
  }

  Status Error(const std::string& path, const std::string& msg) const {
    return InvalidArgumentError(object_ + ": " + path + ": " + msg);
  }

 private:
  struct FieldVisitor {
    Decoder* d;
    const Value* obj;
    std::string path;
    Status status;
    template <typename F>
    void operator()(const char* name, F& field) {
      if (!status.ok()) return;
      const Value* v = api::FindMember(*obj, name);
      if (v == nullptr) return;
      std::string p = path.empty() ? std::string(name) : path + "." + name;
      status = d->Decode(*v, p, &field);
    }
  };

  std::string object_;
};

Status ReadResourceList(const Value* list, const std::string& where, ResourceAmounts* out) {
  if (list == nullptr) return Status::OK();
  if (!list->IsObject()) return InvalidArgumentError(where + ": expected a mapping");
  for (auto m = list->MemberBegin(); m != list->MemberEnd(); ++m) {
    std::string name = m->name.GetString();
    std::string text;
    if (m->value.IsString()) {
      text = m->value.GetString();
    } else if (m->value.IsNumber()) {
      text = api::ToJsonString(m->value);
    } else {
      return InvalidArgumentError(where + "." + name + ": expected a quantity");
    }
    if (name == "cpu") {
      auto v = QuantityMilliValue(text);
      if (!v.ok())
        return InvalidArgumentError(where + "." + name + ": " + std::string(v.status().message()));
      (*out)[name] = static_cast<double>(*v);
    } else {
      auto v = QuantityValue(text);
      if (!v.ok())
        return InvalidArgumentError(where + "." + name + ": " + std::string(v.status().message()));
      (*out)[name] = static_cast<double>(*v);
    }
  }
  return Status::OK();
}

const Value* Path(const Value& root, std::initializer_list<const char*> keys) {
  const Value* v = &root;
  for (const char* k : keys) {
    if (!v->IsObject()) return nullptr;
    v = api::FindMember(*v, k);
    if (v == nullptr) return nullptr;
  }
  return v;
}

void AddAmounts(ResourceAmounts* into, const ResourceAmounts& a) {
  for (const auto& [k, v] : a) (*into)[k] += v;
}

void MaxAmounts(ResourceAmounts* into, const ResourceAmounts& a) {
  for (const auto& [k, v] : a) {
    auto it = into->find(k);
    if (it == into->end() || v > it->second) (*into)[k] = v;
  }
}

// Kubernetes effective pod requests (component-helpers resource.PodRequests): regular
// containers plus native sidecars, each init container's peak with the sidecars started before
// it, then overhead.
Status EffectiveRequests(const Value& doc, const std::string& where, ResourceAmounts* out) {
  ResourceAmounts regular;
  const Value* containers = Path(doc, {"spec", "containers"});
  if (containers != nullptr && containers->IsArray()) {
    for (rapidjson::SizeType i = 0; i < containers->Size(); ++i) {
      ResourceAmounts r;
      KAI_RETURN_IF_ERROR(ReadResourceList(
          Path((*containers)[i], {"resources", "requests"}),
          where + ": spec.containers[" + std::to_string(i) + "].resources.requests", &r));
      AddAmounts(&regular, r);
    }
  }
  ResourceAmounts init_peak;
  ResourceAmounts sidecars;
  const Value* inits = Path(doc, {"spec", "initContainers"});
  if (inits != nullptr && inits->IsArray()) {
    for (rapidjson::SizeType i = 0; i < inits->Size(); ++i) {
      ResourceAmounts r;
      KAI_RETURN_IF_ERROR(ReadResourceList(
          Path((*inits)[i], {"resources", "requests"}),
          where + ": spec.initContainers[" + std::to_string(i) + "].resources.requests", &r));
      const Value* policy = Path((*inits)[i], {"restartPolicy"});
      bool sidecar = policy != nullptr && policy->IsString() &&
                     std::string_view(policy->GetString()) == "Always";
      if (sidecar) {
        AddAmounts(&sidecars, r);
        ResourceAmounts peak = sidecars;
        MaxAmounts(&init_peak, peak);
      } else {
        ResourceAmounts peak = sidecars;
        AddAmounts(&peak, r);
        MaxAmounts(&init_peak, peak);
      }
    }
  }
  AddAmounts(&regular, sidecars);
  *out = regular;
  MaxAmounts(out, init_peak);
  ResourceAmounts overhead;
  KAI_RETURN_IF_ERROR(
      ReadResourceList(Path(doc, {"spec", "overhead"}), where + ": spec.overhead", &overhead));
  AddAmounts(out, overhead);
  return Status::OK();
}

template <typename T>
StatusOr<std::shared_ptr<const T>> DecodeObject(const Value& doc, const std::string& where) {
  auto obj = std::make_shared<T>();
  Decoder d(where);
  KAI_RETURN_IF_ERROR(d.DecodeStruct(doc, "", obj.get()));
  return std::shared_ptr<const T>(std::move(obj));
}

std::string ObjectName(const Value& doc, std::string_view kind) {
  std::string name, ns;
  if (const Value* n = Path(doc, {"metadata", "name"}); n && n->IsString()) name = n->GetString();
  if (const Value* n = Path(doc, {"metadata", "namespace"}); n && n->IsString()) {
    ns = n->GetString();
  }
  std::string id = ns.empty() ? name : ns + "/" + name;
  return std::string(kind) + " " + (id.empty() ? "<unnamed>" : id);
}

Status AddObject(const Value& doc, const std::string& doc_where, LoadedObjects* out) {
  if (!doc.IsObject()) return InvalidArgumentError(doc_where + ": expected an object");
  const Value* kind_v = api::FindMember(doc, "kind");
  if (kind_v == nullptr || !kind_v->IsString()) {
    return InvalidArgumentError(doc_where + ": missing kind");
  }
  std::string kind = kind_v->GetString();
  if (kind == "List" || kind.ends_with("List")) {
    const Value* items = api::FindMember(doc, "items");
    if (items == nullptr) return Status::OK();
    if (!items->IsArray()) return InvalidArgumentError(doc_where + ": items: expected a list");
    for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
      KAI_RETURN_IF_ERROR(
          AddObject((*items)[i], doc_where + " items[" + std::to_string(i) + "]", out));
    }
    return Status::OK();
  }
  std::string where = doc_where + ": " + ObjectName(doc, kind);
  const Value* name = Path(doc, {"metadata", "name"});
  if (name == nullptr || !name->IsString() || std::string_view(name->GetString()).empty()) {
    return InvalidArgumentError(where + ": metadata.name: required");
  }
  if (kind == "Pod") {
    KAI_ASSIGN_OR_RETURN(auto pod, DecodeObject<api::Pod>(doc, where));
    LoadedPod lp;
    if (pod->metadata.namespace_.empty()) {
      auto copy = std::make_shared<api::Pod>(*pod);
      copy->metadata.namespace_ = "default";
      pod = copy;
    }
    lp.pod = pod;
    KAI_RETURN_IF_ERROR(EffectiveRequests(doc, where, &lp.requests));
    out->pods.push_back(std::move(lp));
  } else if (kind == "Node") {
    KAI_ASSIGN_OR_RETURN(auto node, DecodeObject<api::Node>(doc, where));
    LoadedNode ln;
    ln.node = node;
    KAI_RETURN_IF_ERROR(ReadResourceList(Path(doc, {"status", "allocatable"}),
                                         where + ": status.allocatable", &ln.allocatable));
    KAI_RETURN_IF_ERROR(ReadResourceList(Path(doc, {"status", "capacity"}),
                                         where + ": status.capacity", &ln.capacity));
    out->nodes.push_back(std::move(ln));
  } else if (kind == "PodGroup") {
    KAI_ASSIGN_OR_RETURN(auto pg, DecodeObject<api::PodGroup>(doc, where));
    if (pg->metadata.namespace_.empty()) {
      auto copy = std::make_shared<api::PodGroup>(*pg);
      copy->metadata.namespace_ = "default";
      pg = copy;
    }
    out->podgroups.push_back(pg);
  } else if (kind == "Queue") {
    KAI_ASSIGN_OR_RETURN(auto q, DecodeObject<api::Queue>(doc, where));
    out->queues.push_back(q);
  } else if (kind == "PriorityClass") {
    KAI_ASSIGN_OR_RETURN(auto pc, DecodeObject<api::PriorityClass>(doc, where));
    out->priority_classes.push_back(pc);
  } else if (kind == "Topology") {
    KAI_ASSIGN_OR_RETURN(auto t, DecodeObject<api::Topology>(doc, where));
    out->topologies.push_back(t);
  } else if (kind == "ConfigMap") {
    KAI_ASSIGN_OR_RETURN(auto cm, DecodeObject<api::ConfigMap>(doc, where));
    if (cm->metadata.namespace_.empty()) {
      auto copy = std::make_shared<api::ConfigMap>(*cm);
      copy->metadata.namespace_ = "default";
      cm = copy;
    }
    out->config_maps.push_back(cm);
  } else if (kind == "BindRequest") {
    KAI_ASSIGN_OR_RETURN(auto br, DecodeObject<api::BindRequest>(doc, where));
    if (br->metadata.namespace_.empty()) {
      auto copy = std::make_shared<api::BindRequest>(*br);
      copy->metadata.namespace_ = "default";
      br = copy;
    }
    out->bind_requests.push_back(br);
  } else if (kind == "SchedulingShard") {
    KAI_ASSIGN_OR_RETURN(auto s, DecodeObject<api::SchedulingShard>(doc, where));
    out->shards.push_back(s);
  } else if (kind == "Config") {
    KAI_ASSIGN_OR_RETURN(auto c, DecodeObject<api::Config>(doc, where));
    out->configs.push_back(c);
  } else {
    std::string api_version;
    if (const Value* av = api::FindMember(doc, "apiVersion"); av && av->IsString()) {
      api_version = av->GetString();
    }
    return InvalidArgumentError(where + ": unknown kind \"" + kind + "\" (apiVersion \"" +
                                api_version +
                                "\"); expected Node, Pod, PodGroup, Queue, PriorityClass, "
                                "SchedulingShard, Config, Topology, ConfigMap or BindRequest");
  }
  return Status::OK();
}

struct ParsedQuantity {
  __int128 mantissa = 0;  // digits without the decimal point
  int exp10 = 0;          // decimal exponent applied to the mantissa
  int bin_exp = 0;        // multiples of 1024
  bool negative = false;
};

StatusOr<ParsedQuantity> Parse(std::string_view s) {
  auto bad = [&]() {
    return InvalidArgumentError(
        "quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', got \"" +
        std::string(s) + "\"");
  };
  ParsedQuantity q;
  size_t i = 0;
  if (s.empty()) return bad();
  if (s[0] == '+' || s[0] == '-') {
    q.negative = s[0] == '-';
    ++i;
  }
  bool digits = false, dot = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      if (q.mantissa > (static_cast<__int128>(1) << 100)) return bad();
      q.mantissa = q.mantissa * 10 + (c - '0');
      if (dot) --q.exp10;
      digits = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!digits) return bad();
  std::string_view suffix = s.substr(i);
  if (suffix.empty()) return q;
  static const std::pair<std::string_view, int> kBinary[] = {{"Ki", 1}, {"Mi", 2}, {"Gi", 3},
                                                             {"Ti", 4}, {"Pi", 5}, {"Ei", 6}};
  for (const auto& [suf, e] : kBinary) {
    if (suffix == suf) {
      q.bin_exp = e;
      return q;
    }
  }
  static const std::pair<std::string_view, int> kDecimal[] = {{"n", -9}, {"u", -6}, {"m", -3},
                                                              {"k", 3},  {"M", 6},  {"G", 9},
                                                              {"T", 12}, {"P", 15}, {"E", 18}};
  for (const auto& [suf, e] : kDecimal) {
    if (suffix == suf) {
      q.exp10 += e;
      return q;
    }
  }
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string_view rest = suffix.substr(1);
    bool neg = false;
    if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
      neg = rest[0] == '-';
      rest.remove_prefix(1);
    }
    if (rest.empty() || rest.size() > 4) return bad();
    int e = 0;
    for (char c : rest) {
      if (c < '0' || c > '9') return bad();
      e = e * 10 + (c - '0');
    }
    q.exp10 += neg ? -e : e;
    return q;
  }
  return bad();
}

// ceil(q * 10^scale) as int64 (Kubernetes rounds up).
StatusOr<int64_t> Scaled(const ParsedQuantity& q, int scale) {
  __int128 num = q.mantissa;
  for (int i = 0; i < q.bin_exp; ++i) num *= 1024;
  int e = q.exp10 + scale;
  if (e >= 0) {
    for (int i = 0; i < e; ++i) {
      num *= 10;
      if (num > (static_cast<__int128>(1) << 62)) return OutOfRangeError("quantity too large");
    }
  } else {
    __int128 div = 1;
    for (int i = 0; i < -e && i < 38; ++i) div *= 10;
    __int128 whole = num / div;
    if (num % div != 0 && !q.negative) whole += 1;
    num = whole;
  }
  if (num > (static_cast<__int128>(1) << 62)) return OutOfRangeError("quantity too large");
  int64_t v = static_cast<int64_t>(num);
  return q.negative ? -v : v;
}

}  // namespace

StatusOr<double> ParseQuantityValue(std::string_view s) {
  KAI_ASSIGN_OR_RETURN(ParsedQuantity q, Parse(s));
  long double v = static_cast<long double>(q.mantissa) * std::pow(10.0L, q.exp10) *
                  std::pow(1024.0L, q.bin_exp);
  return static_cast<double>(q.negative ? -v : v);
}

StatusOr<int64_t> QuantityValue(std::string_view s) {
  KAI_ASSIGN_OR_RETURN(ParsedQuantity q, Parse(s));
  return Scaled(q, 0);
}

StatusOr<int64_t> QuantityMilliValue(std::string_view s) {
  KAI_ASSIGN_OR_RETURN(ParsedQuantity q, Parse(s));
  return Scaled(q, 3);
}

StatusOr<LoadedObjects> LoadObjectJson(std::string_view json) {
  return LoadObjectJson(json, "object");
}

StatusOr<LoadedObjects> LoadObjectJson(std::string_view json, const std::string& where) {
  LoadedObjects out;
  auto doc = api::ParseJsonDocument(json);
  if (!doc.ok()) return doc.status().WithPrefix(where);
  KAI_RETURN_IF_ERROR(AddObject(*doc, where, &out));
  return out;
}

StatusOr<LoadedObjects> LoadObjects(std::string_view text) {
  KAI_ASSIGN_OR_RETURN(std::vector<std::string> docs, api::YamlToJsonDocuments(text));
  LoadedObjects out;
  for (size_t i = 0; i < docs.size(); ++i) {
    std::string where = "document " + std::to_string(i + 1);
    auto parsed = api::ParseJsonDocument(docs[i]);
    if (!parsed.ok()) {
      return InvalidArgumentError(where + ": " + std::string(parsed.status().message()));
    }
    if (parsed->IsNull()) continue;
    KAI_RETURN_IF_ERROR(AddObject(*parsed, where, &out));
  }
  return out;
}

}  // namespace kai::scheduler
