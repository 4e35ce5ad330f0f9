#include "kube/patch/json_patch.h"

#include <charconv>
#include <vector>

#include "kube/patch/json_util.h"

namespace kai::kube {
namespace {

using namespace patch_internal;  // NOLINT

void AddOp(Value* ops, std::string_view op, const std::string& path, const Value* value,
           Alloc& alloc) {
  Value o(rapidjson::kObjectType);
  o.AddMember("op", api::JsonString(op, alloc), alloc);
  o.AddMember("path", api::JsonString(path, alloc), alloc);
  if (value != nullptr) o.AddMember("value", Copy(*value, alloc), alloc);
  ops->PushBack(std::move(o), alloc);
}

void Diff(const Value& a, const Value& b, const std::string& path, Value* ops, Alloc& alloc) {
  if (a == b) return;
  if (a.IsObject() && b.IsObject()) {
    for (auto it = a.MemberBegin(); it != a.MemberEnd(); ++it) {
      if (FindIt(b, Str(it->name)) == b.MemberEnd()) {
        AddOp(ops, "remove", path + "/" + JsonPointerEscape(Str(it->name)), nullptr, alloc);
      }
    }
    for (auto it = b.MemberBegin(); it != b.MemberEnd(); ++it) {
      const std::string child = path + "/" + JsonPointerEscape(Str(it->name));
      auto old = FindIt(a, Str(it->name));
      if (old == a.MemberEnd()) {
        AddOp(ops, "add", child, &it->value, alloc);
      } else {
        Diff(old->value, it->value, child, ops, alloc);
      }
    }
    return;
  }
  if (a.IsArray() && b.IsArray()) {
    const rapidjson::SizeType common = std::min(a.Size(), b.Size());
    for (rapidjson::SizeType i = 0; i < common; ++i) {
      Diff(a[i], b[i], path + "/" + std::to_string(i), ops, alloc);
    }
    for (rapidjson::SizeType i = common; i < b.Size(); ++i) {
      AddOp(ops, "add", path + "/" + std::to_string(i), &b[i], alloc);
    }
    // Remove from the end so indices stay valid.
    for (rapidjson::SizeType i = a.Size(); i > common; --i) {
      AddOp(ops, "remove", path + "/" + std::to_string(i - 1), nullptr, alloc);
    }
    return;
  }
  AddOp(ops, "replace", path, &b, alloc);
}

// RFC 6901 pointer -> unescaped tokens.
StatusOr<std::vector<std::string>> Tokens(std::string_view pointer) {
  std::vector<std::string> out;
  if (pointer.empty()) return out;
  if (pointer.front() != '/') {
    return InvalidArgumentError("path " + std::string(pointer) + " does not start with '/'");
  }
  size_t pos = 1;
  while (true) {
    const size_t next = pointer.find('/', pos);
    std::string_view raw =
        pointer.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
    std::string tok;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        tok.push_back(raw[i + 1] == '0' ? '~' : '/');
        ++i;
      } else if (raw[i] == '~') {
        return InvalidArgumentError("path " + std::string(pointer) + ": invalid escape");
      } else {
        tok.push_back(raw[i]);
      }
    }
    out.push_back(std::move(tok));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return out;
}

// Array index token: digits without leading zeros (or "-" when allowed), <= size.
StatusOr<rapidjson::SizeType> Index(const std::string& tok, rapidjson::SizeType size,
                                    bool allow_end) {
  if (allow_end && tok == "-") return size;
  if (tok.empty() || (tok.size() > 1 && tok[0] == '0')) {
    return InvalidArgumentError("invalid array index " + tok);
  }
  unsigned long v = 0;
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || p != tok.data() + tok.size()) {
    return InvalidArgumentError("invalid array index " + tok);
  }
  if (v > size || (!allow_end && v == size)) {
    return InvalidArgumentError("array index " + tok + " out of bounds");
  }
  return static_cast<rapidjson::SizeType>(v);
}

// Walks all tokens but the last; returns the container that holds the target.
StatusOr<Value*> Parent(Value* root, const std::vector<std::string>& toks) {
  Value* cur = root;
  for (size_t i = 0; i + 1 < toks.size(); ++i) {
    if (cur->IsObject()) {
      auto it = FindIt(*cur, toks[i]);
      if (it == cur->MemberEnd()) return NotFoundError("path not found");
      cur = &it->value;
    } else if (cur->IsArray()) {
      KAI_ASSIGN_OR_RETURN(rapidjson::SizeType idx, Index(toks[i], cur->Size(), false));
      cur = &(*cur)[idx];
    } else {
      return NotFoundError("path not found");
    }
  }
  return cur;
}

StatusOr<Value*> Get(Value* root, const std::vector<std::string>& toks) {
  if (toks.empty()) return root;
  KAI_ASSIGN_OR_RETURN(Value * parent, Parent(root, toks));
  if (parent->IsObject()) {
    auto it = FindIt(*parent, toks.back());
    if (it == parent->MemberEnd()) return NotFoundError("path not found");
    return &it->value;
  }
  if (parent->IsArray()) {
    KAI_ASSIGN_OR_RETURN(rapidjson::SizeType idx, Index(toks.back(), parent->Size(), false));
    return &(*parent)[idx];
  }
  return NotFoundError("path not found");
}

