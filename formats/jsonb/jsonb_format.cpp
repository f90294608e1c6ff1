#include "formats/jsonb/jsonb_format.h"

#include "core/error.h"
#include "formats/jsonb/jsonb_reader.h"
#include "formats/jsonb/jsonb_writer.h"

namespace jbx {

namespace {

constexpr std::string_view kExtensions[] = {"jsonb"};

// Object (0xa6), array (0x94..0xa4) and typed value (0x92) tags: bytes that
// no JSON text starts with, and what a JSONB file of objects or arrays
// starts with.
bool is_container_start(unsigned char t) {
  return t == 0xa6 || t == 0x92 || (t >= 0x94 && t <= 0xa4);
}

}  // namespace

// JSONB has no magic number and its container tags are also CBOR and
// MessagePack array/map bytes, so the sniffer is strict: the head must
// decode as JSONB documents that each start with an object, array or typed
// tag, with string keys only (fastjson2 writes other keys only with
// WriteClassName). A head cut off inside a document passes only if it is
// at least 512 bytes long (a peek limit, not the end of a small file);
// any other error rejects it.
bool sniff_jsonb(std::string_view head) {
  if (head.empty() ||
      !is_container_start(static_cast<unsigned char>(head[0]))) {
    return false;
  }
  JsonbReadOptions jo;
  jo.refs = JsonbRefs::keep;
  jo.string_keys_only = true;
  JsonbReader reader(head, ReadOptions{}, std::move(jo));
  NullHandler sink;
  try {
    for (;;) {
      const std::size_t at = reader.offset();
      if (at < head.size() &&
          !is_container_start(static_cast<unsigned char>(head[at]))) {
        return false;
      }
      if (!reader.read_document(sink)) return true;
    }
  } catch (const Error& e) {
    return e.code == Errc::unexpected_end && head.size() >= 512;
  }
}

namespace {

std::unique_ptr<Reader> make_reader(Source& in, const ReadOptions& o) {
  return std::make_unique<JsonbReader>(in, o);
}

std::unique_ptr<Writer> make_writer(Sink& out, const WriteOptions& o) {
  return std::make_unique<JsonbWriter>(out, o);
}

}  // namespace

const FormatSpec kJsonbFormat{
    "jsonb",     "fastjson2 JSONB binary JSON",
    kExtensions, true,
    sniff_jsonb, make_reader,
    make_writer,
};

}  // namespace jbx
