#include "formats/msgpack/msgpack_format.h"

#include <cstdint>
#include <memory>

#include "formats/msgpack/msgpack_reader.h"
#include "formats/msgpack/msgpack_writer.h"

namespace jbx {

namespace msgpack {

bool sniff(std::string_view head) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(head.data());
  const std::size_t n = head.size();
  if (n == 0) return false;
  // Only containers: a MessagePack scalar at the start looks like ASCII
  // text (fixints) or like CBOR and JSONB type bytes.
  const std::uint8_t first = p[0];
  if (!((first >= 0x80 && first <= 0x9f) || (first >= 0xdc && first <= 0xdf))) {
    return false;
  }
  // Walk the values the head holds; a value cut off by the end of the head
  // is fine, a byte MessagePack never uses (0xc1) is not.
  std::uint64_t pending = 1;
  std::size_t i = 0;
  auto be = [&](std::size_t at, std::size_t width) {
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < width; ++k) v = (v << 8) | p[at + k];
    return v;
  };
  while (i < n) {
    if (pending == 0) pending = 1;  // the next value of a sequence
    --pending;
    const std::uint8_t b = p[i++];
    std::uint64_t skip = 0;
    if (b <= 0x7f || b >= 0xe0) continue;
    if (b <= 0x8f) {
      pending += 2 * (b & 0x0fu);
      continue;
    }
    if (b <= 0x9f) {
      pending += b & 0x0fu;
      continue;
    }
    if (b <= 0xbf) {
      i += b & 0x1fu;
      continue;
    }
    std::size_t width = 0;  // of a length field that follows
    switch (b) {
      case 0xc0:
      case 0xc2:
      case 0xc3:
        continue;
      case 0xc1:
        return false;
      case 0xc4:
      case 0xd9:
        width = 1;
        break;
      case 0xc5:
      case 0xda:
        width = 2;
        break;
      case 0xc6:
      case 0xdb:
        width = 4;
        break;
      case 0xc7:
        width = 1;
        skip = 1;
        break;
      case 0xc8:
        width = 2;
        skip = 1;
        break;
      case 0xc9:
        width = 4;
        skip = 1;
        break;
      case 0xca:
      case 0xce:
      case 0xd2:
        skip = 4;
        break;
      case 0xcb:
      case 0xcf:
      case 0xd3:
        skip = 8;
        break;
      case 0xcc:
      case 0xd0:
        skip = 1;
        break;
      case 0xcd:
      case 0xd1:
        skip = 2;
        break;
      case 0xd4:
      case 0xd5:
      case 0xd6:
      case 0xd7:
      case 0xd8:
        skip = 1 + (std::uint64_t{1} << (b - 0xd4));
        break;
      default: {  // 0xdc..0xdf: array16/32, map16/32
        const std::size_t w = (b & 1) != 0 ? 4 : 2;
        if (i + w > n) return true;
        const std::uint64_t count = be(i, w);
        i += w;
        pending += b >= 0xde ? 2 * count : count;
        continue;
      }
    }
    if (width > 0) {
      if (i + width > n) return true;
      skip += be(i, width);
      i += width;
    }
    if (skip >= n - i) return true;  // runs past the head
    i += skip;
  }
  return true;
}

namespace {

std::unique_ptr<Reader> make_reader(Source& in, const ReadOptions& o) {
  return std::make_unique<MsgpackReader>(in, o);
}

std::unique_ptr<Writer> make_writer(Sink& out, const WriteOptions& o) {
  return std::make_unique<MsgpackWriter>(out, o);
}

constexpr std::string_view kExtensions[] = {"msgpack", "mpk"};

}  // namespace
}  // namespace msgpack

const FormatSpec kMsgpackFormat{
    "msgpack",
    "MessagePack, one value per document",
    msgpack::kExtensions,
    true,
    &msgpack::sniff,
    &msgpack::make_reader,
    &msgpack::make_writer,
};

}  // namespace jbx
