// libFuzzer target for the JSON reader and writer. For any input:
// - the simdjson engine and the scalar parser agree (same error code and
//   offset; same events when valid), as a stream and as JSON Lines, and
//   the same events on valid input when the handler skips and stops;
// - a valid input written by the JSON writer (compact, pretty, ASCII) and
//   read back gives the same events, and the same text when a top-level
//   array of records is walked in pieces on two threads;
// - on a valid input, the fused writer features (dates, null rules, nulls,
//   key case, number styles) in front of the JSON writer, which the walk
//   calls directly, write what the separate transforms write behind the
//   scalar parser, or fail with the same message, in pieces too; and so
//   do the separate transforms behind the simdjson walk, which passes them
//   the names and strings it holds (stable_key(), stable_string()); and the
//   fused features in front of the CBOR writer write the CBOR of the
//   separate transforms;
// - on a valid input, CBOR and MessagePack written from the simdjson walk
//   in chunks indexed ahead (where a top-level array is counted in two
//   halves, one on each thread, and streamed) are the bytes written from
//   the scalar parser, or the same error.
// - on a valid input, --sort-keys (SortKeys, which holds each top-level
//   object as a tape of its events) sends the events of a value tree whose
//   members were sorted, stably, by key.
// - JSON Lines written as JSON text or CBOR, alone and behind the fused
//   features, read on two threads (the worker's half appended) give the
//   output and the errors, with their lines, of one thread;
// - an error, rendered for a terminal with its source line and caret, is
//   valid UTF-8 without control characters but the newlines.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <unistd.h>
#include <utf8proc.h>

#include "cli/diagnostic.h"
#include "core/error.h"
#include "core/sink.h"
#include "core/sort_keys.h"
#include "core/source.h"
#include "core/transforms/fused_test_util.h"
#include "core/transforms/nulls.h"
#include "core/value.h"
#include "formats/cbor/cbor_writer.h"
#include "formats/json/json_fused.h"
#include "formats/json/json_reader.h"
#include "formats/json/json_writer.h"
#include "formats/jsonb/jsonb_writer.h"
#include "formats/msgpack/msgpack_writer.h"

namespace {

// What jbx prints for `e`: UTF-8 that a terminal shows as it is.
void check_rendered(const jbx::Error& e, std::string_view text) {
  const std::string out = jbx::cli::render_error(e, text);
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(out.data());
  for (std::size_t i = 0; i < out.size();) {
    utf8proc_int32_t cp = -1;
    const utf8proc_ssize_t n = utf8proc_iterate(
        p + i, static_cast<utf8proc_ssize_t>(out.size() - i), &cp);
    if (n <= 0 ||
        (cp != '\n' && utf8proc_category(cp) == UTF8PROC_CATEGORY_CC)) {
      std::fprintf(stderr, "rendered error not printable at %zu:\n%s", i,
                   out.c_str());
      std::abort();
    }
    i += static_cast<std::size_t>(n);
  }
}

class Recorder final : public jbx::Handler {
 public:
  std::string log;
  // Queries skip and stop: with `skipping`, the value of a key of odd
  // length is skipped, every third array too, and a key "stop" stops.
  bool skipping = false;
  int arrays = 0;
  jbx::Flow begin_object() override { return add('{'); }
  jbx::Flow key(std::string_view k) override {
    log += 'k';
    log.append(k);
    log += '\0';
    if (!skipping) return jbx::Flow::visit;
    if (k == "stop") return jbx::Flow::stop;
    return k.size() % 2 == 1 ? jbx::Flow::skip : jbx::Flow::visit;
  }
  void end_object() override { log += '}'; }
  jbx::Flow begin_array() override {
    log += '[';
    if (skipping && ++arrays % 3 == 0) return jbx::Flow::skip;
    return jbx::Flow::visit;
  }
  void end_array() override { log += ']'; }
  void null_value() override { log += 'z'; }
  void bool_value(bool b) override { log += b ? 't' : 'f'; }
  void int_value(std::int64_t v) override { log += std::to_string(v); }
  void uint_value(std::uint64_t v) override { log += std::to_string(v); }
  void double_value(double) override { log += 'd'; }
  void number_text(std::string_view t) override {
    log += 'n';
    log.append(t);
    log += '\0';
  }
  void string_value(std::string_view s) override {
    log += 's';
    log.append(s);
    log += '\0';
  }
  void bytes_value(std::span<const std::uint8_t>) override { log += 'b'; }
  void timestamp_value(const jbx::Timestamp&) override { log += 'T'; }
  void annotation(const jbx::Annotation&) override { log += '@'; }
  void end_document() override { log += '|'; }

