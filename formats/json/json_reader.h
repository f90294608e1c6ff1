// The JSON reader: one document, a jq-style stream of whitespace-separated
// documents, or JSON Lines. Documents are parsed by simdjson On-Demand and
// errors are explained by the scalar parser (json_parser.h). JSON Lines are
// read in bounded chunks; other input is mapped whole. Not a writer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/options.h"
#include "core/source.h"
#include "formats/format.h"

namespace jbx {

enum class JsonMode : std::uint8_t {
  single,  // exactly one document (RFC 8259 JSON text); zero is allowed and
           // read_document() then returns false at once
  stream,  // any number of documents separated by whitespace (like jq)
  lines,   // JSON Lines: one document per line, blank lines ignored
};

class JsonReader final : public Reader {
 public:
  JsonReader(Source& in, const ReadOptions& o, JsonMode mode);
  ~JsonReader() override;

  /// See Reader. In lines mode an error concerns one line only: the next
  /// call goes on with the following line. In the other modes an error
  /// ends the input (the next call returns false).
  bool read_document(Handler& out) override;

  /// The line holding the last error's offset, for messages in lines mode
  /// (the whole input is not kept there). `number` is 1-based, `start` the
  /// byte offset of its first byte. Empty `text` when not known.
  struct Line {
    std::uint64_t number = 0;
    std::uint64_t start = 0;
    std::string text;
  };
  const Line& error_line() const { return error_line_; }

  /// The whole input when it was read whole (not in lines mode), else "".
  std::string_view text() const { return text_; }

  /// Documents larger than this many bytes are read by the scalar parser
  /// (default: simdjson's limit of 4 GiB). Tests lower it.
  void set_simd_limit(std::size_t bytes) { simd_limit_ = bytes; }

  /// The number of documents delivered so far.
  std::uint64_t documents() const { return documents_; }

 private:
  struct Impl;
  bool read_whole(Handler& out);
  bool read_line(Handler& out);
  bool next_line(std::size_t& begin, std::size_t& end);
  // Parses the document starting at text[start] (not whitespace), using
  // text[start, end_hint) for simdjson and bytes up to `capacity` as its
  // padding; returns where the next document may start.
  std::size_t parse_doc(std::string_view text, std::size_t start,
                        std::size_t end_hint, std::size_t capacity,
                        std::uint64_t base, Handler& out, bool single);
  bool use_simd(std::size_t len) const;

  Source& in_;
  ReadOptions opt_;
  JsonMode mode_;
  std::unique_ptr<Impl> impl_;
  bool started_ = false;
  bool done_ = false;
  std::string_view text_;
  std::size_t pos_ = 0;  // whole mode: where the next document starts
  std::uint64_t documents_ = 0;
  std::size_t simd_limit_ = 0xFFFFFFFFu;

  // Lines mode: a window of the input [buf_begin_, buf_end_) in buf_,
  // starting at input offset buf_offset_.
  std::string buf_;
  std::size_t buf_begin_ = 0;
  std::size_t buf_end_ = 0;
  std::uint64_t buf_offset_ = 0;
  std::uint64_t line_no_ = 0;
  bool eof_ = false;
  Line error_line_;
};

}  // namespace jbx
