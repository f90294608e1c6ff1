// libFuzzer target for the MessagePack reader: decode every value straight
// into the MessagePack writer, then check that jbx's own bytes decode to the
// same events (integers keep their value, doubles their bits, extensions
// their payload and timestamps their instant: a timestamp64 of whole seconds
// comes back as the smaller timestamp32). Also runs the sniffer on the input. A
// jbx::Error from the first read is fine when it is binary with an offset
// inside the input; a crash, a leak or a disagreement aborts. The fused
// features in front of the JSON writer must write the same called directly
// and through the Handler interface.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"
#include "core/sink.h"
#include "formats/msgpack/msgpack_format.h"
#include "formats/msgpack/msgpack_reader.h"
#include "formats/msgpack/msgpack_writer.h"
#include "tests/fuzz/event_log.h"
#include "tests/fuzz/fused_alike.h"

namespace {

constexpr jbx_fuzz::EventLogRules kRules = {.integer_text_as_int = false,
                                            .full_timestamp = false};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)jbx::msgpack::sniff(in);
  jbx::ReadOptions o;
  o.max_depth = 256;
  jbx::WriteOptions w;
  jbx::StringSink sink;
  jbx::msgpack::MsgpackWriter writer(sink, w);
  jbx_fuzz::check_features_alike([&](jbx::Handler& h) {
    jbx::msgpack::MsgpackReader r(in, o);
    while (r.read_document(h)) {
    }
  });
  jbx_fuzz::EventLog first(&writer, kRules);
  try {
    jbx::msgpack::MsgpackReader r(in, o);
    while (r.read_document(first)) {
    }
  } catch (const jbx::Error& e) {
    // A clean reader error: binary, with an offset inside the input.
    if (!e.binary || !e.offset || *e.offset > size) std::abort();
    return 0;
  }
  jbx_fuzz::EventLog second(nullptr, kRules);
  try {
    jbx::msgpack::MsgpackReader r(sink.data(), o);
    while (r.read_document(second)) {
    }
  } catch (const jbx::Error&) {
    std::abort();  // jbx's own MessagePack must read back
  }
  if (first.text != second.text) std::abort();
  return 0;
}
