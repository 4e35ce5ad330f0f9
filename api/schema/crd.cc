// Validation of a CustomResourceDefinition (apiextensions.k8s.io/v1) on create, after the v1
// defaults (singular, listKind, conversion strategy), as apiextensions validation.go does it.
#include <set>
#include <string>
#include <vector>

#include "api/schema/go_format.h"
#include "api/schema/structural_schema.h"
#include "api/validation.h"
#include "kube/base/strings.h"

namespace kai::api::schema {
namespace {

Status BadRequest(const std::string& path, const std::string& msg) {
  Status s(StatusCode::kInvalidArgument, path + ": " + msg);
  s.SetReason("BadRequest").SetHttpCode(400);
  return s;
}

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += sep;
    out += v[i];
  }
  return out;
}

// Typed accessors that fail like the API server's decoder on a wrong JSON type.
class Reader {
 public:
  static Status Str(const JsonValue& obj, const char* key, const std::string& path,
                    std::string* out) {
    out->clear();
    auto it = obj.FindMember(key);
    if (it == obj.MemberEnd() || it->value.IsNull()) return Status::OK();
    if (!it->value.IsString()) {
      return BadRequest(path + "." + key, "json: cannot unmarshal " +
                                              std::string(JsonTypeName(it->value)) +
                                              " into Go value of type string");
    }
    out->assign(it->value.GetString(), it->value.GetStringLength());
    return Status::OK();
  }
  static Status Bool(const JsonValue& obj, const char* key, const std::string& path, bool* out) {
    *out = false;
    auto it = obj.FindMember(key);
    if (it == obj.MemberEnd() || it->value.IsNull()) return Status::OK();
    if (!it->value.IsBool()) {
      return BadRequest(path + "." + key, "json: cannot unmarshal " +
                                              std::string(JsonTypeName(it->value)) +
                                              " into Go value of type bool");
    }
    *out = it->value.GetBool();
    return Status::OK();
  }
  static Status Strings(const JsonValue& obj, const char* key, const std::string& path,
                        std::vector<std::string>* out) {
    out->clear();
    auto it = obj.FindMember(key);
    if (it == obj.MemberEnd() || it->value.IsNull()) return Status::OK();
    if (!it->value.IsArray()) {
      return BadRequest(path + "." + key, "json: cannot unmarshal " +
                                              std::string(JsonTypeName(it->value)) +
                                              " into Go value of type []string");
    }
    for (const auto& e : it->value.GetArray()) {
      if (!e.IsString()) {
        return BadRequest(path + "." + key, "json: cannot unmarshal " +
                                                std::string(JsonTypeName(e)) +
                                                " into Go value of type string");
      }
      out->emplace_back(e.GetString(), e.GetStringLength());
    }
    return Status::OK();
  }
  static StatusOr<const JsonValue*> Obj(const JsonValue& obj, const char* key,
                                        const std::string& path) {
    auto it = obj.FindMember(key);
    if (it == obj.MemberEnd() || it->value.IsNull()) return static_cast<const JsonValue*>(nullptr);
    if (!it->value.IsObject()) {
      return BadRequest(path + "." + key, "json: cannot unmarshal " +
                                              std::string(JsonTypeName(it->value)) +
                                              " into Go value of type object");
    }
    return &it->value;
  }
  static StatusOr<const JsonValue*> Arr(const JsonValue& obj, const char* key,
                                        const std::string& path) {
    auto it = obj.FindMember(key);
    if (it == obj.MemberEnd() || it->value.IsNull()) return static_cast<const JsonValue*>(nullptr);
    if (!it->value.IsArray()) {
      return BadRequest(path + "." + key, "json: cannot unmarshal " +
                                              std::string(JsonTypeName(it->value)) +
                                              " into Go value of type array");
    }
    return &it->value;
  }
};

std::vector<std::string> NameIsDnsSubdomain(std::string name, bool prefix) {
  if (prefix) name += "a";  // apimachinery maskTrailingDash
  return IsDns1123Subdomain(name);
}

