// The two narrow interfaces every format implements, and the registry that
// lists the formats (name, extensions, content sniffing, factories).
// `convert`, auto-detection, `--to` choices, completions and "did you mean"
// answers all read the registry.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "core/events.h"
#include "core/options.h"
#include "core/sink.h"
#include "core/source.h"

namespace jbx {

/// Reads the documents of one input, one at a time.
class Reader {
 public:
  virtual ~Reader() = default;
  /// Sends the next document's events to `out`, then out.end_document().
  /// Returns false, sending nothing, when the input has no more documents.
  /// Throws Error (syntax, unexpected_end, invalid_utf8, depth_limit, ...)
  /// with the byte offset of the problem.
  virtual bool read_document(Handler& out) = 0;
  /// True when, after read_document() threw, the next call goes on with
  /// the input past the error (a JSON Lines reader: the next line). Else an
  /// error ends the input, and it is not read again.
  virtual bool goes_on_after_error() const { return false; }
};

/// A format's writer: a Handler that encodes into a Sink.
class Writer : public Handler {
 public:
  /// Called once after the last document; flushes nothing by itself.
  virtual void finish() {}
  /// An error ended the document being written, before the writer is
  /// dropped: what of it went to the sink is taken back while the sink
  /// still holds it (stdout holds up to 4 MiB of a document), so that no
  /// half document goes out where that can be helped. (The JSON writer may
  /// be used again after it: see JsonWriter::abandon().)
  virtual void abandon() {}
};

struct FormatSpec {
  std::string_view name;     // "json", "cbor"
  std::string_view summary;  // one line for help and completions
  std::span<const std::string_view> extensions;  // without the dot
  bool binary;
  /// True when `head` (the first bytes, maybe fewer than asked) looks like
  /// this format. Sniffers run in registry order, most specific first.
  bool (*sniff)(std::string_view head);
  std::unique_ptr<Reader> (*make_reader)(Source& in, const ReadOptions& o);
  std::unique_ptr<Writer> (*make_writer)(Sink& out, const WriteOptions& o);
};

/// Every registered format, in sniffing order.
std::span<const FormatSpec* const> formats();
/// The format named `name` ("json", "msgpack", aliases such as "mpk"), or
/// nullptr.
const FormatSpec* find_format(std::string_view name);
/// The format whose extension `path` ends with, or nullptr.
const FormatSpec* format_for_path(std::string_view path);
/// The format whose magic number `head` starts with (CBOR's self-describe
/// tag d9 d9 f7), or nullptr. Unlike sniffing, a magic number is decisive.
const FormatSpec* magic_format(std::string_view head);
/// The first format whose sniffer accepts `head`, or nullptr. When
/// `preferred` (the extension's format) accepts `head` too, it wins: CBOR
/// and MessagePack containers can share their first bytes.
const FormatSpec* sniff_format(std::string_view head,
                               const FormatSpec* preferred = nullptr);

/// How far settle_sniffed() reads ahead.
inline constexpr std::size_t kSettleBytes = 4096;
/// `sniffed` (sniff_format(head, preferred)), checked against more of the
/// input when the sniffers of several binary formats accept `head`: CBOR,
/// MessagePack and JSONB containers can share their first bytes
/// (MessagePack's [1], 91 01, is a CBOR array of 17 items cut short).
/// `src` is then peeked up to kSettleBytes. An input shorter than that is
/// whole: the first format whose reader decodes all of it wins, `sniffed`
/// first. A longer one is sniffed again from the longer head, which the
/// sniffers' trial decodes check further. Throws Error(io) only.
const FormatSpec& settle_sniffed(Source& src, std::string_view head,
                                 const FormatSpec& sniffed,
                                 const FormatSpec* preferred);

}  // namespace jbx
