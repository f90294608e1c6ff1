// The value tree: built from events only where random access is needed
// (sorting keys, query filters, JSON Schema). Streaming paths never build a
// whole tree. Numbers keep their exact form (native or spelled), strings are
// UTF-8, object members keep their order and duplicates.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/events.h"

namespace jbx {

class Value {
 public:
  enum class Type : std::uint8_t {
    null,
    boolean,
    int64,
    uint64,
    float64,
    number,  // exact spelling in text
    string,
    bytes,
    timestamp,
    array,
    object,
  };
  /// An object member. A struct declared here and defined below the class
  /// (not a std::pair) because Value is incomplete at this point.
  struct Member;

  Type type = Type::null;
  bool boolean = false;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  std::string text;  // number spelling, string, bytes, or timestamp zone
  Timestamp ts;      // ts.zone is empty; the zone id lives in text
  std::vector<Value> items;     // array
  std::vector<Member> members;  // object
  std::vector<std::pair<Annotation::Kind, std::string>> annotations;
  std::vector<std::uint64_t> tags;  // CBOR tags of annotations, same order

  bool is_container() const {
    return type == Type::array || type == Type::object;
  }
  /// The member named `name`, the last one if duplicated; null if absent.
  const Value* find(std::string_view name) const;
};

struct Value::Member {
  Member() = default;
  Member(std::string k, Value v) : first(std::move(k)), second(std::move(v)) {}
  std::string first;  // the key, UTF-8
  Value second;
};

/// Builds one Value per document from events. After end_document(),
/// `done()` is true and `take()` hands the tree over.
class TreeBuilder final : public Handler {
 public:
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
  void end_document() override { done_ = true; }

  bool done() const { return done_; }
  Value take();

 private:
  Value& slot();  // where the next value goes
  void finish_scalar();

  Value root_;
  std::vector<Value*> stack_;
  std::string pending_key_;
  std::vector<std::pair<Annotation::Kind, std::string>> pending_ann_;
  std::vector<std::uint64_t> pending_tags_;
  bool done_ = false;
};

/// Sends the events of `v` to `h`, without end_document(). Honours
/// Flow::skip from begin_* and key; returns false if `h` asked to stop.
bool replay(const Value& v, Handler& h);

}  // namespace jbx
