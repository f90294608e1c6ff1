// JSONB reader: the fastjson2 corpus, event mapping, references, and the
// reliability rules (truncation, huge lengths, depth, invalid text).
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <memory>

#include "core/sink.h"
#include "core/transforms/fused_test_util.h"
#include "formats/json/json_fused.h"
#include "formats/jsonb/jsonb_format.h"
#include "formats/jsonb/jsonb_test_util.h"

namespace {

using namespace jbx;
using namespace jbx::jsonb_test;

// The error a read of `bytes` throws (copied to an exact-size buffer so
// that the address sanitizer sees any read past the end).
Error read_error(std::string_view bytes, JsonbReadOptions jo = {},
                 ReadOptions o = {}) {
  const std::unique_ptr<char[]> buf(new char[bytes.size() + 1]);
  std::memcpy(buf.get(), bytes.data(), bytes.size());
  try {
    JsonbReader r(std::string_view(buf.get(), bytes.size()), o, std::move(jo));
    NullHandler h;
    while (r.read_document(h)) {
    }
  } catch (const Error& e) {
    return e;
  }
  return Error(Errc::io, "no error");
}

// Records events as compact text, skipping the members named "skip" and
// stopping at a member named "stop".
class Recorder final : public Handler {
 public:
  std::string log;
  Flow begin_object() override {
    log += "{";
    return Flow::visit;
  }
  Flow key(std::string_view k) override {
    log += std::string(k) + ":";
    if (k == "skip") return Flow::skip;
    if (k == "stop") return Flow::stop;
    return Flow::visit;
  }
  void end_object() override { log += "}"; }
  Flow begin_array() override {
    log += "[";
    return Flow::visit;
  }
  void end_array() override { log += "]"; }
  void null_value() override { log += "null,"; }
  void bool_value(bool b) override { log += b ? "true," : "false,"; }
  void int_value(std::int64_t v) override { log += std::to_string(v) + ","; }
  void uint_value(std::uint64_t v) override { log += std::to_string(v) + "u,"; }
  void double_value(double v) override { log += fmt::format("{}d,", v); }
  void number_text(std::string_view t) override {
    log += "#" + std::string(t) + ",";
  }
  void string_value(std::string_view s) override {
    log += "'" + std::string(s) + "',";
  }
  void bytes_value(std::span<const std::uint8_t> b) override {
    log += fmt::format("b{},", b.size());
  }
  void timestamp_value(const Timestamp& t) override {
    log +=
        fmt::format("t{}:{}.{}{},", static_cast<int>(t.kind), t.seconds,
                    t.nanos, t.zone.empty() ? "" : "@" + std::string(t.zone));
  }
  void annotation(const Annotation& a) override {
    log += "@" + std::string(a.name) + " ";
  }
  void end_document() override { log += "|"; }
};

std::string events(std::string_view hexbytes, JsonbReadOptions jo = {}) {
  const std::string bytes = unhex(hexbytes);
  JsonbReader r(bytes, ReadOptions{}, std::move(jo));
  Recorder rec;
  while (r.read_document(rec)) {
  }
  return rec.log;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jsonb_reader)

BOOST_AUTO_TEST_CASE(every_corpus_vector_decodes_to_its_expected_json) {
  int checked = 0;
  for (const Case& c : cases()) {
    BOOST_TEST_CONTEXT(c.name) {
      const std::string bytes = slurp(corpus_dir() + c.name + ".jsonb");
      JsonbReader r(bytes, ReadOptions{}, options_for(c));
      TreeBuilder tb;
      BOOST_REQUIRE(r.read_document(tb));
      BOOST_TEST(r.offset() == bytes.size());  // every byte consumed
      const Value want = parse_json(slurp(corpus_dir() + c.name + ".json"));
      std::string why;
      BOOST_TEST(matches_fastjson2(tb.take(), want, why), why);
      NullHandler rest;
      BOOST_TEST(!r.read_document(rest));
      ++checked;
    }
  }
  BOOST_TEST(checked == 175);
}

BOOST_AUTO_TEST_CASE(integers_of_every_family_are_int_values) {
  BOOST_TEST(events("00 2f f0 ff 37ef 3fff 4408 00 30 00 43f7ff 47ffff "
                    "48 7fffffff 4880000000") ==
             "0,|47,|-16,|-1,|-17,|2047,|2048,|-2048,|-2049,|262143,|"
             "2147483647,|-2147483648,|");
  BOOST_TEST(events("e5 d8 d010 cc18 c586a0 bf7fffffff be8000000000000000 "
                    "bc04d2 bcfffe bdfb") ==
             "5,|-8,|16,|-1000,|100000,|2147483647,|-9223372036854775808,|"
             "1234,|-2,|-5,|");
}

BOOST_AUTO_TEST_CASE(big_numbers_are_exact_text) {
  BOOST_TEST(
      events("bb 09 0080000000000000 00 bb 0d fe7116f0093c8c1f11b1c0f52e "
             "ba d02a ba be8000000000000000") ==
      "#9223372036854775808,|#-123456789012345678901234567890,|#42,|"
      "#-9223372036854775808,|");
  // BigDecimal spelled as Java's BigDecimal.toString: scale kept,
  // exponent only when the scale demands it.
  BOOST_TEST(events("b9 04 480012d644 b9 01 00 b9 fb 01 b9 06 01 b9 07 01 "
                    "b9 0a f7 b8 d064 b9 03 ff b9 fe 0c") ==
             "#123.4500,|#0.0,|#1E+5,|#0.000001,|#1E-7,|#-9E-10,|#100,|"
             "#-0.001,|#1.2E+3,|");
  BOOST_TEST(events("b9 384d 0f") == "#1.5E-76,|");
}

BOOST_AUTO_TEST_CASE(floats_and_doubles_are_double_values) {
  BOOST_TEST(events("b2 b3 b4e2 b4c27960 b6 03 b73fc00000 "
                    "b5 3ff8000000000000") ==
             "0d,|1d,|2d,|-100000d,|3d,|1.5d,|1.5d,|");
}

BOOST_AUTO_TEST_CASE(strings_of_every_encoding_become_utf8) {
  // Latin-1 "café", UTF-8, UTF-16LE, UTF-16BE, UTF-16 with and without a
  // BOM, a 0x79 string, a char, and an emoji as a UTF-16 surrogate pair.
  BOOST_TEST(events("4d636166e9 7a03616263 7c042d4e8765 7d044e2d6587 "
                    "7b06fffe2d4e8765 7b06feff4e2d6587 7b044e2d6587 79026869 "
                    "90444e2d 7c043dd800de") ==
             "'café',|'abc',|'中文',|'中文',|'中文',|'中文',|'中文',|'hi',|"
             "'中',|'😀',|");
}

BOOST_AUTO_TEST_CASE(binary_char_and_null_bool) {
  BOOST_TEST(events("91 06 000102ff807f 91 00 af b0 b1 9038 41") ==
             "b6,|b0,|null,|false,|true,|'A',|");
}

BOOST_AUTO_TEST_CASE(dates_are_timestamps) {
  // Date seconds/minutes/millis (instants), Instant, LocalDate,
  // LocalDateTime, LocalTime, offset and region-zone date-times.
  BOOST_TEST(events("ac 6553f100 ad 04134e40 ab 0000018bcfe5687b "
                    "ae bf6553f100 48075bcd15 a9 07e8021d "
                    "a8 07e80102030405 00 a7 0d2d1e 481dcd6500") ==
             "t0:1700000000.0,|t0:4102444800.0,|t0:1700000000.123000000,|"
             "t0:1700000000.123456789,|t2:1709164800.0,|t1:1704164645.0,|"
             "t3:49530.500000000,|");
  // +08:00: an instant 8 hours before the wall clock; a region zone stays
  // a wall-clock time with its zone id.
  BOOST_TEST(events("aa 07e8050607080900 4f2b30383a3030 "
                    "aa 07e8050607080900 56417369612f5368616e67686169") ==
             "t0:1714950489.0,|t1:1714979289.0@Asia/Shanghai,|");
  // Milliseconds at the ends of the range: floored, without overflow.
  BOOST_TEST(
      events("ab 8000000000000000 ab 7fffffffffffffff ab ffffffffffffffff") ==
      "t0:-9223372036854776.192000000,|t0:9223372036854775.807000000,|"
      "t0:-1.999000000,|");
  const Error e = read_error(unhex("a9 07e8 0d 01"));
  BOOST_TEST(e.message == "invalid month 13");
  BOOST_TEST(e.offset.value() == 0u);
  BOOST_TEST(read_error(unhex("a9 07e7 02 1d")).message ==
             "invalid day 2023-02-29");
  BOOST_TEST(read_error(unhex("a7 18 00 00 00")).message ==
             "invalid time 24:00:00");
}

BOOST_AUTO_TEST_CASE(type_names_are_annotations_before_the_value) {
  const Value v =
      decode_one(slurp(corpus_dir() + "v_bean_points_classname_symbols.jsonb"));
  BOOST_REQUIRE(v.type == Value::Type::array);
  BOOST_TEST(v.annotations.at(0).second == "java.util.Arrays$ArrayList");
  BOOST_TEST(v.items.at(1).annotations.at(0).second == "com.example.Point");
  BOOST_TEST(v.items.at(1).members.at(0).first == "label");
  // Integer keys (WriteClassName) are spelled as decimal text.
  const Value m =
      decode_one(slurp(corpus_dir() + "v_map_int_keys_classname.jsonb"));
  BOOST_TEST(m.annotations.at(0).second == "LM");
  BOOST_TEST(m.members.at(1).first == "-20");
  // A long chain of type names on a key is a loop, not a recursion.
  std::string chain = unhex("a6 92 4a 41 00");
  for (int i = 0; i < 100000; ++i) chain += unhex("92 00");
  chain += unhex("4a 6b 01 a5");
  BOOST_TEST(decode_one(chain).members.at(0).first == "k");
  ReadOptions strict;
  strict.keys_error = true;
  const Error e = read_error(
      slurp(corpus_dir() + "v_map_int_keys_classname.jsonb"), {}, strict);
  BOOST_TEST(static_cast<int>(e.code) == static_cast<int>(Errc::type_mismatch));
  BOOST_TEST(e.message == "object key must be a string, found tag 0x01");
}

BOOST_AUTO_TEST_CASE(external_symbols_need_the_table) {
  const std::string bytes = slurp(corpus_dir() + "v_symboltable_map.jsonb");
  const Error e = read_error(bytes);
  BOOST_TEST(static_cast<int>(e.code) == static_cast<int>(Errc::unsupported));
  BOOST_TEST(e.message ==
             "symbol -2 refers to an external symbol table, and none was "
             "given");
  JsonbReadOptions jo;
  jo.symbol_table = {"name", "id", "com.example.Point", "list", "id"};
  BOOST_TEST(decode_one(bytes, jo).members.at(2).first == "list");
  jo.symbol_table = {"id"};
  BOOST_TEST(read_error(bytes, jo).message ==
             "symbol -2 is not in the external symbol table of 1 names");
}

BOOST_AUTO_TEST_CASE(references_resolve_to_earlier_values) {
  const Value v = decode_one(slurp(corpus_dir() + "v_ref_repeated.jsonb"));
  std::string why;
  BOOST_TEST(same_tree(v,
                       parse_json(R"({"a":{"k":"v"},"b":{"k":"v"},)"
                                  R"("c":[{"k":"v"},{"k":"v"}]})"),
                       why),
             why);
  // A path with an index, and '#-1' after it.
  BOOST_TEST(events("96 96 01 02 96 93 4d 24 5b 30 5d 93 4c 23 2d 31") ==
             "[[1,2,][[1,2,][1,2,]]]|");
}

BOOST_AUTO_TEST_CASE(references_never_loop) {
  const std::string cycle = slurp(corpus_dir() + "v_ref_cycle.jsonb");
  Error e = read_error(cycle);
  BOOST_TEST(static_cast<int>(e.code) == static_cast<int>(Errc::unsupported));
  BOOST_TEST(e.message ==
             "reference '$' refers to a value that contains it (a cycle)");
  BOOST_TEST(e.binary);
  // {"a": ref "$.b", "b": 1}: forward.
  e = read_error(unhex("a6 4a61 93 4c242e62 4a62 01 a5"));
  BOOST_TEST(e.message == "reference '$.b' refers to a value not read yet");
  BOOST_TEST(e.offset.value() == 3u);
  BOOST_TEST(read_error(unhex("95 93 4b 2e 2e")).message ==
             "reference '..' refers to the value that contains it (a cycle)");
  BOOST_TEST(read_error(unhex("95 93 4c 23 2d 31")).message ==
             "reference '#-1' without a previous reference");
  // Kept as {"$ref": ...} on request, as fastjson2 prints them.
  JsonbReadOptions keep;
  keep.refs = JsonbRefs::keep;
  const Value k = decode_one(cycle, keep);
  BOOST_TEST(k.members.at(2).second.members.at(0).second.text == "..");
}

BOOST_AUTO_TEST_CASE(reference_expansion_is_bounded) {
  // Level i is [ref level i-1, ref level i-1]: 2^40 copies of level 0.
  std::string doc = unhex("a6 4a 61 96 01 01");
  std::string prev = "a";
  for (int i = 0; i < 40; ++i) {
    const std::string name = fmt::format("b{}", i);
    doc += static_cast<char>(0x49 + name.size()) + name;
    const std::string path = "$." + prev;
    std::string ref = unhex("93");
    ref += static_cast<char>(0x49 + path.size()) + path;
    doc += unhex("96") + ref + ref;
    prev = name;
  }
  doc += unhex("a5");
  const Error e = read_error(doc);
  BOOST_TEST(static_cast<int>(e.code) == static_cast<int>(Errc::unsupported));
  BOOST_TEST(e.message.starts_with("references expand to more than "));
}

BOOST_AUTO_TEST_CASE(documents_back_to_back) {
  BOOST_TEST(events("01 a6 4a61 02 a5 94") == "1,|{a:2,}|[]|");
  BOOST_TEST(events("") == "");
}

BOOST_AUTO_TEST_CASE(skip_and_stop_are_honoured) {
  // {"skip": [1,2], "b": 3, "stop": 4, "d": 5} then a second document.
  BOOST_TEST(events("a6 4d736b6970 96 01 02 4a62 03 4d73746f70 04 4a64 05 a5 "
                    "07") == "{skip:b:3,stop:|7,|");
}

BOOST_AUTO_TEST_CASE(truncation_at_every_offset_is_a_clean_error) {
  for (const char* name :
       {"j_doc_order", "j_doc_logs", "v_instant", "v_decimal_large",
        "v_bean_points_classname_symbols", "v_zoned_new_york", "j_str_chinese",
        "v_ref_repeated", "v_offsetdatetime", "j_bigint_neg_big", "v_bytes_300",
        "j_arr_300_ints"}) {
    const std::string bytes = slurp(corpus_dir() + name + ".jsonb");
    for (std::size_t k = 1; k < bytes.size(); ++k) {
      BOOST_TEST_CONTEXT(name << " cut at " << k) {
        const Error e = read_error(std::string_view(bytes).substr(0, k));
        BOOST_TEST(static_cast<int>(e.code) ==
                   static_cast<int>(Errc::unexpected_end));
        BOOST_TEST(e.binary);
        BOOST_TEST(e.offset.value() <= k);
      }
    }
  }
  const Error e = read_error(unhex("a6 4b6964 38"));
  BOOST_TEST(e.message == "unexpected end of input in integer");
  BOOST_TEST(e.offset.value() == 4u);
  BOOST_TEST(read_error(unhex("a6 4b6964 387b")).message ==
             "unexpected end of input in object");
  BOOST_TEST(read_error(unhex("4d 61 62")).message ==
             "unexpected end of input in string");
}

BOOST_AUTO_TEST_CASE(huge_lengths_fail_before_allocating) {
  // A string claiming 1 TiB (as an int64 length), a binary claiming 2 GiB,
  // an array claiming 2^31-1 elements, a big integer of 2 GiB.
  Error e = read_error(unhex("7a be 0000010000000000 616263"));
  BOOST_TEST(static_cast<int>(e.code) ==
             static_cast<int>(Errc::unexpected_end));
  BOOST_TEST(e.message ==
             "string length 1099511627776 exceeds the 3 bytes left");
  BOOST_TEST(e.offset.value() == 0u);
  BOOST_TEST(read_error(unhex("91 48 7fffffff 00")).message ==
             "binary length 2147483647 exceeds the 1 bytes left");
  BOOST_TEST(read_error(unhex("a4 48 7fffffff 00")).message ==
             "array count 2147483647 exceeds the 1 bytes left");
  BOOST_TEST(read_error(unhex("bb 48 7fffffff")).message ==
             "big integer length 2147483647 exceeds the 0 bytes left");
  BOOST_TEST(read_error(unhex("7a f0")).message ==
             "negative string length -16");
  // Within the input but beyond jbx's big-number limit.
  std::string big = unhex("bb 45 00 00");  // 65536 bytes
  big.append(65536, '\x01');
  BOOST_TEST(read_error(big).message ==
             "big integer of 65536 bytes exceeds the limit of 8192");
}

BOOST_AUTO_TEST_CASE(deep_nesting_is_a_depth_error) {
  std::string deep(5000, '\x95');  // [[[[...
  deep.push_back('\x00');
  const Error e = read_error(deep);
  BOOST_TEST(static_cast<int>(e.code) == static_cast<int>(Errc::depth_limit));
  BOOST_TEST(e.message == "nesting deeper than 1024 levels");
  BOOST_TEST(e.offset.value() == 1024u);
  ReadOptions o;
  o.max_depth = 10;
  BOOST_TEST(read_error(std::string(20, '\x92') + "\x00", {}, o).message ==
             "expected a type name, found tag 0x92");
  std::string typed;
  for (int i = 0; i < 20; ++i) typed += unhex("92 4a 41 00");
  typed += unhex("01");
  BOOST_TEST(read_error(typed, {}, o).message ==
             "nesting deeper than 10 levels");
  std::string objects;
  for (int i = 0; i < 2000; ++i) objects += unhex("a6 4a 6b");
  BOOST_TEST(static_cast<int>(read_error(objects).code) ==
             static_cast<int>(Errc::depth_limit));
}

BOOST_AUTO_TEST_CASE(invalid_text_is_an_error_with_its_offset) {
  Error e = read_error(unhex("a6 4a61 7a 03 61 c3 28 a5"));
  BOOST_TEST(static_cast<int>(e.code) == static_cast<int>(Errc::invalid_utf8));
  BOOST_TEST(e.message ==
             "string is not valid utf-8: byte 0x28 cannot follow 0xc3");
  BOOST_TEST(e.offset.value() == 6u);
  BOOST_TEST(e.pointer == "/a");
  BOOST_TEST(read_error(unhex("96 01 a6 4b 61 2f 95 80 a5")).pointer ==
             "/1/a~1/0");
  // Between members, or in a key, the place is the object itself.
  BOOST_TEST(read_error(unhex("a6 4a 61 96 01 02 4a 62 a6")).pointer == "/b");
  BOOST_TEST(read_error(unhex("a6 4a 61 96 01 02 4a 62 a6 4a 63 01")).pointer ==
             "/b");
  BOOST_TEST(read_error(unhex("a6 4a 61 01 7a 03 61 c3 28 01 a5")).pointer ==
             "");
  BOOST_TEST(read_error(unhex("96 01 a6 4a 61 01")).pointer == "/1");
  // Keys transcoded from UTF-16 share a buffer: each level keeps its own.
  BOOST_TEST(read_error(unhex("a6 7c 04 62 00 2f 00 a6 7c 02 63 00 7a 01 ff"))
                 .pointer == "/b~1/c");
  BOOST_TEST(read_error(unhex("7a 03 ed a0 80")).offset.value() == 2u);
  e = read_error(unhex("7c 04 41 00 00 d8"));
  BOOST_TEST(e.message == "unpaired utf-16 surrogate 0xd800");
  BOOST_TEST(e.offset.value() == 4u);
  BOOST_TEST(read_error(unhex("7d 02 dc 00")).message ==
             "unpaired utf-16 surrogate 0xdc00");
  BOOST_TEST(read_error(unhex("7c 03 41 00 42")).message ==
             "utf-16 string of odd length 3");
  BOOST_TEST(read_error(unhex("90 44 d8 00")).message ==
             "unpaired utf-16 surrogate 0xd800");
  BOOST_TEST(read_error(unhex("7e 02 81 20")).message ==
             "string is not valid gb18030");
}

BOOST_AUTO_TEST_CASE(malformed_tags_are_syntax_errors) {
  Error e = read_error(unhex("96 01 80"));
  BOOST_TEST(static_cast<int>(e.code) == static_cast<int>(Errc::syntax));
  BOOST_TEST(e.message == "unassigned tag 0x80");
  BOOST_TEST(e.offset.value() == 2u);
  BOOST_TEST(read_error(unhex("95 a5")).message ==
             "object end tag 0xa5 outside an object");
  BOOST_TEST(read_error(unhex("7f 05")).message == "symbol 5 is not defined");
  BOOST_TEST(read_error(unhex("a6 94 01 a5")).message ==
             "object key is a container or a reference");
  BOOST_TEST(read_error(unhex("b9 4a")).message ==
             "expected an integer for decimal scale, found tag 0x4a");
}

BOOST_AUTO_TEST_CASE(sniffer_accepts_jsonb_containers_only) {
  int accepted = 0;
  int containers = 0;
  for (const Case& c : cases()) {
    const std::string bytes = slurp(corpus_dir() + c.name + ".jsonb");
    const auto t = static_cast<unsigned char>(bytes[0]);
    const bool container = t == 0xa6 || t == 0x92 || (t >= 0x94 && t <= 0xa4);
    const bool plain = c.decode != "symtab" && t != 0x92 &&
                       c.name != "v_map_int_keys_classname";
    if (container && plain) {
      ++containers;
      accepted += sniff_jsonb(bytes);
      BOOST_TEST(sniff_jsonb(bytes), c.name);
    } else if (!container) {
      BOOST_TEST(!sniff_jsonb(bytes), c.name);
    }
  }
  BOOST_TEST_MESSAGE("sniffed " << accepted << " of " << containers
                                << " container vectors");
  BOOST_TEST(!sniff_jsonb("{\"a\":1}"));
  BOOST_TEST(!sniff_jsonb("[1,2]"));
  BOOST_TEST(!sniff_jsonb(unhex("94 01 02 03 04")));  // MessagePack [1,2,3,4]
  BOOST_TEST(!sniff_jsonb(unhex("a2 61 61 01 61 62 02")));  // CBOR {a:1,b:2}
  BOOST_TEST(!sniff_jsonb(unhex("a6 4a 61")));  // cut short, and short
  BOOST_TEST(sniff_jsonb(unhex("a6 4a 61 01 a5 a6 4a 62 02 a5")));
}

// CBOR and MessagePack encodings of the shared JSON files (whole, and the
// 64 bytes the CLI peeks) are never taken for JSONB; jbx's own JSONB of
// the same files mostly is.
BOOST_AUTO_TEST_CASE(sniffer_rejects_cbor_and_msgpack_of_the_json_corpus) {
  namespace fs = std::filesystem;
  const std::string shared = JBX_SHARED_DIR;
  std::vector<fs::path> files;
  for (const char* dir : {"/corpus/jsonexamples", "/corpus/jsonexamples/small",
                          "/conformance/nlohmann-test-data/json_tests",
                          "/conformance/nlohmann-test-data/json.org",
                          "/conformance/nlohmann-test-data/json_roundtrip"}) {
    for (const auto& e : fs::directory_iterator(shared + dir)) {
      if (e.path().extension() == ".json" && e.file_size() < (2u << 20)) {
        files.push_back(e.path());
      }
    }
  }
  int jsonb_total = 0;
  int jsonb_sniffed = 0;
  int others = 0;
  for (const fs::path& p : files) {
    Value v;
    try {
      v = parse_json(slurp(p.string()));
    } catch (const Error&) {
      continue;  // the nlohmann fail*.json files
    }
    for (const char* name : {"cbor", "msgpack", "jsonb"}) {
      const FormatSpec* f = find_format(name);
      BOOST_REQUIRE(f != nullptr);
      StringSink sink;
      auto w = f->make_writer(sink, WriteOptions{});
      replay(v, *w);
      w->end_document();
      w->finish();
      const std::string_view bytes = sink.data();
      const bool whole = sniff_jsonb(bytes);
      const bool head = sniff_jsonb(bytes.substr(0, 64));
      if (std::string_view(name) != "jsonb") {
        ++others;
        BOOST_TEST(!whole, name << " of " << p);
        BOOST_TEST(!head, name << " of " << p);
      } else if (v.is_container()) {
        ++jsonb_total;
        jsonb_sniffed += head;
      }
    }
  }
  BOOST_TEST_MESSAGE("jsonb sniffed from 64 bytes: "
                     << jsonb_sniffed << " of " << jsonb_total
                     << "; cbor/msgpack rejected: " << others);
  BOOST_TEST(jsonb_sniffed * 10 >= jsonb_total * 9);
  // The nlohmann .cbor and .msgpack files as well.
  for (const auto& e : fs::recursive_directory_iterator(
           shared + "/conformance/nlohmann-test-data")) {
    const auto ext = e.path().extension();
    if (ext != ".cbor" && ext != ".msgpack") continue;
    const std::string bytes = slurp(e.path().string());
    BOOST_TEST(!sniff_jsonb(bytes), e.path());
    BOOST_TEST(!sniff_jsonb(std::string_view(bytes).substr(0, 64)), e.path());
  }
}

namespace {

// The text and error of reading `bytes` into features in front of a JSON
// writer: FusedFeatures<JsonWriter>, which the reader calls directly for
// keys and strings, or with `generic` FusedFeatures<Handler>.
std::string read_fused(std::string_view bytes,
                       const transforms::testing::Features& f, bool generic) {
  StringSink sink;
  WriteOptions wo;
  wo.compact = true;
  JsonWriter w(sink, wo);
  std::unique_ptr<Handler> h;
  if (generic) {
    h = std::make_unique<transforms::FusedFeatures<Handler>>(
        w, transforms::testing::options(f));
  } else {
    h = std::make_unique<transforms::FusedFeatures<JsonWriter>>(
        w, transforms::testing::options(f));
  }
  std::string error;
  try {
    JsonbReader r(bytes, ReadOptions{}, JsonbReadOptions{});
    while (r.read_document(*h)) {
    }
  } catch (const Error& e) {
    error = std::string(errc_name(e.code)) + "@" +
            std::to_string(e.offset.value_or(0)) + " at " + e.pointer + ": " +
            e.message;
  }
  return std::string(sink.data()) + "\n" + error;
}

}  // namespace

BOOST_AUTO_TEST_CASE(features_called_directly_give_what_they_give_otherwise) {
  // Called directly, the features take escape-free keys as the JSON
  // reader gives them, with their value's first byte (plain_key()): the
  // same text and errors as through the Handler interface, on records of
  // every kind of value and on fastjson2's own documents (symbols,
  // references, typed values), whole and cut short.
  std::string json = "[";
  const char* values[] = {"null",         "true",
                          "false",        "0",
                          "-7",           "18446744073709551616",
                          "1.5",          "-2.5e300",
                          "\"abc\"",      "\"a\\\"b\"",
                          "\"\\u6c34\"",  "[]",
                          "[1,null]",     "{}",
                          "{\"a\":null}", "\"2024-03-10T01:30:00-05:00\""};
  for (std::size_t i = 0; i < std::size(values); ++i) {
    const std::string v = values[i];
    json += fmt::format(
        "{}{{\"id\":{},\"someValue\":{},\"maybeNull\":null,"
        "\"nestedMap\":{{\"innerKey\":{}}},\"UPPER_key\":[{}],"
        "\"createdAt\":{}}},{}",
        i == 0 ? "" : ",", i, v, v, v,
        i % 2 == 0 ? "\"2024-03-10T01:30:00-05:00\"" : v, v);
  }
  json += "]";
  std::vector<std::string> docs = {encode(parse_json(json))};
  for (const auto& e : std::filesystem::directory_iterator(corpus_dir())) {
    if (e.path().extension() == ".jsonb") docs.push_back(slurp(e.path()));
  }
  const auto sets = transforms::testing::record_feature_sets();
  for (const std::string& doc : docs) {
    for (std::size_t k = 0; k < sets.size(); ++k) {
      for (const std::size_t cut : {doc.size(), doc.size() * 2 / 3}) {
        const std::string_view in = std::string_view(doc).substr(0, cut);
        BOOST_TEST(
            read_fused(in, sets[k], false) == read_fused(in, sets[k], true),
            "set " << k << " cut " << cut << " of " << doc.size());
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
