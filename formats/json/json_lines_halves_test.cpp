// JSON Lines read on two threads (JsonReader::set_line_halves_from()): the
// text or bytes written, the errors met and the lines they name are those
// of one thread, from memory, a file and a pipe, into the JSON, CBOR,
// MessagePack and JSONB writers alone and behind the fused features.
#include <boost/test/unit_test.hpp>

#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/sink.h"
#include "core/source.h"
#include "core/transforms/fused_test_util.h"
#include "core/worker.h"
#include "formats/cbor/cbor_writer.h"
#include "formats/json/json_fused.h"
#include "formats/json/json_reader.h"
#include "formats/json/json_test_util.h"
#include "formats/json/json_writer.h"
#include "formats/jsonb/jsonb_writer.h"
#include "formats/msgpack/msgpack_writer.h"

namespace {

using jbx::JsonMode;
using jbx::JsonReader;
using jbx::JsonWriter;
using jbx::StringSink;
using jbx::WriteOptions;
using jbx::testing::TestInput;
using jbx::transforms::FusedFeatures;
using jbx::transforms::KeyCase;
using jbx::transforms::NullPolicy;
using jbx::transforms::testing::Features;
using From = TestInput::From;

struct Read {
  std::string text;  // what was written
  // Each error as the command reports it: "line N: CODE at OFFSET: message".
  std::string errors;
  std::uint64_t documents = 0;
  std::uint64_t halves = 0;
};

// Reads `lines` as JSON Lines into a writer W with options `o`, behind the
// fused features `f` when given, as `jbx fmt` and `jbx convert` do: an
// error is noted, the writer takes back the half-written document, the
// features start afresh, and reading goes on with the next line.
// `halves_from` as JsonReader::set_line_halves_from().
template <class W = JsonWriter>
Read read(const std::string& lines, From from, const WriteOptions& o,
          const std::optional<Features>& f, std::size_t halves_from) {
  TestInput in(lines, from, 777);
  JsonReader reader(in.source(), jbx::ReadOptions(), JsonMode::lines);
  reader.set_line_halves_from(halves_from);
  StringSink sink;
  W w(sink, o);
  std::optional<FusedFeatures<W>> fused;
  Read out;
  for (bool more = true; more;) {
    if (f) fused.emplace(w, jbx::transforms::testing::options(*f));
    jbx::Handler& h = fused ? static_cast<jbx::Handler&>(*fused) : w;
    try {
      while (reader.read_document(h)) {
      }
      more = false;
    } catch (const jbx::Error& e) {
      out.errors +=
          fmt::format("line {}: {} at {}: {}\n", reader.error_line().number,
                      jbx::errc_name(e.code),
                      e.offset.value_or(~std::uint64_t{0}), e.message);
      w.abandon();
    }
  }
  w.finish();
  out.text = std::string(sink.data());
  out.documents = reader.documents();
  out.halves = reader.halves_apart();
  return out;
}

// JSON Lines as a service logs them, with what a line may hold that one
// thread reads differently from two if anything is off: scalars, blank and
// indented lines, CRLF ends, and, one in `bad` lines, an error (bad syntax,
// trailing text, invalid UTF-8, or a createdAt that is no date).
std::string json_lines(unsigned seed, int n, unsigned bad) {
  std::mt19937 rng(seed);
  const auto pick = [&rng](unsigned k) { return rng() % k; };
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (bad != 0 && pick(bad) == 0) {
      static const char* const kBad[] = {
          R"({"id":1,"userName":})",
          "[1,2",
          R"({"a":1} x)",
          "{\"name\":\"\xff\"}",
          R"({"id":2,"createdAt":"yesterday"})",
          R"({"id":3,"createdAt":"2024-02-30T10:00:00Z"})"};
      s += kBad[pick(6)];
    } else {
      switch (pick(12)) {
        case 0:
          s += std::to_string(pick(1000));
          break;
        case 1:
          s += R"("just a string")";
          break;
        case 2:
          s += "   ";  // a blank line
          break;
        case 3:
          s += "  [null,{\"itemCount\":" + std::to_string(pick(9)) + "}]";
          break;
        default:
          s += "{\"id\":" + std::to_string(i) + ",\"userName\":\"u" +
               std::to_string(pick(100)) + "\",\"paidAt\":null";
          if (pick(2) != 0) {
            s += ",\"createdAt\":\"2024-0" + std::to_string(1 + pick(9)) +
                 "-1" + std::to_string(pick(10)) + "T08:3" +
                 std::to_string(pick(10)) + ":00.5+02:00\"";
          }
          s += ",\"Big Count\":123456789012345678901234567890";
          s += ",\"tags\":[\"gr\xc3\xbcn\",null,{\"a-b\":1.50e3}]}";
          break;
      }
    }
    s += pick(5) == 0 ? "\r\n" : "\n";
  }
  s += R"({"last":"line without its newline"})";
  return s;
}

