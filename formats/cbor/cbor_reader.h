// Reads CBOR (RFC 8949) and CBOR sequences (RFC 8742) into jbx events. The
// mapping of CBOR types and tags to events is jbx's exactness policy
// (bignums and decimal fractions become exact number text, tags 0/1 become
// timestamps); see cbor_format.h. Not for writing (cbor_writer.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "core/options.h"
#include "formats/format.h"

namespace jbx {

class Worker;

/// Reads the CBOR data items of one input, one document per item, through
/// Source::window(): a file is mapped and given back behind each item, a
/// pipe is held one item at a time (with what was read past it).
class CborReader final : public Reader {
 public:
  /// Keeps references to `in` and `o`; both must outlive the reader.
  CborReader(Source& in, const ReadOptions& o);

  /// Sends the next data item's events, then out.end_document(); false at
  /// the end of the input. Throws Error (binary = true, offset = byte
  /// offset of the problem) with code unexpected_end (truncated item or a
  /// length beyond the input), syntax (reserved additional info 28-30, a
  /// stray break, a bad chunk), invalid_utf8, depth_limit (arrays, maps
  /// and tags nested deeper than ReadOptions::max_depth), type_mismatch (a
  /// date or number tag around the wrong content; a non-text map key with
  /// ReadOptions::keys_error) or unsupported (a bigfloat exponent beyond
  /// +-16384, a bignum longer than cbor::detail::kMaxBignumBytes, a
  /// non-text map key whose JSON text is over 16 times its encoding plus
  /// 1 KiB).
  bool read_document(Handler& out) override;

  /// Byte offset of the next document.
  std::uint64_t offset() const { return pos_; }

  /// Read straight into a JsonWriter, a top-level array of maps (records)
  /// in a document of at least `from` bytes is read in pieces of about
  /// `piece` bytes, every other piece on a second thread; the text is the
  /// same. By default, documents of 16 MiB or more, when the process may
  /// run on more than one CPU; tests lower both.
  void set_split(std::size_t from, std::size_t piece);
  /// How many pieces the second thread has read and were kept (tests).
  std::uint64_t pieces_apart() const { return pieces_apart_; }

  ~CborReader() override;

 private:
  // True when `w` starts with a whole item, or with one that is wrong
  // before it is cut short.
  bool complete_item(std::string_view w) const;

  Source& in_;
  ReadOptions opts_;  // a copy: callers may pass a temporary
  std::uint64_t pos_ = 0;
  std::size_t split_from_;
  std::size_t split_piece_ = std::size_t{1} << 20;
  std::uint64_t pieces_apart_ = 0;
  std::unique_ptr<Worker> worker_;  // made for the first split
};

namespace cbor {

/// Content sniffing: true for the self-describe tag 55799 (d9 d9 f7), or
/// when the first byte is an array, map or tag head and decoding `head`
/// finds nothing wrong before `head` runs out, or when `head` is exactly
/// one text string of valid UTF-8 whose head byte is not one JSON text can
/// start with (`t`, `f`, `n` and `{` can). Never throws.
bool sniff(std::string_view head);

}  // namespace cbor

}  // namespace jbx
