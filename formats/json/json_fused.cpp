#include "formats/json/json_fused.h"

#include "core/transforms/fused_impl.h"

namespace jbx::transforms {
template class FusedFeatures<JsonWriter>;
}  // namespace jbx::transforms
