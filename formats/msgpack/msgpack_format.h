// MessagePack (msgpack.org): the registry entry and content sniffing. A
// MessagePack input or output is a sequence of values, one per document
// (jbx writes one value per JSON Lines record). Reading and writing live in
// msgpack_reader.h and msgpack_writer.h.
#pragma once

#include <string_view>

#include "formats/format.h"

namespace jbx {

/// name "msgpack", extensions "msgpack" and "mpk".
extern const FormatSpec kMsgpackFormat;

namespace msgpack {

/// True when `head` starts with a MessagePack map or array whose first
/// values are well-formed as far as `head` goes. MessagePack has no
/// signature; scalars at top level are not sniffed (use the extension or
/// --from), and the registry asks CBOR first, whose arrays share bytes
/// 0x80-0x97 with MessagePack maps and arrays.
bool sniff(std::string_view head);

}  // namespace msgpack
}  // namespace jbx
