// Running a parsed RFC 9535 query: on a value tree (the reference
// evaluator, every query), and on a stream of events (StreamSelector), which
// skips what cannot match and builds trees only for the nodes a filter or a
// non-streamable tail of the query needs. Not for output formatting: the
// NodeSink decides what a selected node becomes.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/events.h"
#include "core/path/path.h"
#include "core/path/prune.h"
#include "core/value.h"

namespace jbx::path {

/// Receives the selected nodes of a query, in RFC 9535 order.
class NodeSink {
 public:
  virtual ~NodeSink() = default;
  /// A node at `location` (from the document root) is selected. Returns the
  /// handler that receives the node's value as events, or nullptr when only
  /// the location is wanted (the value is then skipped).
  virtual Handler* begin_node(std::span<const Step> location) = 0;
  /// Called after the value's events. Returns false to stop the query.
  virtual bool end_node() = 0;
};

/// Numbers of any form (int64, uint64, double, exact text) compared by
/// exact value: -1, 0 or 1. Decimal spellings compare exactly (no rounding
/// through double); a double compares as its shortest round-trip spelling.
/// NaN compares unequal to everything (returns 2).
int compare_numbers(const Value& a, const Value& b);
bool is_number(const Value& v);
namespace detail {
/// compare_numbers() by decimal digits alone, without its shortcuts: the
/// reference its tests compare it with.
int compare_by_digits(const Value& a, const Value& b);
}  // namespace detail
/// Structural equality as RFC 9535 2.3.5.2.2 defines it (numbers by value).
bool values_equal(const Value& a, const Value& b);

/// Evaluates `q` on the document `root`, sending each selected node to
/// `sink`. Returns false when the sink asked to stop.
bool evaluate(const Query& q, const Value& root, NodeSink& sink);

/// The selected nodes as (value, location) pairs; values point into `root`.
std::vector<std::pair<const Value*, std::vector<Step>>> select(
    const Query& q, const Value& root);

/// A Handler that runs a query on each document pushed through it and sends
/// the selected nodes to a NodeSink, in RFC 9535 order.
///
/// Streaming: the longest leading run of child segments with one
/// location-decidable selector each (a name, '*', an index >= 0, a slice
/// with step > 0 and non-negative bounds, a pointer token) is matched
/// against the path of each event; everything else is skipped (Flow::skip),
/// so the reader never decodes it. Where that run ends:
/// - at the end of the query, the node's events go straight to the sink;
/// - at a single filter selector without '$' inside, each child of the
///   node is built as a tree on its own, tested, and the rest of the query
///   is evaluated on it;
/// - otherwise (descendant segments, several selectors in one segment,
///   negative indices, filters that use '$'), the node reached so far is
///   built as a tree and the rest of the query evaluated on it. A query
///   that starts with '..' or has '$' inside a filter thus builds the whole
///   document.
/// Every tree built this way holds only what the rest of the query and its
/// filters can read (PruningBuilder): `$.items[?@.price > 10].id` decodes
/// only `price` and `id` of each item, `$..id` only containers and ids.
/// Returns Flow::stop once the sink asks to stop.
class StreamSelector final : public Handler {
 public:
  StreamSelector(const Query& q, NodeSink& sink);
  ~StreamSelector() override;

  /// False once the sink asked to stop: the caller stops reading.
  bool active() const { return !stopped_; }
  /// Where streaming hands over to the tree evaluator (segments matched by
  /// path), and whether the query needs whole-document trees: for tests
  /// and documentation.
  std::size_t streamed_segments() const { return split_; }

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
  void end_document() override;

 private:
  enum class Mode : std::uint8_t { path, capture, emit, skip_value };
  struct Frame {
    bool is_array = false;
    bool candidates = false;  // children are filter candidates
    std::uint64_t next_index = 0;
    std::string key;
  };
  enum class Admit : std::uint8_t { skip, descend, capture, emit };

  Admit admit_value(bool container);
  void start(Admit a, bool container);
  Handler* target();  // where capture/emit events go
  void value_done();  // a captured or emitted value is complete
  void flush_annotations(Handler& h);
  std::vector<Step> location() const;
  void finish_capture();
  bool scalar_begin();  // true when the scalar is to be forwarded

  Query query_;
  NodeSink& sink_;
  std::size_t split_ = 0;         // segments [0, split_) match by path
  bool filter_at_split_ = false;  // segment split_ is a lone filter
  std::vector<Frame> frames_;
  Mode mode_ = Mode::path;
  int inner_depth_ = 0;  // open containers inside a capture or emit
  Handler* emit_to_ = nullptr;
  bool stopped_ = false;
  bool candidate_capture_ = false;  // the capture is a filter candidate
  std::unique_ptr<TreeBuilder> builder_;
  std::unique_ptr<PruningBuilder> pruner_;  // feeds builder_
  class ScalarCapture;
  std::unique_ptr<ScalarCapture> scalar_;     // a captured scalar
  Handler* capture_to_ = nullptr;             // pruner_ or scalar_
  std::vector<NeedPattern> candidate_needs_;  // what a filter candidate needs
  std::vector<NeedPattern> rest_needs_;       // what segments [split_, n) need
  struct PendingAnnotation {
    Annotation a;
    std::string name;
  };
  std::vector<PendingAnnotation> pending_;
};

}  // namespace jbx::path
