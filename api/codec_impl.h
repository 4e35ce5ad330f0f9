// Internal: the visitor-based JSON codec engine behind every DecodeJson/EncodeJson. Includes
// RapidJSON, so include it only from .cc files (through api/codec_internal.h).
//
// Three operations work on any type T the data model uses (scalars, Quantity, times, RawJson,
// std::optional, std::vector, std::map<std::string, ...> and structs with a Fields() visitor):
//
//   DecodeAny(value, &t, &err)      JSON -> T, Go encoding/json semantics (unknown fields
//                                   ignored, null = zero value, type errors reported with path)
//   EncodeAny(t, &value, alloc)     T -> JSON, Go omitempty semantics
//   MergeAny(t, orig, &value, alloc)  T -> JSON reusing `orig` (the JSON T was decoded from):
//                                   unchanged parts keep their original JSON, unknown fields are
//                                   kept, changed fields are replaced, removed fields deleted.
#pragma once

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/meta.h"
#include "api/quantity.h"
#include "kube/base/clock.h"

namespace kai::api::codec {

using Value = rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

// ---- traits ----

inline constexpr auto kFieldsProbe = [](std::string_view, auto&) {};
template <class T>
concept HasFields = requires(T& t) {
  T::Fields(t, kFieldsProbe);
};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};
template <class T>
struct IsStringMap : std::false_type {};
template <class T>
struct IsStringMap<std::map<std::string, T>> : std::true_type {};

// ---- decode errors ----

// The path is collected while unwinding, innermost segment first; nothing is allocated on the
// success path.
class DecodeError {
 public:
  void Set(std::string message) { message_ = std::move(message); }
  void PushField(std::string_view name) { rev_path_.push_back(std::string(name)); }
  void PushIndex(size_t i) { rev_path_.push_back("[" + std::to_string(i) + "]"); }
  void PushKey(std::string_view key);
  // "spec.containers[0].resources.requests.cpu" (empty at the top level).
  std::string Path() const;
  const std::string& message() const { return message_; }
  // "<path>: <message>" or just the message.
  std::string ToString() const;

 private:
  std::string message_;
  std::vector<std::string> rev_path_;
};

// "string", "number", "object", ... (for "expected X, got Y").
std::string_view JsonTypeName(const Value& v);
bool TypeError(const Value& v, std::string_view expected, DecodeError* err);

// Member lookup by exact (case-sensitive) name; the last duplicate wins, as in Go.
inline const Value* FindField(const Value& obj, std::string_view name) {
  const Value* found = nullptr;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    if (it->name.GetStringLength() == name.size() &&
        std::char_traits<char>::compare(it->name.GetString(), name.data(), name.size()) == 0) {
      found = &it->value;
    }
  }
  return found;
}

// ---- scalar codecs (codec.cc) ----

bool DecodeAny(const Value& v, std::string* out, DecodeError* err);
bool DecodeAny(const Value& v, bool* out, DecodeError* err);
bool DecodeAny(const Value& v, int32_t* out, DecodeError* err);
bool DecodeAny(const Value& v, int64_t* out, DecodeError* err);
bool DecodeAny(const Value& v, double* out, DecodeError* err);
bool DecodeAny(const Value& v, Quantity* out, DecodeError* err);
bool DecodeAny(const Value& v, WallTime* out, DecodeError* err);
bool DecodeAny(const Value& v, MicroTime* out, DecodeError* err);
bool DecodeAny(const Value& v, Duration* out, DecodeError* err);
bool DecodeAny(const Value& v, RawJson* out, DecodeError* err);

void EncodeAny(const std::string& s, Value* out, Alloc& a);
void EncodeAny(bool b, Value* out, Alloc& a);
void EncodeAny(int32_t i, Value* out, Alloc& a);
void EncodeAny(int64_t i, Value* out, Alloc& a);
void EncodeAny(double d, Value* out, Alloc& a);
void EncodeAny(const Quantity& q, Value* out, Alloc& a);
void EncodeAny(const WallTime& t, Value* out, Alloc& a);
void EncodeAny(const MicroTime& t, Value* out, Alloc& a);
void EncodeAny(const Duration& d, Value* out, Alloc& a);
void EncodeAny(const RawJson& r, Value* out, Alloc& a);