 private:
  jbx::Flow add(char c) {
    log += c;
    return jbx::Flow::visit;
  }
};

struct Outcome {
  std::string events;
  std::string error;
};

// simd=false: the scalar parser; chunked: the simdjson walk indexing each
// document a few bytes at a time, as it does a huge one.
Outcome read(const std::string& text, jbx::JsonMode mode, bool simd,
             bool skipping = false, bool chunked = false) {
  auto src = jbx::Source::from_memory("fuzz", text);
  jbx::ReadOptions ro;
  ro.max_depth = 64;
  jbx::JsonReader reader(*src, ro, mode);
  if (!simd) reader.set_simd_limit(0);
  // Inputs of an odd length are indexed ahead, on a second thread.
  if (chunked) {
    reader.set_simd_chunking(
        jbx::SimdChunking{16, 0, 4, text.size() % 2 == 1 ? 0 : SIZE_MAX});
  }
  Recorder rec;
  rec.skipping = skipping;
  Outcome out;
  for (int guard = 0; guard < 100000; ++guard) {
    try {
      if (!reader.read_document(rec)) break;
    } catch (const jbx::Error& e) {
      out.error += std::to_string(static_cast<int>(e.code)) + "@" +
                   std::to_string(e.offset.value_or(0)) + ";";
      check_rendered(e, text);
      if (mode != jbx::JsonMode::lines) break;
    }
  }
  out.events = rec.log;
  return out;
}

namespace tf = jbx::transforms;

// Tiny chunks indexed ahead, and a top-level array of records walked in
// pieces of a few dozen bytes, every other one on a second thread.
jbx::SimdChunking pieces() {
  jbx::SimdChunking c{16, 0, 4, 0};
  c.pieces_from = 0;
  c.piece = 48;
  c.pieces_trial = 0;
  return c;
}

// How the features run: fused (read by the simdjson walk), or as the
// separate transforms read by the simdjson walk or by the scalar parser.
enum class Via { fused, chain, chain_scalar };

// Compact JSON (or CBOR, with W = CborWriter) out of the features, then
// "error: MESSAGE" if one stopped them; the simdjson walk reads in chunks
// or not.
template <class W = jbx::JsonWriter>
std::string features(const std::string& text, const tf::testing::Features& f,
                     Via via, bool chunked) {
  const bool fused = via == Via::fused;
  auto src = jbx::Source::from_memory("fuzz", text);
  jbx::ReadOptions ro;
  ro.max_depth = 64;
  jbx::JsonReader reader(*src, ro, jbx::JsonMode::stream);
  if (via == Via::chain_scalar) reader.set_simd_limit(0);
  if (chunked) reader.set_simd_chunking(pieces());
  jbx::StringSink sink;
  jbx::WriteOptions o;
  o.compact = true;
  W writer(sink, o);
  std::unique_ptr<jbx::Handler> h;
  if (fused) {
    h = std::make_unique<tf::FusedFeatures<W>>(writer, tf::testing::options(f));
  } else {
    h = tf::testing::chain(f)(writer);
  }
  try {
    while (reader.read_document(*h)) {
    }
  } catch (const jbx::Error& e) {
    // What was written before the error may differ: a collision is found
    // at the key when it is not held back.
    return "error: " + e.message;
  }
  writer.finish();
  return std::string(sink.data());
}

void check_features(const std::string& text);

void check_binary(const std::string& text);

void check_sort_keys(const std::string& text);

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_json: %s\n", what);
  std::abort();
}

