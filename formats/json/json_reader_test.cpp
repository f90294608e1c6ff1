#include "formats/json/json_reader.h"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/error.h"
#include "formats/json/json_parser.h"
#include "formats/json/json_simd.h"
#include "formats/json/json_test_util.h"

namespace {

using jbx::Flow;

// Records every event as text, so two readers can be compared exactly.
class Recorder : public jbx::Handler {
 public:
  std::string log;
  Flow begin_object() override { return add("{", Flow::visit); }
  Flow key(std::string_view k) override {
    return add("k:" + std::string(k), next_key_flow(k));
  }
  void end_object() override { add("}"); }
  Flow begin_array() override { return add("[", array_flow); }
  void end_array() override { add("]"); }
  void null_value() override { add("null"); }
  void bool_value(bool b) override { add(b ? "true" : "false"); }
  void int_value(std::int64_t v) override { add(std::to_string(v)); }
  void uint_value(std::uint64_t v) override { add(std::to_string(v)); }
  void double_value(double v) override { add(std::to_string(v)); }
  void number_text(std::string_view t) override { add("n:" + std::string(t)); }
  void string_value(std::string_view s) override { add("s:" + std::string(s)); }
  void bytes_value(std::span<const std::uint8_t>) override { add("b"); }
  void timestamp_value(const jbx::Timestamp&) override { add("t"); }
  void annotation(const jbx::Annotation&) override { add("@"); }
  void end_document() override { add("|"); }

  Flow array_flow = Flow::visit;  // what begin_array returns
  std::string skip_key;           // key() returns skip for this one
  std::string stop_key;           // key() returns stop for this one
  std::string refuse;  // throws Error(lossy) without an offset at this event

