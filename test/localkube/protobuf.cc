#include "test/localkube/protobuf.h"

#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "kube/base/base64.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "test/localkube/builtin_schema.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"

namespace kai::localkube {
namespace {

constexpr std::string_view kSchemaText =
#include "test/localkube/protobuf_schema.inc"
    ;

struct FieldDesc {
  int number = 0;
  std::string name;
  int type = 0;  // descriptor.proto FieldDescriptorProto.Type
  bool repeated = false;
  std::string message;  // for type 11
};

struct MessageDesc {
  bool map_entry = false;
  std::map<int, FieldDesc> fields;
};

using Schema = std::map<std::string, MessageDesc, std::less<>>;

const Schema& GetSchema() {
  static const Schema* const schema = [] {
    auto* s = new Schema();
    std::istringstream in{std::string(kSchemaText)};
    std::string line;
    MessageDesc* cur = nullptr;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string tag;
      ls >> tag;
      if (tag == "M") {
        std::string name;
        int map_entry = 0;
        ls >> name >> map_entry;
        cur = &(*s)[name];
        cur->map_entry = map_entry != 0;
      } else if (tag == "F" && cur != nullptr) {
        FieldDesc f;
        int label = 1;
        ls >> f.number >> f.name >> f.type >> label >> f.message;
        f.repeated = label == 3;
        if (f.message == "-") f.message.clear();
        cur->fields[f.number] = f;
      }
    }
    return s;
  }();
  return *schema;
}

// Go `json:",inline"` embeddings: their members belong to the enclosing object.
bool Inline(const FieldDesc& f) {
  static const std::set<std::string> kInline = {
      "localObjectReference",     "volumeSource",     "persistentVolumeSource",
      "ephemeralContainerCommon", "ingressRuleValue", "ruleWithOperations",
      "deviceConfiguration"};
  if (kInline.count(f.name)) return true;
  if (f.name == "rule" && f.message == "k8s.io.api.admissionregistration.v1.Rule") return true;
  if (f.name == "handler" && f.message == "k8s.io.api.core.v1.ProbeHandler") return true;
  return false;
}

// Go's JSON omits zero values of omitempty fields, and gogo protobuf writes every non-pointer
// field; so zero numbers and false are dropped, except for pointer fields where an explicit zero
// means something (replicas: 0, suspend: false...).
bool IsZeroScalar(const FieldDesc& f, const Json& v) {
  static const std::set<std::string> kKeepZero = {"replicas",
                                                  "parallelism",
                                                  "completions",
                                                  "backoffLimit",
                                                  "backoffLimitPerIndex",
                                                  "maxFailedIndexes",
                                                  "suspend",
                                                  "automountServiceAccountToken",
                                                  "immutable",
                                                  "terminationGracePeriodSeconds",
                                                  "activeDeadlineSeconds",
                                                  "value",
                                                  "gracePeriodSeconds",
                                                  "revisionHistoryLimit",
                                                  "progressDeadlineSeconds",
                                                  "successfulJobsHistoryLimit",
                                                  "failedJobsHistoryLimit",
                                                  "startingDeadlineSeconds",
                                                  "ttlSecondsAfterFinished",
                                                  "partition",
                                                  "runAsUser",
                                                  "runAsGroup",
                                                  "fsGroup",
                                                  "runAsNonRoot",
                                                  "readOnlyRootFilesystem",
                                                  "privileged",
                                                  "allowPrivilegeEscalation",
                                                  "optional",
                                                  "defaultMode",
                                                  "priority",
                                                  "expirationSeconds",
                                                  "minReadySeconds",
                                                  "orphanDependents",
                                                  "enableServiceLinks",
                                                  "hostUsers",
                                                  "shareProcessNamespace",
                                                  "setHostnameAsFQDN",
                                                  "allowVolumeExpansion",
                                                  "unschedulable",
                                                  "ready",
                                                  "serving",
                                                  "terminating"};
  if (kKeepZero.count(f.name)) {
    // minReadySeconds and unschedulable are omitempty non-pointers: drop their zero too.
    if (f.name != "minReadySeconds" && f.name != "unschedulable") return false;
  }
  if (v.IsBool()) return !v.GetBool();
  if (v.IsInt64() && f.type != 11) return v.GetInt64() == 0;
  if (v.IsUint64() && f.type != 11) return v.GetUint64() == 0;
  if (v.IsDouble() && f.type != 11) return v.GetDouble() == 0;
  return false;
}

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool Done() const { return i_ >= b_.size(); }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (i_ >= b_.size()) return false;
      const uint8_t c = static_cast<uint8_t>(b_[i_++]);
      *v |= static_cast<uint64_t>(c & 0x7F) << shift;
      if (c < 0x80) return true;
    }
    return false;
  }
  bool Bytes(size_t n, std::string_view* out) {
    if (b_.size() - i_ < n) return false;
    *out = b_.substr(i_, n);
    i_ += n;
    return true;
  }

 private:
  std::string_view b_;
  size_t i_ = 0;
};