void check(const std::string& text, jbx::JsonMode mode) {
  const Outcome a = read(text, mode, true);
  const Outcome b = read(text, mode, false);
  const Outcome c = read(text, mode, true, false, true);
  if (a.error != b.error) fail("engines disagree on the error");
  if (a.error != c.error) fail("chunks change the error");
  if (!a.error.empty()) return;
  if (a.events != b.events) fail("engines disagree on the events");
  if (a.events != c.events) fail("chunks change the events");
  // On valid input, skipping values and stopping give the same events from
  // both engines (on invalid input the simdjson engine passes over what is
  // skipped unchecked, as On-Demand does, and the scalar parser does not).
  const Outcome sa = read(text, mode, true, true);
  const Outcome sb = read(text, mode, false, true);
  const Outcome sc = read(text, mode, true, true, true);
  if (!sa.error.empty() || !sb.error.empty() || !sc.error.empty()) {
    fail("skipping gave an error");
  }
  if (sa.events != sb.events) fail("engines disagree on skipped events");
  if (sa.events != sc.events) fail("chunks change the skipped events");
  for (int variant = 0; variant < 3; ++variant) {
    jbx::WriteOptions o;
    o.compact = variant == 0;
    o.ascii = variant == 2;
    jbx::StringSink sink;
    jbx::StringSink in_pieces;
    for (jbx::StringSink* out : {&sink, &in_pieces}) {
      auto src = jbx::Source::from_memory("fuzz", text);
      jbx::ReadOptions ro;
      ro.max_depth = 64;
      jbx::JsonReader reader(*src, ro, mode);
      if (out == &in_pieces) reader.set_simd_chunking(pieces());
      jbx::JsonWriter writer(*out, o);
      while (reader.read_document(writer)) {
      }
    }
    if (in_pieces.data() != sink.data()) fail("pieces change the text");
    const jbx::JsonMode back = mode == jbx::JsonMode::lines && variant == 0
                                   ? jbx::JsonMode::lines
                                   : jbx::JsonMode::stream;
    const Outcome c = read(std::string(sink.data()), back, true);
    if (!c.error.empty()) fail("the writer's output does not read back");
    if (c.events != a.events) fail("the round trip changed the events");
  }
  if (mode == jbx::JsonMode::stream) {
    check_features(text);
    check_binary(text);
    check_sort_keys(text);
  }
}

