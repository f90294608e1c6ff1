// JSON to CBOR, MessagePack and JSONB by both JSON engines. The simdjson
// walk hands the binary writers numbers it has parsed (json_integer,
// decimal_value) and texts it may read past (padded_key, padded_string);
// the scalar parser hands them number_text, key and string_value. Both
// must give the same bytes, or the same error, for any document and
// options. The container heads, spliced in by the same writer code either
// way, are checked on their own: the bytes read back give the document.
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/options.h"
#include "core/sink.h"
#include "core/source.h"
#include "formats/format.h"
#include "formats/json/json_reader.h"

namespace jbx {
namespace {

// Random JSON documents whose numbers, texts and container sizes sit on
// and around every boundary the writers' encodings have.
class DocumentMaker {
 public:
  explicit DocumentMaker(std::uint32_t seed) : rng_(seed) {}

  // `decimals`: numbers of every kind; otherwise only integers within
  // int64, which every format reads back as they were written.
  std::string document(bool decimals) {
    decimals_ = decimals;
    std::string out;
    container(out, 0);
    return out;
  }

 private:
  std::size_t pick(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }

  // Long containers (16 and 32-bit counts) only near the top, so that a
  // document stays small.
  std::size_t container_size(int depth) {
    static constexpr std::size_t kSizes[] = {0,  1,  2,  14, 15, 16, 17,
                                             22, 23, 24, 25, 31, 32, 33};
    if (depth >= 4) return pick(3);
    switch (depth <= 1 ? pick(30) : 2) {
      case 0:
        return 255 + pick(3);
      case 1:
        return pick(20) == 0 ? 65535 + pick(3) : 300;
      default:
        return kSizes[pick(std::size(kSizes))];
    }
  }

  void container(std::string& out, int depth) {
    const bool array = pick(2) == 0;
    const std::size_t n = container_size(depth);
    // The members of a long container are scalars.
    const int inner = n > 40 ? 4 : depth;
    out += array ? '[' : '{';
    for (std::size_t k = 0; k < n; ++k) {
      if (k > 0) out += pick(8) == 0 ? " ,\n " : ",";
      if (!array) {
        text(out);
        out += pick(8) == 0 ? " : " : ":";
      }
      value(out, inner);
    }
    out += array ? ']' : '}';
  }

  void value(std::string& out, int depth) {
    switch (pick(depth >= 4 ? 5 : 6)) {
      case 0:
        text(out);
        return;
      case 1:
        out += pick(3) == 0 ? "null" : pick(2) == 0 ? "true" : "false";
        return;
      case 2:
      case 3:
      case 4:
        number(out);
        return;
      default:
        container(out, depth + 1);
    }
  }

  std::string digits(std::size_t n) {
    std::string d(1, static_cast<char>('1' + pick(9)));
    while (d.size() < n) d += static_cast<char>('0' + pick(10));
    return d;
  }

