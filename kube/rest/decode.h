// Internal (kube/ .cc files and tests): decoding of LIST bodies and watch event lines without
// building a DOM. A single SAX pass finds each item's (or the event object's) byte range, so the
// object's JSON is cut from the body as is: no re-serialisation.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/status.h"
#include "kube/rest/client.h"
#include "kube/rest/watch.h"

namespace kai::kube::internal {

// Decodes a <Kind>List body. Items without kind/apiVersion (built-in kinds on the wire) get them
// from the list's kind minus "List" and its apiVersion.
Status DecodeList(std::string_view body, ObjectList* out);

// Decodes one watch line {"type":"ADDED","object":{...}}. ERROR events carry the decoded
// metav1.Status in `error`.
Status DecodeWatchEvent(std::string_view line, WatchEvent* out);

// Splits a byte stream into lines; chunk boundaries need not align with lines.
class LineBuffer {
 public:
  void Append(std::string_view data) { buf_.append(data); }
  // The next complete line (without '\n'), skipping blank ones; false if none yet.
  bool NextLine(std::string* line);
  // What is left once the stream ended (a last line without '\n').
  std::string TakeRest();
  size_t buffered() const { return buf_.size() - pos_; }

 private:
  std::string buf_;
  size_t pos_ = 0;
  size_t scan_ = 0;  // no '\n' in [pos_, scan_)
};

}  // namespace kai::kube::internal
