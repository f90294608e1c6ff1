#include "formats/json/json_writer.h"

#include <fmt/format.h>
#include <boost/test/unit_test.hpp>

#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <random>
#include <vector>

#include "core/error.h"
#include "core/sink.h"
#include "formats/json/json_reader.h"

namespace {

// Reads `json` (a stream) and writes it back with `o`.
std::string reformat(const std::string& json, jbx::WriteOptions o = {}) {
  auto src = jbx::Source::from_memory("t", json);
  jbx::JsonReader reader(*src, {}, jbx::JsonMode::stream);
  jbx::StringSink sink;
  jbx::JsonWriter w(sink, o);
  while (reader.read_document(w)) {
  }
  return std::string(sink.data());
}

jbx::WriteOptions compact() {
  jbx::WriteOptions o;
  o.compact = true;
  return o;
}

template <class F>
std::string write_with(F f, jbx::WriteOptions o = compact()) {
  jbx::StringSink sink;
  jbx::JsonWriter w(sink, o);
  f(w);
  w.end_document();
  return std::string(sink.data());
}

// One writer event, replayed into several writers.
struct Event {
  enum class Kind {
    begin_object,
    end_object,
    begin_array,
    end_array,
    key,
    plain_key,
    direct_key,
    repeated_key,
    string_value,
    plain_string,
    direct_string,
    number_text,
    int_value,
    uint_value,
    double_value,
    bool_value,
    null_value,
    annotation,
    end_document,
  };
  Kind kind;
  std::string_view text;
  std::size_t readable = 0;  // direct_*: how far text may be read
  std::size_t slot = 0;      // repeated_key: which name of the document
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  bool b = false;
  jbx::Annotation note;
};

void replay(const std::vector<Event>& events, jbx::JsonWriter& w) {
  using K = Event::Kind;
  // What the writer keeps for each repeated name, as FusedFeatures keeps it
  // for the keys of records.
  struct Kept {
    std::string text;
    std::size_t tag = SIZE_MAX;
  };
  std::vector<Kept> kept;
  for (const Event& e : events) {
    switch (e.kind) {
      case K::begin_object:
        w.begin_object();
        break;
      case K::end_object:
        w.end_object();
        break;
      case K::begin_array:
        w.begin_array();
        break;
      case K::end_array:
        w.end_array();
        break;
      case K::key:
        w.key(e.text);
        break;
      case K::plain_key:
        w.plain_key(e.text);
        break;
      case K::direct_key:
        w.direct_key(e.text, e.readable);
        break;
      case K::repeated_key:
        if (kept.size() <= e.slot) kept.resize(e.slot + 1);
        w.repeated_key(e.text, kept[e.slot].text, kept[e.slot].tag);
        break;
      case K::string_value:
        w.string_value(e.text);
        break;
      case K::plain_string:
        w.plain_string(e.text);
        break;
      case K::direct_string:
        w.direct_string(e.text, e.readable);
        break;
      case K::number_text:
        w.number_text(e.text);
        break;
      case K::int_value:
        w.int_value(e.i);
        break;
      case K::uint_value:
        w.uint_value(e.u);
        break;
      case K::double_value:
        w.double_value(e.d);
        break;
      case K::bool_value:
        w.bool_value(e.b);
        break;
      case K::null_value:
        w.null_value();
        break;
      case K::annotation:
        w.annotation(e.note);
        break;
      case K::end_document:
        w.end_document();
        break;
    }
  }
}

// The JSON text of `events` (without annotations) in the layout of `o`,
// written the plain way: what the writer must produce on any path.
std::string reference(const std::vector<Event>& events, jbx::WriteOptions o) {
  if (o.lines) o.compact = true;
  const bool pretty = !o.compact && (o.tab || o.indent > 0);
  const std::string unit =
      o.tab ? "\t" : std::string(pretty ? o.indent : 0, ' ');
  std::string out;
  struct Level {
    bool array;
    bool empty;
  };
  std::vector<Level> levels;
  const auto newline = [&] {
    if (!pretty) return;
    out += '\n';
    for (std::size_t i = 0; i < levels.size(); ++i) out += unit;
  };
  const auto before_item = [&] {
    if (levels.empty()) return;
    if (!levels.back().empty) out += ',';
    levels.back().empty = false;
    newline();
  };
  const auto before_value = [&] {
    if (!levels.empty() && levels.back().array) before_item();
  };
  const auto quoted = [&](std::string_view s) {
    out += '"';
    for (const char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          if (c < 0x20) {
            constexpr char kHex[] = "0123456789abcdef";
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 15];
          } else {
            out += ch;
          }
      }
    }
    out += '"';
  };
  const auto close = [&](char c) {
    const bool empty = levels.back().empty;
    levels.pop_back();
    if (!empty) newline();
    out += c;
  };
  using K = Event::Kind;
  for (const Event& e : events) {
    switch (e.kind) {
      case K::begin_object:
      case K::begin_array:
        before_value();
        out += e.kind == K::begin_object ? '{' : '[';
        levels.push_back(Level{e.kind == K::begin_array, true});
        break;
      case K::end_object:
        close('}');
        break;
      case K::end_array:
        close(']');
        break;
      case K::key:
      case K::plain_key:
      case K::direct_key:
      case K::repeated_key:
        before_item();
        quoted(e.text);
        out += pretty ? ": " : ":";
        break;
      case K::string_value:
      case K::plain_string:
      case K::direct_string:
        before_value();
        quoted(e.text);
        break;
      case K::number_text:
        before_value();
        out += e.text;
        break;
      case K::int_value:
        before_value();
        out += std::to_string(e.i);
        break;
      case K::uint_value:
        before_value();
        out += std::to_string(e.u);
        break;
      case K::double_value: {
        before_value();
        char buf[40];
        const auto r = std::to_chars(buf, buf + sizeof buf, e.d);
        const std::string t(buf, r.ptr);
        out += t;
        if (t.find_first_of(".e") == std::string::npos) out += ".0";
        break;
      }
      case K::bool_value:
        before_value();
        out += e.b ? "true" : "false";
        break;
      case K::null_value:
        before_value();
        out += "null";
        break;
      case K::annotation:
        throw std::logic_error("the reference writes no annotations");
      case K::end_document:
        out += '\n';
        break;
    }
  }
  return out;
}