Status Add(Value* root, const std::vector<std::string>& toks, Value value, Alloc& alloc) {
  if (toks.empty()) {
    *root = std::move(value);
    return Status::OK();
  }
  KAI_ASSIGN_OR_RETURN(Value * parent, Parent(root, toks));
  if (parent->IsObject()) {
    Set(*parent, toks.back(), std::move(value), alloc);
    return Status::OK();
  }
  if (parent->IsArray()) {
    KAI_ASSIGN_OR_RETURN(rapidjson::SizeType idx, Index(toks.back(), parent->Size(), true));
    parent->PushBack(std::move(value), alloc);
    for (rapidjson::SizeType i = parent->Size() - 1; i > idx; --i)
      (*parent)[i].Swap((*parent)[i - 1]);
    return Status::OK();
  }
  return NotFoundError("path not found");
}

StatusOr<Value> Remove(Value* root, const std::vector<std::string>& toks) {
  if (toks.empty()) return InvalidArgumentError("cannot remove the whole document");
  KAI_ASSIGN_OR_RETURN(Value * parent, Parent(root, toks));
  if (parent->IsObject()) {
    auto it = FindIt(*parent, toks.back());
    if (it == parent->MemberEnd()) return NotFoundError("path not found");
    Value out = std::move(it->value);
    parent->EraseMember(it);
    return out;
  }
  if (parent->IsArray()) {
    KAI_ASSIGN_OR_RETURN(rapidjson::SizeType idx, Index(toks.back(), parent->Size(), false));
    Value out = std::move((*parent)[idx]);
    parent->Erase(parent->Begin() + idx);
    return out;
  }
  return NotFoundError("path not found");
}

Status ApplyOp(Value* doc, const Value& op, Alloc& alloc) {
  if (!op.IsObject()) return InvalidArgumentError("operation is not an object");
  auto get_str = [&](const char* name, std::string* out) -> Status {
    auto it = FindIt(op, name);
    if (it == op.MemberEnd() || !it->value.IsString()) {
      return InvalidArgumentError(std::string("missing \"") + name + "\"");
    }
    *out = std::string(Str(it->value));
    return Status::OK();
  };
  std::string kind, path;
  KAI_RETURN_IF_ERROR(get_str("op", &kind));
  KAI_RETURN_IF_ERROR(get_str("path", &path));
  KAI_ASSIGN_OR_RETURN(std::vector<std::string> toks, Tokens(path));
  auto value = FindIt(op, "value");
  const bool has_value = value != op.MemberEnd();
  if (kind == "add" || kind == "replace" || kind == "test") {
    if (!has_value) return InvalidArgumentError("missing \"value\"");
  }
  if (kind == "add") return Add(doc, toks, Copy(value->value, alloc), alloc);
  if (kind == "remove") return Remove(doc, toks).status();
  if (kind == "replace") {
    KAI_ASSIGN_OR_RETURN(Value * target, Get(doc, toks));
    target->CopyFrom(value->value, alloc);
    return Status::OK();
  }
  if (kind == "test") {
    KAI_ASSIGN_OR_RETURN(Value * target, Get(doc, toks));
    if (*target != value->value) return FailedPreconditionError("test failed");
    return Status::OK();
  }
  if (kind == "move" || kind == "copy") {
    std::string from;
    KAI_RETURN_IF_ERROR(get_str("from", &from));
    KAI_ASSIGN_OR_RETURN(std::vector<std::string> from_toks, Tokens(from));
    Value moved;
    if (kind == "move") {
      if (path.rfind(from + "/", 0) == 0) {
        return InvalidArgumentError("cannot move into a child of " + from);
      }
      KAI_ASSIGN_OR_RETURN(moved, Remove(doc, from_toks));
    } else {
      KAI_ASSIGN_OR_RETURN(Value * src, Get(doc, from_toks));
      moved.CopyFrom(*src, alloc);
    }
    return Add(doc, toks, std::move(moved), alloc);
  }
  return InvalidArgumentError("unknown op \"" + kind + "\"");
}

}  // namespace

std::string JsonPointerEscape(std::string_view segment) {
  std::string out;
  out.reserve(segment.size());
  for (char c : segment) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

StatusOr<std::string> CreateJsonPatch(std::string_view original, std::string_view modified) {
  rapidjson::Document a, b, out;
  KAI_RETURN_IF_ERROR(Parse(original, "original", &a));
  KAI_RETURN_IF_ERROR(Parse(modified, "modified", &b));
  out.SetArray();
  Diff(a, b, "", &out, out.GetAllocator());
  return api::ToJsonString(out);
}

StatusOr<std::string> ApplyJsonPatch(std::string_view document, std::string_view patch) {
  rapidjson::Document doc, ops;
  KAI_RETURN_IF_ERROR(Parse(document, "document", &doc));
  KAI_RETURN_IF_ERROR(Parse(patch, "patch", &ops));
  if (!ops.IsArray()) return InvalidArgumentError("json patch: expected an array of operations");
  for (rapidjson::SizeType i = 0; i < ops.Size(); ++i) {
    Status s = ApplyOp(&doc, ops[i], doc.GetAllocator());
    if (!s.ok()) {
      std::string desc = "op " + std::to_string(i);
      if (ops[i].IsObject()) {
        auto op = FindIt(ops[i], "op");
        auto path = FindIt(ops[i], "path");
        if (op != ops[i].MemberEnd() && op->value.IsString() && path != ops[i].MemberEnd() &&
            path->value.IsString()) {
          desc += " (" + std::string(Str(op->value)) + " " + std::string(Str(path->value)) + ")";
        }
      }
      return Status(s.code() == StatusCode::kNotFound ? StatusCode::kInvalidArgument : s.code(),
                    "json patch: " + desc + ": " + std::string(s.message()));
    }
  }
  return api::ToJsonString(doc);
}

}  // namespace kai::kube
