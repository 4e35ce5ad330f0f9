// Codecs of KAI's custom resources (one instantiation of the engine per kind).
#include "api/codec_internal.h"

namespace kai::api {

KAI_API_DEFINE_CODEC(Queue)
KAI_API_DEFINE_CODEC(PodGroup)
KAI_API_DEFINE_CODEC(BindRequest)
KAI_API_DEFINE_CODEC(Topology)
KAI_API_DEFINE_CODEC(SchedulingShard)
KAI_API_DEFINE_CODEC(Config)

}  // namespace kai::api
