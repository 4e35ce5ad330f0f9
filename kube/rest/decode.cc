#include "kube/rest/decode.h"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <vector>

#include "kube/base/strings.h"
#include "kube/rest/errors.h"

namespace kai::kube::internal {
namespace {

constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseFullPrecisionFlag;

// Tracks the container nesting and the current key of each object, so handlers can tell where a
// value sits. In iterative mode RapidJSON calls StartObject/EndObject with the stream positioned
// on the '{' / '}' itself.
struct Frame {
  bool object;
  std::string key;
};

struct ListHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, ListHandler> {
  rapidjson::MemoryStream* stream;
  ObjectList* out;
  std::vector<Frame> frames;
  size_t item_start = 0;
  bool item_has_kind = false;
  bool item_has_api_version = false;
  std::string_view body;
  // (start, end, needs type meta) of every item, in order.
  struct Item {
    size_t start, end;
    bool has_kind, has_api_version;
  };
  std::vector<Item> items;

  bool InItems() const {
    return frames.size() == 2 && frames[0].key == "items" && !frames[1].object;
  }
  bool AtRootKey(std::string_view k) const { return frames.size() == 1 && frames[0].key == k; }
  bool AtMetadataKey(std::string_view k) const {
    return frames.size() == 2 && frames[0].key == "metadata" && frames[1].object &&
           frames[1].key == k;
  }

  bool String(const char* s, rapidjson::SizeType n, bool) {
    std::string_view v(s, n);
    if (AtRootKey("kind")) out->kind = std::string(v);
    if (AtRootKey("apiVersion")) out->api_version = std::string(v);
    if (AtMetadataKey("resourceVersion")) out->resource_version = std::string(v);
    if (AtMetadataKey("continue")) out->continue_token = std::string(v);
    return true;
  }
  bool Int64(int64_t i) {
    if (AtMetadataKey("remainingItemCount")) out->remaining_item_count = i;
    return true;
  }
  bool Uint64(uint64_t u) { return Int64(static_cast<int64_t>(u)); }
  bool Int(int i) { return Int64(i); }
  bool Uint(unsigned u) { return Int64(u); }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    // Keys matter at the root, in the list's metadata, and at the top of each item.
    if (frames.size() <= 2) {
      frames.back().key.assign(s, n);
    } else if (frames.size() == 3 && frames[0].key == "items") {
      std::string_view k(s, n);
      if (k == "kind") item_has_kind = true;
      if (k == "apiVersion") item_has_api_version = true;
    }
    return true;
  }
  bool StartObject() {
    if (InItems()) {
      item_start = stream->Tell();
      item_has_kind = item_has_api_version = false;
    }
    frames.push_back({true, {}});
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    frames.pop_back();
    if (InItems()) {
      items.push_back({item_start, stream->Tell() + 1, item_has_kind, item_has_api_version});
    }
    return true;
  }
  bool StartArray() {
    frames.push_back({false, {}});
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    frames.pop_back();
    return true;
  }
};

struct EventHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, EventHandler> {
  rapidjson::MemoryStream* stream;
  std::vector<Frame> frames;
  std::string type;
  std::string resource_version;
  size_t object_start = std::string_view::npos;
  size_t object_end = std::string_view::npos;

  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (frames.size() == 1 && frames[0].key == "type") type.assign(s, n);
    if (frames.size() == 3 && frames[0].key == "object" && frames[1].key == "metadata" &&
        frames[2].object && frames[2].key == "resourceVersion") {
      resource_version.assign(s, n);
    }
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    // Only the first three levels matter; deeper keys are not stored.
    if (frames.size() <= 3) frames.back().key.assign(s, n);
    return true;
  }
  bool StartObject() {
    if (frames.size() == 1 && frames[0].key == "object") object_start = stream->Tell();
    frames.push_back({true, {}});
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    frames.pop_back();
    if (frames.size() == 1 && frames[0].key == "object") object_end = stream->Tell() + 1;
    return true;
  }
  bool StartArray() {
    frames.push_back({false, {}});
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    frames.pop_back();
    return true;
  }
};

}  // namespace