 private:
  Flow add(const std::string& event, Flow f = Flow::visit) {
    if (event == refuse) throw jbx::Error(jbx::Errc::lossy, "refused");
    log += event;
    log += ' ';
    return f;
  }
  Flow next_key_flow(std::string_view k) const {
    if (!stop_key.empty() && k == stop_key) return Flow::stop;
    if (!skip_key.empty() && k == skip_key) return Flow::skip;
    return Flow::visit;
  }
};

struct Outcome {
  std::string events;
  std::string error;  // "CODE@OFFSET: message", "" when none
};

// The simdjson walk over every document a few bytes of index at a time,
// as it reads a document too large to index at once: each chunk indexed
// when the walk comes to it.
constexpr jbx::SimdChunking kTinyChunks{16, 0, 4, SIZE_MAX};
// The same, each chunk indexed on a second thread while the walk reads
// the one before; larger, since every chunk costs a hand-over.
constexpr jbx::SimdChunking kChunksAhead{64, 0, 4, 0};

// kChunksAhead, with chunks large enough that `text` makes at most about
// a hundred.
jbx::SimdChunking chunks_ahead(const std::string& text) {
  jbx::SimdChunking c = kChunksAhead;
  c.chunk = std::max(c.chunk, text.size() / 100);
  return c;
}

// Reads every document of `text`; simd=false forces the scalar parser,
// `chunks` makes the simdjson walk index each document in chunks.
// from_file: the text is a file read front to back, as a huge one is: the
// walk reads its chunks through the file, not the mapping.
Outcome read_all(const std::string& text, jbx::JsonMode mode, bool simd,
                 Recorder rec = Recorder(), std::uint32_t max_depth = 1024,
                 const jbx::SimdChunking* chunks = nullptr,
                 bool from_file = false) {
  jbx::testing::TestInput in(text, from_file);
  jbx::ReadOptions ro;
  ro.max_depth = max_depth;
  jbx::JsonReader reader(in.source(), ro, mode);
  if (!simd) reader.set_simd_limit(0);
  if (chunks != nullptr) reader.set_simd_chunking(*chunks);
  Outcome out;
  for (;;) {
    try {
      if (!reader.read_document(rec)) break;
    } catch (const jbx::Error& e) {
      out.error += std::string(jbx::errc_name(e.code)) + "@" +
                   std::to_string(e.offset.value_or(999999)) + ": " + e.message;
      if (mode != jbx::JsonMode::lines) break;
      out.error += "; ";
    }
  }
  out.events = rec.log;
  return out;
}

// Both engines, and the simdjson one in chunks (indexed in turn and
// ahead), must agree on errors, and on events when there is none (before
// an error they may have delivered different amounts). Returns the
// simdjson engine's outcome.
Outcome read_both(const std::string& text,
                  jbx::JsonMode mode = jbx::JsonMode::single,
                  Recorder rec = Recorder(), std::uint32_t max_depth = 1024) {
  const Outcome a = read_all(text, mode, true, rec, max_depth);
  const Outcome b = read_all(text, mode, false, rec, max_depth);
  const Outcome c = read_all(text, mode, true, rec, max_depth, &kTinyChunks);
  const jbx::SimdChunking ahead = chunks_ahead(text);
  const Outcome d = read_all(text, mode, true, rec, max_depth, &ahead);
  const Outcome e =
      read_all(text, mode, true, rec, max_depth, &kTinyChunks, true);
  const Outcome f = read_all(text, mode, true, rec, max_depth, &ahead, true);
  if (a.error.empty()) {
    BOOST_TEST(a.events == b.events, "events differ for " << text);
    BOOST_TEST(a.events == c.events, "chunked events differ for " << text);
    BOOST_TEST(a.events == d.events, "events ahead differ for " << text);
    BOOST_TEST(a.events == e.events, "events from a file differ for " << text);
    BOOST_TEST(a.events == f.events,
               "events ahead from a file differ for " << text);
  }
  BOOST_TEST(a.error == b.error, "errors differ for " << text);
  BOOST_TEST(a.error == c.error, "chunked errors differ for " << text);
  BOOST_TEST(a.error == d.error, "errors ahead differ for " << text);
  BOOST_TEST(a.error == e.error, "errors from a file differ for " << text);
  BOOST_TEST(a.error == f.error,
             "errors ahead from a file differ for " << text);
  return a;
}

std::string error_of(const std::string& text,
                     jbx::JsonMode mode = jbx::JsonMode::single) {
  return read_both(text, mode).error;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json_reader)

BOOST_AUTO_TEST_CASE(numbers_keep_their_exact_spelling) {
  const Outcome o =
      read_both("[-8651648355575108941, 1.000, 1E400, -0, 0.5e-7, 2E+3]");
  BOOST_TEST(o.error == "");
  BOOST_TEST(o.events ==
             "[ n:-8651648355575108941 n:1.000 n:1E400 n:-0 n:0.5e-7 "
             "n:2E+3 ] | ");
}

BOOST_AUTO_TEST_CASE(strings_are_unescaped_to_utf8) {
  const Outcome o =
      read_both(R"({"a\u00e9\n":"\ud83d\ude00\/\"\\\b\f\r\t\u0000x","é":"€"})");
  BOOST_TEST(o.error == "");
  BOOST_TEST(o.events == std::string("{ k:a\xC3\xA9\n s:\xF0\x9F\x98\x80/\"\\"
                                     "\b\f\r\t") +
                             std::string(1, '\0') +
                             "x k:\xC3\xA9 s:\xE2\x82\xAC } | ");
}

BOOST_AUTO_TEST_CASE(scalars_and_empty_containers) {
  BOOST_TEST(read_both("true").events == "true | ");
  BOOST_TEST(read_both(" null ").events == "null | ");
  BOOST_TEST(read_both("\"x\"").events == "s:x | ");
  BOOST_TEST(read_both("-1.5").events == "n:-1.5 | ");
  BOOST_TEST(read_both("[{},[],{\"a\":[]}]").events ==
             "[ { } [ ] { k:a [ ] } ] | ");
}

