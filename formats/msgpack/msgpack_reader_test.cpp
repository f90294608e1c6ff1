#include "formats/msgpack/msgpack_reader.h"

#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/sink.h"
#include "core/source.h"
#include "core/transforms/fused_test_util.h"
#include "formats/json/json_fused.h"
#include "formats/msgpack/msgpack_test_util.h"

namespace jbx::msgpack {
namespace {

using test::hex;
using test::read_all;
using test::read_error;

// A real document: {"id":7,"tags":["a","bé"],"ok":true,"v":-1.5,
// "n":null,"big":18446744073709551615,"bin":<01 02>}
const std::string kDoc = hex(
    "87 a2 69 64 07 a4 74 61 67 73 92 a1 61 a3 62 c3 a9 a2 6f 6b c3 a1 76 cb"
    " bf f8 00 00 00 00 00 00 a1 6e c0 a3 62 69 67 cf ff ff ff ff ff ff ff ff"
    " a3 62 69 6e c4 02 01 02");

BOOST_AUTO_TEST_SUITE(msgpack_reader)

BOOST_AUTO_TEST_CASE(reads_a_real_document) {
  BOOST_TEST(read_all(kDoc) ==
             "{\"id\":7,\"tags\":[\"a\",\"bé\"],\"ok\":true,\"v\":d-1.5,"
             "\"n\":null,\"big\":u18446744073709551615,\"bin\":b'0102'};");
}

BOOST_AUTO_TEST_CASE(reads_integers_of_every_width) {
  BOOST_TEST(read_all(hex("00 7f e0 ff")) == "0;127;-32;-1;");
  BOOST_TEST(read_all(hex("cc ff cd ff ff ce ff ff ff ff")) ==
             "255;65535;4294967295;");
  BOOST_TEST(read_all(hex("cf 7f ff ff ff ff ff ff ff")) ==
             "9223372036854775807;");
  BOOST_TEST(read_all(hex("cf 80 00 00 00 00 00 00 00")) ==
             "u9223372036854775808;");
  BOOST_TEST(read_all(hex("d0 80 d1 80 00 d2 80 00 00 00")) ==
             "-128;-32768;-2147483648;");
  BOOST_TEST(read_all(hex("d3 80 00 00 00 00 00 00 00")) ==
             "-9223372036854775808;");
}

BOOST_AUTO_TEST_CASE(reads_floats_nil_and_booleans) {
  BOOST_TEST(read_all(hex("ca 3f 80 00 00 cb 3f b9 99 99 99 99 99 9a")) ==
             "d1;d0.1;");
  BOOST_TEST(read_all(hex("ca 3d cc cc cd")) == "d0.10000000149011612;");
  BOOST_TEST(read_all(hex("c0 c2 c3")) == "null;false;true;");
}

BOOST_AUTO_TEST_CASE(reads_strings_and_binary_in_every_length_form) {
  BOOST_TEST(read_all(hex("a0 a1 61 d9 01 62 da 00 01 63 db 00 00 00 01 64")) ==
             "\"\";\"a\";\"b\";\"c\";\"d\";");
  BOOST_TEST(read_all(hex("c4 00 c4 01 ff c5 00 01 fe c6 00 00 00 01 fd")) ==
             "b'';b'ff';b'fe';b'fd';");
}

BOOST_AUTO_TEST_CASE(reads_containers_in_every_length_form) {
  BOOST_TEST(read_all(hex("dc 00 02 01 02 dd 00 00 00 01 03")) == "[1,2];[3];");
  BOOST_TEST(read_all(hex("de 00 01 a1 61 90 df 00 00 00 01 a1 62 80")) ==
             "{\"a\":[]};{\"b\":{}};");
  BOOST_TEST(read_all(hex("91 91 91 c0")) == "[[[null]]];");
}

BOOST_AUTO_TEST_CASE(reads_the_three_timestamp_forms) {
  // 2018-01-02T03:04:05Z as timestamp32, then with nanoseconds as
  // timestamp64, then 1969-12-31T23:59:59.000000001Z as timestamp96.
  BOOST_TEST(read_all(hex("d6 ff 5a 4a f6 a5")) == "t(1514862245,0);");
  BOOST_TEST(read_all(hex("d7 ff a1 dc d7 c8 5a 4a f6 a5")) ==
             "t(1514862245,678901234);");
  BOOST_TEST(read_all(hex("c7 0c ff 00 00 00 01 ff ff ff ff ff ff ff ff")) ==
             "t(-1,1);");
}

BOOST_AUTO_TEST_CASE(rejects_malformed_timestamps) {
  BOOST_TEST(read_error(hex("d5 ff 00 01")) ==
             "syntax@0: timestamp extension (type -1) with 2 bytes of data, "
             "expected 4, 8 or 12");
  // timestamp64 whose 30-bit nanosecond field holds 1000000000
  BOOST_TEST(read_error(hex("91 d7 ff ee 6b 28 00 00 00 00 00")) ==
             "syntax@1 /0: timestamp nanoseconds 1000000000 out of range (at "
             "most 999999999)");
}

BOOST_AUTO_TEST_CASE(other_extensions_become_an_annotation_and_bytes) {
  BOOST_TEST(read_all(hex("d4 01 10 c7 03 80 aa bb cc")) ==
             "@msgpack.ext:1 b'10';@msgpack.ext:-128 b'aabbcc';");
  BOOST_TEST(read_all(hex("c8 00 00 05 c9 00 00 00 01 7f 00")) ==
             "@msgpack.ext:5 b'';@msgpack.ext:127 b'00';");
}

BOOST_AUTO_TEST_CASE(non_string_keys_become_their_json_text) {
  BOOST_TEST(read_all(hex("85 01 c0 c0 c0 c3 c0 ff c0 cb 3f f8 00 00 00 00 00 "
                          "00 c0")) ==
             "{\"1\":null,\"null\":null,\"true\":null,\"-1\":null,"
             "\"1.5\":null};");
  BOOST_TEST(read_all(hex("83 92 01 a1 61 c0 81 01 02 c0 c4 02 01 02 c0")) ==
             "{\"[1,\"a\"]\":null,\"{\"1\":2}\":null,\"AQI=\":null};");
  BOOST_TEST(read_all(hex("81 d6 ff 5a 4a f6 a5 c0")) ==
             "{\"2018-01-02T03:04:05Z\":null};");
  BOOST_TEST(read_all(hex("81 cb 40 00 00 00 00 00 00 00 c0")) ==
             "{\"2.0\":null};");
}

BOOST_AUTO_TEST_CASE(keys_error_refuses_non_string_keys) {
  ReadOptions o;
  o.keys_error = true;
  BOOST_TEST(read_error(hex("82 a1 61 01 cd 01 00 02"), o) ==
             "type_mismatch@4: map key 256 is not a string");
  BOOST_TEST(read_all(hex("81 a1 61 01"), o) == "{\"a\":1};");
}

BOOST_AUTO_TEST_CASE(truncation_at_every_offset_is_a_clean_error) {
  for (std::size_t n = 1; n < kDoc.size(); ++n) {
    const std::string cut = kDoc.substr(0, n);
    try {
      read_all(cut);
      BOOST_FAIL("no error for a prefix of " << n << " bytes");
    } catch (const Error& e) {
      BOOST_TEST(static_cast<int>(e.code) ==
                 static_cast<int>(Errc::unexpected_end));
      BOOST_TEST(e.offset.value_or(0) == n);
      BOOST_TEST(e.binary);
      BOOST_TEST(e.message.rfind("unexpected end of input in ", 0) == 0);
    }
  }
}

// The bytes of a file under the shared folder.
std::string shared_file(const std::string& rel) {
  const std::string path = std::string(JBX_SHARED_DIR) + "/" + rel;
  auto src = Source::open(path);
  return std::string(src->whole());
}

BOOST_AUTO_TEST_CASE(truncating_real_documents_anywhere_is_a_clean_error) {
  // nlohmann/json's encodings of the json.org examples and JSON_checker's
  // pass1 (every MessagePack type family but bin and ext), cut after each
  // byte: the error is unexpected_end at the cut, never a crash.
  for (const char* rel :
       {"json.org/1.json.msgpack", "json.org/2.json.msgpack",
        "json.org/3.json.msgpack", "json.org/4.json.msgpack",
        "json.org/5.json.msgpack", "json_tests/pass1.json.msgpack"}) {
    const std::string doc =
        shared_file(std::string("conformance/nlohmann-test-data/") + rel);
    BOOST_TEST_CONTEXT(rel) {
      BOOST_TEST_REQUIRE(doc.size() > 100u);
      BOOST_TEST(read_error(doc) == "no error");
      for (std::size_t n = 1; n < doc.size(); ++n) {
        const std::string cut = doc.substr(0, n);
        try {
          read_all(cut);
          BOOST_FAIL("no error for a prefix of " << n << " bytes");
        } catch (const Error& e) {
          BOOST_REQUIRE(static_cast<int>(e.code) ==
                        static_cast<int>(Errc::unexpected_end));
          BOOST_REQUIRE(e.offset.value_or(0) == n);
          BOOST_REQUIRE(e.binary);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(truncation_messages_name_what_was_cut) {
  BOOST_TEST(read_error(hex("ca 3f 80")) ==
             "unexpected_end@3: unexpected end of input in float32");
  //                                  ^ input ends here, byte offset 3
  BOOST_TEST(read_error(hex("92 01")) ==
             "unexpected_end@2 /1: unexpected end of input in array");
  BOOST_TEST(read_error(hex("82 a1 61 01 a1 62")) ==
             "unexpected_end@6 /b: unexpected end of input in map");
  BOOST_TEST(read_error(hex("81 a1 61 a5 68 69")) ==
             "unexpected_end@6 /a: unexpected end of input in fixstr: 5 bytes "
             "declared, 2 left");
  BOOST_TEST(read_error(hex("d9")) ==
             "unexpected_end@1: unexpected end of input in str8");
}

BOOST_AUTO_TEST_CASE(a_length_claiming_terabytes_allocates_nothing) {
  // str32, bin32 and ext32 of 4 GiB - 1 in a few bytes of input; the
  // array32 and map32 claims fail when their first missing element is due.
  BOOST_TEST(read_error(hex("db ff ff ff ff 61 62")) ==
             "unexpected_end@7: unexpected end of input in str32: 4294967295 "
             "bytes declared, 2 left");
  BOOST_TEST(read_error(hex("c6 ff ff ff ff")) ==
             "unexpected_end@5: unexpected end of input in bin32: 4294967295 "
             "bytes declared, 0 left");
  BOOST_TEST(read_error(hex("c9 ff ff ff ff 05")) ==
             "unexpected_end@6: unexpected end of input in ext32: 4294967295 "
             "bytes declared, 0 left");
  BOOST_TEST(read_error(hex("dd ff ff ff ff 01")) ==
             "unexpected_end@6 /1: unexpected end of input in array");
  BOOST_TEST(read_error(hex("df ff ff ff ff")) ==
             "unexpected_end@5: unexpected end of input in map");
}

BOOST_AUTO_TEST_CASE(deep_nesting_is_an_error_not_a_crash) {
  const std::string deep = std::string(100000, '\x91') + '\xc0';
  BOOST_TEST(read_error(deep).starts_with("depth_limit@1024 /0/0/0/0/0/0"));
  BOOST_TEST(read_error(deep).ends_with(": nesting deeper than 1024 levels"));
  ReadOptions o;
  o.max_depth = 3;
  BOOST_TEST(read_error(hex("91 81 a1 61 91 91 c0"), o) ==
             "depth_limit@5 /0/a/0: nesting deeper than 3 levels");
  BOOST_TEST(read_all(hex("91 81 a1 61 91 c0"), o) == "[{\"a\":[null]}];");
}

BOOST_AUTO_TEST_CASE(deep_nesting_of_maps_is_an_error_not_a_crash) {
  // {"a":{"a":{...}}} 100000 levels deep.
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += hex("81 a1 61");
  deep += hex("c0");
  const std::string e = read_error(deep);
  BOOST_TEST(e.starts_with("depth_limit@3072 /a/a/a/"));
  BOOST_TEST(e.ends_with(": nesting deeper than 1024 levels"));
}

BOOST_AUTO_TEST_CASE(deeply_nested_keys_are_bounded) {
  // A key that is an array nested 100 deep.
  const std::string deep = "\x81" + std::string(100, '\x91') + "\xc0\xc0";
  BOOST_TEST(read_error(deep) ==
             "depth_limit@65: nesting deeper than 64 levels");
}

BOOST_AUTO_TEST_CASE(keys_escaped_at_every_level_are_bounded) {
  // {{{...{"\"": nil}...: nil}: nil}: nil}: each level escapes the text of
  // the key below it again, so the text doubles per level; 40 levels would
  // be terabytes. Found by fuzzing (a 427-byte input took seconds).
  std::string key = hex("a1 22");
  for (int i = 0; i < 40; ++i) key = "\x81" + key + "\xc0";
  BOOST_TEST(read_error("\x81" + key + "\xc0") ==
             "unsupported@1: map key longer than 1048576 bytes as JSON text");
  std::string small = hex("a1 22");
  for (int i = 0; i < 2; ++i) small = "\x81" + small + "\xc0";
  BOOST_TEST(read_all("\x81" + small + "\x01") ==
             R"({"{"{\"\\\"\":null}":null}":1};)");
}

BOOST_AUTO_TEST_CASE(invalid_utf8_is_reported_at_the_bad_byte) {
  BOOST_TEST(read_error(hex("a3 61 ff 62")) ==
             "invalid_utf8@2: invalid UTF-8 in string: byte 0xff cannot start "
             "a character");
  BOOST_TEST(read_error(hex("91 a2 c0 80")) ==  // overlong NUL
             "invalid_utf8@2 /0: invalid UTF-8 in string: byte 0xc0 cannot "
             "start a character");
  BOOST_TEST(read_error(hex("a3 ed a0 80")) ==  // a UTF-16 surrogate
             "invalid_utf8@1: invalid UTF-8 in string: byte 0xa0 cannot follow "
             "0xed (a UTF-16 surrogate)");
  BOOST_TEST(
      read_error(hex("81 a2 61 e2 01")) ==  // in a key, cut sequence
      "invalid_utf8@3: invalid UTF-8 in string: the string ends inside 0xe2");
  // Long strings take the SIMD path; the offset is still exact.
  const std::string long_bad =
      hex("d9 40") + std::string(50, 'x') + "\xf5" + std::string(13, 'y');
  BOOST_TEST(read_error(long_bad) ==
             "invalid_utf8@52: invalid UTF-8 in string: byte 0xf5 cannot start "
             "a character");
}

BOOST_AUTO_TEST_CASE(rejects_the_never_used_type_byte) {
  BOOST_TEST(read_error(hex("92 01 c1")) ==
             "syntax@2 /1: invalid type byte 0xc1");
}

BOOST_AUTO_TEST_CASE(empty_input_has_no_documents) {
  BOOST_TEST(read_all("") == "");
}

BOOST_AUTO_TEST_CASE(consumer_errors_get_the_value_offset_and_pointer) {
  struct Refuse : test::Recorder {
    void double_value(double) override {
      throw Error(Errc::lossy, "no doubles here");
    }
  } refuse;
  MsgpackReader r(kDoc, {});
  try {
    r.read_document(refuse);
    BOOST_FAIL("no error");
  } catch (const Error& e) {
    BOOST_TEST(e.offset.value_or(0) == 23u);
    BOOST_TEST(e.pointer == "/v");
    BOOST_TEST(e.binary);
  }
}

BOOST_AUTO_TEST_CASE(skip_and_stop_from_the_consumer) {
  struct Skipper : test::Recorder {
    Flow key(std::string_view name) override {
      if (name == "tags") return Flow::skip;
      return Recorder::key(name);
    }
    Flow begin_object() override {
      if (!out.empty() && out.back() != ';') return Flow::skip;
      return Recorder::begin_object();
    }
  } skipper;
  // {"tags":[...],"o":{"x":1},"z":2}, then a second document 5.
  const std::string in =
      hex("83 a4 74 61 67 73 92 01 02 a1 6f 81 a1 78 01 a1 7a 02 05");
  MsgpackReader r(in, {});
  while (r.read_document(skipper)) {
  }
  // The recorder writes no comma after a key whose value was skipped.
  BOOST_TEST(skipper.out == "{\"o\":\"z\":2};5;");

  struct Stopper : test::Recorder {
    Flow begin_array() override { return Flow::stop; }
    Flow key(std::string_view name) override {
      if (name == "s") return Flow::stop;
      return Recorder::key(name);
    }
  } stopper;
  // {"a":1,"b":[2,3]} 7 {"s":[1],"t":2} 8
  const std::string in2 =
      hex("82 a1 61 01 a1 62 92 02 03 07 82 a1 73 91 01 a1 74 02 08");
  MsgpackReader r2(in2, {});
  while (r2.read_document(stopper)) {
  }
  BOOST_TEST(stopper.out == "{\"a\":1,\"b\":;7;{;8;");
}

BOOST_AUTO_TEST_CASE(streams_a_pipe_in_bounded_memory) {
  // 20000 documents through a pipe: the reader refills its buffer block by
  // block and must see every value and then a clean end.
  int fds[2];
  BOOST_REQUIRE(::pipe(fds) == 0);
  std::string data;
  for (int i = 0; i < 20000; ++i) data += hex("92 cd 12 34 a3 61 62 63");
  data += hex("db 00 01 00 00") + std::string(65536, 'q');  // spans blocks
  std::thread feeder([&] {
    const char* p = data.data();
    std::size_t left = data.size();
    while (left > 0) {
      const ssize_t k = ::write(fds[1], p, std::min<std::size_t>(left, 777));
      if (k <= 0) break;
      p += k;
      left -= static_cast<std::size_t>(k);
    }
    ::close(fds[1]);
  });
  auto src = Source::open("/proc/self/fd/" + std::to_string(fds[0]));
  BOOST_REQUIRE(src->size_hint() < 0);
  MsgpackReader r(*src, {});
  test::Recorder rec;
  int docs = 0;
  while (r.read_document(rec)) {
    ++docs;
    if (docs <= 20000) {
      BOOST_REQUIRE(rec.out == "[4660,\"abc\"];");
    } else {
      BOOST_TEST(rec.out.size() == 65536u + 3);
    }
    rec.out.clear();
  }
  feeder.join();
  ::close(fds[0]);
  BOOST_TEST(docs == 20001);
}

BOOST_AUTO_TEST_CASE(a_pipe_claiming_terabytes_fails_at_its_end) {
  int fds[2];
  BOOST_REQUIRE(::pipe(fds) == 0);
  const std::string data = hex("91 db ff ff ff ff 61 62 63");
  BOOST_REQUIRE(::write(fds[1], data.data(), data.size()) ==
                static_cast<ssize_t>(data.size()));
  ::close(fds[1]);
  auto src = Source::open("/proc/self/fd/" + std::to_string(fds[0]));
  MsgpackReader r(*src, {});
  test::Recorder rec;
  try {
    r.read_document(rec);
    BOOST_FAIL("no error");
  } catch (const Error& e) {
    BOOST_TEST(e.message ==
               "unexpected end of input in str32: 4294967295 bytes declared, "
               "3 left");
    BOOST_TEST(e.offset.value_or(0) == 9u);
    BOOST_TEST(e.pointer == "/0");
  }
  ::close(fds[0]);
}

// The text and error of reading `bytes` into features in front of a JSON
// writer: FusedFeatures<JsonWriter>, which the reader calls directly, or
// with `generic` FusedFeatures<Handler>, called through the interface.
// `pipe`: the bytes come through a pipe, in a stream's buffer.
std::string read_fused(const std::string& bytes,
                       const jbx::transforms::testing::Features& f,
                       bool generic, bool pipe) {
  jbx::StringSink sink;
  jbx::WriteOptions wo;
  wo.compact = true;
  jbx::JsonWriter w(sink, wo);
  std::unique_ptr<Handler> h;
  if (generic) {
    h = std::make_unique<jbx::transforms::FusedFeatures<Handler>>(
        w, jbx::transforms::testing::options(f));
  } else {
    h = std::make_unique<jbx::transforms::FusedFeatures<jbx::JsonWriter>>(
        w, jbx::transforms::testing::options(f));
  }
  std::string error;
  int fds[2] = {-1, -1};
  std::thread feeder;
  std::unique_ptr<Source> src;
  std::unique_ptr<MsgpackReader> r;
  if (pipe) {
    BOOST_REQUIRE(::pipe(fds) == 0);
    feeder = std::thread([&] {
      const char* p = bytes.data();
      std::size_t left = bytes.size();
      while (left > 0) {
        const ssize_t k = ::write(fds[1], p, std::min<std::size_t>(left, 97));
        if (k <= 0) break;
        p += k;
        left -= static_cast<std::size_t>(k);
      }
      ::close(fds[1]);
    });
    src = Source::open("/proc/self/fd/" + std::to_string(fds[0]));
    r = std::make_unique<MsgpackReader>(*src, ReadOptions{});
  } else {
    r = std::make_unique<MsgpackReader>(bytes, ReadOptions{});
  }
  try {
    while (r->read_document(*h)) {
    }
  } catch (const Error& e) {
    error = std::string(errc_name(e.code)) + "@" +
            std::to_string(e.offset.value_or(0)) + " at " + e.pointer + ": " +
            e.message;
  }
  if (pipe) {
    // The feeder writes what is left into the pipe as it is read here.
    char drain[4096];
    while (src->read(drain, sizeof drain) > 0) {
    }
    feeder.join();
    ::close(fds[0]);
  }
  return std::string(sink.data()) + "\n" + error;
}

BOOST_AUTO_TEST_CASE(features_called_directly_give_what_they_give_otherwise) {
  // Called directly, the features take escape-free keys as the JSON
  // reader gives them, with their value's first byte (plain_key()), when
  // the input is in memory: the same text and errors as through the
  // Handler interface, for every kind of value as a member, nested and as
  // an element, from memory and from a pipe.
  std::vector<std::string> values;
  for (const char* h : {"c0",
                        "c2",
                        "c3",
                        "05",
                        "ff",
                        "ccff",
                        "d3ffffffffffffff00",
                        "cf8000000000000000",
                        "ca7fc00000",
                        "cb3ff199999999999a",
                        "a3616263",
                        "d903616263",
                        "c4020102",
                        "920102",
                        "81a16101",
                        "d6ff00000000",
                        "a3e6b0b4",
                        "a122",
                        "80",
                        "90",
                        "810102",
                        "d90568656c6c6f",
                        "c7010501"}) {
    values.push_back(test::hex(h));
  }
  const auto str = [](const std::string& s) {
    return std::string(1, static_cast<char>(0xa0 | s.size())) + s;
  };
  std::string doc =
      test::hex("dc00") + std::string(1, static_cast<char>(values.size() * 2));
  for (std::size_t i = 0; i < values.size(); ++i) {
    doc += test::hex("86") + str("id") + std::string(1, static_cast<char>(i)) +
           str("someValue") + values[i] + str("maybeNull") + test::hex("c0") +
           str("nestedMap") + test::hex("81") + str("innerKey") + values[i] +
           str("UPPER_key") + values[i] + str("createdAt") +
           (i % 2 == 0 ? str("2024-03-10T01:30:00-05:00") : values[i]);
    doc += values[i];
  }
  doc += doc;  // a second document
  const auto sets = jbx::transforms::testing::record_feature_sets();
  for (std::size_t k = 0; k < sets.size(); ++k) {
    for (const std::size_t cut :
         {doc.size(), doc.size() / 2, doc.size() / 2 - 1, std::size_t{40}}) {
      const std::string in = doc.substr(0, cut);
      const std::string generic = read_fused(in, sets[k], true, false);
      BOOST_TEST(read_fused(in, sets[k], false, false) == generic,
                 "set " << k << " cut " << cut);
      BOOST_TEST(read_fused(in, sets[k], false, true) == generic,
                 "set " << k << " cut " << cut << " from a pipe");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace jbx::msgpack
