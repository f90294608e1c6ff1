// For the binary readers' fuzz targets: the features in front of the JSON
// writer, which a reader calls directly (FusedFeatures<JsonWriter>), must
// write what they write called through the Handler interface
// (FusedFeatures<Handler>), and stop at the same error.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "core/sink.h"
#include "core/transforms/fused_test_util.h"
#include "formats/json/json_fused.h"
#include "formats/json/json_writer.h"

namespace jbx_fuzz {

/// Features that drop, rename and read dates in records, so that the
/// readers' items meet their errors (collisions, values that are no date).
inline jbx::transforms::FusedOptions record_features() {
  jbx::transforms::testing::Features f;
  f.nulls = jbx::transforms::NullPolicy::drop;
  f.key_case = jbx::transforms::KeyCase::snake;
  f.date_fields = {"$[*].a", "$[*].b.c"};
  f.date_format = "yyyy-MM-dd HH:mm:ss";
  return jbx::transforms::testing::options(f);
}

struct Written {
  std::string text;
  std::string error;
};

/// What `read(handler)` (every document of the input into `handler`)
/// writes through record_features(): called directly, or with `generic`
/// through the Handler interface.
template <class Read>
Written through_features(Read read, bool generic) {
  jbx::StringSink sink;
  jbx::JsonWriter writer(sink, jbx::WriteOptions{});
  std::unique_ptr<jbx::Handler> h;
  if (generic) {
    h = std::make_unique<jbx::transforms::FusedFeatures<jbx::Handler>>(
        writer, record_features());
  } else {
    h = std::make_unique<jbx::transforms::FusedFeatures<jbx::JsonWriter>>(
        writer, record_features());
  }
  Written out;
  try {
    read(*h);
  } catch (const jbx::Error& e) {
    out.error = fmt::format("{}@{} {}: {}", static_cast<int>(e.code),
                            e.offset ? static_cast<long long>(*e.offset) : -1,
                            e.pointer, e.message);
  }
  out.text = std::string(sink.data());
  return out;
}

/// Whether two runs agree: the same error, and the same text; or, before
/// an error, one text may hold the key of the member the other holds back
/// until its value comes (the features write a key at once when they know
/// its value's first byte, or from the shapes earlier items taught them).
inline bool alike(const Written& a, const Written& b) {
  if (a.error != b.error) return false;
  if (a.error.empty()) return a.text == b.text;
  return a.text.starts_with(b.text) || b.text.starts_with(a.text);
}

/// Aborts unless `read` gives alike() text through the features called
/// directly and through the interface.
template <class Read>
void check_features_alike(Read read) {
  if (!alike(through_features(read, false), through_features(read, true))) {
    std::abort();
  }
}

}  // namespace jbx_fuzz
