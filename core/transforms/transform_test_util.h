// Test helper for the transform unit tests: JSON text in, through a
// transform, compact JSON text out (one line per document).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/events.h"
#include "core/sink.h"
#include "core/source.h"
#include "core/value.h"
#include "formats/json/json_format.h"

namespace jbx::transforms::testing {

using Make = std::function<std::unique_ptr<Handler>(Handler& next)>;

/// Reads `json` (concatenated documents), sends it through make(writer),
/// and returns the JSON written, compact or pretty, or the bytes written in
/// the format `to`. Errors propagate.
/// The reader gives names and strings without escapes as it holds them
/// (Handler::stable_key(), stable_string()); with `copied`, a handler in
/// front turns them into key() and string_value(), as other readers send.
inline std::string run(std::string_view json, const Make& make,
                       bool compact = true, bool copied = false,
                       const FormatSpec& to = kJsonFormat) {
  auto src = Source::from_memory("test", std::string(json));
  ReadOptions ro;
  auto reader = kJsonFormat.make_reader(*src, ro);
  StringSink sink;
  WriteOptions wo;
  wo.compact = compact;
  auto writer = to.make_writer(sink, wo);
  std::unique_ptr<Handler> t = make(*writer);
  // (ForwardingHandler passes stable_key() and stable_string() to its own
  // key() and string_value().)
  ForwardingHandler front(*t);
  Handler& first = copied ? static_cast<Handler&>(front) : *t;
  while (reader->read_document(first)) {
  }
  writer->finish();
  return std::string(sink.data());
}

/// The value of the JSON text `text` (a schema, a rule's value).
inline Value json(std::string_view text) {
  auto src = Source::from_memory("value", std::string(text));
  ReadOptions ro;
  auto reader = kJsonFormat.make_reader(*src, ro);
  TreeBuilder tree;
  reader->read_document(tree);
  return tree.take();
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