Status Malformed() { return kube::NewBadRequest("the protobuf body is malformed"); }

Status DecodeMessage(const std::string& type, std::string_view bytes, Json* out, JsonAlloc& a,
                     int depth);

// Well-known apimachinery messages with a JSON form of their own. Returns false when `type` is
// not one of them.
bool DecodeSpecial(const std::string& type, std::string_view bytes, Json* out, JsonAlloc& a,
                   bool* skip) {
  *skip = false;
  auto fields = [&](std::map<int, uint64_t>* ints, std::map<int, std::string_view>* strs) {
    Reader r(bytes);
    while (!r.Done()) {
      uint64_t key = 0, v = 0;
      if (!r.Varint(&key)) return false;
      const int num = static_cast<int>(key >> 3);
      if ((key & 7) == 0) {
        if (!r.Varint(&v)) return false;
        (*ints)[num] = v;
      } else if ((key & 7) == 2) {
        std::string_view s;
        if (!r.Varint(&v) || !r.Bytes(static_cast<size_t>(v), &s)) return false;
        (*strs)[num] = s;
      } else {
        return false;
      }
    }
    return true;
  };
  std::map<int, uint64_t> ints;
  std::map<int, std::string_view> strs;
  if (type == "k8s.io.apimachinery.pkg.apis.meta.v1.Time" ||
      type == "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime") {
    if (!fields(&ints, &strs)) return false;
    const int64_t secs = static_cast<int64_t>(ints[1]);
    const int64_t nanos = static_cast<int64_t>(ints[2]);
    if (secs == 0 && nanos == 0) {
      *skip = true;
      return true;
    }
    const WallTime t =
        WallTime(std::chrono::seconds(secs)) +
        std::chrono::duration_cast<WallTime::duration>(std::chrono::nanoseconds(nanos));
    const bool micro = type.back() == 'e' && type.find("MicroTime") != std::string::npos;
    *out = Str(micro ? FormatRfc3339Micro(t) : FormatRfc3339(t), a);
    return true;
  }
  if (type == "k8s.io.apimachinery.pkg.apis.meta.v1.Duration") {
    if (!fields(&ints, &strs)) return false;
    *out = Str(FormatGoDuration(std::chrono::nanoseconds(static_cast<int64_t>(ints[1]))), a);
    return true;
  }
  if (type == "k8s.io.apimachinery.pkg.api.resource.Quantity") {
    if (!fields(&ints, &strs)) return false;
    *out = Str(strs[1], a);
    return true;
  }
  if (type == "k8s.io.apimachinery.pkg.util.intstr.IntOrString") {
    if (!fields(&ints, &strs)) return false;
    if (ints[1] == 1) {
      *out = Str(strs[3], a);
    } else {
      *out = Json(static_cast<int64_t>(static_cast<int32_t>(ints[2])));
    }
    return true;
  }
  if (type == "k8s.io.apimachinery.pkg.runtime.RawExtension" ||
      type == "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1") {
    if (!fields(&ints, &strs)) return false;
    auto doc = Parse(strs[1]);
    if (!doc.ok()) {
      *skip = true;
      return true;
    }
    out->CopyFrom(*doc, a);
    return true;
  }
  return false;
}