// Random documents as events. Plain texts live in one padded buffer that the
// writers may read in words (as the JSON reader's input); some come from
// outside it, to be copied exactly.
class EventMaker {
 public:
  explicit EventMaker(std::uint32_t seed, bool annotations)
      : rng_(seed), annotations_(annotations), arena_(kArena, '#') {}

  std::vector<Event> make(int documents) {
    events_.clear();
    for (int i = 0; i < documents; ++i) {
      // Now and then one document nests far past any inline indent buffer
      // (600 levels of up to 8 characters pass 4096 as well).
      if (chance(8)) {
        const int deep = chance(4) ? 600 : 40;
        for (int k = 0; k < deep; ++k) {
          annotate();
          if (chance(2)) {
            push(Event::Kind::begin_array);
          } else {
            push(Event::Kind::begin_object);
            key();
          }
          opened_.push_back(events_.back().kind);
        }
        value(3);
        while (!opened_.empty()) {
          push(opened_.back() == Event::Kind::begin_array
                   ? Event::Kind::end_array
                   : Event::Kind::end_object);
          opened_.pop_back();
        }
      } else {
        value(0);
      }
      push(Event::Kind::end_document);
    }
    return events_;
  }

  std::string_view arena() const { return arena_; }

 private:
  static constexpr std::size_t kArena = std::size_t{8} << 20;

  bool chance(int one_in) {
    return std::uniform_int_distribution<int>(0, one_in - 1)(rng_) == 0;
  }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  void push(Event::Kind k) {
    Event e{};
    e.kind = k;
    events_.push_back(e);
  }