void ValidateSimpleJsonPath(const std::string& s, const std::string& path, FieldErrorList* errs) {
  if (s.empty()) {
    errs->push_back(InvalidError(path, GoQuote(s), "must not be empty"));
  } else if (s[0] != '.') {
    errs->push_back(InvalidError(path, GoQuote(s), "must be a simple json path starting with ."));
  }
}

Status ValidateNames(const JsonValue& names, const std::string& path, FieldErrorList* errs) {
  std::string plural, singular, kind, list_kind;
  std::vector<std::string> short_names, categories;
  KAI_RETURN_IF_ERROR(Reader::Str(names, "plural", path, &plural));
  KAI_RETURN_IF_ERROR(Reader::Str(names, "singular", path, &singular));
  KAI_RETURN_IF_ERROR(Reader::Str(names, "kind", path, &kind));
  KAI_RETURN_IF_ERROR(Reader::Str(names, "listKind", path, &list_kind));
  KAI_RETURN_IF_ERROR(Reader::Strings(names, "shortNames", path, &short_names));
  KAI_RETURN_IF_ERROR(Reader::Strings(names, "categories", path, &categories));
  // v1 defaulting: singular = lower(kind), listKind = kind + "List".
  if (singular.empty()) singular = AsciiToLower(kind);
  if (list_kind.empty() && !kind.empty()) list_kind = kind + "List";
  if (plural.empty()) errs->push_back(RequiredError(path + ".plural"));
  if (singular.empty()) errs->push_back(RequiredError(path + ".singular"));
  if (kind.empty()) errs->push_back(RequiredError(path + ".kind"));
  if (list_kind.empty()) errs->push_back(RequiredError(path + ".listKind"));
  if (!plural.empty()) {
    auto e = IsDns1035Label(plural);
    if (!e.empty()) errs->push_back(InvalidError(path + ".plural", GoQuote(plural), Join(e, ",")));
  }
  if (!singular.empty()) {
    auto e = IsDns1035Label(singular);
    if (!e.empty()) {
      errs->push_back(InvalidError(path + ".singular", GoQuote(singular), Join(e, ",")));
    }
  }
  if (!kind.empty()) {
    auto e = IsDns1035Label(AsciiToLower(kind));
    if (!e.empty()) {
      errs->push_back(
          InvalidError(path + ".kind", GoQuote(kind),
                       "may have mixed case, but should otherwise match: " + Join(e, ",")));
    }
  }
  if (!list_kind.empty()) {
    auto e = IsDns1035Label(AsciiToLower(list_kind));
    if (!e.empty()) {
      errs->push_back(
          InvalidError(path + ".listKind", GoQuote(list_kind),
                       "may have mixed case, but should otherwise match: " + Join(e, ",")));
    }
  }
  for (size_t i = 0; i < short_names.size(); ++i) {
    auto e = IsDns1035Label(short_names[i]);
    if (!e.empty()) {
      errs->push_back(InvalidError(path + ".shortNames[" + std::to_string(i) + "]",
                                   GoQuote(short_names[i]), Join(e, ",")));
    }
  }
  if (!kind.empty() && kind == list_kind) {
    errs->push_back(InvalidError(path + ".listKind", GoQuote(list_kind),
                                 "kind and listKind may not be the same"));
  }
  for (size_t i = 0; i < categories.size(); ++i) {
    auto e = IsDns1035Label(categories[i]);
    if (!e.empty()) {
      errs->push_back(InvalidError(path + ".categories[" + std::to_string(i) + "]",
                                   GoQuote(categories[i]), Join(e, ",")));
    }
  }
  return Status::OK();
}

