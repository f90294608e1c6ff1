// The writer of a piece of a large top-level array that the JSON reader's
// second thread walks apart (json_simd_impl.h, Engine::Pieces): a JSON
// writer with the options of the walk's, behind the fused features when the
// walk's handler is them, writing into a buffer of its own. Out of line, so
// that the reader kernels, compiled for other instruction sets, define none
// of the writer's or the features' functions.
#pragma once

#include <memory>
#include <string_view>

#include "formats/json/json_fused.h"
#include "formats/json/json_writer.h"

namespace jbx {

class PieceWriter {
 public:
  /// With the options of `like`, and of `fused` (the features in front of
  /// it) when not null.
  PieceWriter(const JsonWriter& like,
              const transforms::FusedFeatures<JsonWriter>* fused);
  ~PieceWriter();
  PieceWriter(const PieceWriter&) = delete;
  PieceWriter& operator=(const PieceWriter&) = delete;

  /// Begins a piece of about `bytes` bytes of input: new handlers, inside
  /// a top-level array after an item, as the walk's are at the comma
  /// before the piece. `readable` as JsonWriter::set_readable().
  void begin(std::size_t bytes, const char* readable, std::size_t size);
  /// Begins a run of whole documents (the lines of JSON Lines that the
  /// reader's second thread reads): new handlers between documents.
  void begin_documents(std::size_t bytes, const char* readable,
                       std::size_t size);
  JsonWriter& writer() { return *writer_; }
  /// The features when made with them, else the writer.
  Handler& handler();
  /// Only when made with features.
  transforms::FusedFeatures<JsonWriter>& fused() { return *fused_; }
  /// What the piece wrote since begin(): whole items, each after its
  /// separator.
  std::string_view text() const;
  /// Splices text() in after the items `w` has written (w.splice()).
  void splice_into(JsonWriter& w) const;
  /// Splices text() in after the items `f`'s writer has written; `f` then
  /// counts the piece's items as items it passed (items_passed()), so that
  /// the paths it names later hold their index.
  void splice_into(transforms::FusedFeatures<JsonWriter>& f);
  /// Appends what the documents since begin_documents() wrote to `w`,
  /// which is between documents (w.append_documents()).
  void append_documents_to(JsonWriter& w) const;

 private:
  struct Options;
  // New handlers for about `bytes` bytes of input.
  void make(std::size_t bytes);

  std::unique_ptr<Options> options_;
  std::unique_ptr<StringSink> sink_;
  std::unique_ptr<JsonWriter> writer_;
  std::unique_ptr<transforms::FusedFeatures<JsonWriter>> fused_;
  std::size_t from_ = 0;  // where the piece's text starts in sink_
};

}  // namespace jbx
