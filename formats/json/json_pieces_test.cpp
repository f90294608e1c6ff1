// The walk of a top-level array of records in pieces, every other one on a
// second thread (SimdChunking::pieces_from): the text written, and the
// error that stops it, are those of the walk in one go.
#include <boost/test/unit_test.hpp>

#include <optional>
#include <random>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "core/sink.h"
#include "core/source.h"
#include "core/transforms/fused_test_util.h"
#include "core/worker.h"
#include "formats/json/json_reader.h"
#include "formats/json/json_simd.h"
#include "formats/json/json_test_util.h"
#include "formats/json/json_writer.h"

namespace {

using jbx::JsonMode;
using jbx::JsonReader;
using jbx::JsonWriter;
using jbx::SimdChunking;
using jbx::StringSink;
using jbx::WriteOptions;
using jbx::transforms::FusedFeatures;
using jbx::transforms::KeyCase;
using jbx::transforms::NullPolicy;
using jbx::transforms::testing::Features;

// Small chunks and pieces, so that a document of a few dozen KiB makes
// many of each, from the first item on. With a trial, the walk first reads
// `trial` bytes alone, the next chunk indexed ahead, then as many in
// pieces, and goes on in pieces if they were faster (which the test cannot
// tell).
SimdChunking pieces(std::size_t piece, std::size_t trial = 0) {
  SimdChunking c;
  c.chunk = 1024;
  c.from = 0;
  c.min_tokens = 4;
  c.ahead_from = 0;
  c.text_ahead_from = 0;
  c.pieces_from = 0;
  c.piece = piece;
  c.pieces_trial = trial;
  return c;
}

// Pieces go apart only when the process may run on two CPUs.
bool two_cpus() { return jbx::Worker::useful(); }

// The same walk in one go (the next chunk indexed ahead).
SimdChunking whole() {
  SimdChunking c = pieces(0);
  c.pieces_from = SIZE_MAX;
  return c;
}

struct Written {
  std::string text;   // what was written, up to an error
  std::string error;  // "CODE at OFFSET: message", or ""
  std::uint64_t pieces = 0;
};

// Reads `json` into a JSON writer with options `o`, behind the fused
// features `f` when given. from_file: a file read front to back, whose
// chunks the walk reads through the file.
Written write(const std::string& json, const WriteOptions& o,
              const std::optional<Features>& f, const SimdChunking& chunks,
              bool from_file = false) {
  jbx::testing::TestInput in(json, from_file);
  JsonReader reader(in.source(), jbx::ReadOptions(), JsonMode::single);
  reader.set_simd_chunking(chunks);
  StringSink sink;
  JsonWriter w(sink, o);
  std::optional<FusedFeatures<JsonWriter>> fused;
  if (f) fused.emplace(w, jbx::transforms::testing::options(*f));
  jbx::Handler& h = fused ? static_cast<jbx::Handler&>(*fused) : w;
  Written out;
  try {
    while (reader.read_document(h)) {
    }
    w.finish();
  } catch (const jbx::Error& e) {
    out.error = fmt::format("{} at {}: {}", jbx::errc_name(e.code),
                            e.offset.value_or(~std::uint64_t{0}), e.message);
  }
  out.text = std::string(sink.data());
  out.pieces = reader.pieces_apart();
  return out;
}

// Records as a service writes them, with what makes a piece's start
// likely in the wrong place: the first key, after a comma, inside strings
// and in the objects of a record's arrays.
class Records {
 public:
  explicit Records(unsigned seed) : rng_(seed) {}

  // An array of `n` records; `pretty` lays it out with line breaks and
  // indentation, else with odd whitespace or none.
  std::string array(int n, bool pretty) {
    pretty_ = pretty;
    std::string s = "[";
    for (int i = 0; i < n; ++i) {
      if (i > 0) s += ',';
      s += space(1);
      record(s, 1);
    }
    s += space(0);
    s += "]";
    return s;
  }

 private:
  std::string space(int depth) {
    if (pretty_)
      return "\n" + std::string(static_cast<std::size_t>(depth) * 2, ' ');
    static const char* const kOdd[] = {"", "", "", " ", "\t", "\r\n", " \n "};
    return kOdd[pick(7)];
  }
  unsigned pick(unsigned n) { return static_cast<unsigned>(rng_() % n); }

  void record(std::string& s, int depth) {
    s += "{" + space(depth + 1) + "\"id\":" + std::to_string(rng_() % 100000);
    const unsigned members = 2 + pick(6);
    for (unsigned m = 0; m < members; ++m) {
      s += "," + space(depth + 1);
      member(s, depth + 1);
    }
    s += space(depth) + "}";
  }

