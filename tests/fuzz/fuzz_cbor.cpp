// libFuzzer target for the CBOR reader and writer: decode every data item
// straight into the CBOR writer (exact decimals, so numbers survive as
// read), then check that jbx's own CBOR decodes to the same events. The
// deterministic (--canonical) encoding must read back and be a fixed point:
// re-encoding it canonically gives the same bytes. Read into JSON, a
// top-level array cut into small pieces (half of them read on a second
// thread) must give the same text and error as read in one, into the
// JSON writer alone and behind the fused features, which must write the
// same called directly and through the Handler interface. Also runs the
// sniffer.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"
#include "core/sink.h"
#include "core/source.h"
#include "core/transforms/fused_test_util.h"
#include "formats/cbor/cbor_reader.h"
#include "formats/cbor/cbor_writer.h"
#include "formats/json/json_fused.h"
#include "formats/json/json_writer.h"
#include "tests/fuzz/event_log.h"
#include "tests/fuzz/fused_alike.h"

namespace {

constexpr jbx_fuzz::EventLogRules kRules = {.integer_text_as_int = true,
                                            .full_timestamp = false};

// Reads every document of `bytes` into `h`.
void read_all(std::string_view bytes, const jbx::ReadOptions& o,
              jbx::Handler& h) {
  auto src = jbx::Source::from_memory("<fuzz>", std::string(bytes));
  jbx::CborReader r(*src, o);
  while (r.read_document(h)) {
  }
}

// Encodes every document of `bytes` (known to read cleanly).
std::string encode(std::string_view bytes, const jbx::ReadOptions& o,
                   const jbx::WriteOptions& w) {
  jbx::StringSink sink;
  jbx::CborWriter writer(sink, w);
  read_all(bytes, o, writer);
  return std::string(sink.data());
}

// The JSON text of every document of `bytes` and the error that ends it,
// read with the given split (CborReader::set_split), behind the features
// when `features`.
jbx_fuzz::Written to_json(std::string_view bytes, const jbx::ReadOptions& o,
                          std::size_t from, std::size_t piece, bool features) {
  auto src = jbx::Source::from_memory("<fuzz>", std::string(bytes));
  jbx::CborReader r(*src, o);
  r.set_split(from, piece);
  jbx::StringSink sink;
  jbx::JsonWriter writer(sink, jbx::WriteOptions{});
  std::optional<jbx::transforms::FusedFeatures<jbx::JsonWriter>> fused;
  if (features) fused.emplace(writer, jbx_fuzz::record_features());
  jbx::Handler& h = fused ? static_cast<jbx::Handler&>(*fused)
                          : static_cast<jbx::Handler&>(writer);
  std::string error;
  try {
    while (r.read_document(h)) {
    }
  } catch (const jbx::Error& e) {
    error = fmt::format("{}@{} {}: {}", static_cast<int>(e.code),
                        e.offset ? static_cast<long long>(*e.offset) : -1,
                        e.pointer, e.message);
  }
  return {std::string(sink.data()), error};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  (void)jbx::cbor::sniff(in);
  jbx::ReadOptions o;
  o.max_depth = 256;
  jbx::WriteOptions w;
  w.exact_decimals = true;
  jbx::StringSink sink;
  jbx::CborWriter writer(sink, w);
  for (const bool features : {false, true}) {
    const jbx_fuzz::Written whole = to_json(in, o, SIZE_MAX, 0, features);
    const jbx_fuzz::Written split = to_json(in, o, 0, 8 + size % 40, features);
    // (Behind the features, in pieces or not, a key may be written at once
    // or held back, as the shapes learnt from earlier items say.)
    if (features ? !jbx_fuzz::alike(whole, split)
                 : whole.text != split.text || whole.error != split.error) {
      std::abort();
    }
  }
  jbx_fuzz::check_features_alike([&](jbx::Handler& h) {
    auto src = jbx::Source::from_memory("<fuzz>", in);
    jbx::CborReader r(*src, o);
    while (r.read_document(h)) {
    }
  });
  jbx_fuzz::EventLog first(&writer, kRules);
  try {
    read_all(in, o, first);
  } catch (const jbx::Error& e) {
    // A clean reader error: binary, with an offset inside the input. The
    // writer may refuse a value (a local date-time beyond year 9999).
    if (e.binary
            ? !e.offset || *e.offset > size
            : e.code != jbx::Errc::lossy && e.code != jbx::Errc::unsupported) {
      std::abort();
    }
    return 0;
  }
  jbx_fuzz::EventLog second(nullptr, kRules);
  try {
    read_all(sink.data(), o, second);
  } catch (const jbx::Error&) {
    std::abort();  // jbx's own CBOR must read back
  }
  if (first.text != second.text) std::abort();

  // The deterministic encoding reads back and is its own fixed point.
  jbx::WriteOptions c = w;
  c.canonical = true;
  try {
    const std::string once = encode(sink.data(), o, c);
    if (encode(once, o, c) != once) std::abort();
  } catch (const jbx::Error&) {
    std::abort();
  }
  return 0;
}
