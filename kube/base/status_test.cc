#include "kube/base/status.h"

#include <gtest/gtest.h>

#include "kube/base/statusor.h"

namespace kai {
namespace {

TEST(StatusTest, OkHasNoDetails) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(Status(StatusCode::kOk, "ignored"), Status::OK());
}

TEST(StatusTest, CarriesKubernetesDetails) {
  Status s = AbortedError("the object has been modified");
  s.SetReason("Conflict").SetHttpCode(409).AddCause({"FieldValueInvalid", "spec.x", "bad"});
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.reason(), "Conflict");
  EXPECT_EQ(s.http_code(), 409);
  ASSERT_EQ(s.causes().size(), 1u);
  EXPECT_EQ(s.causes()[0].field, "spec.x");
  EXPECT_EQ(s.ToString(), "ABORTED (Conflict): the object has been modified");
  Status copy = s;
  EXPECT_EQ(copy, s);
  Status prefixed = s.WithPrefix("update pod default/p");
  EXPECT_EQ(prefixed.message(), "update pod default/p: the object has been modified");
  EXPECT_EQ(prefixed.reason(), "Conflict");
  EXPECT_TRUE(IsAborted(prefixed));
  EXPECT_FALSE(IsAborted(AlreadyExistsError("also a 409, but not a conflict")));
  EXPECT_FALSE(IsAborted(Status::OK()));
}

TEST(StatusTest, DetailsOnOkBecomeUnknownError) {
  Status s;
  s.SetReason("Weird");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kUnknown);
}

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError("odd");
  return x / 2;
}

Status Quarter(int x, int* out) {
  KAI_ASSIGN_OR_RETURN(int h, Half(x));
  KAI_ASSIGN_OR_RETURN(*out, Half(h));
  return Status::OK();
}

TEST(StatusOrTest, ValueAndErrorPropagation) {
  int out = 0;
  EXPECT_TRUE(Quarter(8, &out).ok());
  EXPECT_EQ(out, 2);
  Status s = Quarter(6, &out);
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_EQ(Half(3).value_or(-1), -1);
  StatusOr<std::string> def;
  EXPECT_FALSE(def.ok());
}

TEST(StatusOrDeathTest, ValueOnErrorCrashes) {
  StatusOr<int> s = NotFoundError("x");
  EXPECT_DEATH((void)s.value(), "NOT_FOUND");
}

}  // namespace
}  // namespace kai
