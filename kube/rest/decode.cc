#include "kube/rest/decode.h"

#include <rapidjson/document.h>

#include <charconv>
#include <vector>

#include "api/json_quote.h"
#include "kube/base/strings.h"
#include "kube/rest/errors.h"
#include "kube/rest/json_scan.h"

namespace kai::kube::internal {
namespace {

// A JSON string's value from its raw content (escapes are rare: decode them properly then).
std::string StringValue(std::string_view raw, bool escaped) {
  if (!escaped) return std::string(raw);
  rapidjson::Document d;
  const std::string quoted = "\"" + std::string(raw) + "\"";
  d.Parse(quoted.data(), quoted.size());
  return d.IsString() ? std::string(d.GetString(), d.GetStringLength()) : std::string(raw);
}

}  // namespace

Status DecodeList(std::string_view body, ObjectList* out) {
  *out = ObjectList();
  struct Item {
    size_t start, end;
    bool has_kind, has_api_version;
  };
  std::vector<Item> items;
  JsonScanner sc(body);
  const bool ok = sc.Members([&](std::string_view key, bool) {
    if (key == "kind" || key == "apiVersion") {
      std::string_view v;
      bool e;
      if (!sc.String(&v, &e)) return false;
      (key == "kind" ? out->kind : out->api_version) = StringValue(v, e);
      return true;
    }
    if (key == "metadata") {
      return sc.Members([&](std::string_view mkey, bool) {
        if (mkey == "resourceVersion" || mkey == "continue") {
          std::string_view v;
          bool e;
          if (!sc.String(&v, &e)) return false;
          (mkey == "continue" ? out->continue_token : out->resource_version) = StringValue(v, e);
          return true;
        }
        if (mkey == "remainingItemCount") {
          sc.SkipWs();
          const char* start = sc.pos();
          if (!sc.SkipValue()) return false;
          int64_t n = 0;
          auto [ptr, ec] = std::from_chars(start, sc.pos(), n);
          if (ec == std::errc() && ptr == sc.pos()) out->remaining_item_count = n;
          return true;
        }
        return sc.SkipValue();
      });
    }
    if (key == "items") {
      if (sc.Peek('n')) return sc.SkipValue();  // "items": null
      return sc.Elements([&]() {
        sc.SkipWs();
        Item it{sc.offset(), 0, false, false};
        if (!sc.Members([&](std::string_view ikey, bool) {
              if (ikey == "kind") it.has_kind = true;
              if (ikey == "apiVersion") it.has_api_version = true;
              return sc.SkipValue();
            })) {
          return false;
        }
        it.end = sc.offset();
        items.push_back(it);
        return true;
      });
    }
    return sc.SkipValue();
  }) && sc.AtEnd();
  if (!ok) {
    return InternalError("undecodable list response at offset " + std::to_string(sc.offset()) +
                         ": " + std::string(body.substr(0, 200)));
  }
  std::string item_kind = out->kind;
  if (item_kind.size() > 4 && item_kind.compare(item_kind.size() - 4, 4, "List") == 0) {
    item_kind.resize(item_kind.size() - 4);
  }
  out->items.reserve(items.size());
  for (const auto& it : items) {
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
      item += "\"kind\":" + api::JsonQuote(item_kind);
      sep = true;
    }
    if (!it.has_api_version) {
      item += std::string(sep ? "," : "") + "\"apiVersion\":" + api::JsonQuote(out->api_version);
    }
    std::string_view rest = text.substr(1);
    if (!StripWhitespace(rest).starts_with("}")) item += ',';
    item.append(rest);
    out->items.push_back(std::move(item));
  }
  return Status::OK();
}

Status DecodeWatchEvent(std::string_view line, WatchEvent* out) {
  std::string type;
  std::string rv;
  size_t object_start = std::string_view::npos;
  size_t object_end = std::string_view::npos;
  JsonScanner sc(line);
  const bool ok = sc.Members([&](std::string_view key, bool) {
    if (key == "type") {
      std::string_view v;
      bool e;
      if (!sc.String(&v, &e)) return false;
      type = StringValue(v, e);
      return true;
    }
    if (key == "object") {
      sc.SkipWs();
      object_start = sc.offset();
      if (!sc.Members([&](std::string_view okey, bool) {
            if (okey != "metadata") return sc.SkipValue();
            return sc.Members([&](std::string_view mkey, bool) {
              if (mkey != "resourceVersion") return sc.SkipValue();
              std::string_view v;
              bool e;
              if (!sc.String(&v, &e)) return false;
              rv = StringValue(v, e);
              return true;
            });
          })) {
        return false;
      }
      object_end = sc.offset();
      return true;
    }
    return sc.SkipValue();
  }) && sc.AtEnd();
  if (!ok || object_start == std::string_view::npos) {
    return InternalError("undecodable watch event: " + std::string(line.substr(0, 200)));
  }
  if (type == "ADDED") {
    out->type = WatchEventType::kAdded;
  } else if (type == "MODIFIED") {
    out->type = WatchEventType::kModified;
  } else if (type == "DELETED") {
    out->type = WatchEventType::kDeleted;
  } else if (type == "BOOKMARK") {
    out->type = WatchEventType::kBookmark;
  } else if (type == "ERROR") {
    out->type = WatchEventType::kError;
  } else {
    return InternalError("watch event of unknown type \"" + type + "\"");
  }
  out->object.assign(line.substr(object_start, object_end - object_start));
  out->resource_version = std::move(rv);
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