// Go's omitempty: zero scalars, empty strings/lists/maps, unset optionals. Quantity is a struct
// in Go and never omitted; a struct is omitted when all its fields are (equivalent on decode).
inline bool IsEmpty(const std::string& s) { return s.empty(); }
inline bool IsEmpty(bool b) { return !b; }
inline bool IsEmpty(int32_t i) { return i == 0; }
inline bool IsEmpty(int64_t i) { return i == 0; }
inline bool IsEmpty(double d) { return d == 0; }
inline bool IsEmpty(const Quantity&) { return false; }
inline bool IsEmpty(const WallTime&) { return false; }
inline bool IsEmpty(const MicroTime&) { return false; }
inline bool IsEmpty(const Duration&) { return false; }
inline bool IsEmpty(const RawJson& r) { return r.json.empty(); }

// ---- composite codecs ----

template <class T>
bool IsEmpty(const std::optional<T>& o);
template <class T>
bool IsEmpty(const std::vector<T>& v);
template <class T>
bool IsEmpty(const std::map<std::string, T>& m);
template <HasFields T>
bool IsEmpty(const T& s);

template <class T>
bool DecodeAny(const Value& v, std::optional<T>* out, DecodeError* err);
template <class T>
bool DecodeAny(const Value& v, std::vector<T>* out, DecodeError* err);
template <class T>
bool DecodeAny(const Value& v, std::map<std::string, T>* out, DecodeError* err);
template <HasFields T>
bool DecodeAny(const Value& v, T* out, DecodeError* err);

template <class T>
void EncodeAny(const std::optional<T>& o, Value* out, Alloc& a);
template <class T>
void EncodeAny(const std::vector<T>& v, Value* out, Alloc& a);
template <class T>
void EncodeAny(const std::map<std::string, T>& m, Value* out, Alloc& a);
template <HasFields T>
void EncodeAny(const T& s, Value* out, Alloc& a);

template <class T>
void MergeAny(const T& value, const Value* orig, Value* out, Alloc& a);
template <HasFields T>
void MergeStruct(const T& value, const Value& orig, Value* out, Alloc& a,
                 std::initializer_list<std::string_view> skip = {});

// null decodes to the zero value everywhere (Go leaves non-pointer fields untouched).
template <class T>
bool DecodeNullable(const Value& v, T* out, DecodeError* err) {
  if (v.IsNull()) return true;
  return DecodeAny(v, out, err);
}

template <class T>
bool IsEmpty(const std::optional<T>& o) {
  return !o.has_value();
}
template <class T>
bool IsEmpty(const std::vector<T>& v) {
  return v.empty();
}
template <class T>
bool IsEmpty(const std::map<std::string, T>& m) {
  return m.empty();
}
template <HasFields T>
bool IsEmpty(const T& s) {
  bool empty = true;
  auto vis = [&empty](std::string_view, const auto& f) {
    if (empty && !IsEmpty(f)) empty = false;
  };
  T::Fields(s, vis);
  return empty;
}

template <class T>
bool DecodeAny(const Value& v, std::optional<T>* out, DecodeError* err) {
  if (v.IsNull()) {
    out->reset();
    return true;
  }
  out->emplace();
  return DecodeAny(v, &**out, err);
}

template <class T>
bool DecodeAny(const Value& v, std::vector<T>* out, DecodeError* err) {
  if (!v.IsArray()) return TypeError(v, "array", err);
  out->clear();
  out->resize(v.Size());
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    if (!DecodeNullable(v[i], &(*out)[i], err)) {
      err->PushIndex(i);
      return false;
    }
  }
  return true;
}

