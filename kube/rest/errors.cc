#include "kube/rest/errors.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>

#include "api/rapidjson_util.h"
#include "kube/base/strings.h"

namespace kai::kube {
namespace {

Status Make(StatusCode code, int http, std::string_view reason, std::string_view message) {
  Status s(code, message);
  s.SetHttpCode(http).SetReason(reason);
  return s;
}

bool HasReasonOrCode(const Status& s, std::string_view reason, int code) {
  if (s.ok()) return false;
  if (s.reason() == reason) return true;
  return s.reason().empty() && s.http_code() == code;
}

// Canonical code for an HTTP answer without a known reason.
StatusCode CodeForHttp(int http) {
  switch (http) {
    case 400:
    case 406:
    case 415:
    case 422:
      return StatusCode::kInvalidArgument;
    case 401:
      return StatusCode::kUnauthenticated;
    case 403:
      return StatusCode::kPermissionDenied;
    case 404:
      return StatusCode::kNotFound;
    case 405:
      return StatusCode::kUnimplemented;
    case 409:
      return StatusCode::kAborted;
    case 410:
      return StatusCode::kOutOfRange;
    case 413:
    case 429:
      return StatusCode::kResourceExhausted;
    case 500:
      return StatusCode::kInternal;
    case 503:
      return StatusCode::kUnavailable;
    case 504:
      return StatusCode::kDeadlineExceeded;
    default:
      if (http >= 500) return StatusCode::kUnavailable;
      if (http >= 400) return StatusCode::kInvalidArgument;
      return StatusCode::kUnknown;
  }
}

// Reason client-go's NewGenericServerResponse derives from a bare HTTP code.
std::string_view ReasonForHttp(int http) {
  switch (http) {
    case 400:
      return kReasonBadRequest;
    case 401:
      return kReasonUnauthorized;
    case 403:
      return kReasonForbidden;
    case 404:
      return kReasonNotFound;
    case 405:
      return kReasonMethodNotAllowed;
    case 406:
      return kReasonNotAcceptable;
    case 409:
      return kReasonConflict;
    case 410:
      return kReasonGone;
    case 413:
      return kReasonRequestEntityTooLarge;
    case 415:
      return kReasonUnsupportedMediaType;
    case 422:
      return kReasonInvalid;
    case 429:
      return kReasonTooManyRequests;
    case 500:
      return kReasonInternalError;
    case 503:
      return kReasonServiceUnavailable;
    case 504:
      return kReasonTimeout;
    default:
      return "";
  }
}

// The canonical code for a reason; falls back to the HTTP code.
StatusCode CodeForReason(std::string_view reason, int http) {
  if (reason == kReasonNotFound) return StatusCode::kNotFound;
  if (reason == kReasonAlreadyExists) return StatusCode::kAlreadyExists;
  if (reason == kReasonConflict) return StatusCode::kAborted;
  if (reason == kReasonGone || reason == kReasonExpired) return StatusCode::kOutOfRange;
  if (reason == kReasonInvalid || reason == kReasonBadRequest) return StatusCode::kInvalidArgument;
  if (reason == kReasonForbidden) return StatusCode::kPermissionDenied;
  if (reason == kReasonUnauthorized) return StatusCode::kUnauthenticated;
  if (reason == kReasonTooManyRequests) return StatusCode::kResourceExhausted;
  if (reason == kReasonTimeout) return StatusCode::kDeadlineExceeded;
  if (reason == kReasonServerTimeout || reason == kReasonServiceUnavailable) {
    return StatusCode::kUnavailable;
  }
  if (reason == kReasonInternalError) return StatusCode::kInternal;
  if (reason == kReasonMethodNotAllowed) return StatusCode::kUnimplemented;
  return CodeForHttp(http);
}

std::string_view StringMember(const rapidjson::Value& v, const char* name) {
  const rapidjson::Value* m = api::FindMember(v, name);
  if (m == nullptr || !m->IsString()) return {};
  return {m->GetString(), m->GetStringLength()};
}

// Fills `s` from a parsed metav1.Status; returns false when `doc` is not one.
bool FromStatusValue(const rapidjson::Value& doc, int http_code, Status* out) {
  if (!doc.IsObject()) return false;
  if (StringMember(doc, "kind") != "Status") return false;
  int code = http_code;
  if (const rapidjson::Value* c = api::FindMember(doc, "code"); c != nullptr && c->IsInt()) {
    if (code == 0) code = c->GetInt();
  }
  std::string reason(StringMember(doc, "reason"));
  if (reason.empty()) reason = std::string(ReasonForHttp(code));
  std::string message(StringMember(doc, "message"));
  if (message.empty()) message = "the server responded with code " + std::to_string(code);
  Status s = Make(CodeForReason(reason, code), code, reason, message);
  if (const rapidjson::Value* d = api::FindMember(doc, "details"); d != nullptr && d->IsObject()) {
    if (const rapidjson::Value* r = api::FindMember(*d, "retryAfterSeconds");
        r != nullptr && r->IsInt() && r->GetInt() > 0) {
      s.SetRetryAfterSeconds(r->GetInt());
    }
    if (const rapidjson::Value* cs = api::FindMember(*d, "causes");
        cs != nullptr && cs->IsArray()) {
      for (const auto& c : cs->GetArray()) {
        if (!c.IsObject()) continue;
        s.AddCause({std::string(StringMember(c, "reason")), std::string(StringMember(c, "field")),
                    std::string(StringMember(c, "message"))});
      }
    }
  }
  *out = std::move(s);
  return true;
}

}  // namespace

bool IsConflict(const Status& s) { return HasReasonOrCode(s, kReasonConflict, 409); }
bool IsResourceExpired(const Status& s) {
  return !s.ok() && (s.reason() == kReasonExpired || s.reason() == kReasonGone ||
                     (s.reason().empty() && s.http_code() == 410));
}
bool IsGone(const Status& s) { return HasReasonOrCode(s, kReasonGone, 410); }
bool IsInvalid(const Status& s) { return HasReasonOrCode(s, kReasonInvalid, 422); }
bool IsBadRequest(const Status& s) { return HasReasonOrCode(s, kReasonBadRequest, 400); }
bool IsForbidden(const Status& s) { return HasReasonOrCode(s, kReasonForbidden, 403); }
bool IsUnauthorized(const Status& s) { return HasReasonOrCode(s, kReasonUnauthorized, 401); }
bool IsTooManyRequests(const Status& s) {
  return !s.ok() && (s.reason() == kReasonTooManyRequests || s.http_code() == 429);
}
bool IsTimeout(const Status& s) { return HasReasonOrCode(s, kReasonTimeout, 504); }
bool IsServerTimeout(const Status& s) { return !s.ok() && s.reason() == kReasonServerTimeout; }
bool IsInternalError(const Status& s) { return HasReasonOrCode(s, kReasonInternalError, 500); }
bool IsServiceUnavailable(const Status& s) {
  return HasReasonOrCode(s, kReasonServiceUnavailable, 503);
}
bool IsMethodNotAllowed(const Status& s) {
  return HasReasonOrCode(s, kReasonMethodNotAllowed, 405);
}
bool IsTransportError(const Status& s) {
  return !s.ok() && s.http_code() == 0 &&
         (s.code() == StatusCode::kUnavailable || s.code() == StatusCode::kDeadlineExceeded);
}

Status StatusFromResponse(int http_code, std::string_view body, std::string_view retry_after_header,
                          std::string_view verb, std::string_view what) {
  Status s;
  rapidjson::Document doc;
  bool decoded = false;
  if (!body.empty() && body.front() == '{' && api::ParseJson(body, &doc).ok()) {
    decoded = FromStatusValue(doc, http_code, &s);
  }
  if (!decoded) {
    // client-go NewGenericServerResponse: the reason from the code, the body as the message.
    std::string_view reason = ReasonForHttp(http_code);
    std::string message = "the server responded with the status code " + std::to_string(http_code);
    if (!verb.empty()) message += " to " + std::string(verb);
    if (!what.empty()) message += " " + std::string(what);
    std::string_view trimmed = StripWhitespace(body);
    if (!trimmed.empty()) {
      message += ": " + std::string(trimmed.substr(0, 512));
    }
    s = Make(CodeForReason(reason, http_code), http_code, reason, message);
  }
  if (!retry_after_header.empty()) {
    int seconds = 0;
    std::string_view h = StripWhitespace(retry_after_header);
    auto [ptr, ec] = std::from_chars(h.data(), h.data() + h.size(), seconds);
    if (ec == std::errc() && ptr == h.data() + h.size() && seconds > 0) {
      s.SetRetryAfterSeconds(seconds);
    }
  }
  return s;
}

Status StatusFromStatusJson(std::string_view json) {
  rapidjson::Document doc;
  Status parsed = api::ParseJson(json, &doc);
  if (!parsed.ok()) return InternalError("undecodable watch error: " + parsed.ToString());
  Status s;
  int code = 0;
  if (doc.IsObject()) {
    if (const rapidjson::Value* c = api::FindMember(doc, "code"); c != nullptr && c->IsInt()) {
      code = c->GetInt();
    }
  }
  if (!FromStatusValue(doc, code, &s)) {
    return InternalError("watch error event without a metav1.Status: " +
                         std::string(json.substr(0, 512)));
  }
  return s;
}

Status NewNotFound(std::string_view what, std::string_view name) {
  return Make(StatusCode::kNotFound, 404, kReasonNotFound,
              std::string(what) + " " + Quote(name) + " not found");
}
Status NewAlreadyExists(std::string_view what, std::string_view name) {
  return Make(StatusCode::kAlreadyExists, 409, kReasonAlreadyExists,
              std::string(what) + " " + Quote(name) + " already exists");
}
Status NewConflict(std::string_view what, std::string_view name, std::string_view detail) {
  return Make(StatusCode::kAborted, 409, kReasonConflict,
              "Operation cannot be fulfilled on " + std::string(what) + " " + Quote(name) + ": " +
                  std::string(detail));
}
Status NewPreconditionFailed(std::string_view what, std::string_view name, std::string_view field,
                             std::string_view want, std::string_view have) {
  return NewConflict(what, name,
                     "Precondition failed: " + std::string(field) +
                         " in precondition: " + std::string(want) + ", " + std::string(field) +
                         " in object meta: " + std::string(have));
}
Status NewExpired(std::string_view message) {
  return Make(StatusCode::kOutOfRange, 410, kReasonExpired, message);
}
Status NewGone(std::string_view message) {
  return Make(StatusCode::kOutOfRange, 410, kReasonGone, message);
}
Status NewInvalid(std::string_view kind, std::string_view name, std::vector<StatusCause> causes) {
  std::string agg;
  for (size_t i = 0; i < causes.size(); ++i) {
    if (i > 0) agg += ", ";
    agg += (causes[i].field.empty() ? "" : causes[i].field + ": ") + causes[i].message;
  }
  if (causes.size() > 1) agg = "[" + agg + "]";
  Status s = Make(StatusCode::kInvalidArgument, 422, kReasonInvalid,
                  std::string(kind) + " " + Quote(name) + " is invalid: " + agg);
  for (auto& c : causes) s.AddCause(std::move(c));
  return s;
}
Status NewBadRequest(std::string_view message) {
  return Make(StatusCode::kInvalidArgument, 400, kReasonBadRequest, message);
}
Status NewForbidden(std::string_view message) {
  return Make(StatusCode::kPermissionDenied, 403, kReasonForbidden, message);
}
Status NewUnauthorized(std::string_view message) {
  return Make(StatusCode::kUnauthenticated, 401, kReasonUnauthorized, message);
}
Status NewTooManyRequests(std::string_view message, int retry_after_seconds) {
  Status s = Make(StatusCode::kResourceExhausted, 429, kReasonTooManyRequests, message);
  if (retry_after_seconds > 0) s.SetRetryAfterSeconds(retry_after_seconds);
  return s;
}
Status NewInternalError(std::string_view message) {
  return Make(StatusCode::kInternal, 500, kReasonInternalError, message);
}
Status NewServiceUnavailable(std::string_view message) {
  return Make(StatusCode::kUnavailable, 503, kReasonServiceUnavailable, message);
}
Status NewTimeout(std::string_view message) {
  return Make(StatusCode::kDeadlineExceeded, 504, kReasonTimeout, message);
}
Status NewMethodNotAllowed(std::string_view message) {
  return Make(StatusCode::kUnimplemented, 405, kReasonMethodNotAllowed, message);
}
Status NewNotAcceptable(std::string_view message) {
  return Make(StatusCode::kInvalidArgument, 406, kReasonNotAcceptable, message);
}
Status NewRequestEntityTooLarge(std::string_view message) {
  return Make(StatusCode::kResourceExhausted, 413, kReasonRequestEntityTooLarge, message);
}
Status NewUnsupportedMediaType(std::string_view message) {
  return Make(StatusCode::kInvalidArgument, 415, kReasonUnsupportedMediaType, message);
}
Status NewApiError(int http_code, std::string_view reason, std::string_view message) {
  return Make(CodeForReason(reason, http_code), http_code, reason, message);
}

std::string StatusToJson(const Status& s, const StatusSubject& subject) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto str = [&](std::string_view v) {
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  };
  auto optional = [&](std::string_view key, std::string_view v) {
    if (v.empty()) return;
    str(key);
    str(v);
  };
  w.StartObject();
  str("kind");
  str("Status");
  str("apiVersion");
  str("v1");
  str("metadata");
  w.StartObject();
  w.EndObject();
  str("status");
  str(s.ok() ? "Success" : "Failure");
  if (!s.ok()) {
    str("message");
    str(s.message());
    optional("reason", s.reason());
    if (!s.causes().empty() || s.retry_after_seconds() > 0 || !subject.name.empty() ||
        !subject.kind.empty()) {
      str("details");
      w.StartObject();
      optional("name", subject.name);
      optional("group", subject.group);
      optional("kind", subject.kind);
      if (!s.causes().empty()) {
        str("causes");
        w.StartArray();
        for (const StatusCause& c : s.causes()) {
          w.StartObject();
          str("reason");
          str(c.type);
          str("message");
          str(c.message);
          optional("field", c.field);
          w.EndObject();
        }
        w.EndArray();
      }
      if (s.retry_after_seconds() > 0) {
        str("retryAfterSeconds");
        w.Int(s.retry_after_seconds());
      }
      w.EndObject();
    }
  }
  str("code");
  w.Int(s.ok() ? 200 : s.http_code());
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace kai::kube