  // Text of `n` characters; with escapes, some that need escaping.
  std::string text(std::size_t n, bool escapes) {
    static constexpr char kPlain[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-./";
    static constexpr char kSpecial[] = {'"',    '\\', '\n', '\t', '\x01',
                                        '\x1f', '\b', '\f', '\r'};
    std::string s;
    for (std::size_t i = 0; i < n; ++i) {
      if (escapes && chance(6)) {
        s += kSpecial[pick(sizeof kSpecial)];
      } else if (chance(20)) {
        s += "\xC3\xA9";  // UTF-8 passes through untouched
      } else {
        s += kPlain[pick(sizeof kPlain - 1)];
      }
    }
    return s;
  }

  std::size_t length() {
    switch (pick(12)) {
      case 0:
        return 0;
      case 1:
        return static_cast<std::size_t>(31 + pick(3));  // around kWordCopy
      case 2:
        return static_cast<std::size_t>(34 + pick(200));
      case 3:
        if (chance(40)) return 65536 + static_cast<std::size_t>(pick(3));
        return static_cast<std::size_t>(pick(5000));
      default:
        return static_cast<std::size_t>(1 + pick(20));
    }
  }

  // Where a text lives: mostly in the padded arena, else in a buffer of
  // its own. `readable` is how far direct_* may read.
  std::string_view place(const std::string& s, std::size_t& readable) {
    if (chance(4) || used_ + s.size() + 64 > kArena) {
      own_.push_back(s);
      readable = s.size();
      return own_.back();
    }
    const std::size_t at = used_;
    arena_.replace(at, s.size(), s);
    used_ += s.size() + static_cast<std::size_t>(pick(40));
    readable = chance(3) ? s.size() : kArena - at;
    return std::string_view(arena_).substr(at, s.size());
  }

  void add_text(Event::Kind plain, Event::Kind direct, Event::Kind escaped) {
    const bool escapes = chance(5);
    const std::string s = text(length(), escapes);
    Event e{};
    e.text = place(s, e.readable);
    if (escapes) {
      e.kind = escaped;
    } else {
      const int w = pick(3);
      e.kind = w == 0 ? plain : w == 1 ? direct : escaped;
    }
    events_.push_back(e);
  }

  void key() {
    // Some names recur, at any depth, as the keys of records do.
    if (!names_.empty() && chance(3)) {
      events_.push_back(names_[static_cast<std::size_t>(
          pick(static_cast<int>(names_.size())))]);
      return;
    }
    if (chance(4)) {
      // kWordCopy bytes readable past the name's end, as repeated_key()
      // needs: the arena has them.
      const std::string s =
          text(static_cast<std::size_t>(pick(70)), /*escapes=*/false);
      Event e{};
      e.kind = Event::Kind::repeated_key;
      e.text = place(s, e.readable);
      const bool in_arena = e.text.data() >= arena_.data() &&
                            e.text.data() < arena_.data() + arena_.size();
      if (!in_arena) {
        own_.back().append(jbx::JsonWriter::kWordCopy, '\0');
        e.text = std::string_view(own_.back()).substr(0, s.size());
      }
      e.slot = names_.size();
      names_.push_back(e);
      events_.push_back(e);
      return;
    }
    add_text(Event::Kind::plain_key, Event::Kind::direct_key, Event::Kind::key);
  }

  void annotate() {
    if (!annotations_ || !chance(6)) return;
    Event e{};
    e.kind = Event::Kind::annotation;
    if (chance(2)) {
      e.note.kind = jbx::Annotation::Kind::type_name;
      e.note.name = chance(2) ? "com.x.Bean" : "java.util.List";
    } else {
      e.note.kind = jbx::Annotation::Kind::cbor_tag;
      e.note.tag = static_cast<std::uint64_t>(pick(1000));
    }
    events_.push_back(e);
  }

  void value(int depth) {
    annotate();
    const int container = depth > 12 ? 0 : 6 - depth / 2;
    const int r = pick(20);
    if (r < container) {
      const bool object = chance(2);
      push(object ? Event::Kind::begin_object : Event::Kind::begin_array);
      const int n = chance(5) ? 0 : pick(8);
      for (int i = 0; i < n; ++i) {
        if (object) key();
        value(depth + 1);
      }
      push(object ? Event::Kind::end_object : Event::Kind::end_array);
      return;
    }
    Event e{};
    switch (pick(8)) {
      case 0:
      case 1:
        add_text(Event::Kind::plain_string, Event::Kind::direct_string,
                 Event::Kind::string_value);
        return;
      case 2: {
        static constexpr std::string_view kNumbers[] = {
            "0",     "-1",   "1.5e300", "12345678901234567890123456789",
            "1E400", "-0.0", "3.25",    "123456789012345678901234567890123"};
        const std::string s(kNumbers[pick(8)]);
        e.kind = Event::Kind::number_text;
        e.text = place(s, e.readable);
        break;
      }
      case 3:
        e.kind = Event::Kind::int_value;
        e.i = chance(4) ? std::numeric_limits<std::int64_t>::min()
                        : static_cast<std::int64_t>(rng_()) - (1LL << 31);
        break;
      case 4:
        e.kind = Event::Kind::uint_value;
        e.u = chance(4) ? std::numeric_limits<std::uint64_t>::max()
                        : (std::uint64_t{rng_()} << 32) | rng_();
        break;
      case 5:
        e.kind = Event::Kind::double_value;
        e.d = chance(3) ? 2.0 : std::ldexp(static_cast<double>(rng_()), -20);
        break;
      case 6:
        e.kind = Event::Kind::bool_value;
        e.b = chance(2);
        break;
      default:
        e.kind = Event::Kind::null_value;
        break;
    }
    events_.push_back(e);
  }

  std::mt19937 rng_;
  bool annotations_;
  std::string arena_;
  std::size_t used_ = 0;
  std::deque<std::string> own_;
  std::vector<Event> events_;
  std::vector<Event> names_;  // the repeated_key events so far
  std::vector<Event::Kind> opened_;
};

// The layouts the fast path covers: default, tab, indent 0 to 8, compact,
// lines.
std::vector<jbx::WriteOptions> layouts() {
  std::vector<jbx::WriteOptions> all;
  jbx::WriteOptions o;
  all.push_back(o);
  o.tab = true;
  all.push_back(o);
  for (int i = 0; i <= 8; ++i) {
    jbx::WriteOptions n;
    n.indent = i;
    all.push_back(n);
  }
  all.push_back(compact());
  jbx::WriteOptions lines;
  lines.lines = true;
  all.push_back(lines);
  return all;
}

// `events` written by the inline fast path and by the general path.
std::pair<std::string, std::string> both_paths(const std::vector<Event>& events,
                                               const jbx::WriteOptions& o,
                                               std::string_view arena) {
  std::string out[2];
  for (int general = 0; general < 2; ++general) {
    jbx::StringSink sink;
    jbx::JsonWriter w(sink, o);
    w.force_general_path(general == 1);
    w.set_readable(arena.data(), arena.size());
    replay(events, w);
    out[general] = std::string(sink.data());
  }
  return {out[0], out[1]};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json_writer)

BOOST_AUTO_TEST_CASE(pretty_is_two_spaces_like_jq) {
  BOOST_TEST(reformat(R"({"a":[1,2,{}],"b":[],"c":{"d":null}})") ==
             "{\n  \"a\": [\n    1,\n    2,\n    {}\n  ],\n  \"b\": [],\n"
             "  \"c\": {\n    \"d\": null\n  }\n}\n");
}

BOOST_AUTO_TEST_CASE(indent_tab_compact_and_lines) {
  jbx::WriteOptions four;
  four.indent = 4;
  BOOST_TEST(reformat("[1,[2]]", four) ==
             "[\n    1,\n    [\n        2\n    ]\n]\n");
  jbx::WriteOptions tab;
  tab.tab = true;
  BOOST_TEST(reformat("{\"a\":[1]}", tab) == "{\n\t\"a\": [\n\t\t1\n\t]\n}\n");
  BOOST_TEST(reformat(" { \"a\" : [ 1 , 2 ] } ", compact()) ==
             "{\"a\":[1,2]}\n");
  jbx::WriteOptions lines;
  lines.lines = true;
  BOOST_TEST(reformat("{\"a\": [1,\n 2]}\n[3]", lines) ==
             "{\"a\":[1,2]}\n[3]\n");
}

BOOST_AUTO_TEST_CASE(numbers_are_written_verbatim) {
  BOOST_TEST(
      reformat("[-8651648355575108941,1.000,1E400,-0,1e-7]", compact()) ==
      "[-8651648355575108941,1.000,1E400,-0,1e-7]\n");
}

BOOST_AUTO_TEST_CASE(canonical_minimal_escaping) {
  const std::string in =
      "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u001F\\u007f"
      "\\u00e9\xE2\x82\xAC\\ud83d\\ude00 long enough "
      "to take the fast path\"]";
  BOOST_TEST(reformat(in, compact()) ==
             "[\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\xC3\xA9\xE2\x82\xAC"
             "\xF0\x9F\x98\x80 long enough to take the fast path\"]\n");
}

BOOST_AUTO_TEST_CASE(ascii_uses_surrogate_pairs) {
  jbx::WriteOptions o = compact();
  o.ascii = true;
  BOOST_TEST(reformat("[\"a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z\"]", o) ==
             "[\"a\\u00e9\\u20ac\\ud83d\\ude00z\"]\n");
  BOOST_TEST(reformat("{\"\xC3\xA9\":1}", o) == "{\"\\u00e9\":1}\n");
}

BOOST_AUTO_TEST_CASE(colour_follows_jq_1_7_1) {
  jbx::WriteOptions o;
  o.color = true;
  BOOST_TEST(
      reformat("{\"a\":[null,true,1,\"s\"],\"b\":{}}", o) ==
      "\x1b[1;39m{\x1b[0m\n  \x1b[34;1m\"a\"\x1b[0m\x1b[1;39m:\x1b[0m "
      "\x1b[1;39m[\x1b[0m\n    \x1b[1;30mnull\x1b[0m\x1b[1;39m,"
      "\x1b[0m\n    \x1b[0;39mtrue\x1b[0m\x1b[1;39m,\x1b[0m\n    "
      "\x1b[0;39m1\x1b[0m\x1b[1;39m,\x1b[0m\n    \x1b[0;32m\"s\"\x1b[0m"
      "\n  \x1b[1;39m]\x1b[0m\x1b[1;39m,\x1b[0m\n  \x1b[34;1m\"b\"\x1b[0m"
      "\x1b[1;39m:\x1b[0m \x1b[1;39m{}\x1b[0m\n\x1b[1;39m}\x1b[0m\n");
}

BOOST_AUTO_TEST_CASE(doubles_shortest_round_trip) {
  const auto w = [](double d) {
    return write_with([d](jbx::JsonWriter& j) { j.double_value(d); });
  };
  BOOST_TEST(w(2.0) == "2.0\n");
  BOOST_TEST(w(0.1) == "0.1\n");
  BOOST_TEST(w(-0.0) == "-0.0\n");
  BOOST_TEST(w(1e300) == "1e+300\n");
  BOOST_TEST(w(1.5e-7) == "1.5e-07\n");
  BOOST_TEST(w(123456789012.5) == "123456789012.5\n");
  // Inside a container: the inline path.
  const std::string in_array = write_with([](jbx::JsonWriter& j) {
    j.begin_array();
    for (const double d : {2.0, -0.0, 1e300, 1.5e-7, 100000.0, 0.25}) {
      j.double_value(d);
    }
    j.end_array();
  });
  BOOST_TEST(in_array == "[2.0,-0.0,1e+300,1.5e-07,1e+05,0.25]\n");
}

BOOST_AUTO_TEST_CASE(nan_policy) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  try {
    write_with([&](jbx::JsonWriter& j) { j.double_value(nan); });
    BOOST_FAIL("no error");
  } catch (const jbx::Error& e) {
    BOOST_TEST(e.message == "NaN cannot be written as JSON (use --nan)");
    BOOST_TEST(static_cast<int>(e.code) == static_cast<int>(jbx::Errc::lossy));
  }
  jbx::WriteOptions o = compact();
  o.nan = jbx::NanPolicy::null;
  BOOST_TEST(write_with(
                 [&](jbx::JsonWriter& j) {
                   j.begin_array();
                   j.double_value(nan);
                   j.double_value(-inf);
                   j.end_array();
                 },
                 o) == "[null,null]\n");
  o.nan = jbx::NanPolicy::string;
  BOOST_TEST(write_with(
                 [&](jbx::JsonWriter& j) {
                   j.begin_array();
                   j.double_value(nan);
                   j.double_value(inf);
                   j.double_value(-inf);
                   j.end_array();
                 },
                 o) == "[\"NaN\",\"Infinity\",\"-Infinity\"]\n");
}

