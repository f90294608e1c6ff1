// RFC 9535 JSONPath and RFC 6901 JSON Pointer: parsing a query into a small
// plan (the AST below, readable by transforms that take path rules), and
// deciding from a location alone whether a "simple" query selects it.
// Evaluation lives in core/path/eval.h; nothing here reads input or prints.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/value.h"

namespace re2 {
class RE2;
}

namespace jbx::path {

struct Expr;

/// start:end:step of a slice selector; absent bounds take the RFC defaults
/// that depend on the sign of step.
struct Slice {
  std::optional<std::int64_t> start;
  std::optional<std::int64_t> end;
  std::int64_t step = 1;
};

/// How a name selector compares member names: exactly (RFC 9535), or as
/// query --ignore-case and --smart-match ask.
enum class NameMatch : std::uint8_t {
  exact,
  ignore_case,  // ASCII letters in either case
  smart,  // fastjson2's smart match: ignore_case, and '-', '_' and ' ' skipped
};

struct Selector {
  enum class Kind : std::uint8_t {
    name,      // 'name', .name
    wildcard,  // *, .*
    index,     // 3, -1 (negative counts from the end)
    slice,     // start:end:step
    filter,    // ?logical-expr
    pointer,   // one RFC 6901 token: a member name, or an array index when
               // the token spells one (only from parse_pointer)
  };
  Kind kind = Kind::wildcard;
  std::string name;        // name, pointer
  std::int64_t index = 0;  // index; pointer: -1 when not an array index
  Slice slice;             // slice
  std::shared_ptr<const Expr> filter;  // filter
  std::uint32_t offset = 0;  // byte offset of the selector in the query
  NameMatch match = NameMatch::exact;  // name, pointer: how names compare
};

struct Segment {
  bool descendant = false;  // ..[...]: the node and all its descendants
  std::vector<Selector> selectors;
};

struct Query {
  bool relative = false;  // starts with @ (only inside filters)
  std::vector<Segment> segments;

  /// True when the query selects at most one node: child segments with a
  /// single name or index selector each (RFC 9535 2.3.5.1).
  bool singular() const;
};

/// Declared types of function results and parameters (RFC 9535 2.4.1).
enum class FunctionType : std::uint8_t { value, logical, nodes };

enum class Function : std::uint8_t { length, count, match, search, value };

/// A node of a filter's logical expression.
struct Expr {
  enum class Kind : std::uint8_t {
    logical_or,   // operands: 2 or more
    logical_and,  // operands: 2 or more
    logical_not,  // operands: 1
    compare,      // operands: 2 comparables; op
    literal,      // literal
    query,        // query (a test, or a singular query when compared)
    function,     // function, operands are its arguments
  };
  enum class Op : std::uint8_t { eq, ne, lt, le, gt, ge };

  Kind kind = Kind::literal;
  Op op = Op::eq;
  Function function = Function::length;
  std::vector<Expr> operands;
  Value literal;
  Query query;
  /// match/search with a literal pattern: compiled once at parse time.
  std::shared_ptr<const re2::RE2> regex;
  std::uint32_t offset = 0;  // byte offset in the query text
};

/// Parses an RFC 9535 query ("$..." at top level). Throws
/// Error(Errc::invalid_query) whose offset is the byte offset of the
/// offending character, for syntax errors, queries that are not well-typed
/// (RFC 9535 2.4.3), integers outside the I-JSON range and literal
/// match/search patterns that are not I-Regexp (RFC 9485).
Query parse(std::string_view text);

/// Parses an RFC 6901 JSON Pointer ("", "/a/0", "/a~1b", "/m~0n") into a
/// query of `pointer` selectors. Throws Error(Errc::invalid_query) with the
/// offset of a bad escape or a missing leading '/'.
Query parse_pointer(std::string_view text);

/// Translates an I-Regexp (RFC 9485) into RE2 syntax, unanchored. Throws
/// Error(Errc::invalid_query) with the offset (within `pattern`) of the
/// first thing outside I-Regexp.
std::string iregexp_to_re2(std::string_view pattern);

/// One step of a location: an object member or an array element.
struct Step {
  std::string_view key;  // member name when !is_index
  std::uint64_t index = 0;
  bool is_index = false;

  static Step member(std::string_view k) { return Step{k, 0, false}; }
  static Step element(std::uint64_t i) { return Step{{}, i, true}; }
};

/// RFC 9535 normalized path of a location: $['a'][0].
std::string normalized_path(std::span<const Step> location);
/// RFC 6901 JSON Pointer of a location: /a/0.
std::string json_pointer(std::span<const Step> location);

/// True when whether the query selects a node can be decided from the
/// node's location alone: no filters, no negative indices, slices only with
/// step > 0 and non-negative bounds (name, wildcard, index, descendant
/// segments). Such queries work in streaming transforms via Matcher.
bool is_simple(const Query& q);

/// True when `s` can be decided from a node's location alone (see
/// is_simple); then selects_step() says whether it selects the child `step`.
bool is_location_selector(const Selector& s);
bool selects_step(const Selector& s, const Step& step);

/// Whether member name `key` matches the name of selector `s` (name or
/// pointer kind), as s.match compares them.
bool name_matches(const Selector& s, std::string_view key);
/// Whether member name `key` is `name` as `how` compares names.
bool names_match(std::string_view key, std::string_view name, NameMatch how);

/// Makes every name and pointer selector of `q`, including those of the
/// queries inside its filters, compare member names as `how` says
/// (query --ignore-case, --smart-match).
void match_names(Query& q, NameMatch how);

/// Decides, while a document streams by, whether the current location is
/// selected by a simple query, and whether anything below it can be, so
/// the caller can skip. Duplicates collapse: a location is selected or not.
/// Usage: push() on entering a member or element, pop() on leaving it.
class Matcher {
 public:
  /// Throws Error(Errc::invalid_query) when !is_simple(q).
  explicit Matcher(const Query& q);

  /// Whether the query selects `location` (a path from the root).
  bool selects(std::span<const Step> location) const;

  void push(const Step& s);
  void pop();
  /// The current location (after the pushes so far) is selected.
  bool selected() const;
  /// Something at or below the current location may be selected; when
  /// false, the caller may skip the whole subtree.
  bool alive() const;
  std::size_t depth() const { return stack_.size() - 1; }

 private:
  // A state j means "segments [0, j) consumed"; states_ is the set for the
  // current depth, as a bitmap over j in [0, n].
  using States = std::vector<bool>;
  States advance(const States& from, const Step& s) const;

  std::vector<Segment> segments_;
  std::vector<States> stack_;
};

}  // namespace jbx::path