  void member(std::string& s, int depth) {
    switch (pick(9)) {
      case 0:
        s += "\"userName\":\"" + word() + "\"";
        break;
      case 1:
        // The record's start inside a string.
        s += R"("note":"a,{\"id\":1},\n[{\"id\":2}")";
        break;
      case 2:
        s += "\"createdAt\":\"2024-0" + std::to_string(1 + pick(9)) + "-1" +
             std::to_string(pick(10)) + "T08:3" + std::to_string(pick(10)) +
             ":00.5+02:00\"";
        break;
      case 3:
        s += "\"paidAt\":null";
        break;
      case 4:
        s += "\"amount\":" + std::to_string(pick(1000)) + "." +
             std::to_string(pick(100)) + (pick(2) ? "e3" : "");
        break;
      case 5:
        s += "\"big_count\":12345678901234567890123";
        break;
      case 6:
        // Objects that start as the records do, one level deeper.
        s += "\"items\":[";
        for (unsigned k = 0, n = pick(4); k < n; ++k) {
          if (k > 0) s += ",";
          s += space(depth + 1);
          s += "{\"id\":" + std::to_string(k) + ",\"sku\":\"" + word() + "\"}";
        }
        s += "]";
        break;
      case 7:
        s += "\"tags\":[" + std::string(pick(2) ? "null," : "") + "\"\\u00e9" +
             word() + "\",true,[]]";
        break;
      default:
        s += "\"Nested Thing\":{\"a-b\":" +
             std::string(pick(2) ? "null" : "{}") + "}";
        break;
    }
  }

  std::string word() {
    // (JSON text: the second is b,{"id" escaped.)
    static const char* const kWords[] = {
        "alpha", "b,{\\\"id\\\"", "grün", "x y", "", "]"};
    return kWords[pick(6)];
  }