BOOST_AUTO_TEST_CASE(integers_and_bytes) {
  const std::uint8_t data[] = {0xfb, 0xff, 0x00, 0x41, 0x42};
  const auto bytes = [&](jbx::BytesEncoding enc) {
    jbx::WriteOptions o = compact();
    o.bytes = enc;
    return write_with(
        [&](jbx::JsonWriter& j) {
          j.begin_array();
          j.int_value(INT64_MIN);
          j.uint_value(UINT64_MAX);
          j.bytes_value(data);
          j.bytes_value(std::span(data, 1));
          j.end_array();
        },
        o);
  };
  BOOST_TEST(bytes(jbx::BytesEncoding::base64) ==
             "[-9223372036854775808,18446744073709551615,\"+/8AQUI=\","
             "\"+w==\"]\n");
  BOOST_TEST(bytes(jbx::BytesEncoding::base64url) ==
             "[-9223372036854775808,18446744073709551615,\"-_8AQUI\",\"-w\"]"
             "\n");
  BOOST_TEST(bytes(jbx::BytesEncoding::hex) ==
             "[-9223372036854775808,18446744073709551615,\"fbff004142\","
             "\"fb\"]\n");
  BOOST_TEST(bytes(jbx::BytesEncoding::array) ==
             "[-9223372036854775808,18446744073709551615,[251,255,0,65,66],"
             "[251]]\n");
}