Status ValidatePrinterColumn(const JsonValue& col, const std::string& path, FieldErrorList* errs) {
  if (!col.IsObject()) {
    return BadRequest(path, "json: cannot unmarshal " + std::string(JsonTypeName(col)) +
                                " into Go value of type CustomResourceColumnDefinition");
  }
  std::string name, type, format, json_path;
  KAI_RETURN_IF_ERROR(Reader::Str(col, "name", path, &name));
  KAI_RETURN_IF_ERROR(Reader::Str(col, "type", path, &type));
  KAI_RETURN_IF_ERROR(Reader::Str(col, "format", path, &format));
  KAI_RETURN_IF_ERROR(Reader::Str(col, "jsonPath", path, &json_path));
  auto pr = col.FindMember("priority");
  if (pr != col.MemberEnd() && !pr->value.IsNull() && !pr->value.IsInt()) {
    return BadRequest(path + ".priority", "json: cannot unmarshal " +
                                              std::string(JsonTypeName(pr->value)) +
                                              " into Go value of type int32");
  }
  static const std::set<std::string>* const kTypes =
      new std::set<std::string>{"boolean", "date", "integer", "number", "string"};
  static const std::set<std::string>* const kFormats = new std::set<std::string>{
      "byte", "date", "date-time", "double", "float", "int32", "int64", "password"};
  if (name.empty()) errs->push_back(RequiredError(path + ".name"));
  const std::string type_msg = "must be one of boolean,date,integer,number,string";
  if (type.empty()) {
    errs->push_back(RequiredError(path + ".type", type_msg));
  } else if (kTypes->count(type) == 0) {
    errs->push_back(InvalidError(path + ".type", GoQuote(type), type_msg));
  }
  if (!format.empty() && kFormats->count(format) == 0) {
    errs->push_back(InvalidError(path + ".format", GoQuote(format),
                                 "must be one of byte,date,date-time,double,float,int32,int64,"
                                 "password"));
  }
  if (json_path.empty()) {
    errs->push_back(RequiredError(path + ".JSONPath"));
  } else {
    ValidateSimpleJsonPath(json_path, path + ".JSONPath", errs);
  }
  return Status::OK();
}

Status ValidateSubresources(const JsonValue& sub, const std::string& path, FieldErrorList* errs) {
  KAI_ASSIGN_OR_RETURN(const JsonValue* status, Reader::Obj(sub, "status", path));
  (void)status;
  KAI_ASSIGN_OR_RETURN(const JsonValue* scale, Reader::Obj(sub, "scale", path));
  if (scale == nullptr) return Status::OK();
  std::string spec_path, status_path, selector_path;
  KAI_RETURN_IF_ERROR(Reader::Str(*scale, "specReplicasPath", path + ".scale", &spec_path));
  KAI_RETURN_IF_ERROR(Reader::Str(*scale, "statusReplicasPath", path + ".scale", &status_path));
  KAI_RETURN_IF_ERROR(Reader::Str(*scale, "labelSelectorPath", path + ".scale", &selector_path));
  auto check = [&](const std::string& value, const char* field, const char* prefix,
                   const char* msg) {
    std::string p = path + ".scale." + field;
    if (value.empty()) {
      errs->push_back(RequiredError(p));
      return;
    }
    size_t before = errs->size();
    ValidateSimpleJsonPath(value, p, errs);
    if (errs->size() == before && value.rfind(prefix, 0) != 0) {
      errs->push_back(InvalidError(p, GoQuote(value), msg));
    }
  };
  check(spec_path, "specReplicasPath", ".spec.", "should be a json path under .spec");
  check(status_path, "statusReplicasPath", ".status.", "should be a json path under .status");
  if (!selector_path.empty()) {
    std::string p = path + ".scale.labelSelectorPath";
    size_t before = errs->size();
    ValidateSimpleJsonPath(selector_path, p, errs);
    if (errs->size() == before && selector_path.rfind(".spec.", 0) != 0 &&
        selector_path.rfind(".status.", 0) != 0) {
      errs->push_back(InvalidError(p, GoQuote(selector_path),
                                   "should be a json path under either .spec or .status"));
    }
  }
  return Status::OK();
}

bool HasDefaults(const Node& n) {
  if (n.default_value != nullptr && !n.default_value->IsNull()) return true;
  if (n.items && HasDefaults(*n.items)) return true;
  for (const Property& p : n.properties) {
    if (HasDefaults(*p.node)) return true;
  }
  if (n.additional_properties && HasDefaults(*n.additional_properties)) return true;
  for (const Node& c : n.all_of) {
    if (HasDefaults(c)) return true;
  }
  for (const Node& c : n.any_of) {
    if (HasDefaults(c)) return true;
  }
  for (const Node& c : n.one_of) {
    if (HasDefaults(c)) return true;
  }
  return n.not_schema && HasDefaults(*n.not_schema);
}

}  // namespace

