#include "formats/json/json_fused.h"

#include "core/transforms/fused_impl.h"

namespace jbx::transforms {
template class FusedFeatures<JsonWriter>;
template class FusedFeatures<CborWriter>;
template class FusedFeatures<msgpack::MsgpackWriter>;
template class FusedFeatures<JsonbWriter>;
}  // namespace jbx::transforms