Status DecodeValue(const FieldDesc& f, uint64_t wire, Reader& r, Json* out, JsonAlloc& a,
                   bool* skip, int depth) {
  *skip = false;
  uint64_t v = 0;
  std::string_view bytes;
  switch (wire) {
    case 0:
      if (!r.Varint(&v)) return Malformed();
      break;
    case 1:
      if (!r.Bytes(8, &bytes)) return Malformed();
      std::memcpy(&v, bytes.data(), 8);
      break;
    case 5: {
      if (!r.Bytes(4, &bytes)) return Malformed();
      uint32_t v32 = 0;
      std::memcpy(&v32, bytes.data(), 4);
      v = v32;
      break;
    }
    case 2:
      if (!r.Varint(&v) || !r.Bytes(static_cast<size_t>(v), &bytes)) return Malformed();
      break;
    default:
      return Malformed();
  }
  switch (f.type) {
    case 1: {  // double
      double d = 0;
      std::memcpy(&d, &v, 8);
      *out = Json(d);
      return Status::OK();
    }
    case 2: {  // float
      float fl = 0;
      const uint32_t v32 = static_cast<uint32_t>(v);
      std::memcpy(&fl, &v32, 4);
      *out = Json(static_cast<double>(fl));
      return Status::OK();
    }
    case 3:
    case 16:
      *out = Json(static_cast<int64_t>(v));
      return Status::OK();
    case 4:
    case 6:
      *out = Json(static_cast<uint64_t>(v));
      return Status::OK();
    case 5:
    case 15:
      *out = Json(static_cast<int64_t>(static_cast<int32_t>(v)));
      return Status::OK();
    case 13:
    case 7:
    case 14:
      *out = Json(static_cast<int64_t>(static_cast<uint32_t>(v)));
      return Status::OK();
    case 17:
    case 18:
      *out = Json(static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)));
      return Status::OK();
    case 8:
      *out = Json(v != 0);
      return Status::OK();
    case 9:
      if (wire != 2) return Malformed();
      if (bytes.empty()) *skip = true;
      *out = Str(bytes, a);
      return Status::OK();
    case 12:
      if (wire != 2) return Malformed();
      *out = Str(kube::Base64Encode(bytes), a);
      return Status::OK();
    case 11: {
      if (wire != 2) return Malformed();
      if (DecodeSpecial(f.message, bytes, out, a, skip)) return Status::OK();
      return DecodeMessage(f.message, bytes, out, a, depth + 1);
    }
    default:
      *skip = true;
      return Status::OK();
  }
}