BOOST_AUTO_TEST_CASE(exact_error_messages_and_offsets) {
  const std::pair<std::string, std::string> cases[] = {
      {"{\"a\":1 \"b\":2}",
       "syntax@7: expected ',' or '}' after object member, found '\"'"},
      {"[1 2]", "syntax@3: expected ',' or ']' after array element, found '2'"},
      {"[\"a\\x\"]", "syntax@3: invalid escape '\\x' in string"},
      {"\"abc", "unexpected_end@4: unexpected end of input in string"},
      {"[\"a\xFF\"]", "invalid_utf8@3: invalid UTF-8 byte 0xff in string"},
      {"[\"\xC3\x28\"]",
       "invalid_utf8@2: invalid UTF-8 in string: byte 0x28 cannot follow "
       "0xc3"},
      {"[\"\xE6\xA2\x28\"]",
       "invalid_utf8@2: invalid UTF-8 in string: byte 0x28 cannot follow "
       "0xe6 0xa2"},
      {"[\"\xC0\xAF\"]", "invalid_utf8@2: invalid UTF-8 byte 0xc0 in string"},
      {"[\"\xED\xA0\x80\"]",
       "invalid_utf8@2: invalid UTF-8 in string: byte 0xa0 cannot follow "
       "0xed (a UTF-16 surrogate)"},
      {"[\"\xE0\x9F\xBF\"]",
       "invalid_utf8@2: invalid UTF-8 in string: byte 0x9f cannot follow "
       "0xe0 (an overlong form)"},
      {"[\"\xF4\x90\x80\x80\"]",
       "invalid_utf8@2: invalid UTF-8 in string: byte 0x90 cannot follow "
       "0xf4 (above U+10FFFF)"},
      {"[\"\xF0\x9F\x98\"]",
       "invalid_utf8@2: invalid UTF-8 in string: byte 0x22 cannot follow "
       "0xf0 0x9f 0x98"},
      {"[01]", "syntax@1: leading zeros are not allowed in numbers"},
      {"[-01]", "syntax@1: leading zeros are not allowed in numbers"},
      {"[1.]", "syntax@3: expected a digit after the decimal point, found ']'"},
      {"[1e]", "syntax@3: expected a digit in the exponent, found ']'"},
      {"[-]", "syntax@2: expected a digit after '-', found ']'"},
      {"[.5]", "syntax@1: expected a value, found '.'"},
      {"[1,]", "syntax@3: trailing comma before ']'"},
      {"{\"a\":1,}", "syntax@7: trailing comma before '}'"},
      {"{1:2}", "syntax@1: expected a string key or '}', found '1'"},
      {"{\"a\" 1}", "syntax@5: expected ':' after key, found '1'"},
      {"[tru]", "syntax@4: invalid literal, expected 'true'"},
      {"[nul", "unexpected_end@4: unexpected end of input in 'null'"},
      {"[\"\\ud800\"]", "invalid_utf8@2: lone surrogate \\ud800 in string"},
      {"[\"\\udc00\\ud800\"]",
       "invalid_utf8@2: lone surrogate \\udc00 in string"},
      {"[\"\\u12g4\"]",
       "syntax@2: invalid \\u escape in string: expected 4 hex digits"},
      {"[\"a\nb\"]", "syntax@3: unescaped control character 0x0a in string"},
      {"[1] x", "syntax@4: unexpected content after the document, found 'x'"},
      {"[1] [2]", "syntax@4: unexpected content after the document, found '['"},
      {"\xEF\xBB\xBF{}", "syntax@0: a byte order mark is not allowed in JSON"},
      {"[1,[2,{\"a\":3",
       "unexpected_end@12: unexpected end of input in object"},
      {"", ""},
  };
  for (const auto& [input, expected] : cases) {
    BOOST_TEST(error_of(input) == expected, "input: " << input);
  }
}

