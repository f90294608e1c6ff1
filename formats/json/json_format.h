// JSON and JSON Lines: the registry entries and the reader/writer factories.
#pragma once

#include "formats/format.h"

namespace jbx {

extern const FormatSpec kJsonFormat;
extern const FormatSpec kJsonLinesFormat;

}  // namespace jbx
