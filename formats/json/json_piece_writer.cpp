#include "formats/json/json_piece_writer.h"

#include <optional>

#include "core/sink.h"

namespace jbx {

struct PieceWriter::Options {
  WriteOptions write;
  std::optional<transforms::FusedOptions> fused;
};

PieceWriter::PieceWriter(const JsonWriter& like,
                         const transforms::FusedFeatures<JsonWriter>* fused)
    : options_(std::make_unique<Options>()) {
  options_->write = like.options();
  if (fused != nullptr) options_->fused = fused->options();
}

PieceWriter::~PieceWriter() = default;

void PieceWriter::make(std::size_t bytes) {
  // Made on the thread that writes the pieces, from its heap: a writer is
  // written to on every event, and its blocks must not share a cache line
  // with the walk's.
  if (sink_ == nullptr) sink_ = std::make_unique<StringSink>();
  sink_->clear();
  // Room for the text of most pieces at once (pretty text of compact
  // input takes about twice its bytes), rather than in steps that each
  // copy it and leave the block before free.
  sink_->reserve(bytes * 2);
  fused_.reset();
  writer_ = std::make_unique<JsonWriter>(*sink_, options_->write);
  if (options_->fused) {
    fused_ = std::make_unique<transforms::FusedFeatures<JsonWriter>>(
        *writer_, *options_->fused);
  }
}

void PieceWriter::begin(std::size_t bytes, const char* readable,
                        std::size_t size) {
  make(bytes);
  if (fused_ != nullptr) {
    fused_->begin_array();
  } else {
    writer_->begin_array();
  }
  // An item, written to the writer alone: the walk's writer has written
  // one too (the array's first, an object, which no feature drops).
  writer_->null_value();
  from_ = sink_->data().size();
  writer_->set_readable(readable, size);
}

void PieceWriter::begin_documents(std::size_t bytes, const char* readable,
                                  std::size_t size) {
  make(bytes);
  from_ = 0;
  writer_->set_readable(readable, size);
}

Handler& PieceWriter::handler() {
  if (fused_ != nullptr) return *fused_;
  return *writer_;
}

void PieceWriter::append_documents_to(JsonWriter& w) const {
  w.append_documents(text());
}

std::string_view PieceWriter::text() const {
  return sink_->data().substr(from_);
}

void PieceWriter::splice_into(JsonWriter& w) const { w.splice(text()); }

void PieceWriter::splice_into(transforms::FusedFeatures<JsonWriter>& f) {
  f.next().splice(text());
  f.items_passed(fused_ != nullptr ? fused_->items_had() : 0);
}

}  // namespace jbx