BOOST_AUTO_TEST_CASE(streams_need_whitespace_between_documents) {
  const Outcome o = read_both("1 2\n[3]\t{\"a\":4}", jbx::JsonMode::stream);
  BOOST_TEST(o.error == "");
  BOOST_TEST(o.events == "n:1 | n:2 | [ n:3 ] | { k:a n:4 } | ");
  const Outcome bad = read_both("[1] [2][3]", jbx::JsonMode::stream);
  BOOST_TEST(bad.events == "[ n:1 ] | [ n:2 ] ");
  BOOST_TEST(bad.error ==
             "syntax@7: expected whitespace or end of input after the "
             "document, found '['");
  BOOST_TEST(read_both("  \n", jbx::JsonMode::stream).events == "");
}

BOOST_AUTO_TEST_CASE(what_stage_1_refuses_after_a_document_is_not_its_own) {
  // A document indexed in chunks, then text that stage 1 refuses (invalid
  // UTF-8, an unclosed string): the document is read whole, and the error
  // is the one the scalar parser gives after it, at its offset, as when the
  // document is indexed at once.
  std::string doc = "{\"items\": [";
  for (int i = 0; i < 40; ++i) doc += (i > 0 ? ", " : "") + std::to_string(i);
  doc += "], \"end\": {\"x\": [true]}}";
  const std::string events = read_all(doc, jbx::JsonMode::single, true).events;
  const std::pair<std::string, std::string> cases[] = {
      {doc + "\n\xff\xff\n", "syntax@" + std::to_string(doc.size() + 1) +
                                 ": expected a value, found byte 0xff"},
      {doc + "\n\"abc\n", "syntax@" + std::to_string(doc.size() + 5) +
                              ": unescaped control character 0x0a in string"},
      {doc + "\xff",
       "syntax@" + std::to_string(doc.size()) +
           ": expected whitespace or end of input after the document, "
           "found byte 0xff"},
  };
  for (const auto& [text, error] : cases) {
    // The scalar parser's events: the whole document, ended unless nothing
    // separates it from what follows.
    const Outcome scalar = read_all(text, jbx::JsonMode::stream, false);
    BOOST_TEST(scalar.events.starts_with(events.substr(0, events.size() - 2)));
    for (const auto* chunks : {&kTinyChunks, &kChunksAhead}) {
      const Outcome o =
          read_all(text, jbx::JsonMode::stream, true, Recorder(), 1024, chunks);
      BOOST_TEST(o.error == error, "input: " << text);
      BOOST_TEST(o.events == scalar.events, "input: " << text);
    }
    BOOST_TEST(read_both(text, jbx::JsonMode::stream).error == error);
    BOOST_TEST(!read_both(text).error.empty());
  }
  BOOST_TEST(read_all(cases[0].first, jbx::JsonMode::stream, true, Recorder(),
                      1024, &kTinyChunks)
                 .events == events);
  // A token longer than a chunk (a string near the document's end) makes
  // the chunk grow, past the document: its end is looked for in all that
  // stage 1 was given, more than a chunk and a half.
  const std::string long_doc =
      "{\"a\": [1, 2], \"t\": \"" + std::string(40, 'x') + "\", \"n\": null}";
  const std::string text = long_doc + " [] \"\"!\x9c]";
  const Outcome o = read_both(text, jbx::JsonMode::stream);
  BOOST_TEST(o.error == "syntax@" + std::to_string(long_doc.size() + 6) +
                            ": expected whitespace or end of input after the "
                            "document, found '!'");
  // Both documents before the error are read whole, in chunks too.
  const Outcome scalar = read_all(text, jbx::JsonMode::stream, false);
  BOOST_TEST(scalar.events.ends_with("} | [ ] | s: "), scalar.events);
  for (const auto* chunks : {&kTinyChunks, &kChunksAhead}) {
    BOOST_TEST(
        read_all(text, jbx::JsonMode::stream, true, Recorder(), 1024, chunks)
            .events == scalar.events);
  }
}

