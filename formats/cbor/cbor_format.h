// CBOR (RFC 8949): the registry entry. How CBOR maps to jbx events, in
// both directions, is jbx's exactness policy for CBOR:
//  - integers: major types 0/1 <-> int64/uint64; beyond 64 bits, bignums
//    (tags 2/3) <-> exact number text. Decimals read from JSON become
//    float64 (shortest exact float in --canonical mode), or tag 4 decimal
//    fractions with WriteOptions::exact_decimals (a negative zero, which
//    they lack, as float -0.0); tags 4 and 5 read as exact decimal text.
//  - tag 0 (RFC 3339 text, offset kept) and tag 1 (epoch seconds) <->
//    instants; tags 1004/100 <-> local dates; other local dates and times
//    are written as ISO 8601 text (CBOR has no tag for them).
//  - byte strings <-> bytes; tags without a JSON meaning <-> cbor_tag
//    annotations; JSONB type names <-> tag 27 [name, value]. Tags whose
//    content already means the same in JSON (21-23 encoding hints, 32-36
//    URI, base64, regex, MIME) and 55799 read as their content alone.
//  - undefined and unassigned simple values read as null; map keys that
//    are not text strings read as their compact JSON text (1 -> "1"), or
//    an error with ReadOptions::keys_error.
#pragma once

#include "formats/format.h"

namespace jbx {

/// "cbor", extension .cbor, sniffed by cbor::sniff (cbor_reader.h).
extern const FormatSpec kCborFormat;

}  // namespace jbx
