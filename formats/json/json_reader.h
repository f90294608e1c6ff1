// The JSON reader: one document, a jq-style stream of whitespace-separated
// documents, or JSON Lines. Documents are indexed by simdjson and walked by
// json_simd_impl.h; errors are explained by the scalar parser
// (json_parser.h). JSON Lines, and streams from a pipe, are read in bounded
// chunks; other input is mapped whole. JSON Lines written as JSON text are
// read on two threads. Not a writer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/options.h"
#include "core/source.h"
#include "formats/format.h"
#include "formats/json/json_simd.h"

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
  bool goes_on_after_error() const override { return mode_ == JsonMode::lines; }

  /// The line holding the last error's offset, for messages in lines mode
  /// (the whole input is not kept there). `number` is 1-based, `start` the
  /// byte offset of its first byte. Empty `text` when not known.
  struct Line {
    std::uint64_t number = 0;
    std::uint64_t start = 0;
    std::string text;
  };
  const Line& error_line() const { return error_line_; }

  /// The whole input when it was read whole (not in lines mode, not a
  /// stream from a pipe), else "".
  std::string_view text() const { return text_; }
  /// The input's size once read to its end; with text() empty, error_line()
  /// then holds the last line (for "expected a value" at the end).
  std::uint64_t size_read() const {
    return streaming_ ? buf_offset_ + buf_end_ : text_.size();
  }

  /// Documents larger than this many bytes are read by the scalar parser
  /// (default: simdjson's limit of 4 GiB). Tests lower it.
  void set_simd_limit(std::size_t bytes) { simd_limit_ = bytes; }
  /// How the simdjson walk chunks large documents. Tests make it chunk
  /// every document in tiny steps.
  void set_simd_chunking(const SimdChunking& c);

  /// The number of documents delivered so far.
  std::uint64_t documents() const { return documents_; }
  /// How many pieces of top-level arrays were walked on a second thread
  /// and kept (SimdChunking::pieces_from; tests).
  std::uint64_t pieces_apart() const { return pieces_apart_; }

  /// Lines mode: the complete lines in the window are read on two threads
  /// when they hold at least twice this many bytes (and the handler writes
  /// JSON text). Tests lower it; SIZE_MAX turns it off.
  void set_line_halves_from(std::size_t bytes) { halves_from_ = bytes; }
  /// How many halves of the window the second thread read and kept
  /// (tests).
  std::uint64_t halves_apart() const { return halves_apart_; }

 private:
  struct Impl;
  bool read_whole(Handler& out);
  bool read_line(Handler& out);
  bool next_line(std::size_t& begin, std::size_t& end);
  // Lines mode on two threads (struct Halves in json_reader.cpp): starts
  // the worker on the second half of the window's complete lines, and
  // splices what it wrote in when this thread has read the first.
  void start_half(Handler& out);
  void join_half(Handler& out);
  // Stream mode on a pipe: documents are split off a window of the input
  // as they arrive, so memory is bounded by the largest document and a
  // reader that stops early (query --first) stops reading.
  bool read_stream(Handler& out);
  bool stream_end(std::size_t& end);
  // Moves buf_[keep, buf_end_) to the front of buf_, grows it when short
  // of room, reads once more; sets eof_ at the end of the input.
  void refill(std::size_t keep);
  void note_error_line(std::uint64_t offset);
  // Parses the document starting at text[start] (not whitespace), using
  // text[start, end_hint) for simdjson and bytes up to `capacity` as its
  // padding; returns where the next document may start. `from_source`:
  // text is the Source's whole(), told how far the walk has got.
  std::size_t parse_doc(std::string_view text, std::size_t start,
                        std::size_t end_hint, std::size_t capacity,
                        std::uint64_t base, Handler& out, bool single,
                        bool from_source = false);
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
  std::uint64_t pieces_apart_ = 0;
  std::size_t simd_limit_ = 0xFFFFFFFFu;

  // The storage of the window below, grown without zero-filling: a short
  // input touches only the pages it is read into, not a whole read's
  // worth (which cost more than the rest of a short run's start-up).
  class Window {
   public:
    char* data() { return p_.get(); }
    const char* data() const { return p_.get(); }
    std::size_t size() const { return size_; }
    char operator[](std::size_t i) const { return p_[i]; }
    /// Grows to `n` bytes, keeping the first `keep`.
    void grow(std::size_t n, std::size_t keep);

   private:
    std::unique_ptr<char[]> p_;
    std::size_t size_ = 0;
  };
  // Lines mode: a window of the input [buf_begin_, buf_end_) in buf_,
  // starting at input offset buf_offset_.
  Window buf_;
  std::size_t buf_begin_ = 0;
  std::size_t buf_end_ = 0;
  std::uint64_t buf_offset_ = 0;
  std::uint64_t line_no_ = 0;
  bool eof_ = false;
  bool streaming_ = false;  // stream mode reads a window, not the whole
  // Stream mode: newlines before buf_ (for error lines), and the split
  // scan of the document at buf_begin_, resumed after each refill.
  std::uint64_t lines_before_ = 0;
  struct Scan {
    bool active = false;
    std::size_t pos = 0;
    std::uint64_t depth = 0;
    bool in_string = false;
    bool escape = false;
    bool found = false;  // the end is at pos (asked again after a refill)
  } scan_;
  Line error_line_;
  // Lines mode: the second thread's half, if one is read there (after
  // buf_, which it reads, so that it goes first).
  struct Halves;
  std::unique_ptr<Halves> halves_;
  std::size_t halves_from_;
  std::uint64_t halves_apart_ = 0;
  std::size_t halves_share_ = 128;  // the worker's share, of 256 (kShares)
  // No half starts before this input offset: the last one was dropped,
  // and this thread reads its lines first.
  std::uint64_t halves_resume_ = 0;
};

}  // namespace jbx