StatusOr<FieldErrorList> ValidateCustomResourceDefinition(const JsonValue& crd) {
  if (!crd.IsObject()) return BadRequest("<root>", "a CustomResourceDefinition must be an object");
  FieldErrorList errs;
  KAI_ASSIGN_OR_RETURN(const JsonValue* meta, Reader::Obj(crd, "metadata", ""));
  KAI_ASSIGN_OR_RETURN(const JsonValue* spec, Reader::Obj(crd, "spec", ""));
  static const JsonValue* const kEmpty = new JsonValue(rapidjson::kObjectType);
  if (meta == nullptr) meta = kEmpty;
  if (spec == nullptr) spec = kEmpty;

  std::string group, scope, plural, kind;
  KAI_RETURN_IF_ERROR(Reader::Str(*spec, "group", "spec", &group));
  KAI_RETURN_IF_ERROR(Reader::Str(*spec, "scope", "spec", &scope));
  KAI_ASSIGN_OR_RETURN(const JsonValue* names, Reader::Obj(*spec, "names", "spec"));
  if (names == nullptr) names = kEmpty;
  KAI_RETURN_IF_ERROR(Reader::Str(*names, "plural", "spec.names", &plural));
  KAI_RETURN_IF_ERROR(Reader::Str(*names, "kind", "spec.names", &kind));

  // metadata (ValidateObjectMeta with the CRD name rule).
  std::string name, generate_name, ns;
  KAI_RETURN_IF_ERROR(Reader::Str(*meta, "name", "metadata", &name));
  KAI_RETURN_IF_ERROR(Reader::Str(*meta, "generateName", "metadata", &generate_name));
  KAI_RETURN_IF_ERROR(Reader::Str(*meta, "namespace", "metadata", &ns));
  auto name_fn = [&](const std::string& n, bool prefix) {
    std::vector<std::string> r = NameIsDnsSubdomain(n, prefix);
    if (n != plural + "." + group) r.push_back("must be spec.names.plural+\".\"+spec.group");
    return r;
  };
  if (!generate_name.empty()) {
    for (const std::string& e : name_fn(generate_name, true)) {
      errs.push_back(InvalidError("metadata.generateName", GoQuote(generate_name), e));
    }
  }
  if (name.empty() && generate_name.empty()) {
    errs.push_back(RequiredError("metadata.name", "name or generateName is required"));
  } else if (!name.empty()) {
    for (const std::string& e : name_fn(name, false)) {
      errs.push_back(InvalidError("metadata.name", GoQuote(name), e));
    }
  }
  if (!ns.empty()) errs.push_back(ForbiddenError("metadata.namespace", "not allowed on this type"));

  // spec.group and spec.scope.
  if (group.empty()) {
    errs.push_back(RequiredError("spec.group"));
  } else if (auto e = IsDns1123Subdomain(group); !e.empty()) {
    errs.push_back(InvalidError("spec.group", GoQuote(group), Join(e, ",")));
  } else if (group.find('.') == std::string::npos) {
    errs.push_back(
        InvalidError("spec.group", GoQuote(group), "should be a domain with at least one dot"));
  }
  if (scope.empty()) {
    errs.push_back(RequiredError("spec.scope"));
  } else if (scope != "Cluster" && scope != "Namespaced") {
    errs.push_back(NotSupportedError("spec.scope", GoQuote(scope), {"Cluster", "Namespaced"}));
  }
  bool preserve_unknown = false;
  KAI_RETURN_IF_ERROR(Reader::Bool(*spec, "preserveUnknownFields", "spec", &preserve_unknown));

  // Versions.
  KAI_ASSIGN_OR_RETURN(const JsonValue* versions, Reader::Arr(*spec, "versions", "spec"));
  int storage = 0;
  std::set<std::string> version_names;
  bool unique = true;
  bool any_defaults = false;
  if (versions != nullptr) {
    for (rapidjson::SizeType i = 0; i < versions->Size(); ++i) {
      const JsonValue& v = (*versions)[i];
      std::string vp = "spec.versions[" + std::to_string(i) + "]";
      if (!v.IsObject()) {
        return BadRequest(vp, "json: cannot unmarshal " + std::string(JsonTypeName(v)) +
                                  " into Go value of type CustomResourceDefinitionVersion");
      }
      std::string vname;
      bool served = false, is_storage = false, deprecated = false;
      KAI_RETURN_IF_ERROR(Reader::Str(v, "name", vp, &vname));
      KAI_RETURN_IF_ERROR(Reader::Bool(v, "served", vp, &served));
      KAI_RETURN_IF_ERROR(Reader::Bool(v, "storage", vp, &is_storage));
      KAI_RETURN_IF_ERROR(Reader::Bool(v, "deprecated", vp, &deprecated));
      if (is_storage) ++storage;
      if (!version_names.insert(vname).second) unique = false;
      if (auto e = IsDns1035Label(vname); !e.empty()) {
        errs.push_back(InvalidError(vp + ".name", GoQuote(vname), Join(e, ",")));
      }
      auto dw = v.FindMember("deprecationWarning");
      if (dw != v.MemberEnd() && !dw->value.IsNull()) {
        if (!dw->value.IsString()) {
          return BadRequest(vp + ".deprecationWarning", "json: cannot unmarshal " +
                                                            std::string(JsonTypeName(dw->value)) +
                                                            " into Go value of type string");
        }
        std::string w(dw->value.GetString(), dw->value.GetStringLength());
        if (!deprecated) {
          errs.push_back(InvalidError(vp + ".deprecationWarning", GoQuote(w),
                                      "can only be set for deprecated versions"));
        } else if (w.size() > 256) {
          errs.push_back(InvalidError(vp + ".deprecationWarning", GoQuote(w),
                                      "must be <= 256 characters long"));
        } else if (w.empty()) {
          errs.push_back(
              InvalidError(vp + ".deprecationWarning", GoQuote(w), "must not be an empty string"));
        }
      }
      KAI_ASSIGN_OR_RETURN(const JsonValue* sub, Reader::Obj(v, "subresources", vp));
      bool status_enabled = false;
      if (sub != nullptr) {
        auto st = sub->FindMember("status");
        status_enabled = st != sub->MemberEnd() && !st->value.IsNull();
      }
      KAI_ASSIGN_OR_RETURN(const JsonValue* schema, Reader::Obj(v, "schema", vp));
      const JsonValue* openapi = nullptr;
      if (schema != nullptr) {
        KAI_ASSIGN_OR_RETURN(openapi, Reader::Obj(*schema, "openAPIV3Schema", vp + ".schema"));
      }
      std::string sp = vp + ".schema.openAPIV3Schema";
      if (openapi == nullptr) {
        errs.push_back(RequiredError(sp, "schemas are required"));
      } else {
        auto compiled = StructuralSchema::Compile(*openapi);
        if (!compiled.ok()) return compiled.status().WithPrefix(sp);
        if (HasDefaults((*compiled)->root())) any_defaults = true;
        FieldErrorList schema_errs = (*compiled)->CheckSchema(sp, status_enabled);
        errs.insert(errs.end(), schema_errs.begin(), schema_errs.end());
      }
      if (sub != nullptr) {
        KAI_RETURN_IF_ERROR(ValidateSubresources(*sub, vp + ".subresources", &errs));
      }
      KAI_ASSIGN_OR_RETURN(const JsonValue* cols, Reader::Arr(v, "additionalPrinterColumns", vp));
      if (cols != nullptr) {
        for (rapidjson::SizeType c = 0; c < cols->Size(); ++c) {
          KAI_RETURN_IF_ERROR(ValidatePrinterColumn(
              (*cols)[c], vp + ".additionalPrinterColumns[" + std::to_string(c) + "]", &errs));
        }
      }
    }
  }
  if (any_defaults && preserve_unknown) {
    errs.push_back(InvalidError("spec.preserveUnknownFields", "true",
                                "must be false in order to use defaults in the schema"));
  }
  std::string versions_value = versions == nullptr ? "[]" : GoSharpV(*versions);
  if (!unique) {
    errs.push_back(
        InvalidError("spec.versions", versions_value, "must contain unique version names"));
  }
  if (storage != 1) {
    errs.push_back(InvalidError("spec.versions", versions_value,
                                "must have exactly one version marked as storage version"));
  }
  KAI_RETURN_IF_ERROR(ValidateNames(*names, "spec.names", &errs));

  // Conversion.
  KAI_ASSIGN_OR_RETURN(const JsonValue* conversion, Reader::Obj(*spec, "conversion", "spec"));
  if (conversion != nullptr) {
    std::string strategy;
    KAI_RETURN_IF_ERROR(Reader::Str(*conversion, "strategy", "spec.conversion", &strategy));
    if (strategy.empty()) strategy = "None";  // v1 default
    if (strategy != "None" && strategy != "Webhook") {
      errs.push_back(
          NotSupportedError("spec.conversion.strategy", GoQuote(strategy), {"None", "Webhook"}));
    }
    KAI_ASSIGN_OR_RETURN(const JsonValue* webhook,
                         Reader::Obj(*conversion, "webhook", "spec.conversion"));
    if (strategy == "Webhook") {
      const JsonValue* client = nullptr;
      std::vector<std::string> review_versions;
      if (webhook != nullptr) {
        KAI_ASSIGN_OR_RETURN(client,
                             Reader::Obj(*webhook, "clientConfig", "spec.conversion.webhook"));
        KAI_RETURN_IF_ERROR(Reader::Strings(*webhook, "conversionReviewVersions",
                                            "spec.conversion.webhook", &review_versions));
      }
      if (client == nullptr) {
        errs.push_back(RequiredError("spec.conversion.webhookClientConfig",
                                     "required when strategy is set to Webhook"));
      } else {
        bool has_url = client->HasMember("url") && !(*client)["url"].IsNull();
        bool has_service = client->HasMember("service") && !(*client)["service"].IsNull();
        if (has_url == has_service) {
          errs.push_back(RequiredError("spec.conversion.webhookClientConfig",
                                       "exactly one of url or service is required"));
        }
      }
      if (review_versions.empty()) {
        errs.push_back(RequiredError("spec.conversion.conversionReviewVersions"));
      } else {
        bool known = false;
        for (const std::string& rv : review_versions) known |= rv == "v1" || rv == "v1beta1";
        if (!known) {
          std::string shown = "[]string{";
          for (size_t i = 0; i < review_versions.size(); ++i) {
            if (i > 0) shown += ", ";
            shown += GoQuote(review_versions[i]);
          }
          errs.push_back(InvalidError("spec.conversion.conversionReviewVersions", shown + "}",
                                      "must include at least one of v1, v1beta1"));
        }
      }
    } else if (webhook != nullptr) {
      errs.push_back(ForbiddenError("spec.conversion.webhookClientConfig",
                                    "should not be set when strategy is not set to Webhook"));
    }
  }

  // Protected groups need the API approval annotation.
  auto ends_with = [](const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (group == "k8s.io" || ends_with(group, ".k8s.io") || group == "kubernetes.io" ||
      ends_with(group, ".kubernetes.io")) {
    bool approved = false;
    auto ann = meta->FindMember("annotations");
    if (ann != meta->MemberEnd() && ann->value.IsObject()) {
      auto a = ann->value.FindMember("api-approved.kubernetes.io");
      approved =
          a != ann->value.MemberEnd() && a->value.IsString() && a->value.GetStringLength() > 0;
    }
    if (!approved) {
      errs.push_back(RequiredError(
          "metadata.annotations[api-approved.kubernetes.io]",
          "protected groups must have approval annotation \"api-approved.kubernetes.io\", see "
          "https://github.com/kubernetes/enhancements/pull/1111"));
    }
  }
  if (preserve_unknown) {
    errs.push_back(InvalidError("spec.preserveUnknownFields", "true",
                                "cannot set to true, set x-kubernetes-preserve-unknown-fields to "
                                "true in spec.versions[*].schema instead"));
  }
  return errs;
}

}  // namespace kai::api::schema
