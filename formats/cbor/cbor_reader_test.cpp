#include "formats/cbor/cbor_reader.h"

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <vector>

#include "core/sink.h"
#include "core/transforms/fused_test_util.h"
#include "formats/cbor/cbor_test_util.h"
#include "formats/json/json_fused.h"
#include "formats/json/json_writer.h"

using jbx::cbor::test::read_all;
using jbx::cbor::test::read_error;
using jbx::cbor::test::unhex;

namespace {

std::string file(const std::string& rel) {
  std::ifstream in(std::string(JBX_SHARED_DIR) + "/" + rel, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string deep(std::size_t n, char head, char leaf) {
  return std::string(n, head) + leaf;
}

// Stops at the first array: nothing after it may arrive.
class StopAtArray final : public jbx::cbor::test::Recorder {
 public:
  jbx::Flow begin_array() override {
    Recorder::begin_array();
    return jbx::Flow::stop;
  }
};

// Skips arrays and the member named "skip".
class Skipper final : public jbx::cbor::test::Recorder {
 public:
  jbx::Flow begin_array() override { return jbx::Flow::skip; }
  jbx::Flow key(std::string_view n) override {
    Recorder::key(n);
    return n == "skip" ? jbx::Flow::skip : jbx::Flow::visit;
  }
};

// The shortest CBOR head of `major` with argument `n`.
std::string head(int major, std::uint64_t n) {
  const auto m = static_cast<char>(major << 5);
  if (n < 24) return std::string(1, static_cast<char>(m | n));
  int bytes = n <= 0xff ? 1 : n <= 0xffff ? 2 : n <= 0xffffffffu ? 4 : 8;
  std::string h(1, static_cast<char>(m | (bytes == 1   ? 24
                                          : bytes == 2 ? 25
                                          : bytes == 4 ? 26
                                                       : 27)));
  for (int i = bytes - 1; i >= 0; --i) {
    h.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  }
  return h;
}

std::string text(std::string_view s) {
  return head(3, s.size()) + std::string(s);
}

// A top-level array of `n` records, as a large document of a database
// dump is: maps of four members whose first key is "id" (every seventh
// has a fifth member). Some records hold what a record starts with
// (a4 62 69 64) in a string and in a nested map, so that the second
// thread's guesses of where a record begins are sometimes wrong.
std::string records(int n, bool indefinite) {
  std::string out = indefinite ? std::string("\x9f") : head(4, n);
  const std::string starts = "\xa4\x62id";
  for (int i = 0; i < n; ++i) {
    out += head(5, i % 7 == 3 ? 5 : 4) + text("id") + head(0, i);
    out += text("name");
    // "\xc2\xa4" is U+00A4, whose second byte begins a map of four.
    out += i % 5 == 1 ? text(
                            "x\xc2\xa4"
                            "bid")
                      : text("record " + std::to_string(i));
    out += text("tags") + head(4, i % 3);
    for (int t = 0; t < i % 3; ++t) out += text("t" + std::to_string(t));
    out += text("more");
    switch (i % 4) {
      case 0:  // a nested record, which starts as a top-level one does
        out += starts + head(1, i) + text("a") + "\xf6" + text("b") + "\xf5" +
               text("c") + "\xfb\x40\x09\x21\xfb\x54\x44\x2d\x18";
        break;
      case 1:
        out += "\xc1" + head(0, 1700000000u + i);  // a date
        break;
      case 2:
        out += "\xc2" + head(2, 9) + '\x01' + std::string(8, '\0');  // 2^64
        break;
      default:
        out += head(2, 3) + "abc";
        break;
    }
    if (i % 7 == 3) out += text("fifth") + "\xf4";
  }
  if (indefinite) out.push_back('\xff');
  return out;
}

// Reads `bytes` into a JsonWriter; returns the text written and the error,
// if any, as "code@offset: message". `piece` 0: in one piece.
struct Converted {
  std::string text;
  std::string error;
  std::uint64_t apart = 0;
  bool operator==(const Converted& o) const {
    return text == o.text && error == o.error;
  }
  friend std::ostream& operator<<(std::ostream& out, const Converted& c) {
    return out << c.error << " after " << c.text.size() << " bytes";
  }
};
// Reads `bytes` into `h`, in front of a writer to `sink`. `pointer`: the
// error names its JSON Pointer too.
Converted read_into(const std::string& bytes, std::size_t piece,
                    jbx::Handler& h, const jbx::StringSink& sink,
                    bool pointer) {
  auto src = jbx::Source::from_memory("<input>", bytes);
  const jbx::ReadOptions ro;
  jbx::CborReader r(*src, ro);
  r.set_split(piece == 0 ? SIZE_MAX : 0, piece);
  Converted c;
  try {
    while (r.read_document(h)) {
    }
  } catch (const jbx::Error& e) {
    c.error = std::string(jbx::errc_name(e.code)) + "@" +
              (e.offset ? std::to_string(*e.offset) : "-") +
              (pointer ? " at " + e.pointer : "") + ": " + e.message;
  }
  c.text = std::string(sink.data());
  c.apart = r.pieces_apart();
  return c;
}

Converted to_json(const std::string& bytes, std::size_t piece,
                  const jbx::WriteOptions& wo = {}) {
  jbx::StringSink sink;
  jbx::JsonWriter w(sink, wo);
  return read_into(bytes, piece, w, sink, false);
}

// to_json() through the fused features in front of the writer, as
// `jbx fmt` with feature flags reads CBOR. The error names its pointer too.
// `generic`: FusedFeatures<Handler>, which the reader calls through the
// Handler interface, as it calls any transform.
Converted to_json_with(const std::string& bytes, std::size_t piece,
                       const jbx::transforms::testing::Features& f,
                       const jbx::WriteOptions& wo = {}, bool generic = false) {
  jbx::StringSink sink;
  jbx::JsonWriter w(sink, wo);
  std::unique_ptr<jbx::Handler> fused;
  if (generic) {
    fused = std::make_unique<jbx::transforms::FusedFeatures<jbx::Handler>>(
        w, jbx::transforms::testing::options(f));
  } else {
    fused = std::make_unique<jbx::transforms::FusedFeatures<jbx::JsonWriter>>(
        w, jbx::transforms::testing::options(f));
  }
  return read_into(bytes, piece, *fused, sink, true);
}

// `n` order records (id, a date, a remark that is null every other time,
// an item list), the date of record `bad` not one.
std::string dated_records(int n, int bad = -1) {
  std::string out = head(4, n);
  for (int i = 0; i < n; ++i) {
    out += head(5, 4) + text("id") + head(0, i);
    out += text("createdAt");
    out += i == bad ? text("yesterday")
                    : text("2024-0" + std::to_string(i % 9 + 1) + "-1" +
                           std::to_string(i % 10) + "T23:30:0" +
                           std::to_string(i % 10) + ".5+08:00");
    out += text("remarkText") + (i % 2 == 0 ? std::string("\xf6") : text("ok"));
    out += text("lineItems") + head(4, i % 3);
    for (int k = 0; k < i % 3; ++k) {
      out += head(5, 2) + text("skuId") + head(0, k) + text("unitPrice") +
             (k == 1 ? std::string("\xf6") : head(0, 100 + i));
    }
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cbor_reader)

BOOST_AUTO_TEST_CASE(reads_a_large_array_into_the_features_in_pieces) {
  // Each piece has features of its own (items apart): the same text as
  // one pass, in pretty and compact form.
  jbx::transforms::testing::Features f;
  f.date_fields = {"$[*].createdAt"};
  f.date_format = "yyyy-MM-dd HH:mm:ss";
  f.nulls = jbx::transforms::NullPolicy::drop;
  f.key_case = jbx::transforms::KeyCase::snake;
  jbx::WriteOptions pretty;
  jbx::WriteOptions compact;
  compact.compact = true;
  const std::string doc = dated_records(500) + "\x01";
  for (const auto* wo : {&pretty, &compact}) {
    const Converted whole = to_json_with(doc, 0, f, *wo);
    BOOST_TEST_REQUIRE(whole.error == "");
    const std::string date = wo->compact
                                 ? R"("created_at":"2024-01-10 15:30:00")"
                                 : R"("created_at": "2024-01-10 15:30:00")";
    BOOST_TEST(whole.text.find(date) != std::string::npos);
    BOOST_TEST(whole.text.find("remark") != std::string::npos);
    BOOST_TEST(whole.text.find("null") == std::string::npos);
    BOOST_TEST(whole.apart == 0u);
    for (const std::size_t piece : {200, 1000, 3000}) {
      const Converted pieces = to_json_with(doc, piece, f, *wo);
      BOOST_TEST(pieces.text == whole.text, "piece " << piece);
      BOOST_TEST(pieces.error == "");
      BOOST_TEST(pieces.apart > doc.size() / piece / 4, "piece " << piece);
    }
  }
  // A rule that selects items by index keeps the array in one pass.
  jbx::transforms::testing::Features indexed = f;
  indexed.date_fields = {"$[7].createdAt"};
  const Converted one = to_json_with(doc, 0, indexed, compact);
  const Converted apart = to_json_with(doc, 300, indexed, compact);
  BOOST_TEST(apart == one);
  BOOST_TEST(apart.apart == 0u);
}

BOOST_AUTO_TEST_CASE(
    the_features_called_directly_give_what_they_give_behind_the_interface) {
  // Called directly, the features take escape-free keys as the JSON
  // reader gives them, with their value's first byte (plain_key()), and
  // escape-free strings as such: the same text and errors as through the
  // Handler interface, for every kind of value (RFC 8949 Appendix A) as a
  // member, nested, and as an element; keys near the end of the input,
  // where too little can be read past them, go the other way.
  std::vector<std::string> values;
  for (const char* hex : {"00",
                          "17",
                          "1818",
                          "1b000000e8d4a51000",
                          "20",
                          "3bffffffffffffffff",
                          "c249010000000000000000",
                          "f90000",
                          "f98000",
                          "f93c00",
                          "fb3ff199999999999a",
                          "f97c00",
                          "f97e00",
                          "fa7fc00000",
                          "f4",
                          "f5",
                          "f6",
                          "f7",
                          "f0",
                          "f8ff",
                          "c074323031332d30332d32315432303a30343a30305a",
                          "c11a514b67b0",
                          "d74401020304",
                          "40",
                          "4401020304",
                          "60",
                          "6161",
                          "62c3bc",
                          "63e6b0b4",
                          "80",
                          "83010203",
                          "a0",
                          "a201020304",
                          "a26161016162820203",
                          "5f42010243030405ff",
                          "7f657374726561646d696e67ff",
                          "9fff",
                          "9f018202039f0405ffff",
                          "bf61610161629f0203ffff",
                          "6a4e6f6e65206865726521",
                          "6b6e65656473205c2071756f7465",
                          "c48221196ab3",
                          "c11bffffffffffffffff"}) {
    values.push_back(unhex(hex));
  }
  std::string doc = head(4, values.size() * 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    doc += head(5, 5) + text("id") + head(0, i) + text("someValue") +
           values[i] + text("maybeNull") + "\xf6" + text("nestedMap") +
           head(5, 2) + text("innerKey") + values[i] + text("UPPER_key") +
           head(4, 1) + values[i] + text("createdAt") +
           (i % 2 == 0 ? text("2024-03-10T01:30:00-05:00") : values[i]);
    doc += values[i];
  }
  const auto sets = jbx::transforms::testing::record_feature_sets();
  jbx::WriteOptions compact;
  compact.compact = true;
  for (std::size_t k = 0; k < sets.size(); ++k) {
    for (const std::size_t cut :
         {doc.size(), doc.size() - 1, doc.size() * 2 / 3, std::size_t{40}}) {
      const std::string in = doc.substr(0, cut);
      const Converted direct = to_json_with(in, 0, sets[k], compact);
      const Converted generic = to_json_with(in, 0, sets[k], compact, true);
      BOOST_TEST(direct.text == generic.text, "set " << k << " cut " << cut);
      BOOST_TEST(direct.error == generic.error, "set " << k << " cut " << cut);
    }
  }
}

BOOST_AUTO_TEST_CASE(an_error_in_a_piece_of_the_features_is_read_in_turn) {
  // A date that is none, late in the array: a piece that meets it is
  // dropped and read by the first thread, which knows the item's index.
  jbx::transforms::testing::Features f;
  f.date_fields = {"$[*].createdAt"};
  f.date_format = "yyyy-MM-dd HH:mm:ss";
  f.nulls = jbx::transforms::NullPolicy::drop;
  jbx::WriteOptions compact;
  compact.compact = true;
  for (const int bad : {1, 333, 499}) {
    const std::string doc = dated_records(500, bad);
    const Converted whole = to_json_with(doc, 0, f, compact);
    BOOST_TEST_REQUIRE(!whole.error.empty());
    BOOST_TEST(whole.error.find("/" + std::to_string(bad) + "/createdAt") !=
                   std::string::npos,
               whole.error);
    for (const std::size_t piece : {200, 1000}) {
      const Converted got = to_json_with(doc, piece, f, compact);
      BOOST_TEST(got.error == whole.error);
      BOOST_TEST(got.text.size() == whole.text.size());
      BOOST_TEST(got == whole, "bad " << bad << ", piece " << piece);
    }
  }
  // Every cut of a smaller array: the same text and error in pieces.
  const std::string doc = dated_records(40);
  for (std::size_t at = 0; at < doc.size(); at += 3) {
    const std::string cut = doc.substr(0, at);
    BOOST_TEST(
        to_json_with(cut, 100, f, compact) == to_json_with(cut, 0, f, compact),
        "cut at " << at);
  }
}

namespace {

// The JSON Pointer of the error reading `hex`.
std::string pointer_of(const std::string& hex) {
  try {
    jbx::cbor::test::read_all(unhex(hex));
  } catch (const jbx::Error& e) {
    return e.pointer;
  }
  return "no error";
}

}  // namespace

BOOST_AUTO_TEST_CASE(errors_name_the_value_by_its_pointer) {
  // In an element, in a member's value, in a tagged value.
  BOOST_TEST(pointer_of("82 01 a1 6161 f8 01") == "/1/a");
  BOOST_TEST(pointer_of("a1 6161 82 01 c1 49") == "/a/1");
  BOOST_TEST(pointer_of("82 6161 63 61c328") == "/1");
  // Keys: integers as their decimal text, escaped per RFC 6901.
  BOOST_TEST(pointer_of("a1 20 a1 62 612f 81 1c") == "/-1/a~1/0");
  BOOST_TEST(pointer_of("a1 1903e8 a1 627e31 f8 01") == "/1000/~01");
  // In a key, or the value of one that is no text or integer: the map.
  BOOST_TEST(pointer_of("81 a2 6161 01 63 c32841 01") == "/0");
  BOOST_TEST(pointer_of("a1 81 01 f8 01") == "");
  // Indefinite lengths, and a break where an item must be.
  BOOST_TEST(pointer_of("9f 01 a1 01 7f 6161 ff 5f") == "/2");
  BOOST_TEST(pointer_of("a1 6161 81 ff") == "/a/0");
  BOOST_TEST(pointer_of("bf 6161 9f 01 02 ff 6162 1c ff") == "/b");
  // The input cut short: between items, the container; after a key, the
  // member whose value is missing; inside a value, that value.
  BOOST_TEST(pointer_of("a2 6161 83 01 02") == "/a");
  BOOST_TEST(pointer_of("a2 6161 01 6162") == "/b");
  BOOST_TEST(pointer_of("82 01 65 6162") == "/1");
  // A container's head that claims more than the input: the container.
  BOOST_TEST(pointer_of("a1 6162 a2 6161 01") == "/b");
  // Nothing open: no pointer.
  BOOST_TEST(pointer_of("81 01 ff") == "");
  BOOST_TEST(pointer_of("1c") == "");
}

BOOST_AUTO_TEST_CASE(reads_integers_in_every_width) {
  BOOST_TEST(
      read_all(unhex("00 17 1818 190100 1a00010000 1b0000000100000000")) ==
      "i:0 $ i:23 $ i:24 $ i:256 $ i:65536 $ i:4294967296 $");
  BOOST_TEST(read_all(unhex("20 3863 3bffffffffffffffff")) ==
             "i:-1 $ i:-100 $ n:-18446744073709551616 $");
  BOOST_TEST(read_all(unhex("1bffffffffffffffff 1b7fffffffffffffff")) ==
             "u:18446744073709551615 $ i:9223372036854775807 $");
  BOOST_TEST(read_all(unhex("3b7fffffffffffffff")) ==
             "i:-9223372036854775808 $");
}

BOOST_AUTO_TEST_CASE(reads_half_single_and_double_floats_exactly) {
  BOOST_TEST(
      read_all(unhex("f93c00 f97bff f90001 f9c400 fa47c35000 "
                     "fb3ff199999999999a")) ==
      "d:1 $ d:65504 $ d:5.960464477539063e-08 $ d:-4 $ d:1e+05 $ d:1.1 $");
  // float16 subnormal 2^-24 widens exactly to 5.960464477539063e-08.
  const auto v = jbx::cbor::test::read_values(unhex("f90001"));
  BOOST_TEST(v[0].d == 5.9604644775390625e-08);
  BOOST_TEST(read_all(unhex("f97c00 f9fc00 fa7f800000")) ==
             "d:inf $ d:-inf $ d:inf $");
  BOOST_TEST(read_all(unhex("f97e00")) == "d:nan $");
}

BOOST_AUTO_TEST_CASE(reads_simple_values) {
  BOOST_TEST(read_all(unhex("f4 f5 f6 f7 f0 f8ff")) ==
             "false $ true $ null $ null $ null $ null $");
}

BOOST_AUTO_TEST_CASE(reads_strings_and_byte_strings) {
  BOOST_TEST(read_all(unhex("60 6449455446 62c3bc 4401020304 40")) ==
             "s: $ s:IETF $ s:\xc3\xbc $ b:01020304 $ b: $");
}

BOOST_AUTO_TEST_CASE(joins_indefinite_length_chunks) {
  BOOST_TEST(read_all(unhex("5f42010243030405ff 7f657374726561646d696e67ff")) ==
             "b:0102030405 $ s:streaming $");
  BOOST_TEST(read_all(unhex("9f018202039f0405ffff bf61610161629f0203ffff")) ==
             "[ i:1 [ i:2 i:3 ] [ i:4 i:5 ] ] $ { k:a i:1 k:b [ i:2 i:3 ] } $");
}

BOOST_AUTO_TEST_CASE(reads_bignums_as_exact_text) {
  BOOST_TEST(read_all(unhex("c249010000000000000000")) ==
             "n:18446744073709551616 $");
  BOOST_TEST(read_all(unhex("c349010000000000000000")) ==
             "n:-18446744073709551617 $");
  BOOST_TEST(read_all(unhex("c24101 c240 c34100")) == "n:1 $ n:0 $ n:-1 $");
  // 2^128, through the multi-limb conversion.
  BOOST_TEST(read_all(unhex("c25101" + std::string(32, '0'))) ==
             "n:340282366920938463463374607431768211456 $");
}

BOOST_AUTO_TEST_CASE(reads_decimal_fractions_exactly) {
  BOOST_TEST(read_all(unhex("c48221196ab3")) == "n:273.15 $");
  BOOST_TEST(read_all(unhex("c482231901f4")) == "n:0.0500 $");
  BOOST_TEST(read_all(unhex("c4820205")) == "n:500 $");
  // 10^-100: beyond 64 zeros, exponent notation keeps the text short.
  BOOST_TEST(read_all(unhex("c4823863c24101")) == "n:1e-100 $");
  BOOST_TEST(read_all(unhex("c482382220")) ==
             "n:-0.00000000000000000000000000000000001 $");
  BOOST_TEST(read_all(unhex("c4821b7fffffffffffffff01")) ==
             "n:1e9223372036854775807 $");
  BOOST_TEST(read_all(unhex("c49f21196ab3ff")) == "n:273.15 $");
}

BOOST_AUTO_TEST_CASE(reads_bigfloats_as_finite_decimals) {
  BOOST_TEST(read_all(unhex("c5822003")) == "n:1.5 $");
  BOOST_TEST(read_all(unhex("c5820a21")) == "n:-2048 $");
  // 1 * 2^-1074, the smallest double, exactly (751 significant digits).
  const std::string tiny = read_all(unhex("c582390431 01"));
  BOOST_TEST(tiny.substr(0, 8) == "n:0.0000");
  BOOST_TEST(tiny.substr(4 + 323, 12) == "494065645841");
  BOOST_TEST(tiny.size() == 2 + 2 + 1074 + 2);
  BOOST_TEST(read_error(unhex("c5821a0000400101")) ==
             "unsupported@1: bigfloat exponent 16385 is beyond +-16384");
}

BOOST_AUTO_TEST_CASE(reads_date_tags_as_timestamps) {
  // 0("2013-03-21T20:04:00Z") and 1(1363896240), RFC 8949 appendix A.
  BOOST_TEST(read_all(unhex("c074323031332d30332d32315432303a30343a30305a")) ==
             "t:0,1363896240,0,0 $");
  BOOST_TEST(read_all(unhex("c11a514b67b0")) == "t:0,1363896240,0 $");
  BOOST_TEST(read_all(unhex("c1fb41d452d9ec200000")) ==
             "t:0,1363896240,500000000 $");
  BOOST_TEST(read_all(unhex("c0781c") + "2013-03-21T22:04:00.25+02:00") ==
             "t:0,1363896240,250000000,7200 $");
  BOOST_TEST(read_all(unhex("d903ec6a") + "2024-02-29") ==
             "t:2,1709164800,0 $");
  BOOST_TEST(read_all(unhex("d8641901f4")) == "t:2,43200000,0 $");
  BOOST_TEST(read_error(unhex("c06a") + "2013-02-30") ==
             "syntax@1: invalid RFC 3339 date-time in tag 0");
  BOOST_TEST(read_error(unhex("c001")) ==
             "type_mismatch@1: tag 0 expects a text string");
  BOOST_TEST(read_error(unhex("c1f97e00")) ==
             "unsupported@1: epoch time in tag 1 is out of range");
}

BOOST_AUTO_TEST_CASE(keeps_unknown_tags_as_annotations) {
  BOOST_TEST(read_all(unhex("c64101")) == "@6 b:01 $");
  BOOST_TEST(read_all(unhex("d9d9f7d818456449455446")) == "@24 b:6449455446 $");
  // 32 (URI) and 21-23 already mean their content.
  BOOST_TEST(
      read_all(unhex("d82076687474703a2f2f7777772e6578616d706c652e636f6d")) ==
      "s:http://www.example.com $");
  BOOST_TEST(read_all(unhex("d74401020304")) == "b:01020304 $");
  // Tag 27 [name, value] carries a type name.
  BOOST_TEST(read_all(unhex("d81b826450657273a0")) == "@type:Pers { } $");
  BOOST_TEST(read_all(unhex("d81b83010203")) == "@27 [ i:1 i:2 i:3 ] $");
}

BOOST_AUTO_TEST_CASE(writes_non_string_keys_as_json_text) {
  BOOST_TEST(read_all(unhex("a4 0102 f5f4 820102f6 f93e00f6")) ==
             "{ k:1 i:2 k:true false k:[1,2] null k:1.5 null } $");
  BOOST_TEST(read_all(unhex("a2 a1616101f6 4201 02f6")) ==
             "{ k:{\"a\":1} null k:AQI= null } $");
}

BOOST_AUTO_TEST_CASE(refuses_keys_whose_text_outgrows_their_encoding) {
  // Maps as keys of maps as keys...: each level escapes the text of the
  // one inside again, doubling its backslashes. Found by fuzz_cbor: 2 kB
  // of input asked for 3 GB.
  std::string key = unhex("a1 6122 00");  // {"\"": 0}
  BOOST_TEST(read_all(unhex("a1") + key + unhex("00")) ==
             "{ k:{\"\\\"\":0} i:0 } $");
  for (int i = 0; i < 40; ++i) key = "\xa1" + key + std::string(1, '\0');
  // The 9th level (20 bytes from offset 32) would be 1570 bytes of text.
  BOOST_TEST(read_error(key) ==
             "unsupported@32: map key of 20 bytes renders as 1570 bytes of "
             "JSON text, beyond the limit");
}

BOOST_AUTO_TEST_CASE(refuses_non_string_keys_when_asked) {
  jbx::ReadOptions o;
  o.keys_error = true;
  BOOST_TEST(read_error(unhex("a2 616101 0102"), o) ==
             "type_mismatch@4: map key must be a text string, found "
             "unsigned integer");
  BOOST_TEST(read_all(unhex("a1616101"), o) == "{ k:a i:1 } $");
}

BOOST_AUTO_TEST_CASE(reads_a_sequence_one_document_at_a_time) {
  auto src = jbx::Source::from_memory("<input>", unhex("01 8102 a0"));
  const jbx::ReadOptions o;
  jbx::CborReader r(*src, o);
  jbx::cbor::test::Recorder rec;
  BOOST_TEST(r.read_document(rec));
  BOOST_TEST(rec.log == "i:1 $");
  BOOST_TEST(r.offset() == 1u);
  BOOST_TEST(r.read_document(rec));
  BOOST_TEST(r.read_document(rec));
  BOOST_TEST(!r.read_document(rec));
  BOOST_TEST(rec.log == "i:1 $ [ i:2 ] $ { } $");
  BOOST_TEST(read_all("") == "");
}

BOOST_AUTO_TEST_CASE(honours_skip_and_stop) {
  {
    auto src = jbx::Source::from_memory(
        "<input>", unhex("a4 6161 820203 6162 05 64736b6970"
                         "a1617801 6163 6178 02"));
    const jbx::ReadOptions o;
    jbx::CborReader r(*src, o);
    Skipper s;
    while (r.read_document(s)) {
    }
    BOOST_TEST(s.log == "{ k:a k:b i:5 k:skip k:c s:x } $ i:2 $");
  }
  {
    auto src =
        jbx::Source::from_memory("<input>", unhex("a2616101616282010207"));
    const jbx::ReadOptions o;
    jbx::CborReader r(*src, o);
    StopAtArray s;
    BOOST_TEST(r.read_document(s));
    BOOST_TEST(r.read_document(s));
    BOOST_TEST(s.log == "{ k:a i:1 k:b [ $ i:7 $");
  }
}

BOOST_AUTO_TEST_CASE(reads_a_large_array_in_pieces_as_in_one) {
  jbx::WriteOptions pretty;
  jbx::WriteOptions compact;
  compact.compact = true;
  for (const bool indefinite : {false, true}) {
    // The array, then another document after it.
    const std::string doc = records(400, indefinite) + "\x01";
    for (const auto* wo : {&pretty, &compact}) {
      const Converted whole = to_json(doc, 0, *wo);
      BOOST_TEST_REQUIRE(whole.error == "");
      for (const std::size_t piece : {64, 300, 1000}) {
        const Converted pieces = to_json(doc, piece, *wo);
        BOOST_TEST(pieces.text == whole.text);
        BOOST_TEST(pieces.error == "");
        BOOST_TEST(pieces.apart > doc.size() / piece / 4);
      }
    }
    // A value the writer refuses, late in the array: the same text before
    // it, the same error.
    std::string nan = doc;
    const std::size_t at = nan.find(text("record 300"));
    BOOST_TEST_REQUIRE(at != std::string::npos);
    nan.replace(at, 11, "\xf9\x7e\x00");  // a float16 NaN for the name
    const Converted whole = to_json(nan, 0, compact);
    BOOST_TEST(whole.error.starts_with("lossy@"));
    BOOST_TEST(to_json(nan, 300, compact) == whole);
  }
}

BOOST_AUTO_TEST_CASE(reads_a_broken_array_in_pieces_as_in_one) {
  // Every cut and every byte changed to one of a few values gives the same
  // text and the same error in pieces as in one: a piece is kept only
  // where it starts at a record, and its error only in its turn.
  jbx::WriteOptions o;
  o.compact = true;
  for (const bool indefinite : {false, true}) {
    const std::string doc = records(24, indefinite);
    std::size_t apart = 0;
    for (std::size_t at = 0; at < doc.size(); ++at) {
      const std::string cut = doc.substr(0, at);
      BOOST_TEST(to_json(cut, 48, o) == to_json(cut, 0, o), "cut at " << at);
      for (const char c : {'\x00', '\xff', '\xa4', '\x7f', '\x1b'}) {
        std::string bad = doc;
        if (bad[at] == c) continue;
        bad[at] = c;
        const Converted pieces = to_json(bad, 48, o);
        BOOST_TEST(pieces == to_json(bad, 0, o),
                   "byte " << at << " changed to " << int{c});
        apart += pieces.apart;
      }
    }
    BOOST_TEST(apart > doc.size());
  }
}

// ---- errors ----

BOOST_AUTO_TEST_CASE(rejects_truncated_float32) {
  // float32 cut after 2 of 4 bytes; the input ends at byte offset 3.
  BOOST_TEST(read_error(unhex("fa 3f 80")) ==
             "unexpected_end@3: unexpected end of input in float32");
  BOOST_TEST(read_error(unhex("f9 3f")) ==
             "unexpected_end@2: unexpected end of input in float16");
  BOOST_TEST(read_error(unhex("19 01")) ==
             "unexpected_end@2: unexpected end of input in unsigned integer");
  BOOST_TEST(read_error(unhex("82 81 01")) ==
             "unexpected_end@3: unexpected end of input in array");
  BOOST_TEST(read_error(unhex("83 01 02")) ==
             "unexpected_end@0: array of 3 items exceeds the input (2 bytes "
             "left)");
  BOOST_TEST(read_error(unhex("a1 61 61")) ==
             "unexpected_end@3: unexpected end of input in map");
  BOOST_TEST(read_error(unhex("9f 01")) ==
             "unexpected_end@2: unexpected end of input in array");
  BOOST_TEST(read_error(unhex("c6")) ==
             "unexpected_end@1: unexpected end of input in tag");
  BOOST_TEST(read_error(unhex("64 61 62")) ==
             "unexpected_end@0: text string of 4 bytes exceeds the input (2 "
             "bytes left)");
}

BOOST_AUTO_TEST_CASE(rejects_every_truncation_of_real_documents) {
  const char* const kDocs[] = {
      "conformance/nlohmann-test-data/json.org/1.json.cbor",
      "conformance/nlohmann-test-data/json.org/4.json.cbor",
      "conformance/nlohmann-test-data/json_tests/pass1.json.cbor",
      "conformance/nlohmann-test-data/json.org/3.json.cbor",
  };
  // Plus one of jbx's own with every tag the writer produces.
  std::vector<std::string> docs;
  for (const char* d : kDocs) docs.push_back(file(d));
  docs.push_back(unhex(
      "a56161c249010000000000000000616282c48221196ab3c074323031332d30332d3231"
      "5432303a30343a30305a6163d81b8264547970659f5f4101ff7f6161ffff6164fb3ff8"
      "000000000000616581d903ec6a323032342d30322d3239"));
  for (const std::string& doc : docs) {
    BOOST_TEST_REQUIRE(doc.size() > 20u);
    BOOST_TEST(read_error(doc) == "no error");
    for (std::size_t cut = 1; cut < doc.size(); ++cut) {
      try {
        read_all(doc.substr(0, cut));
        BOOST_ERROR("no error at cut " << cut);
      } catch (const jbx::Error& e) {
        BOOST_TEST(static_cast<int>(e.code) ==
                   static_cast<int>(jbx::Errc::unexpected_end));
        BOOST_TEST(e.binary);
        BOOST_TEST_REQUIRE(e.offset.has_value());
        BOOST_TEST(*e.offset <= cut);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_lengths_beyond_the_input_without_allocating) {
  // A byte string, array and map claiming 2^40 entries (a terabyte).
  BOOST_TEST(read_error(unhex("5b0000010000000000 00")) ==
             "unexpected_end@0: byte string of 1099511627776 bytes exceeds "
             "the input (1 bytes left)");
  BOOST_TEST(read_error(unhex("9b0000010000000000 00")) ==
             "unexpected_end@0: array of 1099511627776 items exceeds the "
             "input (1 bytes left)");
  BOOST_TEST(read_error(unhex("81 bb0000010000000000")) ==
             "unexpected_end@1: map of 1099511627776 pairs exceeds the input "
             "(0 bytes left)");
  BOOST_TEST(read_error(unhex("7b ffffffffffffffff")) ==
             "unexpected_end@0: text string of 18446744073709551615 bytes "
             "exceeds the input (0 bytes left)");
  BOOST_TEST(read_error(unhex("5f 5bffffffffffffffff ff")) ==
             "unexpected_end@1: byte string of 18446744073709551615 bytes "
             "exceeds the input (1 bytes left)");
}

BOOST_AUTO_TEST_CASE(refuses_bignums_beyond_4096_bytes) {
  // 2^32768 - 1: 4096 bytes of ff (after a leading zero, which does not
  // count), 9865 digits.
  const std::string most =
      read_all(unhex("c2 591001 00") + std::string(4096, '\xff'));
  BOOST_TEST(most.size() == 2 + 9865 + 2);
  BOOST_TEST(most.substr(0, 8) == "n:141546");
  BOOST_TEST(read_error(unhex("c3 591001 01") + std::string(4096, '\0')) ==
             "unsupported@1: bignum of 4097 bytes is longer than 4096 bytes");
  // Indefinite-length: the joined chunks count.
  BOOST_TEST(read_error(unhex("82 00 c2 5f 591000") +
                        std::string(4096, '\x01') + unhex("41 01 ff")) ==
             "unsupported@3: bignum of 4097 bytes is longer than 4096 bytes");
}

BOOST_AUTO_TEST_CASE(rejects_deep_nesting) {
  BOOST_TEST(read_error(deep(100000, '\x81', '\x00')) ==
             "depth_limit@1024: nesting deeper than 1024 levels");
  BOOST_TEST(read_error(deep(100000, '\xbf', '\x00')) ==
             "depth_limit@1024: nesting deeper than 1024 levels");
  // Tags nest like containers (a chain of tag 6).
  BOOST_TEST(read_error(deep(100000, '\xc6', '\x00')) ==
             "depth_limit@1024: nesting deeper than 1024 levels");
  jbx::ReadOptions o;
  o.max_depth = 3;
  BOOST_TEST(read_all(deep(3, '\x81', '\x00'), o) == "[ [ [ i:0 ] ] ] $");
  BOOST_TEST(read_error(deep(4, '\x81', '\x00'), o) ==
             "depth_limit@3: nesting deeper than 3 levels");
}

BOOST_AUTO_TEST_CASE(rejects_invalid_utf8_with_its_offset) {
  BOOST_TEST(read_error(unhex("82 61 61 63 61 c3 28")) ==
             "invalid_utf8@5: invalid UTF-8 in text string: byte 0x28 cannot "
             "follow 0xc3");
  // Overlong, surrogate, above U+10FFFF, lone continuation.
  BOOST_TEST(read_error(unhex("62 c0 80")) ==
             "invalid_utf8@1: invalid UTF-8 in text string: byte 0xc0 cannot "
             "start a character");
  BOOST_TEST(read_error(unhex("63 ed a0 80")) ==
             "invalid_utf8@1: invalid UTF-8 in text string: byte 0xa0 cannot "
             "follow 0xed (a UTF-16 surrogate)");
  BOOST_TEST(read_error(unhex("64 f4 90 80 80")) ==
             "invalid_utf8@1: invalid UTF-8 in text string: byte 0x90 cannot "
             "follow 0xf4 (above U+10FFFF)");
  BOOST_TEST(read_error(unhex("6a 61616161616161616180")) ==
             "invalid_utf8@10: invalid UTF-8 in text string: byte 0x80 cannot "
             "start a character");
  // A character split across chunks is invalid in each chunk.
  BOOST_TEST(read_error(unhex("7f 61c3 61bc ff")) ==
             "invalid_utf8@2: invalid UTF-8 in text string: the string ends "
             "inside 0xc3");
  // Keys too.
  BOOST_TEST(read_error(unhex("a1 61 ff 00")) ==
             "invalid_utf8@2: invalid UTF-8 in text string: byte 0xff cannot "
             "start a character");
}

BOOST_AUTO_TEST_CASE(rejects_malformed_heads) {
  BOOST_TEST(read_error(unhex("1c")) ==
             "syntax@0: invalid major type 0 with additional info 28");
  BOOST_TEST(read_error(unhex("81 fe")) ==
             "syntax@1: invalid major type 7 with additional info 30");
  BOOST_TEST(read_error(unhex("1f")) ==
             "syntax@0: invalid major type 0 with additional info 31");
  BOOST_TEST(read_error(unhex("df 00")) ==
             "syntax@0: invalid major type 6 with additional info 31");
  BOOST_TEST(read_error(unhex("ff")) == "syntax@0: unexpected break");
  BOOST_TEST(read_error(unhex("82 01 ff")) == "syntax@2: unexpected break");
  BOOST_TEST(read_error(unhex("a1 ff 00")) == "syntax@1: unexpected break");
  BOOST_TEST(read_error(unhex("bf 61 61 ff")) == "syntax@3: unexpected break");
  BOOST_TEST(read_error(unhex("5f 61 61 ff")) ==
             "syntax@1: invalid chunk in indefinite-length byte string");
  BOOST_TEST(read_error(unhex("7f 7f ff ff")) ==
             "syntax@1: invalid chunk in indefinite-length text string");
  BOOST_TEST(read_error(unhex("f8 1f")) ==
             "syntax@0: invalid simple value 31 in two-byte form");
}

BOOST_AUTO_TEST_CASE(rejects_number_tags_around_the_wrong_content) {
  BOOST_TEST(read_error(unhex("c2 01")) ==
             "type_mismatch@1: tag 2 expects a byte string");
  BOOST_TEST(read_error(unhex("c4 83 01 02 03")) ==
             "type_mismatch@1: tag 4 expects an array of an exponent and a "
             "mantissa");
  BOOST_TEST(read_error(unhex("c4 82 01 61 61")) ==
             "type_mismatch@3: tag 4 expects an array of an exponent and a "
             "mantissa");
  BOOST_TEST(read_error(unhex("c4 82 c24101 01")) ==
             "type_mismatch@2: tag 4 expects an array of an exponent and a "
             "mantissa");
}

BOOST_AUTO_TEST_CASE(rejects_the_jackson_fuzz_inputs) {
  // A 256-byte text string with 0xf7 (never valid in UTF-8) inside.
  BOOST_TEST(read_error(file("conformance/cbor/jackson-fuzz/"
                             "clusterfuzz-cbor-35979.cbor")) ==
             "invalid_utf8@258: invalid UTF-8 in text string: byte 0xf7 cannot "
             "start a character");
  BOOST_TEST(read_error(file("conformance/cbor/jackson-fuzz/"
                             "clusterfuzz-cbor-65617.cbor")) ==
             "unexpected_end@0: text string of 4292465919 bytes exceeds the "
             "input (1627 bytes left)");
}

BOOST_AUTO_TEST_CASE(sniffs_only_what_json_cannot_start_with) {
  using jbx::cbor::sniff;
  BOOST_TEST(sniff(unhex("d9d9f7 01")));
  BOOST_TEST(sniff(unhex("d9d9f7")));
  BOOST_TEST(sniff(unhex("a2 6161 01 6162 82 01 02")));
  BOOST_TEST(sniff(unhex("9f 01 02")));  // cut off: fine so far
  BOOST_TEST(sniff(unhex("c074323031332d30332d32315432303a30343a30305a")));
  BOOST_TEST(!sniff("{\"a\":1}"));
  BOOST_TEST(!sniff("[1,2]"));
  BOOST_TEST(!sniff("\xef\xbb\xbf{}"));
  BOOST_TEST(!sniff(""));
  BOOST_TEST(!sniff(unhex("01")));     // a bare integer: too little evidence
  BOOST_TEST(!sniff(unhex("81 ff")));  // break without indefinite item
  BOOST_TEST(!sniff(unhex("a1 62 c328 01")));  // invalid UTF-8
  // MessagePack {"a": -1}: fixmap, fixstr "a", negative fixint 0xff.
  BOOST_TEST(!sniff(unhex("81 a1 61 ff")));
  // MessagePack {"a": nil, "b": true}: "a" then 0xc0 reads as a text
  // string "\xc0", which is not UTF-8.
  BOOST_TEST(!sniff(unhex("82 a1 61 c0 a1 62 c3")));
  // MessagePack [nil]: 0xc0 would be tag 0 without its text string.
  BOOST_TEST(!sniff(unhex("91 c0 c3")));
  // Lengths and counts beyond the head are fine, up to what an input can
  // hold: MessagePack [7, 59, {...}] (97 07 3b de ...) reads as an array
  // holding a negative integer whose 8 bytes make a 2^63 byte string.
  BOOST_TEST(sniff(unhex("81 7b 0000000000001000 61")));
  BOOST_TEST(sniff(unhex("81 7b 0000ffffffffffff 61")));
  BOOST_TEST(!sniff(unhex("81 7b 0001000000000000 61")));
  BOOST_TEST(!sniff(unhex("81 9b 8000000000000000 01")));
  BOOST_TEST(!sniff(unhex("81 bb 8000000000000000 01")));
  BOOST_TEST(!sniff(unhex("81 5b ffffffffffffffff 01")));
}

BOOST_AUTO_TEST_CASE(sniffs_a_text_string_that_is_all_of_the_head) {
  using jbx::cbor::sniff;
  BOOST_TEST(sniff(unhex("63 616263")));                 // "abc"
  BOOST_TEST(sniff(unhex("60")));                        // ""
  BOOST_TEST(sniff(unhex("78 05 68656c6c6f")));          // one-byte length
  BOOST_TEST(sniff(unhex("7f 62 6162 61 63 ff")));       // indefinite: "abc"
  BOOST_TEST(sniff("\x78\x3e" + std::string(62, 'x')));  // the whole head
  BOOST_TEST(!sniff(unhex("63 616263 0a")));             // something after it
  BOOST_TEST(!sniff(unhex("63 6162")));                  // cut short
  BOOST_TEST(!sniff(unhex("62 c328")));                  // invalid UTF-8
  BOOST_TEST(!sniff("hello\n"));
  // Heads that start JSON text stay JSON, even when the length fits.
  BOOST_TEST(!sniff("t" + std::string(20, ' ')));  // 0x74: 20 bytes
  BOOST_TEST(!sniff("false !"));                   // 0x66: 6 bytes
  BOOST_TEST(!sniff("n" + std::string(14, ' ')));  // 0x6e: 14 bytes
  BOOST_TEST(!sniff("{\"a\":1}"));
}

BOOST_AUTO_TEST_SUITE_END()