BOOST_AUTO_TEST_CASE(json_lines_report_every_bad_line_and_go_on) {
  const Outcome o = read_both("{\"a\":1}\n\n  \n[1,]\r\n\"x\"\n{\"a\"\n2",
                              jbx::JsonMode::lines);
  // Events of a bad line before its error are not pinned (the engines
  // find errors at different points); the good lines are all there.
  BOOST_TEST(o.events.rfind("{ k:a n:1 } | [ ", 0) == 0u);
  BOOST_TEST(o.events.find(" s:x | ") != std::string::npos);
  BOOST_TEST(o.events.size() - o.events.rfind(" n:2 | ") == 7u);
  BOOST_TEST(o.error ==
             "syntax@15: trailing comma before ']'; unexpected_end@26: "
             "unexpected end of input in object; ");
}

BOOST_AUTO_TEST_CASE(unclosed_roots_never_read_past_the_line) {
  // Found by fuzz_json: a lone "[" as the last line once walked off the
  // end of simdjson's index.
  BOOST_TEST(read_both("z[421\n[", jbx::JsonMode::lines).error ==
             "syntax@0: expected a value, found 'z'; unexpected_end@7: "
             "unexpected end of input in array; ");
  BOOST_TEST(read_both("[[1]\n]\n{\"a\":{}\n}", jbx::JsonMode::lines).error ==
             "unexpected_end@4: unexpected end of input in array; syntax@5: "
             "expected a value, found ']'; unexpected_end@14: unexpected end "
             "of input in object; syntax@15: expected a value, found '}'; ");
  // Found by fuzz_json: On-Demand skips an unconsumed value without
  // checking what follows it.
  BOOST_TEST(read_both("{\"a\":\"b\":\"c\"]}").error ==
             "syntax@8: expected ',' or '}' after object member, found ':'");
  BOOST_TEST(read_both("{\"a\":1:2]}").error ==
             "syntax@6: expected ',' or '}' after object member, found ':'");
  BOOST_TEST(read_both("[[1] ]]").error ==
             "syntax@6: unexpected content after the document, found ']'");
}

BOOST_AUTO_TEST_CASE(json_lines_error_line_is_kept) {
  auto src = jbx::Source::from_memory("t", "1\n2\n[x]\n");
  jbx::JsonReader reader(*src, {}, jbx::JsonMode::lines);
  jbx::NullHandler null;
  BOOST_TEST(reader.read_document(null));
  BOOST_TEST(reader.read_document(null));
  BOOST_CHECK_THROW(reader.read_document(null), jbx::Error);
  BOOST_TEST(reader.error_line().number == 3);
  BOOST_TEST(reader.error_line().start == 4u);
  BOOST_TEST(reader.error_line().text == "[x]");
  BOOST_TEST(!reader.read_document(null));
}

BOOST_AUTO_TEST_CASE(json_lines_longer_than_a_chunk) {
  std::string big = "[\"" + std::string(3u << 20, 'x') + "\"]";
  const Outcome o = read_both("1\n" + big + "\n2", jbx::JsonMode::lines);
  BOOST_TEST(o.error == "");
  BOOST_TEST(o.events.size() == big.size() - 4 + 21);
}

BOOST_AUTO_TEST_CASE(depth_limit_is_an_error_not_a_crash) {
  const std::string ok = std::string(1024, '[') + std::string(1024, ']');
  BOOST_TEST(error_of(ok) == "");
  const std::string deep = std::string(1025, '[') + std::string(1025, ']');
  BOOST_TEST(error_of(deep) ==
             "depth_limit@1024: nesting deeper than 1024 "
             "levels");
  // Far beyond the recursion bound of the simdjson walk: the iterative
  // parser takes over.
  const std::string very = std::string(200000, '[') + std::string(200000, ']');
  BOOST_TEST(
      read_all(very, jbx::JsonMode::single, true, Recorder(), 300000).error ==
      "");
  BOOST_TEST(
      read_all(std::string(100000, '['), jbx::JsonMode::single, true).error ==
      "depth_limit@1024: nesting deeper than 1024 levels");
}

