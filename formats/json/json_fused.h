// The fused writer features (core/transforms/fused.h) in front of the JSON
// writer: the JSON reader calls them without virtual dispatch, and they call
// the writer the same way (json_simd_impl.h). Instantiated once, in
// json_fused.cpp.
#pragma once

#include "core/transforms/fused.h"
#include "formats/json/json_writer.h"

namespace jbx::transforms {
extern template class FusedFeatures<JsonWriter>;
}  // namespace jbx::transforms