  void number(std::string& out) {
    static constexpr std::string_view kIntegers[] = {
        "0",
        "-0",
        "127",
        "128",
        "-32",
        "-33",
        "-128",
        "-129",
        "255",
        "256",
        "32767",
        "-32768",
        "-32769",
        "65535",
        "65536",
        "2147483647",
        "2147483648",
        "-2147483648",
        "-2147483649",
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "-9223372036854775807",
        "-9223372036854775808",
    };
    static constexpr std::string_view kBeyond[] = {
        "9223372036854775808",  "-9223372036854775809",
        "18446744073709551615", "18446744073709551616",
        "9999999999999999999",  "-9999999999999999999",
        "10000000000000000000", "123456789012345678901234567890",
    };
    static constexpr std::string_view kDecimals[] = {
        "0.0",   "-0.0",   "1.0",    "1.5",       "-2.50", "0.1",
        "1e400", "-1e400", "1e-400", "4.9e-324",  "1E2",   "1e+2",
        "2.5e0", "0e5",    "1.0e-7", "123456.789"};
    const std::size_t kind = pick(decimals_ ? 8 : 4);
    const bool negative = pick(2) == 0;
    switch (kind) {
      case 0: {
        // "-0" reads back as 0.
        const std::string_view v = kIntegers[pick(std::size(kIntegers))];
        out += decimals_ || v != "-0" ? v : "0";
        return;
      }
      case 1:
        out += std::to_string(static_cast<int>(pick(200)) - 60);
        return;
      case 2:
      case 3: {
        // Up to 18 digits always fit int64.
        if (negative) out += '-';
        out += digits(1 + pick(18));
        return;
      }
      case 4:
        out += kBeyond[pick(std::size(kBeyond))];
        return;
      case 5:
        out += kDecimals[pick(std::size(kDecimals))];
        return;
      default:
        if (negative) out += '-';
        out += pick(4) == 0 ? "0" : digits(1 + pick(20));
        if (pick(3) != 0)
          out += "." + std::string(pick(3), '0') + digits(1 + pick(20));
        if (pick(3) == 0) {
          out += pick(2) == 0 ? "e" : "E";
          if (pick(2) == 0) out += pick(2) == 0 ? "-" : "+";
          out += std::to_string(pick(4) == 0 ? pick(400) : pick(30));
        }
    }
  }

  void text(std::string& out) {
    static constexpr std::string_view kPieces[] = {
        "a",
        "Z",
        "7",
        " ",
        "\\\"",
        "\\\\",
        "\\n",
        "\\u0000",
        "\\u00e9",
        "\xc3\xa9",
        "\xc3\xbf",
        "\xe4\xb8\xad",
        "\\u4e2d",
        "\xf0\x9f\x98\x80",
        "\\ud83d\\ude00",
        "/",
        "\\/",
    };
    static constexpr std::size_t kLengths[] = {0,  1,  15, 16, 23, 24, 25, 30,
                                               31, 32, 33, 46, 47, 48, 63, 64};
    const std::size_t n =
        pick(6) == 0 ? 200 + pick(200) : kLengths[pick(std::size(kLengths))];
    // Mostly plain ASCII, so that the short fast paths are the common case.
    const bool plain = pick(3) != 0;
    out += '"';
    for (std::size_t k = 0; k < n; ++k) {
      if (plain) {
        out += static_cast<char>('a' + pick(26));
      } else {
        out += kPieces[pick(std::size(kPieces))];
      }
    }
    out += '"';
  }

