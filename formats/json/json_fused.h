// The fused writer features (core/transforms/fused.h) in front of the JSON
// writer, and in front of the binary writers for `convert`: the JSON reader
// calls them without virtual dispatch, and they call the writer the same way
// (json_simd_impl.h). Instantiated once, in json_fused.cpp.
#pragma once

#include <cstddef>
#include <string_view>

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

namespace jbx::detail {

using FusedJson = transforms::FusedFeatures<JsonWriter>;

/// A binary reader's text key, to the features in front of the JSON writer,
/// which it calls directly: as the JSON reader gives an escape-free key
/// (plain_key()) when `plain`, `stable` (it stays where it is until the
/// document ends) and there are 16 bytes readable from its start and
/// KeyRenamer::kPadding past its end (`readable`, from its start). `first`
/// is the first byte of the JSON text of the member's value, or '\0': with
/// it a member whose value is null is dropped at once, another written at
/// once, not held until its value comes.
[[gnu::always_inline]] inline Flow fused_key(FusedJson& f, std::string_view k,
                                             bool plain, bool stable,
                                             std::size_t readable, char first) {
  constexpr std::size_t kPadding = transforms::detail::KeyRenamer::kPadding;
  if (plain && stable && readable >= 16 && readable - k.size() >= kPadding) {
    return f.plain_key(k, first);
  }
  return f.key(k);
}

/// A binary reader's text string, to the features in front of the JSON
/// writer: as escape-free text (plain_string()) when `plain` and `stable`.
[[gnu::always_inline]] inline void fused_string(FusedJson& f,
                                                std::string_view s, bool plain,
                                                bool stable) {
  if (plain && stable) {
    f.plain_string(s);
  } else {
    f.string_value(s);
  }
}

}  // namespace jbx::detail
