#include "formats/cbor/cbor_format.h"

#include "formats/cbor/cbor_reader.h"
#include "formats/cbor/cbor_writer.h"

namespace jbx {

namespace {

constexpr std::string_view kExtensions[] = {"cbor"};

std::unique_ptr<Reader> make_reader(Source& in, const ReadOptions& o) {
  return std::make_unique<CborReader>(in, o);
}

std::unique_ptr<Writer> make_writer(Sink& out, const WriteOptions& o) {
  return std::make_unique<CborWriter>(out, o);
}

}  // namespace

const FormatSpec kCborFormat{
    "cbor",       "Concise Binary Object Representation (RFC 8949)",
    kExtensions,  true,
    &cbor::sniff, &make_reader,
    &make_writer,
};

}  // namespace jbx