// The model of --sort-keys: each object's members sorted, stably.
void sort_tree(jbx::Value& v) {
  if (v.type == jbx::Value::Type::object) {
    std::stable_sort(
        v.members.begin(), v.members.end(),
        [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& m : v.members) sort_tree(m.second);
  } else if (v.type == jbx::Value::Type::array) {
    for (jbx::Value& item : v.items) sort_tree(item);
  }
}

void check_sort_keys(const std::string& text) {
  Recorder sorted;
  Recorder model;
  for (const bool tape : {true, false}) {
    auto src = jbx::Source::from_memory("fuzz", text);
    jbx::ReadOptions ro;
    ro.max_depth = 64;
    jbx::JsonReader reader(*src, ro, jbx::JsonMode::stream);
    if (tape) {
      jbx::SortKeys sort(sorted);
      while (reader.read_document(sort)) {
      }
      continue;
    }
    jbx::TreeBuilder tree;
    while (reader.read_document(tree)) {
      jbx::Value v = tree.take();
      sort_tree(v);
      jbx::replay(v, model);
      model.end_document();
    }
  }
  if (sorted.log != model.log) fail("sort-keys differs from a sorted tree");
}

// Compact JSON out of --empty-as-null in front of the features `f` (none
// when null), then "error: MESSAGE": `typed`, the walk turning empty values
// into nulls in front of the fused features or the writer (in chunks and
// pieces when `chunked`); else the transform in front of the chain, read
// by the scalar parser.
std::string empty_as_null(const std::string& text,
                          const tf::testing::Features* f, bool typed,
                          bool chunked) {
  auto src = jbx::Source::from_memory("fuzz", text);
  jbx::ReadOptions ro;
  ro.max_depth = 64;
  jbx::JsonReader reader(*src, ro, jbx::JsonMode::stream);
  if (!typed) reader.set_simd_limit(0);
  if (chunked) reader.set_simd_chunking(pieces());
  jbx::StringSink sink;
  jbx::WriteOptions o;
  o.compact = true;
  jbx::JsonWriter writer(sink, o);
  std::unique_ptr<jbx::Handler> rest;
  std::unique_ptr<jbx::Handler> fused;
  jbx::Handler* next = &writer;
  if (f != nullptr) {
    rest = tf::testing::chain(*f)(writer);
    next = rest.get();
    fused = std::make_unique<tf::FusedFeatures<jbx::JsonWriter>>(
        writer, tf::testing::options(*f));
  }
  jbx::Handler* direct = nullptr;
  if (typed) direct = fused ? fused.get() : &writer;
  tf::EmptyAsNull front(*next, direct);
  try {
    while (reader.read_document(front)) {
    }
  } catch (const jbx::Error& e) {
    return "error: " + e.message;
  }
  writer.finish();
  return std::string(sink.data());
}

void check_features(const std::string& text) {
  tf::testing::Features f[5];
  f[0].date_fields = {"$[*].d", "$..t"};
  f[0].nulls = tf::NullPolicy::drop;
  f[0].key_case = tf::KeyCase::snake;
  f[0].date_format = "yyyy-MM-dd HH:mm:ss";
  f[0].keep_errors = true;
  f[0].bigint_as_string = true;
  f[1].nulls = tf::NullPolicy::drop_all;
  f[1].key_case = tf::KeyCase::camel;
  f[1].decimals = tf::DecimalStyle::exponent;
  f[1].null_defaults = {{"$..n", R"({"aB":null,"x":[null,1.5e3]})"},
                        {"$[*]", "0"}};
  f[2].date_fields = {"$.a.b"};
  f[2].null_defaults = {{"$.a.b", R"("1970-01-01T00:00:00Z")"},
                        {"$..*", "12345678901234567890"}};
  f[2].key_case = tf::KeyCase::kebab;
  f[2].bigint_as_string = true;
  f[2].decimals = tf::DecimalStyle::plain;
  // A schema, which the fused features take as rules (SchemaTypes::
  // as_rules()) and the separate transforms look up.
  f[3].schema = R"({"prefixItems":[{"type":"string"}],
      "items":{"properties":{"a":{"type":"array"},"n":{"type":"number"},
                             "b":{"properties":{"c":{"type":"boolean"}}}},
               "additionalProperties":{"type":"string"}},
      "properties":{"a":{"properties":{"b":{"type":"string"}}},
                    "n":{"type":"integer"}},
      "additionalProperties":{"items":{"type":"number"}}})";
  f[3].null_defaults = {{"$..d", "[1]"}};
  f[3].nulls = tf::NullPolicy::drop;
  f[3].key_case = tf::KeyCase::snake;
  // A descendant date rule whose errors show (paths with the indices of
  // elements, which the fused features count in arrays of scalars), and a
  // descendant null rule.
  f[4].date_fields = {"$..t"};
  f[4].null_defaults = {{"$..n", "0"}};
  f[4].nulls = tf::NullPolicy::drop;
  for (const tf::testing::Features* one :
       {&f[0], &f[1], &f[2], &f[3], &f[4],
        static_cast<tf::testing::Features*>(nullptr)}) {
    const std::string want = empty_as_null(text, one, false, false);
    if (empty_as_null(text, one, true, false) != want) {
      fail("the walk's --empty-as-null differs from the transform");
    }
    if (empty_as_null(text, one, true, true) != want) {
      fail("chunks change the walk's --empty-as-null");
    }
  }
  for (const auto& one : f) {
    const std::string want = features(text, one, Via::chain_scalar, false);
    if (features(text, one, Via::fused, false) != want) {
      fail("the fused features differ from the separate transforms");
    }
    if (features(text, one, Via::fused, true) != want) {
      fail("chunks change the fused features");
    }
    if (features(text, one, Via::chain, false) != want) {
      fail("the transforms differ on the text the walk holds");
    }
    if (features(text, one, Via::chain, true) != want) {
      fail("chunks change the transforms");
    }
    // In front of a binary writer, which the walk sends parsed numbers.
    const std::string cbor =
        features<jbx::CborWriter>(text, one, Via::chain_scalar, false);
    if (features<jbx::CborWriter>(text, one, Via::fused, false) != cbor) {
      fail("the fused features differ from the transforms in CBOR");
    }
    if (features<jbx::CborWriter>(text, one, Via::fused, true) != cbor) {
      fail("chunks change the fused features in CBOR");
    }
  }
}

