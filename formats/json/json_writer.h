// The JSON text writer: pretty (spaces or tabs), compact, JSON Lines, ASCII
// escaping and jq-style colour, with canonical minimal string escaping. It
// is the hot path of `fmt`, so it is a final class the reader can call
// without virtual dispatch. Not a parser and not a sorter (core/sort_keys.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/options.h"
#include "core/sink.h"
#include "formats/format.h"

namespace jbx {

class JsonWriter final : public Writer {
 public:
  /// Writes to `out`. Options are copied; the sink must outlive the writer.
  JsonWriter(Sink& out, const WriteOptions& o);

  Flow begin_object() override;
  Flow key(std::string_view name) override;
  void end_object() override;
  Flow begin_array() override;
  void end_array() override;

  void null_value() override;
  void bool_value(bool b) override;
  void int_value(std::int64_t v) override;
  void uint_value(std::uint64_t v) override;
  /// Shortest round-trip form ("2.0", "0.1", "1e+300"). Throws
  /// Error(lossy) for NaN and infinities unless WriteOptions::nan allows.
  void double_value(double v) override;
  /// Writes `text` verbatim: it is valid RFC 8259 number syntax.
  void number_text(std::string_view text) override;
  void string_value(std::string_view utf8) override;
  /// string_value() for text known to need no escaping (no '"', '\\' or
  /// control character: the reader checked), copied without a scan unless
  /// --ascii needs one.
  void plain_string(std::string_view utf8);
  /// key() for a name known to need no escaping, like plain_string().
  Flow plain_key(std::string_view name);
  void bytes_value(std::span<const std::uint8_t> bytes) override;
  void timestamp_value(const Timestamp& t) override;
  void annotation(const Annotation& a) override;
  void end_document() override;

  /// After an error in the middle of a document: ends the partial line
  /// (if anything of the document was written) and resets the state so
  /// that the next document starts clean.
  void abandon();

 private:
  struct Frame {
    bool object = false;
    bool first = true;
    bool wrapper = false;  // {"@type": ..., "@value": ...} around a value
  };
  struct Pending {
    Annotation::Kind kind;
    std::string name;
    std::uint64_t tag;
  };

  void before_value();
  void after_value();
  void separator();  // "," and the newline + indent before an item
  void newline_indent(std::size_t depth);
  void open_container(char c, bool object);
  void close_container(char c);
  void write_string(std::string_view s, const char* color);
  void copy_string(std::string_view s, const char* color);
  void open_wrappers(bool next_is_object);
  void scalar_color(const char* color);
  void end_color();
  void write_scalar(std::string_view text, const char* color);

  Sink& out_;
  WriteOptions opt_;
  bool pretty_;
  std::size_t unit_;  // indent characters per level
  std::vector<Frame> stack_;
  std::vector<Pending> pending_;
  std::string type_name_for_object_;
  bool have_type_name_for_object_ = false;
  bool in_doc_ = false;  // a document has begun and not yet ended
  std::string indent_;   // "\n" followed by many indent characters
  std::string scratch_;
};

}  // namespace jbx
