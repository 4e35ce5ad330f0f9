#include "api/json_quote.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace kai::api {

std::string JsonQuote(std::string_view s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace kai::api
