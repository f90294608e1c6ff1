// The fastjson2 writer-feature flags (category "transform": --nulls,
// --null-default, --schema, --null-as-empty, --empty-as-null, --date-*,
// --timezone, --epoch-unit, --key-case, --bigint-as-string, --decimal)
// turned into a chain of core/transforms. Validated up front, before any
// input is opened; the chain is built per output stream. Not the query
// selection or -S sorting, which their commands add themselves.
#pragma once

#include <memory>

#include "core/events.h"

namespace jbx::cli {

class Args;
class Pipeline;
class TransformChain;

struct FeatureSettings;  // the validated flags (transforms_from_flags.cpp)

class FeatureTransforms {
 public:
  /// Reads and checks the transform flags: bad patterns, zones, path rules,
  /// JSON values and the schema file are Error(usage) naming the flag.
  explicit FeatureTransforms(const Args& args);
  ~FeatureTransforms();
  FeatureTransforms(const FeatureTransforms&) = default;

  /// True when no transform flag was given: wrap() returns `next`.
  bool empty() const;

  /// Builds the transforms in front of `next` (the writer side) into
  /// `chain` and returns the handler the reader (or query selection) must
  /// feed. `binary_output` is true for JSONB, CBOR, MessagePack...: dates
  /// then stay native unless --date-format asks otherwise.
  Handler& wrap(Handler& next, TransformChain& chain, bool binary_output) const;

 private:
  std::shared_ptr<const FeatureSettings> s_;
};

/// Adds the transforms of `args` to a pipeline (fmt, convert), as the
/// wrapper closest to the writer among those added so far. Throws
/// Error(usage) like FeatureTransforms.
void add_feature_transforms(Pipeline& pipeline, const Args& args);

}  // namespace jbx::cli
