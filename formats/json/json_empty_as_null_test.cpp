// --empty-as-null in front of the JSON writer or the fused features: the
// JSON reader turns "" and [] into nulls itself and calls them directly.
// The text written, and the error that stops it, are those of the
// transform in front of them through the Handler interface, wherever the
// chunks of a large document end.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "core/error.h"
#include "core/events.h"
#include "core/sink.h"
#include "core/transforms/fused_test_util.h"
#include "core/transforms/nulls.h"
#include "formats/cbor/cbor_writer.h"
#include "formats/json/json_reader.h"
#include "formats/json/json_simd.h"
#include "formats/json/json_test_util.h"
#include "formats/json/json_writer.h"
#include "formats/jsonb/jsonb_writer.h"
#include "formats/msgpack/msgpack_writer.h"

namespace {

using jbx::CborWriter;
using jbx::JsonbWriter;
using jbx::JsonMode;
using jbx::JsonReader;
using jbx::JsonWriter;
using jbx::SimdChunking;
using jbx::StringSink;
using jbx::WriteOptions;
using jbx::msgpack::MsgpackWriter;
using jbx::transforms::EmptyAsNull;
using jbx::transforms::FusedFeatures;
using jbx::transforms::KeyCase;
using jbx::transforms::NullPolicy;
using jbx::transforms::testing::Features;

// Chunks of `chunk` bytes from the first byte on (0: the document whole),
// and a top-level array of records walked in pieces of `piece` bytes, every
// other one on a second thread, when given.
SimdChunking chunks(std::size_t chunk, std::size_t piece = 0) {
  SimdChunking c;
  if (chunk == 0) {
    c.from = SIZE_MAX;
    return c;
  }
  c.chunk = chunk;
  c.from = 0;
  c.min_tokens = 4;
  c.ahead_from = 0;
  c.text_ahead_from = 0;
  c.pieces_from = piece != 0 ? 0 : SIZE_MAX;
  c.piece = piece;
  c.pieces_trial = 0;
  return c;
}

// The writer as a Handler of no known type: what the reader sends it goes
// through the interface.
class Opaque final : public jbx::ForwardingHandler {
 public:
  using ForwardingHandler::ForwardingHandler;
};

// Reads `json` (JSON Lines with `lines`) through EmptyAsNull into a
// writer W (JSON, or a binary format's, whose bytes are given in hex),
// behind the features `f` when given: `typed`, with the fused features or
// the writer as what the reader may call directly; else with the separate
// transforms, through the interface.
template <class W = JsonWriter>
std::string write(const std::string& json, bool lines,
                  const std::optional<Features>& f, bool typed,
                  const SimdChunking& c, bool pretty) {
  jbx::testing::TestInput in(json, false);
  JsonReader reader(in.source(), jbx::ReadOptions(),
                    lines ? JsonMode::lines : JsonMode::stream);
  reader.set_simd_chunking(c);
  StringSink sink;
  WriteOptions o;
  o.compact = !pretty;
  W w(sink, o);
  Opaque opaque(w);
  std::unique_ptr<jbx::Handler> rest;  // the steps after EmptyAsNull
  std::unique_ptr<jbx::Handler> fused;
  jbx::Handler* next = &w;
  jbx::Handler* direct = typed ? &w : nullptr;
  if (f) {
    jbx::Handler& tail = typed ? static_cast<jbx::Handler&>(w) : opaque;
    rest = jbx::transforms::testing::chain(*f)(tail);
    next = rest.get();
    if (typed) {
      fused = std::make_unique<FusedFeatures<W>>(
          w, jbx::transforms::testing::options(*f));
      direct = fused.get();
    }
  } else if (!typed) {
    next = &opaque;
  }
  EmptyAsNull front(*next, direct);
  // Up to the last whole document: of one that fails, the command line
  // takes back what was written.
  std::size_t whole = 0;
  std::string error;
  try {
    while (reader.read_document(front)) whole = sink.data().size();
    w.finish();
    whole = sink.data().size();
  } catch (const jbx::Error& e) {
    error = fmt::format("\n{} at {}: {}", jbx::errc_name(e.code),
                        e.offset.value_or(~std::uint64_t{0}), e.message);
  }
  const std::string_view out = sink.data().substr(0, whole);
  if constexpr (std::is_same_v<W, JsonWriter>) {
    return std::string(out) + error;
  } else {
    std::string hex;
    for (const char b : out) {
      hex += fmt::format("{:02x}", static_cast<unsigned char>(b));
    }
    return hex + error;
  }
}

// A random value with many empty strings and arrays, at any depth.
void value(std::mt19937& rng, int depth, std::string& out) {
  static const char* const kScalars[] = {
      "\"\"",        "\"x\"",    "1",
      "null",        "true",     "\"2024-01-02T03:04:05Z\"",
      "\"\\u0000\"", "\"\\\"\"", "12345678901234567890"};
  const unsigned kind = depth < 5 ? rng() % 6 : 0;
  if (kind <= 1) {
    out += kScalars[rng() % std::size(kScalars)];
    return;
  }
  if (kind == 2) {
    out += rng() % 2 == 0 ? "[]" : "[ ]";
    return;
  }
  const bool array = kind == 3;
  out += array ? '[' : '{';
  const unsigned n = rng() % 5;
  for (unsigned i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    if (rng() % 4 == 0) out += ' ';
    if (!array) {
      static const char* const kNames[] = {"tags", "aB", "createdAt", "x",
                                           "c_d"};
      out += fmt::format("\"{}\":", kNames[rng() % 5]);
    }
    value(rng, depth + 1, out);
  }
  out += array ? ']' : '}';
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json_empty_as_null)

BOOST_AUTO_TEST_CASE(walked_as_the_transform_sends) {
  std::vector<std::optional<Features>> sets(1);
  Features drop;
  drop.nulls = NullPolicy::drop;
  drop.key_case = KeyCase::snake;
  sets.push_back(drop);
  Features rules;
  rules.null_defaults = {{"$..tags", "[\"t\"]"}, {"$..x", "0"}};
  rules.nulls = NullPolicy::drop_all;
  sets.push_back(rules);
  Features dates;
  dates.date_fields = {"$..createdAt"};
  dates.keep_errors = true;
  dates.date_format = "yyyy-MM-dd";
  dates.nulls = NullPolicy::drop;
  sets.push_back(dates);
  std::mt19937 rng(7);
  for (int doc = 0; doc < 120; ++doc) {
    std::string json;
    const bool lines = doc % 3 == 0;
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) {
      std::string v;
      // Documents of the reader's engine start with a bracket.
      do {
        v.clear();
        value(rng, 0, v);
      } while (v[0] != '[' && v[0] != '{' && rng() % 4 != 0);
      json += v;
      json += lines ? "\n" : " ";
    }
    // Some end in the middle of a value.
    if (doc % 10 == 9) json.resize(json.size() * 2 / 3);
    for (const auto& f : sets) {
      for (const std::size_t c : {std::size_t{0}, std::size_t{64},
                                  std::size_t{97}, std::size_t{256}}) {
        for (const bool pretty : {false, true}) {
          const std::string want =
              write(json, lines, f, false, chunks(c), pretty);
          BOOST_TEST(write(json, lines, f, true, chunks(c), pretty) == want,
                     "chunk " << c << ": " << json);
        }
        // The binary writers, and the fused features in front of them.
        BOOST_TEST(
            write<CborWriter>(json, lines, f, true, chunks(c), false) ==
                write<CborWriter>(json, lines, f, false, chunks(c), false),
            "CBOR, chunk " << c << ": " << json);
        BOOST_TEST(
            write<MsgpackWriter>(json, lines, f, true, chunks(c), false) ==
                write<MsgpackWriter>(json, lines, f, false, chunks(c), false),
            "MessagePack, chunk " << c << ": " << json);
        BOOST_TEST(
            write<JsonbWriter>(json, lines, f, true, chunks(c), false) ==
                write<JsonbWriter>(json, lines, f, false, chunks(c), false),
            "JSONB, chunk " << c << ": " << json);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(empty_arrays_across_chunks) {
  // An empty array whose bracket ends a chunk: the walk reads on from it.
  // (Chunks end at a comma in their second half if they can: runs without
  // one end them anywhere.)
  std::string json = "[";
  for (int i = 0; i < 200; ++i) {
    const int depth = 1 + i % 5;
    json += std::string(static_cast<std::size_t>(depth), '[');
    json += std::string(static_cast<std::size_t>(i % 23), ' ');
    json += std::string(static_cast<std::size_t>(depth), ']');
    json += i % 3 == 0 ? "," : i % 3 == 1 ? ",{\"a\":[   ],\"b\":\"\"}," : " ,";
  }
  json += "[]]";
  for (std::size_t c = 16; c < 160; c += 7) {
    BOOST_TEST(write(json, false, std::nullopt, true, chunks(c), false) ==
               write(json, false, std::nullopt, false, chunks(c), false));
    Features f;
    f.nulls = NullPolicy::drop;
    BOOST_TEST(write(json, false, f, true, chunks(c), false) ==
               write(json, false, f, false, chunks(c), false));
  }
}

BOOST_AUTO_TEST_CASE(records_walked_in_pieces) {
  // Records with empty members, elements and records, walked in pieces:
  // each piece's walk turns them into nulls too.
  std::mt19937 rng(11);
  std::string json = "[";
  for (int i = 0; i < 300; ++i) {
    if (i > 0) json += ',';
    if (i % 17 == 5) {
      json += "[]";
      continue;
    }
    json += fmt::format(R"({{"tagList":{},"userName":{},"x":[{},1]}})",
                        rng() % 2 == 0 ? "[]" : "[\"a\",[]]",
                        rng() % 2 == 0 ? "\"\"" : "\"n\"",
                        rng() % 2 == 0 ? "\"\"" : "[ ]");
  }
  json += "]";
  Features f;
  f.nulls = NullPolicy::drop;
  f.key_case = KeyCase::snake;
  for (const std::size_t piece : {std::size_t{48}, std::size_t{200}}) {
    for (const bool pretty : {false, true}) {
      BOOST_TEST(
          write(json, false, std::nullopt, true, chunks(64, piece), pretty) ==
          write(json, false, std::nullopt, false, chunks(64), pretty));
      BOOST_TEST(write(json, false, f, true, chunks(64, piece), pretty) ==
                 write(json, false, f, false, chunks(64), pretty));
    }
  }
}

BOOST_AUTO_TEST_CASE(empty_values_become_nulls) {
  // Not a no-op: as members, elements and documents, at a chunk's end.
  const std::string json =
      R"({"a":"","b":[],"c":[[],[""],{"d":[ ]}],"e":"x"} [] "" [[]])";
  const std::string want =
      "{\"a\":null,\"b\":null,\"c\":[null,[null],{\"d\":null}],\"e\":\"x\"}\n"
      "null\nnull\n[null]\n";
  for (const std::size_t c : {std::size_t{0}, std::size_t{16}}) {
    BOOST_TEST(write(json, false, std::nullopt, true, chunks(c), false) ==
               want);
  }
  Features f;
  f.nulls = NullPolicy::drop;
  BOOST_TEST(write(json, false, f, true, chunks(0), false) ==
             "{\"c\":[null,[null],{}],\"e\":\"x\"}\nnull\nnull\n[null]\n");
  // In CBOR: {"a":null,...}, then three documents. An empty array at the
  // top, whose elements the walk counts before it, is a null too (the
  // writer streams an array only once an element has begun).
  const std::string cbor =
      "a46161f66162f6616383f681f6a16164f661656178"
      "f6f681f6";
  for (const std::size_t c : {std::size_t{0}, std::size_t{16}}) {
    BOOST_TEST(write<CborWriter>(json, false, std::nullopt, true, chunks(c),
                                 false) == cbor);
  }
  const std::string spaced = "[" + std::string(300, ' ') + "]";
  BOOST_TEST(write<CborWriter>(spaced, false, std::nullopt, true, chunks(64),
                               false) == "f6");
  BOOST_TEST(write<CborWriter>(spaced, false, f, true, chunks(64), false) ==
             "f6");
}

BOOST_AUTO_TEST_SUITE_END()