BOOST_AUTO_TEST_CASE(truncation_at_every_offset_is_a_clean_error) {
  const std::string doc =
      R"({"a":[1,-2.5e3,true,false,null],"b\u00e9":{"c":"x\"y\u20ac"}})";
  for (std::size_t n = 1; n < doc.size(); ++n) {
    const std::string cut = doc.substr(0, n);
    const std::string err = error_of(cut);
    BOOST_TEST(!err.empty(), "accepted a truncated document: " << cut);
  }
  BOOST_TEST(error_of(doc) == "");
}

BOOST_AUTO_TEST_CASE(skip_and_stop_are_honoured) {
  Recorder skip;
  skip.skip_key = "b";
  BOOST_TEST(read_both(R"({"a":1,"b":{"x":[1,2]},"c":[3]})",
                       jbx::JsonMode::single, skip)
                 .events == "{ k:a n:1 k:b k:c [ n:3 ] } | ");
  Recorder arrays;
  arrays.array_flow = Flow::skip;
  BOOST_TEST(read_both(R"({"a":[1,[2]],"b":2})", jbx::JsonMode::single, arrays)
                 .events == "{ k:a [ k:b n:2 } | ");
  Recorder stop;
  stop.stop_key = "b";
  BOOST_TEST(
      read_both("{\"a\":1,\"b\":2,\"c\":3} [4]", jbx::JsonMode::stream, stop)
          .events == "{ k:a n:1 k:b | [ n:4 ] | ");
}

BOOST_AUTO_TEST_CASE(skipped_values_are_passed_over_by_the_index) {
  // Like simdjson's On-Demand skipping: a skipped value's grammar is not
  // looked at (stage 1 still checks its UTF-8 and strings); unskipped, the
  // same input is an error.
  Recorder skip;
  skip.skip_key = "b";
  const std::string bad = R"({"a":1,"b":[1,2,],"c":3})";
  for (const auto* chunks : {static_cast<const jbx::SimdChunking*>(nullptr),
                             &kTinyChunks, &kChunksAhead}) {
    const Outcome o =
        read_all(bad, jbx::JsonMode::single, true, skip, 1024, chunks);
    BOOST_TEST(o.error == "");
    BOOST_TEST(o.events == "{ k:a n:1 k:b k:c n:3 } | ");
  }
  BOOST_TEST(read_both(bad).error != "");
  // Unclosed, or nested past the limit, is an error even when skipped.
  BOOST_TEST(read_all(R"({"a":1,"b":[1,[2)", jbx::JsonMode::single, true, skip)
                 .error != "");
  BOOST_TEST(
      read_all(R"({"b":[[[[1]]]],"c":3})", jbx::JsonMode::single, true, skip, 4)
          .error != "");
}

BOOST_AUTO_TEST_CASE(a_stop_deep_inside_ends_that_document_only) {
  // The next document starts where bracket counting ends the stopped one,
  // brackets inside strings included.
  Recorder stop;
  stop.stop_key = "b";
  BOOST_TEST(read_both(R"({"a":{"b":[1,"]}"],"c":{}},"d":[[]]} {"e":[5]})",
                       jbx::JsonMode::stream, stop)
                 .events == "{ k:a { k:b | { k:e [ n:5 ] } | ");
  Recorder arrays;
  arrays.array_flow = Flow::stop;
  BOOST_TEST(read_both("{\"a\":[[1],{\"x\":\"[\"}]}\n[2]",
                       jbx::JsonMode::stream, arrays)
                 .events == "{ k:a [ | [ | ");
}

