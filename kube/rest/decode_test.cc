#include "kube/rest/decode.h"

#include <gtest/gtest.h>

#include "kube/rest/errors.h"

namespace kai::kube::internal {
namespace {

TEST(DecodeListTest, ItemsGetTypeMetaAndKeepTheirText) {
  const std::string body =
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"tok","remainingItemCount":7},)"
      R"("items":[{"metadata":{"name":"a","labels":{"items":"x"}},"spec":{"containers":[{"name":"c"}]}},)"
      "\n  "
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"b"}}, {} ]})";
  ObjectList list;
  ASSERT_TRUE(DecodeList(body, &list).ok());
  EXPECT_EQ(list.kind, "PodList");
  EXPECT_EQ(list.api_version, "v1");
  EXPECT_EQ(list.resource_version, "42");
  EXPECT_EQ(list.continue_token, "tok");
  EXPECT_EQ(list.remaining_item_count, 7);
  ASSERT_EQ(list.items.size(), 3u);
  EXPECT_EQ(
      list.items[0],
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":{"items":"x"}},"spec":{"containers":[{"name":"c"}]}})");
  EXPECT_EQ(list.items[1], R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"b"}})");
  EXPECT_EQ(list.items[2], R"({"kind":"Pod","apiVersion":"v1"})");

  ObjectList crs;
  ASSERT_TRUE(
      DecodeList(
          R"({"apiVersion":"scheduling.run.ai/v2","kind":"QueueList","items":[],"metadata":{"resourceVersion":"9"}})",
          &crs)
          .ok());
  EXPECT_TRUE(crs.items.empty());
  EXPECT_EQ(crs.resource_version, "9");
  EXPECT_FALSE(crs.remaining_item_count.has_value());

  EXPECT_FALSE(DecodeList(R"({"items":[{"a":1},)", &list).ok());
}

TEST(DecodeListTest, StructureIsChecked) {
  ObjectList list;
  // Escapes in values we read, whitespace everywhere, null items.
  ASSERT_TRUE(DecodeList(" { \"kind\" : \"Pod\\u004cist\" , \"metadata\":{\"continue\":\"a\\\"b\"},"
                         " \"items\" : null } ",
                         &list)
                  .ok());
  EXPECT_EQ(list.kind, "PodList");
  EXPECT_EQ(list.continue_token, "a\"b");
  EXPECT_TRUE(list.items.empty());
  // Strings holding brackets and escaped quotes do not confuse item boundaries.
  ASSERT_TRUE(
      DecodeList(
          R"({"kind":"PodList","apiVersion":"v1","items":[{"kind":"Pod","apiVersion":"v1","x":"}]\"{","n":[1.5e3,-2,true,null]}]})",
          &list)
          .ok());
  ASSERT_EQ(list.items.size(), 1u);
  EXPECT_EQ(list.items[0],
            R"({"kind":"Pod","apiVersion":"v1","x":"}]\"{","n":[1.5e3,-2,true,null]})");
  for (const char* bad : {
           R"({"items":[{"a":1}})",     // unbalanced
           R"({"items":[{"a":tru}]})",  // bad literal
           R"({"items":[{"a":"x}]})",   // unterminated string
           R"({"items":[{"a" 1}]})",    // missing colon
           R"({"items":[{"a":1},]})",   // trailing comma
           R"({"items":[]} trailing)",  // garbage after the document
           R"({"items":[1]})",          // items must be objects
           R"({"metadata":{"remainingItemCount":abc}})",
           "",
       }) {
    EXPECT_FALSE(DecodeList(bad, &list).ok()) << bad;
  }
}

TEST(DecodeWatchEventTest, Types) {
  WatchEvent e;
  ASSERT_TRUE(
      DecodeWatchEvent(
          R"({"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","resourceVersion":"17","annotations":{"resourceVersion":"no"}},"status":{"object":1}}})",
          &e)
          .ok());
  EXPECT_EQ(e.type, WatchEventType::kModified);
  EXPECT_EQ(e.resource_version, "17");
  EXPECT_EQ(
      e.object,
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","resourceVersion":"17","annotations":{"resourceVersion":"no"}},"status":{"object":1}})");

  // "object" before "type", and a bookmark.
  ASSERT_TRUE(
      DecodeWatchEvent(
          R"({"object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"99","annotations":{"k8s.io/initial-events-end":"true"}}},"type":"BOOKMARK"})",
          &e)
          .ok());
  EXPECT_EQ(e.type, WatchEventType::kBookmark);
  EXPECT_EQ(e.resource_version, "99");

  ASSERT_TRUE(
      DecodeWatchEvent(
          R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}})j",
          &e)
          .ok());
  EXPECT_EQ(e.type, WatchEventType::kError);
  EXPECT_TRUE(IsResourceExpired(e.error));
  EXPECT_EQ(e.error.http_code(), 410);

  EXPECT_FALSE(DecodeWatchEvent(R"({"type":"ADDED"})", &e).ok());
  EXPECT_FALSE(DecodeWatchEvent(R"({"type":"SIDEWAYS","object":{}})", &e).ok());
  EXPECT_FALSE(DecodeWatchEvent(R"({"type":"ADDED","object":{)", &e).ok());
}

TEST(LineBufferTest, ChunksDoNotAlignWithLines) {
  const std::string stream = "{\"a\":1}\n\n{\"b\":2}\n{\"c\":\"x\\ny\"}\n{\"d\":4}";
  // Every split of the stream into two or three chunks yields the same lines.
  for (size_t i = 0; i <= stream.size(); ++i) {
    for (size_t j = i; j <= stream.size(); j += 3) {
      LineBuffer b;
      std::vector<std::string> lines;
      std::string line;
      for (auto [from, to] : {std::pair{size_t{0}, i}, {i, j}, {j, stream.size()}}) {
        b.Append(std::string_view(stream).substr(from, to - from));
        while (b.NextLine(&line)) lines.push_back(line);
      }
      std::string rest = b.TakeRest();
      if (!rest.empty()) lines.push_back(rest);
      ASSERT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":\"x\\ny\"}",
                                                 "{\"d\":4}"}))
          << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace kai::kube::internal