// `text` converted to CBOR (canonical or not), MessagePack or JSONB, by the
// scalar parser or by the simdjson walk indexing a few bytes at a time, the
// next ones ahead on a second thread: the bytes, or "error: MESSAGE" (the bytes
// written before an error differ: a streamed array has written some). The
// walk reads an input of an odd length from a file, as it reads a huge one:
// the count and the chunks through the file, not the mapping.
template <class W>
std::string binary(const std::string& text, bool canonical, bool streamed) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("jbx-fuzz-json-" + std::to_string(getpid())))
                               .string();
  std::unique_ptr<jbx::Source> src;
  if (streamed && text.size() % 2 == 1) {
    { std::ofstream(path, std::ios::binary) << text; }
    src = jbx::Source::open(path);
    src->read_in_order();
  } else {
    src = jbx::Source::from_memory("fuzz", text);
  }
  struct Remove {
    const std::string& path;
    ~Remove() { std::remove(path.c_str()); }
  } remove{path};
  jbx::ReadOptions ro;
  ro.max_depth = 64;
  jbx::JsonReader reader(*src, ro, jbx::JsonMode::stream);
  if (streamed) {
    reader.set_simd_chunking(jbx::SimdChunking{16, 0, 4, 0});
  } else {
    reader.set_simd_limit(0);
  }
  jbx::StringSink sink;
  jbx::WriteOptions o;
  o.canonical = canonical;
  o.lossy = jbx::LossyPolicy::string;
  W writer(sink, o);
  try {
    while (reader.read_document(writer)) {
    }
    writer.finish();
  } catch (const jbx::Error& e) {
    return "error: " + e.message;
  }
  return std::string(sink.data());
}

void check_binary(const std::string& text) {
  for (const bool canonical : {false, true}) {
    if (binary<jbx::CborWriter>(text, canonical, true) !=
        binary<jbx::CborWriter>(text, canonical, false)) {
      fail("a streamed CBOR array differs");
    }
  }
  if (binary<jbx::msgpack::MsgpackWriter>(text, false, true) !=
      binary<jbx::msgpack::MsgpackWriter>(text, false, false)) {
    fail("a streamed MessagePack array differs");
  }
  if (binary<jbx::JsonbWriter>(text, false, true) !=
      binary<jbx::JsonbWriter>(text, false, false)) {
    fail("a streamed JSONB array differs");
  }
}

// `text` as JSON Lines into a writer W, behind the fused features with
// `fused`, with the lines read on two threads from `halves_from` bytes on
// (JsonReader::set_line_halves_from()): the output, then each error with
// the line it names, going on after each as `jbx fmt` does.
template <class W>
std::string lines_text(const std::string& text, bool fused,
                       std::size_t halves_from) {
  auto src = jbx::Source::from_memory("fuzz", text);
  jbx::ReadOptions ro;
  ro.max_depth = 64;
  jbx::JsonReader reader(*src, ro, jbx::JsonMode::lines);
  reader.set_line_halves_from(halves_from);
  jbx::StringSink sink;
  jbx::WriteOptions o;
  o.compact = true;
  o.lines = true;
  W writer(sink, o);
  tf::testing::Features f;
  f.nulls = jbx::transforms::NullPolicy::drop_all;
  f.key_case = jbx::transforms::KeyCase::snake;
  f.date_fields = {"$.createdAt", "$..d"};
  f.date_format = "yyyy-MM-dd HH:mm:ss";
  std::string errors;
  for (int guard = 0; guard < 100000; ++guard) {
    std::unique_ptr<jbx::Handler> h;
    if (fused) {
      h = std::make_unique<tf::FusedFeatures<W>>(writer,
                                                 tf::testing::options(f));
    }
    try {
      while (reader.read_document(h ? *h : writer)) {
      }
      break;
    } catch (const jbx::Error& e) {
      errors += std::to_string(reader.error_line().number) + ":" +
                std::to_string(static_cast<int>(e.code)) + "@" +
                std::to_string(e.offset.value_or(0)) + " " + e.message + ";";
      writer.abandon();
    }
  }
  return std::string(sink.data()) + "\n--\n" + errors;
}

template <class W>
void check_line_halves(const std::string& text, const char* what) {
  for (const bool fused : {false, true}) {
    if (lines_text<W>(text, fused, 1) != lines_text<W>(text, fused, SIZE_MAX)) {
      fail(what);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check(text, jbx::JsonMode::stream);
  check(text, jbx::JsonMode::single);
  check(text, jbx::JsonMode::lines);
  check_line_halves<jbx::JsonWriter>(text, "JSON Lines differ on two threads");
  check_line_halves<jbx::CborWriter>(
      text, "JSON Lines to CBOR differ on two threads");
  return 0;
}