BOOST_AUTO_TEST_CASE(timestamps_as_iso_8601) {
  const auto ts = [](jbx::Timestamp t) {
    return write_with([&](jbx::JsonWriter& j) { j.timestamp_value(t); });
  };
  jbx::Timestamp t;
  t.seconds = 1700000000;
  BOOST_TEST(ts(t) == "\"2023-11-14T22:13:20Z\"\n");
  t.nanos = 120000000;
  BOOST_TEST(ts(t) == "\"2023-11-14T22:13:20.120Z\"\n");
  t.nanos = 123456000;
  BOOST_TEST(ts(t) == "\"2023-11-14T22:13:20.123456Z\"\n");
  t.nanos = 1;
  t.has_offset = true;
  t.offset_seconds = -(5 * 3600 + 30 * 60);
  BOOST_TEST(ts(t) == "\"2023-11-14T16:43:20.000000001-05:30\"\n");
  jbx::Timestamp before;
  before.seconds = -1;
  BOOST_TEST(ts(before) == "\"1969-12-31T23:59:59Z\"\n");
  jbx::Timestamp date;
  date.kind = jbx::Timestamp::Kind::local_date;
  date.seconds = 19675LL * 86400;
  BOOST_TEST(ts(date) == "\"2023-11-14\"\n");
  jbx::Timestamp time;
  time.kind = jbx::Timestamp::Kind::local_time;
  time.seconds = 3661;
  time.nanos = 500000000;
  BOOST_TEST(ts(time) == "\"01:01:01.500\"\n");
  jbx::Timestamp local;
  local.kind = jbx::Timestamp::Kind::local_date_time;
  local.seconds = 0;
  BOOST_TEST(ts(local) == "\"1970-01-01T00:00:00\"\n");
}