BOOST_AUTO_TEST_CASE(handler_errors_get_the_offset_of_the_refused_token) {
  const std::string doc =
      R"({"a": ["s\"", 1, 2.5, true, null, {"x": "y"}], "c": {"d": []}})";
  const std::pair<const char*, int> cases[] = {
      {"{", 0},      {"k:a", 1},   {"[", 6},     {"s:s\"", 7}, {"n:1", 14},
      {"n:2.5", 17}, {"true", 22}, {"null", 28}, {"k:x", 35},  {"s:y", 40},
      {"}", 43},     {"]", 44},    {"k:d", 53},
  };
  for (const auto& [event, offset] : cases) {
    Recorder rec;
    rec.refuse = event;
    const std::string want = "lossy@" + std::to_string(offset) + ": refused";
    BOOST_TEST(read_both(doc, jbx::JsonMode::single, rec).error == want,
               "refusing " << event);
  }
  // A later document of a stream, and a later line: offsets in the input.
  Recorder rec;
  rec.refuse = "n:2";
  BOOST_TEST(read_both("[1] [2]", jbx::JsonMode::stream, rec).error ==
             "lossy@5: refused");
  BOOST_TEST(read_both("[1]\n{\"b\": 2}\n", jbx::JsonMode::lines, rec).error ==
             "lossy@10: refused; ");
  BOOST_TEST(read_both("7\n2\n", jbx::JsonMode::stream, rec).error ==
             "lossy@2: refused");
}

BOOST_AUTO_TEST_CASE(token_start_finds_where_a_token_begins) {
  const std::string_view t = R"([12, "a\\", "b\"c", true, {}])";
  BOOST_TEST(jbx::token_start(t, 3) == 1u);    // 12
  BOOST_TEST(jbx::token_start(t, 10) == 5u);   // "a\\"
  BOOST_TEST(jbx::token_start(t, 18) == 12u);  // "b\"c"
  BOOST_TEST(jbx::token_start(t, 24) == 20u);  // true
  BOOST_TEST(jbx::token_start(t, 28) == 27u);  // }
  BOOST_TEST(jbx::token_start(t, 1) == 0u);    // [
}

BOOST_AUTO_TEST_CASE(corpus_events_agree_between_engines) {
  const std::filesystem::path dir =
      std::filesystem::path(JBX_SHARED_DIR) / "corpus" / "jsonexamples";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const Outcome o = read_both(ss.str(), jbx::JsonMode::stream);
    BOOST_TEST(o.error == "", entry.path());
    ++files;
  }
  BOOST_TEST(files > 10);
}

// The count a binary writer streams a large array with: by both kernels,
// over strings that hold brackets, commas, quotes and runs of backslashes
// across the 64-byte blocks of the AVX2 pass.
// (-1: not an array that closes.) Read in place and in copied blocks of
// 64 and 192 bytes, as from a file, each in one part and in two: the same
// count, or a failure.
std::int64_t count(const jbx::SimdEngine& e, std::string text) {
  const std::size_t len = text.size();
  text.append(64, '\0');
  std::int64_t got[6];
  const std::size_t blocks[3] = {0, 64, 192};
  for (int k = 0; k < 6; ++k) {
    std::uint64_t n = 0;
    got[k] = e.count_elements(text.data(), len, n, blocks[k % 3], k >= 3)
                 ? static_cast<std::int64_t>(n)
                 : -1;
  }
  for (const std::int64_t g : got) {
    if (g != got[0]) return -2;
  }
  return got[0];
}