Status DecodeList(std::string_view body, ObjectList* out) {
  *out = ObjectList();
  rapidjson::MemoryStream stream(body.data(), body.size());
  ListHandler h;
  h.stream = &stream;
  h.out = out;
  h.body = body;
  rapidjson::Reader reader;
  rapidjson::ParseResult r = reader.Parse<kFlags>(stream, h);
  if (r.IsError()) {
    return InternalError("undecodable list response at offset " + std::to_string(r.Offset()) +
                         ": " + std::string(body.substr(0, 200)));
  }
  std::string item_kind = out->kind;
  if (item_kind.size() > 4 && item_kind.compare(item_kind.size() - 4, 4, "List") == 0) {
    item_kind.resize(item_kind.size() - 4);
  }
  std::string prefix;
  out->items.reserve(h.items.size());
  for (const auto& it : h.items) {
    std::string_view text = body.substr(it.start, it.end - it.start);
    if ((it.has_kind && it.has_api_version) || item_kind.empty()) {
      out->items.emplace_back(text);
      continue;
    }
    // Insert the missing type meta right after '{'.
    std::string item;
    item.reserve(text.size() + item_kind.size() + out->api_version.size() + 32);
    item += '{';
    bool sep = false;
    if (!it.has_kind) {
      item += "\"kind\":\"" + item_kind + "\"";
      sep = true;
    }
    if (!it.has_api_version) {
      item += std::string(sep ? "," : "") + "\"apiVersion\":\"" + out->api_version + "\"";
      sep = true;
    }
    std::string_view rest = text.substr(1);
    if (!StripWhitespace(rest).starts_with("}")) item += ',';
    item.append(rest);
    out->items.push_back(std::move(item));
  }
  return Status::OK();
}

Status DecodeWatchEvent(std::string_view line, WatchEvent* out) {
  rapidjson::MemoryStream stream(line.data(), line.size());
  EventHandler h;
  h.stream = &stream;
  rapidjson::Reader reader;
  rapidjson::ParseResult r = reader.Parse<kFlags>(stream, h);
  if (r.IsError() || h.object_start == std::string_view::npos ||
      h.object_end == std::string_view::npos) {
    return InternalError("undecodable watch event: " + std::string(line.substr(0, 200)));
  }
  if (h.type == "ADDED") {
    out->type = WatchEventType::kAdded;
  } else if (h.type == "MODIFIED") {
    out->type = WatchEventType::kModified;
  } else if (h.type == "DELETED") {
    out->type = WatchEventType::kDeleted;
  } else if (h.type == "BOOKMARK") {
    out->type = WatchEventType::kBookmark;
  } else if (h.type == "ERROR") {
    out->type = WatchEventType::kError;
  } else {
    return InternalError("watch event of unknown type \"" + h.type + "\"");
  }
  out->object.assign(line.substr(h.object_start, h.object_end - h.object_start));
  out->resource_version = std::move(h.resource_version);
  out->error = out->type == WatchEventType::kError ? StatusFromStatusJson(out->object) : Status();
  return Status::OK();
}

bool LineBuffer::NextLine(std::string* line) {
  while (true) {
    const size_t nl = buf_.find('\n', scan_);
    if (nl == std::string::npos) {
      scan_ = buf_.size();
      // Reclaim the consumed prefix once it dominates the buffer.
      if (pos_ > 0 && pos_ >= buf_.size() / 2) {
        buf_.erase(0, pos_);
        scan_ -= pos_;
        pos_ = 0;
      }
      return false;
    }
    std::string_view l(buf_.data() + pos_, nl - pos_);
    pos_ = nl + 1;
    scan_ = pos_;
    if (StripWhitespace(l).empty()) continue;
    line->assign(l);
    return true;
  }
}

std::string LineBuffer::TakeRest() {
  std::string rest = buf_.substr(pos_);
  buf_.clear();
  pos_ = scan_ = 0;
  return std::string(StripWhitespace(rest));
}

}  // namespace kai::kube::internal
