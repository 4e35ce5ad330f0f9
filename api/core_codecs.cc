// Codecs of the core Kubernetes kinds (one instantiation of the engine per kind).
#include "api/codec_internal.h"

namespace kai::api {

KAI_API_DEFINE_CODEC(Pod)
KAI_API_DEFINE_CODEC(Node)
KAI_API_DEFINE_CODEC(PriorityClass)
KAI_API_DEFINE_CODEC(Lease)
KAI_API_DEFINE_CODEC(Event)
KAI_API_DEFINE_CODEC(ConfigMap)
KAI_API_DEFINE_CODEC(Binding)
KAI_API_DEFINE_CODEC(Eviction)

}  // namespace kai::api