std::string random_json(std::mt19937& rng, int depth) {
  switch (rng() % (depth >= 3 ? 2 : 4)) {
    case 0:
      return std::to_string(rng() % 1000);
    case 1: {
      static constexpr char kPool[] = "\"\\,[]{}a \n";
      std::string s = "\"";
      for (std::size_t n = rng() % 70; n > 0; --n) {
        const char c = kPool[rng() % (sizeof kPool - 1)];
        if (c == '"' || c == '\\') {
          s += '\\';
          s += c;
        } else if (c == '\n') {
          s += "\\n";
        } else {
          s += c;
        }
      }
      return s + "\"";
    }
    case 2: {
      std::string s = "[";
      for (std::size_t n = rng() % 5; n > 0; --n) {
        s += random_json(rng, depth + 1);
        if (n > 1) s += ", ";
      }
      return s + "]";
    }
    default: {
      std::string s = "{";
      for (std::size_t n = rng() % 5; n > 0; --n) {
        s += "\"k,[\\\"\":" + random_json(rng, depth + 1);
        if (n > 1) s += ",\n";
      }
      return s + "}";
    }
  }
}

BOOST_AUTO_TEST_CASE(counts_the_elements_of_an_array_document) {
  std::vector<std::unique_ptr<jbx::SimdEngine>> engines;
  engines.push_back(jbx::make_simd_engine(64));
  engines.push_back(jbx::simd_portable::make(64));
  for (const auto& e : engines) {
    BOOST_TEST(count(*e, "[]") == 0);
    BOOST_TEST(count(*e, " \n[ \t]") == 0);
    BOOST_TEST(count(*e, "[1]") == 1);
    BOOST_TEST(count(*e, "[1,[2,3],{\"a\":[4,5],\"b\":6}] ") == 3);
    BOOST_TEST(count(*e, R"(["a,b","[{","\\",",\"],"])") == 4);
    BOOST_TEST(count(*e, "{\"a\":1}") == -1);
    BOOST_TEST(count(*e, "[1,2") == -1);
    BOOST_TEST(count(*e, "[\"],\"") == -1);
    BOOST_TEST(count(*e, "") == -1);
    BOOST_TEST(count(*e, "  ") == -1);
    BOOST_TEST(count(*e, "17") == -1);
    // Counted in two, the cut falls in a string (no line break nor comma
    // before a quote after the middle), after a comma in a string that a
    // closing quote follows, among backslashes, or deeper than the second
    // part tracks: the first part counts on over the second's text.
    BOOST_TEST(count(*e, "[\"" + std::string(300, 'a') + "\", 1, 2]") == 3);
    BOOST_TEST(
        count(*e, "[\"" + std::string(200, 'a') + ",\",\"b,\",[\"c\"]]") == 3);
    BOOST_TEST(count(*e, "[\"" + std::string(301, '\\') + "\"\", 4]") == 2);
    BOOST_TEST(count(*e, "[7," + std::string(80, '[') + "1,2" +
                             std::string(80, ']') + ", 3]") == 3);
    BOOST_TEST(count(*e, "[7," + std::string(80, '[') + "1,2" +
                             std::string(79, ']') + ", 3]") == -1);
    BOOST_TEST(count(*e, "[{\"a\":[1,2,3]},\n{\"b\":{\"c\":[4,5]}},\n6]") == 3);
    BOOST_TEST(count(*e, "[" + std::string(200, ' ') + "1,2,3] [4,5]") == 3);
    std::mt19937 rng(20261203);
    for (int k = 0; k < 300; ++k) {
      const std::size_t n = 1 + rng() % 60;
      std::string text = "[";
      for (std::size_t i = 0; i < n; ++i) {
        text += random_json(rng, 0);
        if (i + 1 < n) text += rng() % 2 ? "," : " ,\n ";
      }
      text += "]";
      BOOST_TEST(count(*e, text) == static_cast<std::int64_t>(n), text);
      // Documents after it (a stream) are not counted, wherever a count in
      // two parts cuts.
      const std::string more =
          text + (rng() % 2 ? " [1,2]" : "\n{\"a\":[1,2]}\n[3,[4,5],6]");
      BOOST_TEST(count(*e, more) == static_cast<std::int64_t>(n), more);
      // Cut short anywhere inside the array, it does not close.
      BOOST_TEST(count(*e, text.substr(0, rng() % (text.size() - 1))) == -1,
                 text);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
