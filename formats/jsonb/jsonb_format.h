// fastjson2 JSONB: the registry entry (name "jsonb", extension .jsonb,
// content sniffer) and its reader/writer factories. The format itself is in
// jsonb_reader.h and jsonb_writer.h.
#pragma once

#include "formats/format.h"

namespace jbx {

extern const FormatSpec kJsonbFormat;

}  // namespace jbx