Status DecodeMessage(const std::string& type, std::string_view bytes, Json* out, JsonAlloc& a,
                     int depth) {
  if (depth > 64) return kube::NewBadRequest("the protobuf body nests too deeply");
  const Schema& schema = GetSchema();
  auto it = schema.find(type);
  if (it == schema.end())
    return kube::NewUnsupportedMediaType("protobuf type " + type + " is not supported");
  const MessageDesc& desc = it->second;
  out->SetObject();
  Reader r(bytes);
  while (!r.Done()) {
    uint64_t key = 0;
    if (!r.Varint(&key)) return Malformed();
    const int num = static_cast<int>(key >> 3);
    const uint64_t wire = key & 7;
    auto fit = desc.fields.find(num);
    if (fit == desc.fields.end()) {
      // Unknown field: skip it.
      FieldDesc skip_f;
      skip_f.type = 0;
      Json ignored;
      bool skip = false;
      KAI_RETURN_IF_ERROR(DecodeValue(skip_f, wire, r, &ignored, a, &skip, depth));
      continue;
    }
    const FieldDesc& f = fit->second;
    // Packed repeated scalars.
    if (f.repeated && wire == 2 && f.type != 9 && f.type != 12 && f.type != 11) {
      uint64_t n = 0;
      std::string_view packed;
      if (!r.Varint(&n) || !r.Bytes(static_cast<size_t>(n), &packed)) return Malformed();
      Json* arr = Member(*out, f.name);
      if (arr == nullptr) {
        out->AddMember(Str(f.name, a), Json(rapidjson::kArrayType), a);
        arr = Member(*out, f.name);
      }
      Reader pr(packed);
      const uint64_t elem_wire = (f.type == 1 || f.type == 6 || f.type == 16)   ? 1
                                 : (f.type == 2 || f.type == 7 || f.type == 15) ? 5
                                                                                : 0;
      while (!pr.Done()) {
        Json v;
        bool skip = false;
        KAI_RETURN_IF_ERROR(DecodeValue(f, elem_wire, pr, &v, a, &skip, depth));
        arr->PushBack(v, a);
      }
      continue;
    }
    Json value;
    bool skip = false;
    KAI_RETURN_IF_ERROR(DecodeValue(f, wire, r, &value, a, &skip, depth));
    const auto mit = schema.find(f.message);
    const bool is_map = f.type == 11 && mit != schema.end() && mit->second.map_entry;
    if (is_map) {
      Json* obj = Member(*out, f.name);
      if (obj == nullptr) {
        out->AddMember(Str(f.name, a), Json(rapidjson::kObjectType), a);
        obj = Member(*out, f.name);
      }
      const Json* k = Member(value, "key");
      const Json* v = Member(value, "value");
      const std::string key_text = k != nullptr && k->IsString() ? std::string(View(*k)) : "";
      Json vcopy = v != nullptr ? Json(*v, a) : Json("", a);
      SetMember(*obj, key_text, std::move(vcopy), a);
      continue;
    }
    if (skip && !f.repeated) continue;
    if (!f.repeated && IsZeroScalar(f, value)) continue;
    if (f.repeated) {
      Json* arr = Member(*out, f.name);
      if (arr == nullptr) {
        out->AddMember(Str(f.name, a), Json(rapidjson::kArrayType), a);
        arr = Member(*out, f.name);
      }
      arr->PushBack(value, a);
      continue;
    }
    if (f.type == 11 && value.IsObject() && Inline(f)) {
      for (auto m = value.MemberBegin(); m != value.MemberEnd(); ++m) {
        SetMember(*out, View(m->name), Json(m->value, a), a);
      }
      continue;
    }
    SetMember(*out, f.name, std::move(value), a);
  }
  return Status::OK();
}

std::string PackageFor(const std::string& api_version) {
  const size_t slash = api_version.find('/');
  if (slash == std::string::npos) return "k8s.io.api.core." + api_version;
  const std::string group = api_version.substr(0, slash);
  const std::string version = api_version.substr(slash + 1);
  if (group == "meta.k8s.io") return "k8s.io.apimachinery.pkg.apis.meta." + version;
  if (group == "rbac.authorization.k8s.io") return "k8s.io.api.rbac." + version;
  const size_t dot = group.find('.');
  return "k8s.io.api." + group.substr(0, dot) + "." + version;
}

}  // namespace

namespace {

bool OpaqueType(const std::string& t) {
  return t == "k8s.io.apimachinery.pkg.apis.meta.v1.Time" ||
         t == "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime" ||
         t == "k8s.io.apimachinery.pkg.apis.meta.v1.Duration" ||
         t == "k8s.io.apimachinery.pkg.api.resource.Quantity" ||
         t == "k8s.io.apimachinery.pkg.util.intstr.IntOrString" ||
         t == "k8s.io.apimachinery.pkg.runtime.RawExtension" ||
         t == "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1";
}

// Finds the field named `name` in `desc`, looking through inline-embedded messages.
const FieldDesc* FindField(const Schema& schema, const MessageDesc& desc, std::string_view name,
                           int depth = 0) {
  for (const auto& [num, f] : desc.fields) {
    if (f.name == name && !Inline(f)) return &f;
  }
  if (depth > 4) return nullptr;
  for (const auto& [num, f] : desc.fields) {
    if (!Inline(f)) continue;
    auto it = schema.find(f.message);
    if (it == schema.end()) continue;
    if (const FieldDesc* inner = FindField(schema, it->second, name, depth + 1)) return inner;
  }
  return nullptr;
}

void PruneValue(const Schema& schema, const FieldDesc& f, Json& v, const std::string& path,
                std::vector<std::string>* unknown, int depth);

void PruneObject(const Schema& schema, const std::string& type, Json& obj, const std::string& path,
                 std::vector<std::string>* unknown, int depth) {
  if (depth > 64 || !obj.IsObject() || OpaqueType(type)) return;
  auto it = schema.find(type);
  if (it == schema.end()) return;
  const MessageDesc& desc = it->second;
  for (auto m = obj.MemberBegin(); m != obj.MemberEnd();) {
    const std::string name(View(m->name));
    const std::string child = path.empty() ? name : StrCat(path, ".", name);
    if (depth == 0 && (name == "apiVersion" || name == "kind")) {
      ++m;
      continue;
    }
    const FieldDesc* f = FindField(schema, desc, name);
    if (f == nullptr) {
      if (unknown != nullptr) unknown->push_back(child);
      m = obj.EraseMember(m);
      continue;
    }
    PruneValue(schema, *f, m->value, child, unknown, depth + 1);
    ++m;
  }
}

void PruneValue(const Schema& schema, const FieldDesc& f, Json& v, const std::string& path,
                std::vector<std::string>* unknown, int depth) {
  if (f.type != 11 || v.IsNull()) return;
  auto mit = schema.find(f.message);
  if (mit == schema.end()) return;
  if (mit->second.map_entry) {
    // map<string, T>: values of message type are checked.
    auto vf = mit->second.fields.find(2);
    if (vf == mit->second.fields.end() || vf->second.type != 11 || !v.IsObject()) return;
    for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
      PruneObject(schema, vf->second.message, m->value, path + "." + std::string(View(m->name)),
                  unknown, depth + 1);
    }
    return;
  }
  if (f.repeated && v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      PruneObject(schema, f.message, v[i], path + "[" + std::to_string(i) + "]", unknown,
                  depth + 1);
    }
    return;
  }
  PruneObject(schema, f.message, v, path, unknown, depth);
}

}  // namespace