BOOST_AUTO_TEST_CASE(annotations_become_type_members_or_wrappers) {
  const auto run = [](jbx::WriteOptions o) {
    return write_with(
        [](jbx::JsonWriter& j) {
          j.begin_array();
          jbx::Annotation name;
          name.name = "com.x.Bean";
          j.annotation(name);
          j.begin_object();
          j.key("a");
          j.int_value(1);
          j.end_object();
          j.annotation(name);
          j.begin_array();
          j.end_array();
          jbx::Annotation tag;
          tag.kind = jbx::Annotation::Kind::cbor_tag;
          tag.tag = 42;
          j.annotation(tag);
          j.string_value("x");
          j.end_array();
        },
        o);
  };
  BOOST_TEST(run(compact()) ==
             "[{\"@type\":\"com.x.Bean\",\"a\":1},{\"@type\":\"com.x.Bean\","
             "\"@value\":[]},{\"@type\":\"tag:42\",\"@value\":\"x\"}]\n");
  jbx::WriteOptions drop = compact();
  drop.drop_type_names = true;
  BOOST_TEST(run(drop) == "[{\"a\":1},[],\"x\"]\n");
  BOOST_TEST(run({}) ==
             "[\n  {\n    \"@type\": \"com.x.Bean\",\n    \"a\": 1\n  },\n  "
             "{\n    \"@type\": \"com.x.Bean\",\n    \"@value\": []\n  },\n  "
             "{\n    \"@type\": \"tag:42\",\n    \"@value\": \"x\"\n  }\n]\n");
}