  std::mt19937 rng_;
  bool pretty_ = false;
};

std::vector<WriteOptions> writer_options() {
  std::vector<WriteOptions> all(6);
  all[1].compact = true;
  all[2].tab = true;
  all[3].color = true;
  all[4].ascii = true;
  all[4].indent = 4;
  all[5].lines = true;
  return all;
}

std::vector<std::optional<Features>> feature_sets() {
  std::vector<std::optional<Features>> all;
  all.emplace_back();  // the writer alone
  Features f;
  f.nulls = NullPolicy::drop;
  f.key_case = KeyCase::snake;
  f.date_fields = {"$[*].createdAt", "$[*].paidAt"};
  f.date_format = "yyyy-MM-dd HH:mm:ss";
  all.emplace_back(f);
  Features g;
  g.nulls = NullPolicy::drop_all;
  g.bigint_as_string = true;
  g.decimals = jbx::transforms::DecimalStyle::plain;
  g.date_fields = {"$..createdAt"};
  all.emplace_back(g);
  Features k;
  k.key_case = KeyCase::kebab;
  all.emplace_back(k);
  return all;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json_pieces)

BOOST_AUTO_TEST_CASE(the_text_is_that_of_the_whole_walk) {
  Records gen(2026);
  std::uint64_t apart = 0;
  int runs = 0;
  for (int doc = 0; doc < 6; ++doc) {
    const std::string json = gen.array(300 + doc * 40, doc % 2 == 0);
    for (const WriteOptions& o : writer_options()) {
      for (const auto& f : feature_sets()) {
        const Written one = write(json, o, f, whole());
        BOOST_TEST_REQUIRE(one.error == "");
        for (const std::size_t piece : {2048, 7000}) {
          for (const bool from_file : {false, true}) {
            const Written split = write(json, o, f, pieces(piece), from_file);
            BOOST_TEST(split.error == "");
            BOOST_TEST(split.text == one.text, "doc " << doc << " piece "
                                                      << piece << " file "
                                                      << from_file);
            apart += split.pieces;
            ++runs;
          }
        }
        // A trial of the walk alone, then in pieces, then either.
        const Written tried = write(json, o, f, pieces(2048, 8192), true);
        BOOST_TEST(tried.error == "");
        BOOST_TEST(tried.text == one.text, "doc " << doc << " after a trial");
      }
    }
  }
  // Most pieces are kept: a piece is a few KiB of a document of 30 to
  // 120 KiB.
  if (two_cpus()) BOOST_TEST(apart > static_cast<std::uint64_t>(runs) * 3);
}

BOOST_AUTO_TEST_CASE(an_error_is_reported_where_it_is) {
  Records gen(7);
  const std::string json = gen.array(400, true);
  const std::size_t late = json.size() * 3 / 4;
  // The text of a record late in the document, from its start.
  const std::size_t at = json.find("{\n    \"id\"", late);
  BOOST_TEST_REQUIRE(at != std::string::npos);
  const std::vector<std::pair<std::string, std::string>> breaks = {
      {"a bad token", "{\n    \"id\":01"},
      {"invalid UTF-8", "{\n    \"id\":\"\xC3\x28\","},
      {"a date that is not one", "{\n    \"createdAt\":\"soon\","},
      {"two keys that collide", "{\n    \"aB\":1,\"a_b\":2,"},
      {"an unclosed array", "{\n    \"id\":[1,"},
  };
  Features f;
  f.key_case = KeyCase::snake;
  f.date_fields = {"$[*].createdAt"};
  f.date_format = "millis";
  for (const auto& [what, text] : breaks) {
    std::string bad = json;
    bad.replace(at, 9, text);
    const Written one = write(bad, WriteOptions(), f, whole());
    BOOST_TEST_REQUIRE(one.error != "", what);
    for (const bool from_file : {false, true}) {
      const Written split =
          write(bad, WriteOptions(), f, pieces(2048), from_file);
      BOOST_TEST(split.error == one.error, what);
      // Pieces before the error were kept.
      if (two_cpus()) BOOST_TEST(split.pieces > 5, what);
    }
  }
}

BOOST_AUTO_TEST_CASE(an_error_names_its_item_by_its_index) {
  // Records whose dates all take the fast way but one, late: the walk
  // counts the items of the pieces kept before it (the worker's), so the
  // path in the error holds the item's index.
  for (const int bad : {251, 398}) {
    std::string json = "[";
    for (int i = 0; i < 400; ++i) {
      if (i > 0) json += ",\n";
      json += fmt::format(R"({{"id":{},"createdAt":"{}","note":"{:>40}"}})", i,
                          i == bad ? "soon" : "2024-01-10T23:30:00.5+08:00", i);
    }
    json += "]";
    Features f;
    f.nulls = NullPolicy::drop;
    f.date_fields = {"$[*].createdAt"};
    f.date_format = "yyyy-MM-dd HH:mm:ss";
    const Written one = write(json, WriteOptions(), f, whole());
    BOOST_TEST_REQUIRE(
        one.error.find(fmt::format("$[{}]", bad)) != std::string::npos,
        one.error);
    for (const bool from_file : {false, true}) {
      const Written split =
          write(json, WriteOptions(), f, pieces(2048), from_file);
      BOOST_TEST(split.error == one.error);
      BOOST_TEST(split.text == one.text);
      if (two_cpus()) BOOST_TEST(split.pieces > 5);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_rule_on_an_item_index_keeps_the_walk_whole) {
  Records gen(11);
  const std::string json = gen.array(300, true);
  Features f;
  f.date_fields = {"$[250].createdAt"};
  f.date_format = "millis";
  f.keep_errors = true;
  const Written one = write(json, WriteOptions(), f, whole());
  const Written split = write(json, WriteOptions(), f, pieces(2048));
  BOOST_TEST(split.text == one.text);
  BOOST_TEST(split.pieces == 0u);
  // The same rule on every item lets pieces go apart.
  f.date_fields = {"$[*].createdAt"};
  if (two_cpus()) {
    BOOST_TEST(write(json, WriteOptions(), f, pieces(2048)).pieces > 0u);
  }
}

BOOST_AUTO_TEST_CASE(other_documents_are_walked_whole) {
  // Arrays whose items are not objects with a key, objects, and a records
  // array followed by another document.
  const std::string numbers = "[" + std::string(20000, '1') + "," + "2]";
  std::string list = "[";
  for (int i = 0; i < 3000; ++i)
    list += (i ? ",[" : "[") + std::to_string(i) + "]";
  list += "]";
  Records gen(3);
  const std::string object = "{\"all\":" + gen.array(300, false) + "}";
  for (const std::string& json : {numbers, list, object}) {
    const Written one = write(json, WriteOptions(), std::nullopt, whole());
    const Written split =
        write(json, WriteOptions(), std::nullopt, pieces(2048));
    BOOST_TEST(split.text == one.text);
    BOOST_TEST(split.error == one.error);
    BOOST_TEST(split.pieces == 0u);
  }
}

BOOST_AUTO_TEST_CASE(what_follows_the_array_is_read_as_before) {
  // (Laid out: objects inside the records, indented deeper, never start as
  // a record does, and the pieces go apart wherever they are cut.)
  Records gen(5);
  const std::string json = gen.array(300, true);
  for (const std::string& after : {std::string(" \n"), std::string(" x"),
                                   std::string("\n[1]"), std::string(",")}) {
    const Written one =
        write(json + after, WriteOptions(), std::nullopt, whole());
    const Written split =
        write(json + after, WriteOptions(), std::nullopt, pieces(2048));
    BOOST_TEST(split.text == one.text, after);
    BOOST_TEST(split.error == one.error, after);
    if (two_cpus()) BOOST_TEST(split.pieces > 0u, after);
  }
}

BOOST_AUTO_TEST_SUITE_END()
