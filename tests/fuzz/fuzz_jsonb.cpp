// libFuzzer target for the JSONB reader: decode every document straight
// into the JSONB writer, then check that jbx's own JSONB decodes to the same
// events (exact decimals, so numbers survive as read). The fused features
// in front of the JSON writer must write the same called directly and
// through the Handler interface. Also runs the sniffer on the input.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"
#include "core/sink.h"
#include "formats/jsonb/jsonb_reader.h"
#include "formats/jsonb/jsonb_writer.h"
#include "tests/fuzz/event_log.h"
#include "tests/fuzz/fused_alike.h"

namespace {

constexpr jbx_fuzz::EventLogRules kRules = {};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)jbx::sniff_jsonb(in);
  jbx::ReadOptions o;
  o.max_depth = 256;
  jbx::WriteOptions w;
  w.exact_decimals = true;
  jbx::StringSink sink;
  jbx::JsonbWriter writer(sink, w);
  jbx_fuzz::check_features_alike([&](jbx::Handler& h) {
    jbx::JsonbReader r(in, o);
    while (r.read_document(h)) {
    }
  });
  jbx_fuzz::EventLog first(&writer, kRules);
  try {
    jbx::JsonbReader r(in, o);
    while (r.read_document(first)) {
    }
  } catch (const jbx::Error& e) {
    // A clean reader error: binary, with an offset inside the input. The
    // writer may refuse a value (a year JSONB date-times cannot hold).
    if (e.binary ? !e.offset || *e.offset > size
                 : e.code != jbx::Errc::unsupported) {
      std::abort();
    }
    return 0;
  }
  jbx_fuzz::EventLog second(nullptr, kRules);
  try {
    jbx::JsonbReader r(sink.data(), o);
    while (r.read_document(second)) {
    }
  } catch (const jbx::Error&) {
    std::abort();  // jbx's own JSONB must read back
  }
  if (first.text != second.text) std::abort();
  return 0;
}