  std::mt19937 rng_;
  bool decimals_ = true;
};

// The bytes `json` converts to, or the error that stops it, as the
// command would see it.
std::string convert(const std::string& json, std::string_view to,
                    const WriteOptions& o, bool simd,
                    const SimdChunking* chunks = nullptr) {
  auto src = Source::from_memory("t", json);
  JsonReader reader(*src, ReadOptions(), JsonMode::single);
  if (!simd) reader.set_simd_limit(0);
  // The walk as it reads a huge document: the index a chunk at a time.
  if (chunks != nullptr) reader.set_simd_chunking(*chunks);
  StringSink sink;
  auto w = find_format(to)->make_writer(sink, o);
  try {
    while (reader.read_document(*w)) {
    }
    w->finish();
  } catch (const Error& e) {
    return fmt::format("{} at {} ({}): {}", errc_name(e.code), e.pointer,
                       e.offset.value_or(~std::uint64_t{0}), e.message);
  }
  return std::string(sink.data());
}

// Compact JSON of the documents in `bytes`, read as format `from`.
std::string to_json(const std::string& bytes, std::string_view from) {
  auto src = Source::from_memory("t", bytes);
  auto r = find_format(from)->make_reader(*src, ReadOptions());
  StringSink sink;
  WriteOptions o;
  o.compact = true;
  auto w = find_format("json")->make_writer(sink, o);
  while (r->read_document(*w)) {
  }
  w->finish();
  return std::string(sink.data());
}

struct Target {
  std::string_view format;
  WriteOptions options;
  std::string_view name;
};

std::vector<Target> targets() {
  std::vector<Target> t;
  for (const LossyPolicy p :
       {LossyPolicy::error, LossyPolicy::string, LossyPolicy::nearest}) {
    for (const bool exact : {false, true}) {
      WriteOptions o;
      o.lossy = p;
      o.exact_decimals = exact;
      t.push_back({"msgpack", o, "msgpack"});
    }
  }
  for (const bool canonical : {false, true}) {
    for (const bool exact : {false, true}) {
      WriteOptions o;
      o.canonical = canonical;
      o.exact_decimals = exact;
      t.push_back({"cbor", o, "cbor"});
    }
  }
  for (const bool exact : {false, true}) {
    WriteOptions o;
    o.exact_decimals = exact;
    t.push_back({"jsonb", o, "jsonb"});
  }
  return t;
}

BOOST_AUTO_TEST_SUITE(json_to_binary)

BOOST_AUTO_TEST_CASE(both_engines_give_the_same_bytes) {
  DocumentMaker make(20261201);
  const std::vector<Target> all = targets();
  for (int k = 0; k < 150; ++k) {
    const std::string doc = make.document(true);
    // Every other document's chunks are indexed ahead, on a second
    // thread, and larger, since every chunk costs a hand-over.
    SimdChunking chunks{16, 0, 4, SIZE_MAX};
    if (k % 2 == 1) {
      chunks =
          SimdChunking{std::max<std::size_t>(64, doc.size() / 32), 0, 4, 0};
    }
    for (const Target& t : all) {
      const std::string a = convert(doc, t.format, t.options, true);
      const std::string b = convert(doc, t.format, t.options, false);
      const std::string c = convert(doc, t.format, t.options, true, &chunks);
      BOOST_TEST(a == c, t.name << " differs in chunks for " << doc);
      BOOST_TEST(a == b, t.name << " (lossy "
                                << static_cast<int>(t.options.lossy)
                                << ", exact " << t.options.exact_decimals
                                << ", canonical " << t.options.canonical
                                << ") differs for " << doc.substr(0, 2000));
    }
  }
}

// The walk reads a number's digits eight at a time, then one at a time:
// every count of integer and fraction digits, and every byte that can
// follow a number.
BOOST_AUTO_TEST_CASE(numbers_of_every_length) {
  std::mt19937 rng(2026);
  auto digits = [&](std::size_t n) {
    std::string d(1, static_cast<char>('1' + rng() % 9));
    while (d.size() < n) d += static_cast<char>('0' + rng() % 10);
    return d;
  };
  std::vector<std::string> numbers;
  for (std::size_t n = 1; n <= 26; ++n) {
    numbers.push_back(digits(n));
    numbers.push_back("-" + digits(n));
    numbers.push_back(std::string(n, '9'));
    numbers.push_back("0." + digits(n));
    numbers.push_back(digits(n) + "." + digits(27 - n));
    numbers.push_back("-" + digits(n) + "." + digits(n) + "e-" +
                      digits(1 + n % 3));
    numbers.push_back(digits(n) + "E+" + digits(1 + n % 2));
  }
  const std::vector<Target> all = targets();
  for (const std::string& x : numbers) {
    const std::string docs[] = {"[" + x + "]",       "[" + x + "," + x + "]",
                                "[" + x + " ]",      "[" + x + "\n]",
                                "{\"k\":" + x + "}", "{\"k\":" + x + " }"};
    for (const std::string& doc : docs) {
      for (const Target& t : all) {
        const std::string a = convert(doc, t.format, t.options, true);
        const std::string b = convert(doc, t.format, t.options, false);
        BOOST_TEST(a == b, t.name << " differs for " << doc);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_bytes_read_back_to_the_document) {
  DocumentMaker make(7);
  for (int k = 0; k < 60; ++k) {
    const std::string doc = make.document(false);
    const std::string json = to_json(doc, "json");
    for (const std::string_view format : {"msgpack", "cbor", "jsonb"}) {
      const std::string bytes = convert(doc, format, WriteOptions(), true);
      BOOST_TEST(to_json(bytes, format) == json,
                 format << " does not read back for " << doc.substr(0, 2000));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace jbx