template <class T>
bool DecodeAny(const Value& v, std::map<std::string, T>* out, DecodeError* err) {
  if (!v.IsObject()) return TypeError(v, "object", err);
  out->clear();
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    std::string key(it->name.GetString(), it->name.GetStringLength());
    T& slot = (*out)[key];
    slot = T();  // a duplicate key replaces the earlier value, as in Go
    if (!DecodeNullable(it->value, &slot, err)) {
      err->PushKey(key);
      return false;
    }
  }
  return true;
}

template <HasFields T>
bool DecodeAny(const Value& v, T* out, DecodeError* err) {
  if (!v.IsObject()) return TypeError(v, "object", err);
  bool ok = true;
  auto vis = [&](std::string_view name, auto& field) {
    if (!ok) return;
    const Value* m = FindField(v, name);
    if (m == nullptr) return;
    if (!DecodeNullable(*m, &field, err)) {
      err->PushField(name);
      ok = false;
    }
  };
  T::Fields(*out, vis);
  return ok;
}

template <class T>
void EncodeAny(const std::optional<T>& o, Value* out, Alloc& a) {
  if (!o) {
    out->SetNull();
    return;
  }
  EncodeAny(*o, out, a);
}

template <class T>
void EncodeAny(const std::vector<T>& v, Value* out, Alloc& a) {
  out->SetArray();
  out->Reserve(static_cast<rapidjson::SizeType>(v.size()), a);
  for (const T& item : v) {
    Value e;
    EncodeAny(item, &e, a);
    out->PushBack(e, a);
  }
}

template <class T>
void EncodeAny(const std::map<std::string, T>& m, Value* out, Alloc& a) {
  out->SetObject();
  for (const auto& [k, item] : m) {
    Value e;
    EncodeAny(item, &e, a);
    out->AddMember(Value(k.data(), static_cast<rapidjson::SizeType>(k.size()), a), e, a);
  }
}

template <HasFields T>
void EncodeAny(const T& s, Value* out, Alloc& a) {
  out->SetObject();
  auto vis = [out, &a](std::string_view name, const auto& f) {
    if (IsEmpty(f)) return;
    Value e;
    EncodeAny(f, &e, a);
    // Field names are string literals: referenced, not copied.
    out->AddMember(
        Value(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))), e,
        a);
  };
  T::Fields(s, vis);
}

// True when `orig` decodes to exactly `value` (so its text can be kept).
template <class T>
bool SameAsOriginal(const T& value, const Value& orig) {
  T old{};
  DecodeError err;
  return DecodeNullable(orig, &old, &err) && old == value;
}

// List items are matched conservatively (docs/api.md): an original item is reused verbatim
// when it decodes to exactly the new item (wherever it was); a changed item is merged into the
// original item at its position only when the list kept its length; otherwise it is encoded
// afresh (unknown fields inside that one item are then not carried over).
template <class T>
void MergeVector(const std::vector<T>& value, const Value& orig, Value* out, Alloc& a) {
  const size_t n = value.size();
  const size_t m = orig.Size();
  std::vector<std::optional<T>> olds(m);
  for (size_t j = 0; j < m; ++j) {
    T old{};
    DecodeError err;
    if (DecodeNullable(orig[static_cast<rapidjson::SizeType>(j)], &old, &err)) {
      olds[j] = std::move(old);
    }
  }
  std::vector<bool> used(m, false);
  // Reordering search is quadratic; bound it for very long lists.
  const bool search = n * m <= 1u << 20;
  out->SetArray();
  out->Reserve(static_cast<rapidjson::SizeType>(n), a);
  for (size_t i = 0; i < n; ++i) {
    size_t match = m;
    if (i < m && !used[i] && olds[i] && *olds[i] == value[i]) {
      match = i;
    } else if (search) {
      for (size_t j = 0; j < m; ++j) {
        if (!used[j] && olds[j] && *olds[j] == value[i]) {
          match = j;
          break;
        }
      }
    }
    Value e;
    if (match < m) {
      used[match] = true;
      e.CopyFrom(orig[static_cast<rapidjson::SizeType>(match)], a);
    } else if (n == m && !used[i]) {
      used[i] = true;
      MergeAny(value[i], &orig[static_cast<rapidjson::SizeType>(i)], &e, a);
    } else {
      EncodeAny(value[i], &e, a);
    }
    out->PushBack(e, a);
  }
}

