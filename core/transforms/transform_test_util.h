// Test helper for the transform unit tests: JSON text in, through a
// transform, compact JSON text out (one line per document).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/events.h"
#include "core/sink.h"
#include "core/source.h"
#include "formats/json/json_format.h"

namespace jbx::transforms::testing {

using Make = std::function<std::unique_ptr<Handler>(Handler& next)>;

/// Reads `json` (concatenated documents), sends it through make(writer),
/// and returns the JSON written, compact or pretty. Errors propagate.
inline std::string run(std::string_view json, const Make& make,
                       bool compact = true) {
  auto src = Source::from_memory("test", std::string(json));
  ReadOptions ro;
  auto reader = kJsonFormat.make_reader(*src, ro);
  StringSink sink;
  WriteOptions wo;
  wo.compact = compact;
  auto writer = kJsonFormat.make_writer(sink, wo);
  std::unique_ptr<Handler> t = make(*writer);
  while (reader->read_document(*t)) {
  }
  writer->finish();
  return std::string(sink.data());
}

/// The message of the Error that running throws, or "" when none.
inline std::string error_of(std::string_view json, const Make& make) {
  try {
    run(json, make);
  } catch (const Error& e) {
    return e.message;
  }
  return "";
}

}  // namespace jbx::transforms::testing
