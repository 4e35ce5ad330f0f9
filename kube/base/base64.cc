#include "kube/base/base64.h"

#include <cstdint>

namespace kai::kube {
namespace {

const char* Alphabet(Base64Encoding e) {
  return e == Base64Encoding::kStd
             ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
             : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
}

int Value(char c, Base64Encoding e) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  const char* alphabet = Alphabet(e);
  if (c == alphabet[62]) return 62;
  if (c == alphabet[63]) return 63;
  return -1;
}

}  // namespace

std::string Base64Encode(std::string_view in, Base64Encoding encoding) {
  const char* alphabet = Alphabet(encoding);
  const bool pad = encoding == Base64Encoding::kStd;
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t n = (static_cast<uint8_t>(in[i]) << 16) |
                       (static_cast<uint8_t>(in[i + 1]) << 8) | static_cast<uint8_t>(in[i + 2]);
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    out.push_back(alphabet[(n >> 6) & 63]);
    out.push_back(alphabet[n & 63]);
  }
  if (i + 1 == in.size()) {
    const uint32_t n = static_cast<uint8_t>(in[i]) << 16;
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    if (pad) out += "==";
  } else if (i + 2 == in.size()) {
    const uint32_t n = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8);
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    out.push_back(alphabet[(n >> 6) & 63]);
    if (pad) out.push_back('=');
  }
  return out;
}

StatusOr<std::string> Base64Decode(std::string_view in, Base64Encoding encoding) {
  const bool std_encoding = encoding == Base64Encoding::kStd;
  std::string out;
  out.reserve(in.size() * 3 / 4);
  uint32_t buf = 0;
  int bits = 0;
  int padding = 0;
  for (char c : in) {
    if (std_encoding && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) continue;
    if (std_encoding && c == '=') {
      ++padding;
      continue;
    }
    const int v = Value(c, encoding);
    if (v < 0 || padding > 0) return InvalidArgumentError("illegal base64 data");
    buf = (buf << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buf >> bits) & 0xFF));
    }
  }
  // A trailing group of one character (6 bits) is no encoding's output.
  if (padding > 2 || bits >= 6) return InvalidArgumentError("illegal base64 data");
  return out;
}

}  // namespace kai::kube
