// The fused writer features (core/transforms/fused.h) in front of the JSON
// writer, and in front of the binary writers for `convert`: the JSON reader
// calls them without virtual dispatch, and they call the writer the same way
// (json_simd_impl.h). Instantiated once, in json_fused.cpp.
#pragma once

#include "core/transforms/fused.h"
#include "formats/cbor/cbor_writer.h"
#include "formats/json/json_writer.h"
#include "formats/jsonb/jsonb_writer.h"
#include "formats/msgpack/msgpack_writer.h"

namespace jbx::transforms {
extern template class FusedFeatures<JsonWriter>;
extern template class FusedFeatures<CborWriter>;
extern template class FusedFeatures<msgpack::MsgpackWriter>;
extern template class FusedFeatures<JsonbWriter>;
}  // namespace jbx::transforms
