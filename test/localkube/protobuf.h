// Decoding of Kubernetes protobuf request bodies (application/vnd.kubernetes.protobuf): the
// "k8s\0" + runtime.Unknown envelope that client-go typed clients (kubectl create namespace,
// create deployment, drain...) send. The message schemas are generated from the descriptors
// compiled into kubectl (hack/gen_localkube_protobuf.py). Responses are always JSON, which
// client-go accepts.
#pragma once

#include <string>
#include <string_view>

#include "kube/base/statusor.h"

namespace kai::localkube {

// The JSON form of a protobuf-encoded object (apiVersion and kind first), or an error:
// 415 UnsupportedMediaType for an unknown kind, 400 BadRequest for malformed bytes.
StatusOr<std::string> KubeProtobufToJson(std::string_view body);

// True when a protobuf schema exists for apiVersion/kind (built-in kinds).
bool HasBuiltinSchema(std::string_view api_version, std::string_view kind);

}  // namespace kai::localkube
