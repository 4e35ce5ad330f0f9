// Internal (kube/ .cc files): a structural JSON scanner for the hot paths of list and watch
// decoding. It walks members and skips values without parsing them (strings are found with
// memchr, containers by bracket depth), so cutting a 100,000-item list into items or reading an
// object's metadata costs a fraction of a full parse. Structure is checked (brackets, quotes,
// separators, literals); the contents of skipped values are left to the object decoder.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

namespace kai::kube::internal {

class JsonScanner {
 public:
  explicit JsonScanner(std::string_view text)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  bool ok() const { return ok_; }
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }
  const char* pos() const { return p_; }

  void SkipWs() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  // At end of input, whitespace aside.
  bool AtEnd() {
    SkipWs();
    return p_ == end_;
  }

  bool Peek(char c) {
    SkipWs();
    return p_ < end_ && *p_ == c;
  }

  bool Consume(char c) {
    SkipWs();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return Fail();
  }

  // Reads a string; `raw` is its content between the quotes (escapes not decoded).
  bool String(std::string_view* raw, bool* escaped) {
    SkipWs();
    if (p_ >= end_ || *p_ != '"') return Fail();
    const char* start = ++p_;
    *escaped = false;
    while (true) {
      const void* q = std::memchr(p_, '"', static_cast<size_t>(end_ - p_));
      if (q == nullptr) return Fail();
      const char* quote = static_cast<const char*>(q);
      // Escaped when preceded by an odd number of backslashes.
      size_t slashes = 0;
      for (const char* b = quote; b > start && b[-1] == '\\'; --b) ++slashes;
      p_ = quote + 1;
      if (slashes % 2 == 0) {
        *raw = std::string_view(start, static_cast<size_t>(quote - start));
        *escaped = std::memchr(raw->data(), '\\', raw->size()) != nullptr;
        return true;
      }
    }
  }

  // Skips any value.
  bool SkipValue() {
    SkipWs();
    if (p_ >= end_) return Fail();
    switch (*p_) {
      case '"': {
        std::string_view s;
        bool e;
        return String(&s, &e);
      }
      case '{':
      case '[':
        return SkipContainer();
      default:
        return SkipLiteral();
    }
  }

  // Iterates the members of an object: `fn(key, escaped)` is called with the scanner on the
  // value and must consume it (return false to stop with an error).
  template <class Fn>
  bool Members(Fn&& fn) {
    if (!Consume('{')) return false;
    if (Peek('}')) {
      ++p_;
      return true;
    }
    while (true) {
      std::string_view key;
      bool escaped;
      if (!String(&key, &escaped) || !Consume(':')) return false;
      if (!fn(key, escaped)) return Fail();
      SkipWs();
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        continue;
      }
      return Consume('}');
    }
  }

  // Iterates the elements of an array: `fn()` is called with the scanner on each element.
  template <class Fn>
  bool Elements(Fn&& fn) {
    if (!Consume('[')) return false;
    if (Peek(']')) {
      ++p_;
      return true;
    }
    while (true) {
      if (!fn()) return Fail();
      SkipWs();
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        continue;
      }
      return Consume(']');
    }
  }

  bool Fail() {
    ok_ = false;
    return false;
  }

 private:
  bool SkipContainer() {
    int depth = 0;
    while (p_ < end_) {
      const char c = *p_;
      if (c == '"') {
        std::string_view s;
        bool e;
        if (!String(&s, &e)) return false;
        continue;
      }
      ++p_;
      if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) return true;
        if (depth < 0) return Fail();
      }
    }
    return Fail();
  }

  bool SkipLiteral() {
    const char* start = p_;
    while (p_ < end_) {
      const char c = *p_;
      if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' ||
          (c >= 'a' && c <= 'z')) {
        ++p_;
      } else {
        break;
      }
    }
    const std::string_view lit(start, static_cast<size_t>(p_ - start));
    if (lit.empty()) return Fail();
    if (lit == "true" || lit == "false" || lit == "null") return true;
    const char f = lit.front();
    if ((f >= '0' && f <= '9') || f == '-') {
      for (char c : lit) {
        if (c >= 'a' && c <= 'z' && c != 'e') return Fail();
      }
      return true;
    }
    return Fail();
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  bool ok_ = true;
};

}  // namespace kai::kube::internal