void PruneBuiltinUnknownFields(std::string_view api_version, std::string_view kind, Json& obj,
                               std::vector<std::string>* unknown) {
  const std::string type = PackageFor(std::string(api_version)) + "." + std::string(kind);
  const Schema& schema = GetSchema();
  if (schema.find(type) == schema.end()) return;
  PruneObject(schema, type, obj, "", unknown, 0);
}

bool HasBuiltinSchema(std::string_view api_version, std::string_view kind) {
  const std::string type = PackageFor(std::string(api_version)) + "." + std::string(kind);
  return GetSchema().count(type) > 0;
}

StatusOr<std::string> KubeProtobufToJson(std::string_view body) {
  static constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) {
    return kube::NewBadRequest("the protobuf body does not start with the Kubernetes magic number");
  }
  JsonDoc doc;
  Json unknown;
  KAI_RETURN_IF_ERROR(DecodeMessage("k8s.io.apimachinery.pkg.runtime.Unknown", body.substr(4),
                                    &unknown, doc.GetAllocator(), 0));
  const std::string api_version = GetStr(unknown, {"typeMeta", "apiVersion"});
  const std::string kind = GetStr(unknown, {"typeMeta", "kind"});
  const std::string raw_b64 = GetStr(unknown, {"raw"});
  if (kind.empty()) return kube::NewBadRequest("the protobuf body names no kind");
  // raw was base64-encoded by the generic decoder; decode it back.
  std::string raw;
  {
    uint32_t buf = 0;
    int bits = 0;
    for (char c : raw_b64) {
      int v = -1;
      if (c >= 'A' && c <= 'Z') v = c - 'A';
      if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
      if (c >= '0' && c <= '9') v = c - '0' + 52;
      if (c == '+') v = 62;
      if (c == '/') v = 63;
      if (v < 0) continue;
      buf = (buf << 6) | static_cast<uint32_t>(v);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        raw.push_back(static_cast<char>((buf >> bits) & 0xFF));
      }
    }
  }
  const std::string type = PackageFor(api_version) + "." + kind;
  Json obj;
  KAI_RETURN_IF_ERROR(DecodeMessage(type, raw, &obj, doc.GetAllocator(), 0));
  doc.SetObject();
  JsonAlloc& a = doc.GetAllocator();
  doc.AddMember("apiVersion", Str(api_version, a), a);
  doc.AddMember("kind", Str(kind, a), a);
  for (auto m = obj.MemberBegin(); m != obj.MemberEnd(); ++m) {
    doc.AddMember(Json(m->name, a), Json(m->value, a), a);
  }
  return Serialize(doc);
}

}  // namespace kai::localkube