template <class T>
void MergeMap(const std::map<std::string, T>& value, const Value& orig, Value* out, Alloc& a) {
  out->SetObject();
  std::vector<bool> seen;
  for (auto it = orig.MemberBegin(); it != orig.MemberEnd(); ++it) {
    const std::string key(it->name.GetString(), it->name.GetStringLength());
    auto found = value.find(key);
    if (found == value.end()) continue;  // removed
    Value e;
    MergeAny(found->second, &it->value, &e, a);
    Value name;
    name.CopyFrom(it->name, a);
    out->AddMember(name, e, a);
  }
  for (const auto& [k, item] : value) {
    if (FindField(orig, k) != nullptr) continue;
    Value e;
    EncodeAny(item, &e, a);
    out->AddMember(Value(k.data(), static_cast<rapidjson::SizeType>(k.size()), a), e, a);
  }
}

template <HasFields T>
void MergeStruct(const T& value, const Value& orig, Value* out, Alloc& a,
                 std::initializer_list<std::string_view> skip) {
  out->SetObject();
  // Original members in their order: modelled ones merged (or dropped), others kept.
  for (auto it = orig.MemberBegin(); it != orig.MemberEnd(); ++it) {
    const std::string_view name(it->name.GetString(), it->name.GetStringLength());
    if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    const Value& orig_member = it->value;
    bool modelled = false;
    bool keep = false;
    Value result;
    auto vis = [&](std::string_view field_name, const auto& f) {
      using F = std::decay_t<decltype(f)>;
      if (modelled || field_name != name) return;
      modelled = true;
      if (IsEmpty(f)) {
        // Omitted now: keep an original that means the same (e.g. `"hostNetwork": false`).
        if (SameAsOriginal(f, orig_member)) {
          keep = true;
          result.CopyFrom(orig_member, a);
        }
        return;
      }
      keep = true;
      if constexpr (IsOptional<F>::value) {
        MergeAny(*f, &orig_member, &result, a);
      } else {
        MergeAny(f, &orig_member, &result, a);
      }
    };
    T::Fields(value, vis);
    if (modelled && !keep) continue;
    Value member_name;
    member_name.CopyFrom(it->name, a);
    if (modelled) {
      out->AddMember(member_name, result, a);
    } else {
      Value copy;
      copy.CopyFrom(it->value, a);
      out->AddMember(member_name, copy, a);
    }
  }
  // Modelled fields the original did not have.
  auto add = [&](std::string_view name, const auto& f) {
    if (IsEmpty(f) || FindField(orig, name) != nullptr) return;
    Value e;
    EncodeAny(f, &e, a);
    out->AddMember(
        Value(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))), e,
        a);
  };
  T::Fields(value, add);
}

template <class T>
void MergeAny(const T& value, const Value* orig, Value* out, Alloc& a) {
  if (orig == nullptr) {
    EncodeAny(value, out, a);
    return;
  }
  if constexpr (HasFields<T>) {
    if (orig->IsObject()) {
      MergeStruct(value, *orig, out, a);
      return;
    }
  } else if constexpr (IsOptional<T>::value) {
    if (value) {
      MergeAny(*value, orig, out, a);
    } else {
      out->SetNull();
    }
    return;
  } else if constexpr (IsVector<T>::value) {
    if (orig->IsArray()) {
      MergeVector(value, *orig, out, a);
      return;
    }
  } else if constexpr (IsStringMap<T>::value) {
    if (orig->IsObject()) {
      MergeMap(value, *orig, out, a);
      return;
    }
  } else {
    if (SameAsOriginal(value, *orig)) {
      out->CopyFrom(*orig, a);
      return;
    }
  }
  EncodeAny(value, out, a);
}

}  // namespace kai::api::codec