BOOST_AUTO_TEST_CASE(strings_of_every_length_are_escaped_where_needed) {
  // string_value() and key() check a string in words, the last one
  // overlapping the one before it, and copy it whole when nothing needs
  // escaping: each length up to a few words, with one byte that needs an
  // escape (or, last, a multi-byte character) at each place, and none.
  const auto reference = [](std::string_view s, bool ascii) {
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c < 0x20) {
        out += fmt::format("\\u{:04x}", c);
      } else if (ascii && c == 0xC3) {
        // The only non-ASCII character used: U+00E9, as \u00e9.
        out += "\\u00e9";
        ++i;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  };
  const std::string specials[] = {"\"",   "\\",   "\n",      "\x01",
                                  "\x1f", "\x7f", "\xC3\xA9"};
  int checked = 0;
  for (const bool ascii : {false, true}) {
    jbx::WriteOptions o = compact();
    o.ascii = ascii;
    for (std::size_t n = 0; n <= 40; ++n) {
      for (const std::string& special : specials) {
        for (std::size_t at = 0; at <= n; ++at) {
          std::string text;
          for (std::size_t i = 0; i < n; ++i) {
            text += static_cast<char>('a' + i % 26);
          }
          if (at < n) text.replace(at, 1, special);
          const std::string out = write_with(
              [&](jbx::JsonWriter& j) {
                j.begin_object();
                j.key(text);
                j.string_value(text);
                j.end_object();
              },
              o);
          const std::string want = reference(text, ascii);
          BOOST_TEST(out == "{" + want + ":" + want + "}\n",
                     "n " << n << " at " << at);
          ++checked;
        }
      }
    }
  }
  BOOST_TEST(checked == 2 * 7 * (41 * 42 / 2));
}

BOOST_AUTO_TEST_CASE(huge_strings_are_written_in_chunks) {
  const std::string s(100000, 'a');
  const std::string with_escapes(50000, '\n');
  jbx::WriteOptions o = compact();
  const std::string out = write_with(
      [&](jbx::JsonWriter& j) {
        j.begin_array();
        j.string_value(s);
        j.string_value(with_escapes);
        j.end_array();
      },
      o);
  BOOST_TEST(out.size() == 1 + 100002 + 1 + 100002 + 1 + 1);
}

