// Builds the tree of one candidate node with only the parts a query can
// look at: members no pattern can reach are skipped (the reader never
// decodes them), scalars that no pattern ends at are dropped, and skipped
// array elements become nulls so indices keep their meaning. Used by
// StreamSelector; not a general transform.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/events.h"
#include "core/path/path.h"
#include "core/value.h"

namespace jbx::path {

/// One step of a need pattern: a name, an index, or any child; at any depth
/// below when `descendant`.
struct NeedStep {
  enum class Kind : std::uint8_t { name, index, any };
  Kind kind = Kind::any;
  bool descendant = false;
  NameMatch match = NameMatch::exact;  // name: as Selector::match
  std::string name;
  std::uint64_t index = 0;
};
/// A node is kept whole once some pattern is consumed entirely.
using NeedPattern = std::vector<NeedStep>;

/// The patterns of the nodes that `segments` (applied to the candidate)
/// and every relative query inside their filters may read. A filter step
/// ends its pattern: what is below it is kept whole.
void add_need_patterns(const std::vector<Segment>& segments,
                       std::vector<NeedPattern>& out);
/// The patterns of the relative queries of a filter expression.
void add_need_patterns(const Expr& filter, std::vector<NeedPattern>& out);

class PruningBuilder final : public Handler {
 public:
  explicit PruningBuilder(TreeBuilder& out) : out_(out) {}

  /// Starts a new value (the candidate root) with these patterns; the
  /// vector must outlive the value's events.
  void reset(const std::vector<NeedPattern>* patterns);

  Flow begin_object() override;
  Flow key(std::string_view name) override;
  void end_object() override;
  Flow begin_array() override;
  void end_array() override;
  void null_value() override;
  void bool_value(bool b) override;
  void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  void double_value(double v) override;
  void number_text(std::string_view text) override;
  void string_value(std::string_view s) override;
  void bytes_value(std::span<const std::uint8_t> b) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  void end_document() override {}

 private:
  struct State {
    std::uint32_t pattern;
    std::uint32_t pos;
    bool operator==(const State&) const = default;
  };
  using States = std::vector<State>;
  enum class Decision : std::uint8_t { keep_whole, descend, drop };
  struct Level {
    bool is_array = false;
    std::uint64_t next_index = 0;
    States states;
  };

  void advance(const States& from, const Step& s, States& to) const;
  Decision decide(const States& child, bool container) const;
  /// Decides for the value about to begin; returns whether to forward it.
  /// For containers sets `descend_` (push a level) or keep_depth_.
  bool begin_value(bool container);
  bool scalar();
  void flush_annotations();

  TreeBuilder& out_;
  const std::vector<NeedPattern>* patterns_ = nullptr;
  std::vector<Level> stack_;
  int keep_depth_ = 0;  // > 0: inside a subtree kept whole
  bool root_pending_ = true;
  bool keep_root_ = false;
  States key_states_;  // states of the member whose key came last
  std::string key_;
  States scratch_;
  struct PendingAnnotation {
    Annotation a;
    std::string name;
  };
  std::vector<PendingAnnotation> pending_;
};

}  // namespace jbx::path
