// The one list of formats. Adding a format is one folder under formats/ and
// one line here. Order matters for sniffing: formats with a distinctive
// signature first, JSON text last.
#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "formats/cbor/cbor_format.h"
#include "formats/format.h"
#include "formats/json/json_format.h"
#include "formats/jsonb/jsonb_format.h"
#include "formats/msgpack/msgpack_format.h"

namespace jbx {

namespace {

const FormatSpec* const kFormats[] = {
    &kJsonbFormat,  // first: whole head must decode, container docs only,
                    // where CBOR accepts any head cut short (jsonb_format.cpp)
    &kCborFormat,   // tag 55799, or a strict trial decode (cbor_reader.h)
    &kMsgpackFormat,    // a map or array head; after CBOR, whose arrays look
                        // like MessagePack maps and arrays (msgpack_format.h)
    &kJsonLinesFormat,  // never sniffed: chosen by extension or --lines
    &kJsonFormat,
};

struct Alias {
  std::string_view alias;
  std::string_view name;
};
constexpr Alias kAliases[] = {
    {"ndjson", "jsonl"},
    {"jsonlines", "jsonl"},
    {"mpk", "msgpack"},
    {"messagepack", "msgpack"},
};

}  // namespace

std::span<const FormatSpec* const> formats() { return kFormats; }

const FormatSpec* magic_format(std::string_view head) {
  struct Magic {
    std::string_view prefix;
    const FormatSpec* format;
  };
  static const Magic kMagic[] = {
      {"\xd9\xd9\xf7", &kCborFormat},  // RFC 8949 3.4.6 self-described CBOR
  };
  for (const Magic& m : kMagic) {
    if (head.substr(0, m.prefix.size()) == m.prefix) return m.format;
  }
  return nullptr;
}

const FormatSpec* find_format(std::string_view name) {
  for (const Alias& a : kAliases) {
    if (a.alias == name) name = a.name;
  }
  for (const FormatSpec* f : kFormats) {
    if (f->name == name) return f;
  }
  return nullptr;
}

const FormatSpec* format_for_path(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return nullptr;
  std::string ext(path.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  for (const FormatSpec* f : kFormats) {
    for (std::string_view e : f->extensions) {
      if (e == ext) return f;
    }
  }
  return nullptr;
}

const FormatSpec* sniff_format(std::string_view head,
                               const FormatSpec* preferred) {
  // An array of maps in CBOR (82 a2 ...) reads as a map with string keys in
  // MessagePack; the extension decides between formats that both accept.
  if (preferred != nullptr && preferred->sniff != nullptr &&
      preferred->sniff(head)) {
    return preferred;
  }
  for (const FormatSpec* f : kFormats) {
    if (f->sniff != nullptr && f->sniff(head)) return f;
  }
  return nullptr;
}

namespace {

// Whether `format`'s reader decodes all of `input`, every document to the
// end, without an error.
bool decodes_whole(const FormatSpec& format, std::string_view input) {
  try {
    const auto src = Source::from_memory(std::string(), std::string(input));
    const auto reader = format.make_reader(*src, ReadOptions{});
    NullHandler discard;
    while (reader->read_document(discard)) {
    }
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

const FormatSpec& settle_sniffed(Source& src, std::string_view head,
                                 const FormatSpec& sniffed,
                                 const FormatSpec* preferred) {
  std::vector<const FormatSpec*> fits;
  for (const FormatSpec* f : kFormats) {
    if (f->binary && f->sniff != nullptr && f->sniff(head)) fits.push_back(f);
  }
  if (!sniffed.binary || fits.size() < 2) return sniffed;
  const std::string_view more = src.peek(kSettleBytes);
  if (more.size() < kSettleBytes) {
    // The whole input: the formats' readers decide, the sniffed one first.
    if (decodes_whole(sniffed, more)) return sniffed;
    for (const FormatSpec* f : fits) {
      if (f != &sniffed && decodes_whole(*f, more)) return *f;
    }
    return sniffed;  // none does: its reader reports what is wrong
  }
  const FormatSpec* f = sniff_format(more, preferred);
  return f != nullptr && f->binary ? *f : sniffed;
}

}  // namespace jbx