BOOST_AUTO_TEST_CASE(fast_path_writes_what_the_general_path_writes) {
  // Random documents, every layout: the inline path, the general path and
  // a plain reference must agree byte for byte.
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    EventMaker maker(seed, false);
    const std::vector<Event> events = maker.make(6);
    for (const jbx::WriteOptions& o : layouts()) {
      const auto [fast, general] = both_paths(events, o, maker.arena());
      const std::string expected = reference(events, o);
      BOOST_TEST_CONTEXT("seed " << seed << " indent " << o.indent << " tab "
                                 << o.tab << " compact " << o.compact
                                 << " lines " << o.lines) {
        BOOST_TEST((fast == expected));
        BOOST_TEST((general == expected));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(repeated_member_writes_a_string_in_place) {
  // A repeated key and a string written in place after it: declined until
  // repeated_key() has made the key's text for the depth, then the same
  // as repeated_key() and plain_string(); nothing shows until the commit.
  const auto member = [](jbx::JsonWriter& w, std::string& text,
                         std::size_t& tag, std::string_view value) {
    static const std::string name = "dateAt" + std::string(32, '\0');
    const std::string_view key(name.data(), 6);
    if (char* p = w.repeated_member(text, tag, 40)) {
      std::memcpy(p, value.data(), value.size());
      w.commit_string(p + value.size());
      return true;
    }
    w.repeated_key(key, text, tag);
    w.plain_string(value);
    return false;
  };
  for (const jbx::WriteOptions& o : layouts()) {
    std::string text;
    std::size_t tag = SIZE_MAX;
    int in_place = 0;
    const std::string got = write_with(
        [&](jbx::JsonWriter& w) {
          w.begin_array();
          for (int k = 0; k < 3; ++k) {
            w.begin_object();
            in_place +=
                member(w, text, tag, "2024-01-0" + std::to_string(k)) ? 1 : 0;
            w.key("n");
            w.int_value(k);
            // Taken back: a member begun and not committed is not written.
            if (char* p = w.repeated_member(text, tag, 40)) {
              std::memcpy(p, "not written", 11);
            }
            w.key("m");
            w.null_value();
            w.end_object();
          }
          // One level deeper: the kept text is made again, then used.
          w.begin_array();
          for (int k = 0; k < 2; ++k) {
            w.begin_object();
            in_place += member(w, text, tag, "deep") ? 1 : 0;
            w.end_object();
          }
          w.end_array();
          w.end_array();
        },
        o);
    const std::string want = write_with(
        [&](jbx::JsonWriter& w) {
          w.begin_array();
          for (int k = 0; k < 3; ++k) {
            w.begin_object();
            w.key("dateAt");
            w.string_value("2024-01-0" + std::to_string(k));
            w.key("n");
            w.int_value(k);
            w.key("m");
            w.null_value();
            w.end_object();
          }
          w.begin_array();
          for (int k = 0; k < 2; ++k) {
            w.begin_object();
            w.key("dateAt");
            w.string_value("deep");
            w.end_object();
          }
          w.end_array();
          w.end_array();
        },
        o);
    BOOST_TEST_CONTEXT("indent " << o.indent << " tab " << o.tab << " compact "
                                 << o.compact << " lines " << o.lines) {
      BOOST_TEST(got == want);
      // Without indentation the kept text serves every depth.
      const bool flat = o.compact || o.lines || (o.indent == 0 && !o.tab);
      BOOST_TEST(in_place == (flat ? 4 : 3));
    }
  }
}

BOOST_AUTO_TEST_CASE(fast_path_agrees_around_annotations) {
  // Type names and tags open wrappers and "@type" members, which the
  // general path writes; the fast path must hand over and take back.
  for (std::uint32_t seed = 100; seed < 130; ++seed) {
    EventMaker maker(seed, true);
    const std::vector<Event> events = maker.make(6);
    for (const jbx::WriteOptions& o : layouts()) {
      const auto [fast, general] = both_paths(events, o, maker.arena());
      BOOST_TEST_CONTEXT("seed " << seed << " indent " << o.indent << " tab "
                                 << o.tab << " compact " << o.compact) {
        BOOST_TEST((fast == general));
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