std::vector<std::optional<Features>> feature_sets() {
  std::vector<std::optional<Features>> sets(4);
  sets[1].emplace();
  sets[1]->nulls = NullPolicy::drop_all;
  sets[1]->key_case = KeyCase::snake;
  sets[2].emplace();
  sets[2]->date_fields = {"$.createdAt"};
  sets[2]->date_format = "yyyy-MM-dd HH:mm:ss";
  sets[2]->bigint_as_string = true;
  sets[3].emplace(*sets[2]);
  sets[3]->keep_errors = true;
  sets[3]->key_case = KeyCase::kebab;
  return sets;
}

std::vector<WriteOptions> writer_options() {
  std::vector<WriteOptions> all(3);
  all[0].compact = true;
  all[0].lines = true;
  all[2].color = true;
  return all;
}

// Halves go apart only when the process may run on two CPUs.
bool two_cpus() { return jbx::Worker::useful(); }

BOOST_AUTO_TEST_SUITE(json_lines_halves)

BOOST_AUTO_TEST_CASE(two_threads_write_what_one_writes) {
  const std::string lines = json_lines(7, 3000, 0);
  for (const From from : {From::memory, From::file, From::pipe}) {
    for (const WriteOptions& o : writer_options()) {
      for (const auto& f : feature_sets()) {
        const Read one = read(lines, from, o, f, SIZE_MAX);
        BOOST_TEST_REQUIRE(one.documents > 2000u);
        // Halves of a few lines each, and of many.
        for (const std::size_t from_bytes :
             {std::size_t{1}, std::size_t{4096}}) {
          const Read two = read(lines, from, o, f, from_bytes);
          BOOST_TEST(two.text == one.text);
          BOOST_TEST(two.errors == one.errors);
          BOOST_TEST(two.documents == one.documents);
          if (two_cpus()) BOOST_TEST(two.halves > 0u);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(an_error_in_the_workers_half_is_met_by_this_thread) {
  // About one line in 40 fails: most halves are dropped and read again,
  // and every error names its line, in order, as on one thread.
  for (const unsigned seed : {1u, 2u, 3u}) {
    const std::string lines = json_lines(seed, 1500, 40);
    for (const From from : {From::memory, From::file, From::pipe}) {
      for (const auto& f : feature_sets()) {
        const WriteOptions o = writer_options()[0];
        const Read one = read(lines, from, o, f, SIZE_MAX);
        BOOST_TEST_REQUIRE(!one.errors.empty());
        for (const std::size_t from_bytes :
             {std::size_t{1}, std::size_t{2048}}) {
          const Read two = read(lines, from, o, f, from_bytes);
          BOOST_TEST(two.text == one.text);
          BOOST_TEST(two.errors == one.errors);
        }
      }
    }
  }
}

// The same for a binary writer W.
// (MessagePack has no form for the lines' big integer: it goes as a
// string.)
template <class W>
void binary_as_one(const std::string& lines, bool clean) {
  WriteOptions o;
  o.lossy = jbx::LossyPolicy::string;
  for (const From from : {From::memory, From::pipe}) {
    for (const auto& f : feature_sets()) {
      const Read one = read<W>(lines, from, o, f, SIZE_MAX);
      BOOST_TEST_REQUIRE(one.documents > 1000u, one.errors.substr(0, 400));
      for (const std::size_t from_bytes : {std::size_t{1}, std::size_t{4096}}) {
        const Read two = read<W>(lines, from, o, f, from_bytes);
        BOOST_TEST(two.text == one.text);
        BOOST_TEST(two.errors == one.errors);
        BOOST_TEST(two.documents == one.documents);
        if (two_cpus() && clean) BOOST_TEST(two.halves > 0u);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(binary_writers_on_two_threads_write_what_one_writes) {
  // Clean lines, then one in 200 failing (most halves kept, some dropped).
  for (const unsigned bad : {0u, 200u}) {
    const std::string lines = json_lines(11, 2000, bad);
    binary_as_one<jbx::CborWriter>(lines, bad == 0);
    binary_as_one<jbx::msgpack::MsgpackWriter>(lines, bad == 0);
    binary_as_one<jbx::JsonbWriter>(lines, bad == 0);
  }
}

// The errors of `lines` checked as `jbx validate` checks them (into a
// NullHandler), each with its line, and the halves kept.
std::pair<std::string, std::uint64_t> check(const std::string& lines, From from,
                                            std::size_t halves_from) {
  TestInput in(lines, from, 777);
  JsonReader reader(in.source(), jbx::ReadOptions(), JsonMode::lines);
  reader.set_line_halves_from(halves_from);
  jbx::NullHandler null;
  std::string errors;
  for (bool more = true; more;) {
    try {
      while (reader.read_document(null)) {
      }
      more = false;
    } catch (const jbx::Error& e) {
      errors +=
          fmt::format("line {}: {}\n", reader.error_line().number, e.message);
    }
  }
  return {errors, reader.halves_apart()};
}

BOOST_AUTO_TEST_CASE(a_syntax_check_on_two_threads_meets_every_error) {
  for (const unsigned bad : {0u, 300u}) {
    const std::string lines = json_lines(5, 4000, bad);
    for (const From from : {From::memory, From::file, From::pipe}) {
      const auto one = check(lines, from, SIZE_MAX);
      BOOST_TEST(one.first.empty() == (bad == 0));
      for (const std::size_t from_bytes : {std::size_t{1}, std::size_t{4096}}) {
        const auto two = check(lines, from, from_bytes);
        BOOST_TEST(two.first == one.first);
        if (two_cpus() && bad == 0) BOOST_TEST(two.second > 0u);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_worker_keeps_crlf_indented_and_scalar_lines) {
  // Lines that are not errors never send the worker's part back: 3 MB of
  // them, read 1 MiB at a time, make several parts, all of them kept.
  std::string lines;
  for (int i = 0; lines.size() < (3u << 20); ++i) {
    lines += "  {\"id\":" + std::to_string(i) + "} \r\n\t[1]\r\n\"s\"\n7\n\n";
  }
  const Read one =
      read(lines, From::memory, writer_options()[0], std::nullopt, SIZE_MAX);
  const Read two =
      read(lines, From::memory, writer_options()[0], std::nullopt, 1);
  BOOST_TEST(two.text == one.text);
  BOOST_TEST(one.errors.empty());
  if (two_cpus()) BOOST_TEST(two.halves >= 3u);
}

BOOST_AUTO_TEST_CASE(errors_name_the_line_after_halves_kept) {
  // Clean halves first (two of at most 1 MiB each at a time), then an
  // error: its line number counts the lines the worker read.
  const std::string pad(80, 'x');
  std::string lines;
  for (int i = 0; i < 30000; ++i) {
    lines += "{\"n\":" + std::to_string(i) + ",\"pad\":\"" + pad + "\"}\n";
  }
  const std::size_t bad = lines.size();
  lines += "{\"n\":}\n{\"n\":30000}\n";
  for (const From from : {From::memory, From::file, From::pipe}) {
    const Read two = read(lines, from, writer_options()[0], std::nullopt, 1);
    BOOST_TEST(
        two.errors ==
        fmt::format("line 30001: syntax at {}: expected a value, found '}}'\n",
                    bad + 5));
    BOOST_TEST(two.documents == 30001u);
    if (two_cpus()) BOOST_TEST(two.halves > 0u);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
