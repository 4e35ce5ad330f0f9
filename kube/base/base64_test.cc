#include "kube/base/base64.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace kai::kube {
namespace {

TEST(Base64Test, RoundTripAndErrors) {
  for (std::string s : {"", "a", "ab", "abc", "abcd", "hello world\n"}) {
    auto d = Base64Decode(Base64Encode(s));
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(*d, s);
  }
  EXPECT_EQ(Base64Encode("ab"), "YWI=");
  EXPECT_EQ(*Base64Decode("aGVs\nbG8"), "hello");
  EXPECT_EQ(*Base64Decode("YWI"), "ab");  // unpadded
  EXPECT_FALSE(Base64Decode("a$b").ok());
  EXPECT_FALSE(Base64Decode("a").ok());
  EXPECT_FALSE(Base64Decode("YW=I").ok());  // data after padding
  EXPECT_FALSE(Base64Decode("-_8").ok());   // URL alphabet
}

// Go's base64.RawURLEncoding, as the API server encodes continue tokens.
TEST(Base64Test, RawUrlHasNoPaddingAndTheUrlAlphabet) {
  const std::string bytes = "\xfb\xff\xbf";  // every 6-bit group 62 or 63
  EXPECT_EQ(Base64Encode(bytes), "+/+/");
  EXPECT_EQ(Base64Encode(bytes, Base64Encoding::kRawUrl), "-_-_");
  EXPECT_EQ(Base64Encode("ab", Base64Encoding::kRawUrl), "YWI");
  for (const std::string& s :
       std::initializer_list<std::string>{"", "a", "ab", "abc", "{\"rv\":12}", bytes}) {
    auto d = Base64Decode(Base64Encode(s, Base64Encoding::kRawUrl), Base64Encoding::kRawUrl);
    ASSERT_TRUE(d.ok()) << s;
    EXPECT_EQ(*d, s);
  }
  EXPECT_FALSE(Base64Decode("YWI=", Base64Encoding::kRawUrl).ok());
  EXPECT_FALSE(Base64Decode("+/+/", Base64Encoding::kRawUrl).ok());
  EXPECT_FALSE(Base64Decode("YW I", Base64Encoding::kRawUrl).ok());
}

}  // namespace
}  // namespace kai::kube
