#include "kube/server/http.h"

#include <gtest/gtest.h>

namespace kai::server {
namespace {

TEST(ParseTargetTest, PathAndDecodedQuery) {
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  ParseTarget("/readyz?verbose&exclude=a%20b&exclude=c+d&x=", &path, &query);
  EXPECT_EQ(path, "/readyz");
  ASSERT_EQ(query.size(), 4u);
  EXPECT_EQ(query[0], std::make_pair(std::string("verbose"), std::string("")));
  EXPECT_EQ(query[1], std::make_pair(std::string("exclude"), std::string("a b")));
  EXPECT_EQ(query[2], std::make_pair(std::string("exclude"), std::string("c d")));
  EXPECT_EQ(query[3], std::make_pair(std::string("x"), std::string("")));
  HttpRequest r;
  r.query = query;
  EXPECT_TRUE(r.HasQuery("verbose"));
  EXPECT_FALSE(r.HasQuery("verbosE"));
  EXPECT_EQ(r.QueryValues("exclude"), (std::vector<std::string>{"a b", "c d"}));

  ParseTarget("/plain", &path, &query);
  EXPECT_EQ(path, "/plain");
  EXPECT_TRUE(query.empty());
  ParseTarget("/bad?p=%zz%4", &path, &query);  // malformed escapes kept verbatim
  EXPECT_EQ(query[0].second, "%zz%4");
}

TEST(RouterTest, ExactAndSubtreePatternsLongestWins) {
  Router r;
  r.Handle("/healthz", [](const HttpRequest&) { return HttpResponse::Text(200, "exact"); });
  r.Handle("/healthz/", [](const HttpRequest&) { return HttpResponse::Text(200, "subtree"); });
  r.Handle("/", [](const HttpRequest&) { return HttpResponse::Text(200, "root"); });
  auto serve = [&](std::string path) {
    HttpRequest req;
    req.path = std::move(path);
    return r.Serve(req).body;
  };
  EXPECT_EQ(serve("/healthz"), "exact");
  EXPECT_EQ(serve("/healthz/ping"), "subtree");
  EXPECT_EQ(serve("/other"), "root");
  Router empty;
  HttpRequest req;
  req.path = "/x";
  const HttpResponse nf = empty.Serve(req);
  EXPECT_EQ(nf.status, 404);
  EXPECT_EQ(nf.body, "404 page not found\n");
}

TEST(HttpRequestTest, HeaderLookupIgnoresCase) {
  HttpRequest r;
  r.headers["content-type"] = "application/json";
  EXPECT_EQ(r.Header("Content-Type"), "application/json");
  EXPECT_EQ(r.Header("X-None"), "");
}

}  // namespace
}  // namespace kai::server
