// The JSON reader's fast path, included by one .cpp per CPU kernel: simdjson
// finds the structural characters of a document (stage 1: UTF-8, string
// boundaries and unescaped control characters checked on the way), and a
// walk of our own over that index checks the grammar and sends events
// straight to the handler. The walk is iterative (an explicit container
// stack, so no depth can overflow the machine stack), copies nothing for
// the common escape-free strings and keeps each number's spelling.
//
// simdjson's On-Demand API would do the same walk, but through a value
// iterator per token; on a document where every token is output that is
// most of the run time. Every definition has internal linkage: each
// kernel's copy is compiled with its own instruction set and must not be
// merged with another's by the linker.
#pragma once

#include <simdjson.h>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "core/error.h"
#include "core/transforms/fused_impl.h"
#include "core/transforms/nulls.h"
#include "core/worker.h"
#include "formats/cbor/cbor_writer.h"
#include "formats/json/json_fused.h"
#include "formats/json/json_piece_writer.h"
#include "formats/json/json_simd.h"
#include "formats/json/json_writer.h"
#include "formats/jsonb/jsonb_writer.h"
#include "formats/msgpack/msgpack_writer.h"

namespace jbx {
namespace {

inline bool is_ws(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

inline bool is_digit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

// Whether a token starting with c can be a value: not a separator, a
// closing bracket, or past the last token (NUL).
inline bool starts_value(char c) {
  return c != '\0' && c != '}' && c != ']' && c != ',' && c != ':';
}

enum class NumberKind { invalid, integer, decimal };

// The value of the eight ASCII digits of w, loaded little-endian (simdjson's
// number parser's SWAR step).
inline std::uint64_t eight_digit_value(std::uint64_t w) {
  w = (w & 0x0F0F0F0F0F0F0F0F) * 2561 >> 8;
  w = (w & 0x00FF00FF00FF00FF) * 6553601 >> 16;
  return (w & 0x0000FFFF0000FFFF) * 42949672960001 >> 32;
}

// What number_kind<true>() finds besides the kind: the number as digits *
// 10^power with the sign apart.
struct NumberParts {
  bool negative = false;
  // The integer and fraction digits read as one integer: exact when there
  // are at most 19 of them (below 10^19, no overflow).
  std::uint64_t digits = 0;
  std::size_t int_digits = 0;
  std::size_t frac_digits = 0;
  // The power of ten of the last digit; beyond +-10^6 it saturates, far
  // outside any double's range.
  std::int64_t power = 0;
};

// Reads the digits from s[i] on into v (kValue) or passes over them; returns
// where they end. Eight bytes at a time: the digits among them are found and
// read at once, whatever their number (a coordinate's "65" and
// "613616999999977" take one and two steps). The input's padding makes the
// 8 bytes readable even at its end.
template <bool kValue>
[[gnu::always_inline]] inline std::size_t read_digits(std::string_view s,
                                                      std::size_t i,
                                                      std::uint64_t& v) {
  const std::size_t n = s.size();
  if constexpr (std::endian::native == std::endian::little) {
    static constexpr std::uint64_t kPow10[8] = {
        1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    for (;;) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      // A byte is not a digit when c ^ '0' is 10 or more: then adding 0x76
      // or the byte itself sets its top bit. A carry only reaches later
      // bytes, so the first flagged byte is the first non-digit.
      const std::uint64_t t = w ^ 0x3030303030303030;
      const std::uint64_t flags =
          ((t + 0x7676767676767676) | t) & 0x8080808080808080;
      std::size_t k =
          flags == 0 ? 8
                     : static_cast<std::size_t>(std::countr_zero(flags)) / 8;
      k = std::min(k, n - i);
      if (k == 8) {
        if constexpr (kValue) v = v * 100000000 + eight_digit_value(w);
        i += 8;
        continue;
      }
      // The k digits as the last of eight, after leading zeros.
      if constexpr (kValue) {
        if (k > 0) v = v * kPow10[k] + eight_digit_value(w << (64 - 8 * k));
      }
      return i + k;
    }
  }
  while (i < n && is_digit(s[i])) {
    v = v * 10 + static_cast<std::uint64_t>(s[i] - '0');
    ++i;
  }
  return i;
}

// RFC 8259 number grammar; stage 1 only says where a token starts.
// kValue: `parts` is filled in; else only the kind is sure.
template <bool kValue>
inline NumberKind number_kind(std::string_view s, NumberParts& parts) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  bool decimal = false;
  parts.negative = i < n && s[i] == '-';
  if (parts.negative) ++i;
  if (i >= n) return NumberKind::invalid;
  const std::size_t first = i;
  std::uint64_t v = 0;
  if (s[i] == '0') {
    ++i;
  } else if (is_digit(s[i])) {
    i = read_digits<kValue>(s, i, v);
  } else {
    return NumberKind::invalid;
  }
  parts.int_digits = i - first;
  if (i < n && s[i] == '.') {
    ++i;
    if (i >= n || !is_digit(s[i])) return NumberKind::invalid;
    const std::size_t frac = i;
    i = read_digits<kValue>(s, i, v);
    parts.frac_digits = i - frac;
    decimal = true;
  }
  parts.digits = v;
  std::int64_t power = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    const bool negative_power = i < n && s[i] == '-';
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= n || !is_digit(s[i])) return NumberKind::invalid;
    for (; i < n && is_digit(s[i]); ++i) {
      if constexpr (kValue) {
        if (power < 1'000'000) power = power * 10 + (s[i] - '0');
      }
    }
    if (negative_power) power = -power;
    decimal = true;
  }
  parts.power = power - static_cast<std::int64_t>(parts.frac_digits);
  if (i != n) return NumberKind::invalid;
  return decimal ? NumberKind::decimal : NumberKind::integer;
}

// Whether the token `t` is the literal `word` ("true", "false", "null"),
// always inline: a string_view comparison the compiler left out of line
// would be a weak function of the AVX2 kernel (tests/build/kernel_symbols).
template <std::size_t N>
[[gnu::always_inline]] inline bool is_literal(std::string_view t,
                                              const char (&word)[N]) {
  return t.size() == N - 1 && std::memcmp(t.data(), word, N - 1) == 0;
}

// Whether s[0, n) holds a backslash. The bytes after the text are readable
// (a text is followed by its closing quote, and the input by its padding),
// so the tail is tested in a whole block with the bytes past n masked off.
[[gnu::always_inline]] inline bool has_backslash(const char* s, std::size_t n) {
#if defined(__AVX2__)
  const __m256i bs = _mm256_set1_epi8('\\');
  while (n >= 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, bs)) != 0) return true;
    s += 32;
    n -= 32;
  }
  if (n == 0) return false;
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
  const auto m = static_cast<std::uint32_t>(
      _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, bs)));
  return (m & ((std::uint32_t{1} << n) - 1)) != 0;
#else
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
  while (n >= 8) {
    std::uint64_t v;
    std::memcpy(&v, s, 8);
    const std::uint64_t x = v ^ (kOnes * '\\');
    if (((x - kOnes) & ~x & kHighs) != 0) return true;
    s += 8;
    n -= 8;
  }
  if (n == 0) return false;
  std::uint64_t v;
  std::memcpy(&v, s, 8);
  if constexpr (std::endian::native == std::endian::little) {
    v &= ~std::uint64_t{0} >> (64 - 8 * n);
  } else {
    v &= ~std::uint64_t{0} << (64 - 8 * n);
  }
  // Masked-off bytes are zero, never a backslash. The test's borrow runs
  // towards higher bytes, so it can misfire only above a real match: exact
  // for "any".
  const std::uint64_t x = v ^ (kOnes * '\\');
  return ((x - kOnes) & ~x & kHighs) != 0;
#endif
}

// The binary writers take numbers the walk has parsed: a decimal with its
// correctly rounded double (decimal_value, from simdjson's number parser)
// and an integer within int64 as its value (json_integer). They also copy
// short keys and strings in whole blocks (padded_key, padded_string): every
// text the walk sends may be read detail::kWordCopy bytes from its start,
// the input having padding past its end and the unescaped copies room in
// scratch_.
template <class H>
constexpr bool kBinaryWriter =
    std::is_same_v<H, CborWriter> ||
    std::is_same_v<H, msgpack::MsgpackWriter> || std::is_same_v<H, JsonbWriter>;

// The fused features in front of a binary writer (convert with the writer
// features) take the parsed numbers too, and pass them on where they leave
// a number as it is (FusedFeatures::json_integer, decimal_value).
template <class H>
constexpr bool kFusedBinary = false;
template <class W>
constexpr bool kFusedBinary<transforms::FusedFeatures<W>> = kBinaryWriter<W>;

// The JSON writer, and the fused features in front of it, copy escape-free
// keys and strings without scanning them (plain_key, plain_string).
template <class H>
constexpr bool kTakesPlainText =
    std::is_same_v<H, JsonWriter> ||
    std::is_same_v<H, transforms::FusedFeatures<JsonWriter>>;

// The fused features in front of the JSON writer or a binary writer are told
// the first byte of a member's value with its key, and may drop a null
// member at once (FusedFeatures::plain_key): its value is then checked to be
// null here.
template <class H>
constexpr bool kPeeksValue =
    std::is_same_v<H, transforms::FusedFeatures<JsonWriter>> || kFusedBinary<H>;

// What the walk found wrong, in simdjson's terms (the scalar parser words
// the error for the user).
using Code = simdjson::error_code;

// The count of a top-level array's elements (count_array_elements()), a
// block of text at a time: the string scanner's carries, the depth, and
// the commas at each depth up to `tracked` so far. A count from the
// array's start tracks depth 1; one from the middle of its text
// (count_in_two()) starts at depth kSplitDepth, standing for the depth
// there, which only the count of the text before it tells.
inline constexpr std::uint64_t kSplitDepth = 64;

struct CountState {
  std::array<std::uint64_t, kSplitDepth + 1> commas{};
  // The commas at each depth when the depth first fell below it: a count
  // from the middle of the text reads on past the array's end, into what
  // may follow the document (a stream of documents).
  std::array<std::uint64_t, kSplitDepth + 1> commas_at_close{};
  std::uint64_t depth = 1;
  std::uint64_t tracked = 1;
  std::uint64_t lowest = 1;          // the lowest depth reached
  std::uint64_t prev_escaped = 0;    // the next byte is escaped
  std::uint64_t prev_in_string = 0;  // all ones inside a string
  bool closed = false;               // the depth reached 0

  static CountState from_unknown_depth() {
    CountState s;
    s.depth = s.tracked = s.lowest = kSplitDepth;
    return s;
  }
  // Counts the commas between two brackets.
  void add(std::uint64_t n) {
    if (depth <= tracked) commas[depth] += n;
  }
  // False once the depth reaches 0.
  bool close() {
    if (--depth == 0) {
      closed = true;
      lowest = 0;
      return false;
    }
    if (depth < lowest) {
      lowest = depth;
      if (depth < tracked) commas_at_close[depth + 1] = commas[depth + 1];
    }
    return true;
  }
};

// Counts on over text[0, n), which follows the text counted so far and is
// readable 64 bytes past n; a call with fewer than a multiple of 64 bytes
// must not end after a backslash (whose escape would not carry over) unless
// it is the last. True once the depth reaches 0.
inline bool count_blocks(CountState& s, const char* p, std::size_t n) {
#if defined(__AVX2__) && defined(__PCLMUL__)
  const auto bits = [](__m256i lo, __m256i hi, char c) {
    const __m256i v = _mm256_set1_epi8(c);
    const auto l = static_cast<std::uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, v)));
    const auto h = static_cast<std::uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, v)));
    return std::uint64_t{l} | std::uint64_t{h} << 32;
  };
  for (std::size_t i = 0; i < n; i += 64) {
    const __m256i lo =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i hi =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32));
    const std::uint64_t valid =
        n - i >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (n - i)) - 1;
    // simdjson's string scanner: the characters a backslash escapes, then
    // the quotes that remain, then everything from an opening quote to
    // before its closing one (a prefix XOR, as a carry-less multiply).
    const std::uint64_t backslash =
        bits(lo, hi, '\\') & valid & ~s.prev_escaped;
    const std::uint64_t follows_escape = backslash << 1 | s.prev_escaped;
    constexpr std::uint64_t kEven = 0x5555555555555555;
    const std::uint64_t odd_starts = backslash & ~kEven & ~follows_escape;
    std::uint64_t even_starts = 0;
    s.prev_escaped =
        __builtin_add_overflow(odd_starts, backslash, &even_starts) ? 1 : 0;
    const std::uint64_t escaped = (kEven ^ (even_starts << 1)) & follows_escape;
    const std::uint64_t quotes = bits(lo, hi, '"') & valid & ~escaped;
    const std::uint64_t in_string =
        static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_clmulepi64_si128(
            _mm_set_epi64x(0, static_cast<std::int64_t>(quotes)),
            _mm_set1_epi8(-1), 0))) ^
        s.prev_in_string;
    s.prev_in_string =
        static_cast<std::uint64_t>(static_cast<std::int64_t>(in_string) >> 63);
    // '[' and '{' are the bytes that OR 0x20 makes '{'; ']' and '}' '}'.
    const __m256i x20 = _mm256_set1_epi8(0x20);
    const __m256i lo20 = _mm256_or_si256(lo, x20);
    const __m256i hi20 = _mm256_or_si256(hi, x20);
    const std::uint64_t outside = ~in_string & valid;
    const std::uint64_t opens = bits(lo20, hi20, '{') & outside;
    std::uint64_t brackets = (opens | bits(lo20, hi20, '}')) & outside;
    std::uint64_t comma = bits(lo, hi, ',') & outside;
    // Commas are counted between brackets, where the depth is known.
    while (brackets != 0) {
      const std::uint64_t first = brackets & (0 - brackets);
      s.add(static_cast<std::uint64_t>(std::popcount(comma & (first - 1))));
      comma &= ~(first - 1);
      if ((opens & first) != 0) {
        ++s.depth;
      } else if (!s.close()) {
        return true;
      }
      brackets &= brackets - 1;
    }
    s.add(static_cast<std::uint64_t>(std::popcount(comma)));
  }
#else
  for (std::size_t i = 0; i < n; ++i) {
    const char c = p[i];
    if (s.prev_in_string != 0) {
      if (s.prev_escaped != 0) {
        s.prev_escaped = 0;
      } else if (c == '\\') {
        s.prev_escaped = 1;
      } else if (c == '"') {
        s.prev_in_string = 0;
      }
      continue;
    }
    switch (c) {
      case '"':
        s.prev_in_string = 1;
        break;
      case '[':
      case '{':
        ++s.depth;
        break;
      case ']':
      case '}':
        if (!s.close()) return true;
        break;
      case ',':
        s.add(1);
        break;
      default:
        break;
    }
  }
#endif
  return false;
}

// The text is read in blocks of `block` bytes (a multiple of 64) that
// copy(offset, buf, k), if it gives k, has put in buf (which has room for
// block + 64 bytes): a mapped file's bytes are read in faster so, through
// its file, than by a first touch of each page of the mapping (a fifth of
// the time on a virtual machine), and they are not mapped ahead of the
// walk. Where it gives less, or without buf, p is read.
inline constexpr std::size_t kCountBlock = std::size_t{256} << 10;

// The zeros after a chunk read into a slot, as after the document
// (Source::kPadding).
inline constexpr std::size_t kSlotPadding = 64;

// Counts on over p[from, to). True once the depth reaches 0.
template <class Copy>
bool count_range(CountState& s, const char* p, std::size_t from, std::size_t to,
                 char* buf, std::size_t block, Copy&& copy) {
  std::size_t i = from;
  for (; i < to; i += block) {
    const std::size_t k = std::min(block, to - i);
    if (buf == nullptr || copy(i, buf, k) != k) break;
    if (count_blocks(s, buf, k)) return true;
  }
  return i < to && count_blocks(s, p + i, to - i);
}

// Where the elements of the array document at p[0, len) begin: past its
// bracket and the whitespace after it. 0 when the text is not an array
// with an element; `empty` for "[]".
inline std::size_t array_items_start(const char* p, std::size_t len,
                                     bool& empty) {
  empty = false;
  std::size_t i = 0;
  while (i < len && is_ws(p[i])) ++i;
  if (i == len || p[i] != '[') return 0;
  ++i;
  while (i < len && is_ws(p[i])) ++i;
  if (i == len) return 0;
  empty = p[i] == ']';
  return i;
}

// Where a count in two parts (count_in_two()) cuts the elements' text
// p[from, len): near its middle, after a line break (never inside a string
// of valid JSON) or else after a comma that a quote or bracket follows
// (rarely inside one). Never after a backslash. 0: no cut.
inline std::size_t count_cut(const char* p, std::size_t from, std::size_t len) {
  const std::size_t mid = from + (len - from) / 2;
  const std::size_t end = std::min(len, mid + (std::size_t{64} << 10));
  std::size_t after_comma = 0;
  for (std::size_t c = mid; c + 1 < end; ++c) {
    if (p[c] == '\n') return c + 1;
    if (after_comma == 0 && p[c] == ',' &&
        (p[c + 1] == '"' || p[c + 1] == '{' || p[c + 1] == '[')) {
      after_comma = c + 1;
    }
  }
  if (after_comma != 0) return after_comma;
  std::size_t c = mid;
  while (c > from && p[c - 1] == '\\') --c;
  return c > from && c < len ? c : 0;
}

// The element count of an array whose text was counted in two parts:
// `first` from its start to the cut, `second` on from there from an
// unknown depth, which first's depth at the cut tells. False when that
// cannot be told (the cut is in a string, or deeper than kSplitDepth): the
// first part's count is then to be continued over the second's text.
// `closes`: whether the array closes.
inline bool join_counts(const CountState& first, const CountState& second,
                        std::uint64_t& n, bool& closes) {
  if (first.closed) {
    n = first.commas[1] + 1;
    closes = true;
    return true;
  }
  if (first.prev_in_string != 0 || first.depth >= kSplitDepth) return false;
  // The depth of the second part where the array's elements are, and
  // its commas up to the array's end.
  const std::uint64_t one = kSplitDepth + 1 - first.depth;
  closes = second.lowest < one;
  n = first.commas[1] +
      (closes ? second.commas_at_close[one] : second.commas[one]) + 1;
  return true;
}

// How count_array_elements() counts in two parts: start() has the text
// before the cut counted into `s` (on another thread, or at once) while
// the caller counts the rest, and wait() returns once it is.
class CountSplit {
 public:
  virtual void start(CountState& s, std::size_t from, std::size_t cut) = 0;
  virtual void wait() = 0;

 protected:
  ~CountSplit() = default;
};

// The elements of the array document at p[0, len) (readable 64 bytes past
// len), counted by its commas one level deep outside strings, so that a
// binary writer can write the array's head before its last element is read
// (stream_array()). A pass of its own, cheaper than stage 1: it neither
// checks UTF-8 nor keeps an index. Strings end where stage 1 ends them, so
// on a document the walk takes to the array's end the count is exact; on
// any other the walk reports an error first. False when the text does not
// start with '[' or the array does not close. With `split`, the text is
// counted in two parts (count_cut(), join_counts()).
template <class Copy>
bool count_array_elements(const char* p, std::size_t len, std::uint64_t& n,
                          char* buf, std::size_t block, Copy&& copy,
                          CountSplit* split = nullptr) {
  bool empty = false;
  const std::size_t from = array_items_start(p, len, empty);
  if (empty) {
    n = 0;
    return true;
  }
  if (from == 0) return false;
  const std::size_t cut = split != nullptr ? count_cut(p, from, len) : 0;
  CountState first;
  if (cut != 0) {
    split->start(first, from, cut);
    CountState second = CountState::from_unknown_depth();
    count_range(second, p, cut, len, buf, block, copy);
    split->wait();
    bool closes = false;
    if (join_counts(first, second, n, closes)) return closes;
  }
  if (!count_range(first, p, cut != 0 ? cut : from, len, buf, block, copy)) {
    return false;
  }
  n = first.commas[1] + 1;
  return true;
}

// Stage 1 of a document too large to index at once, one chunk at a time.
// A chunk starts at a token, so stage 1 begins outside any string; its
// last token may be cut short and is indexed again with the next chunk.
class Chunks {
 public:
  struct Chunk {
    // The index: tokens from the chunk's start.
    const simdjson::internal::dom_parser_implementation* stage1 = nullptr;
    // The chunk's text: in the document, or a copy of it followed by
    // padding as the document is.
    const char* text = nullptr;
    // The tokens the walk may take, of which the last is followed by the
    // start of the next chunk (or is the last of the document, `final`).
    std::uint32_t tokens = 0;
    bool final = false;
    // With `final`: where the walk's text ends, the end of the document's
    // window, or before what follows the document when stage 1 refused
    // that (see Engine::index_to_end()).
    std::size_t end = 0;
  };
  // Indexes doc[from, ...), where `open` containers are open. The walk
  // needs nothing before doc[from] any more, nor the index of the chunk
  // before.
  virtual Code index(const char* doc, std::size_t doc_len, std::size_t from,
                     std::uint32_t open, Chunk& c) = 0;

 protected:
  ~Chunks() = default;
};

// What the walk of a top-level array in pieces (Engine::Pieces) hears of
// the array's items: the commas between them, from `mark` on.
class PieceMarks {
 public:
  // At the comma between two items at the document's offset `comma` (at
  // or past `mark`): where the walk goes on, at `comma` or, when the items
  // after it were walked apart and their text spliced in, at the comma or
  // bracket after the last of them. Sets `mark`, the next comma to hear
  // of (SIZE_MAX: none).
  virtual std::size_t at_comma(std::size_t comma, std::size_t& mark) = 0;

 protected:
  ~PieceMarks() = default;
};

// Sends the events of the document indexed by stage 1 to H. A template so
// that the JSON writer (a final class) is called without virtual dispatch.
// kChunked: the document is indexed a chunk at a time (Chunks); the walk
// asks for the next chunk where a state finds no token it can take (more()).
// kEmptyAsNull: "" and [] are sent as nulls (--empty-as-null, which the
// walk does itself in front of the JSON writer and the fused features).
template <class H, bool kChunked = false, bool kEmptyAsNull = false>
class IndexWalker {
 public:
  IndexWalker(H& h, const char* buf, std::size_t len,
              const simdjson::internal::dom_parser_implementation& stage1,
              std::uint32_t max_depth, std::vector<std::uint8_t>& stack,
              std::string& scratch, Chunks* chunks = nullptr,
              std::uint32_t tokens = 0, bool final = true,
              const char* text = nullptr, std::size_t end = 0)
      : h_(h),
        buf_(text != nullptr ? text : buf),
        len_(len),
        idx_(stage1.structural_indexes.get()),
        n_(chunks != nullptr ? tokens : stage1.n_structural_indexes),
        stage1_(&stage1),
        max_depth_(max_depth),
        stack_(stack.data()),
        scratch_(scratch),
        doc_(buf),
        doc_len_(len),
        chunks_(chunks),
        final_(final) {
    if (!final_) {
      len_ = idx_[n_];
    } else if (end != 0) {
      len_ = end;
    }
  }

  bool emitted = false;  // some event went out
  // Where the token of the event last sent starts: the offset of a value
  // the handler refused by throwing.
  std::size_t refused_at() const { return base_ + idx_[at_]; }
  bool stopped = false;  // the handler returned Flow::stop
  std::size_t consumed = 0;

  // Walks the container document starting at the first token. Not inlined
  // into its caller: the walk is compiled best as a function of its own.
  [[gnu::noinline]] Code run();

  // The walks in pieces, for the handlers that write JSON text.
  static constexpr bool kPieces = kChunked && kTakesPlainText<H>;
  // `marks` hears of the commas between the top-level array's items.
  void walk_in_pieces(PieceMarks* marks) {
    marks_ = marks;
    mark_ = 0;
  }
  // Walks one piece of the top-level array (stack_ sized at least 1): from
  // the item at the first token, the chunk's first, indexed from the
  // document's offset `from`, up to the first comma between items at the
  // offset `to` or past it, or to the array's closing bracket, which
  // `consumed` then gives (neither is sent).
  void walk_piece(std::size_t from, std::size_t to) {
    in_piece_ = true;
    mark_ = to;
    base_ = from;
    if (final_) len_ -= from;
  }

 private:
  // Where a state finds no token it can take, at token i: in a chunk that
  // is not the last, at() gives NUL past its tokens. If i is at the end of
  // such a chunk (or the last token of it, whose next one a state wants
  // too), the next chunk is indexed from token i on, i becomes 0 and
  // SUCCESS says to try the state again; otherwise `error`, the state's
  // own. The walk so checks for the end of a chunk only where it would
  // otherwise report an error.
  // `open`: the containers open before token i.
  Code more(std::uint32_t& i, Code error, std::uint32_t open) {
    if constexpr (kChunked) {
      if (!final_ && i + 1 >= n_) return next_chunk(i, open);
    }
    static_cast<void>(i);
    static_cast<void>(open);
    return error;
  }
  Code next_chunk(std::uint32_t& i, std::uint32_t open) {
    return index_from(base_ + idx_[i], open, i);
  }
  // Goes on in the chunk indexed from the document's offset `from` (a
  // token's start): i becomes 0.
  Code index_from(std::size_t from, std::uint32_t open, std::uint32_t& i);

  // The first byte of token i, or NUL past the last one.
  char at(std::uint32_t i) const { return i < n_ ? buf_[idx_[i]] : '\0'; }
  // kEmptyAsNull: the first byte `first` of the value at token i as the
  // handler is to see it: 'n' for "" and [] (sent as nulls), '\0' for a
  // bracket that ends the chunk (not known yet).
  char empty_as_null(std::uint32_t i, char first) const {
    if (first == '"') return buf_[idx_[i] + 1] == '"' ? 'n' : first;
    if (first != '[') return first;
    const char next = at(i + 1);
    return next == ']' ? 'n' : next == '\0' ? '\0' : first;
  }
  // Token i without the whitespace before the next token.
  std::string_view token(std::uint32_t i) const {
    const std::size_t b = idx_[i];
    std::size_t e = i + 1 < n_ ? idx_[i + 1] : len_;
    while (e > b && is_ws(buf_[e - 1])) --e;
    return {buf_ + b, e - b};
  }
  // The text of the string token i, between its quotes (a null data() when
  // the token is not a closed string).
  std::string_view string_text(std::uint32_t i) const {
    const std::size_t b = idx_[i];
    std::size_t e = i + 1 < n_ ? idx_[i + 1] : len_;
    // Usually the next token follows the closing quote at once.
    if (buf_[e - 1] != '"' || e - b < 2) {
      while (e > b && is_ws(buf_[e - 1])) --e;
      if (e - b < 2 || buf_[e - 1] != '"') return {};
    }
    return {buf_ + b + 1, e - b - 2};
  }
  // Unescapes `raw` (a string's text with a backslash) into scratch_.
  bool unescape(std::string_view raw, std::string_view& out);

  // Where the document ends when the handler stopped at token i with
  // `open` containers open: found by bracket counting over the rest of the
  // index (the caller reads on from there; what is not walked is not
  // checked).
  std::size_t end_after_stop(std::uint32_t i, std::uint32_t open);
  // Inlined into run(): a call per token is a good part of the walk.
  [[gnu::always_inline]] Code scalar(std::uint32_t i);
  enum class Open { visited, skipped, end };  // end: err set, or stopped
  [[gnu::always_inline]] Open open(bool array, std::uint32_t i,
                                   std::uint32_t depth, Code& err);
  // A member name; false when the walk must end (err set, or stopped).
  [[gnu::always_inline]] bool member_key(std::uint32_t i, std::uint32_t depth,
                                         Code& err);
  // Passes over the container opening at token i, `depth` deep, without
  // events; i ends past it.
  Code skip_container(std::uint32_t& i, std::uint32_t depth);

  H& h_;
  const char* buf_;
  std::size_t len_;
  const std::uint32_t* idx_;
  std::uint32_t n_;
  const simdjson::internal::dom_parser_implementation* stage1_;
  std::uint32_t max_depth_;
  // Per open container: 1 array, 0 object; max_depth_ entries.
  std::uint8_t* stack_;
  std::string& scratch_;
  std::uint32_t at_ = 0;    // the token of the event being sent
  bool skip_next_ = false;  // the handler skipped the member's value
  // kChunked: the whole document, and where the chunk buf_ starts in it.
  const char* doc_;
  std::size_t doc_len_;
  Chunks* chunks_;
  std::size_t base_ = 0;
  bool final_;  // the chunk reaches the document's end
  // kPieces: the commas between top-level items at mark_ or past it end
  // a piece (in_piece_), or marks_ hears of them.
  PieceMarks* marks_ = nullptr;
  std::size_t mark_ = SIZE_MAX;
  bool in_piece_ = false;
};

template <class H, bool kChunked, bool kEmptyAsNull>
Code IndexWalker<H, kChunked, kEmptyAsNull>::index_from(std::size_t from,
                                                        std::uint32_t open,
                                                        std::uint32_t& i) {
  Chunks::Chunk c;
  const Code err = chunks_->index(doc_, doc_len_, from, open, c);
  if (err) return err;
  final_ = c.final;
  stage1_ = c.stage1;
  base_ = from;
  buf_ = c.text;
  idx_ = stage1_->structural_indexes.get();
  n_ = c.tokens;
  len_ = final_ ? c.end - from : idx_[n_];
  at_ = 0;
  i = 0;
  return simdjson::SUCCESS;
}

template <class H, bool kChunked, bool kEmptyAsNull>
bool IndexWalker<H, kChunked, kEmptyAsNull>::unescape(std::string_view raw,
                                                      std::string_view& out) {
  // simdjson's unescaper writes in blocks past the end of its output.
  const std::size_t need = raw.size() + simdjson::SIMDJSON_PADDING;
  if (scratch_.size() < need) grow_scratch(scratch_, need);
  auto* dst = reinterpret_cast<std::uint8_t*>(scratch_.data());
  const std::uint8_t* end = stage1_->parse_string(
      reinterpret_cast<const std::uint8_t*>(raw.data()), dst);
  if (end == nullptr) return false;
  out = std::string_view(scratch_.data(), static_cast<std::size_t>(end - dst));
  return true;
}

template <class H, bool kChunked, bool kEmptyAsNull>
std::size_t IndexWalker<H, kChunked, kEmptyAsNull>::end_after_stop(
    std::uint32_t i, std::uint32_t open) {
  for (++i;;) {
    if (i >= n_) {
      // The document's end, or the next chunk.
      if (more(i, simdjson::TAPE_ERROR, open)) return doc_len_;
      continue;
    }
    const char c = buf_[idx_[i]];
    if (c == '{' || c == '[') {
      ++open;
    } else if ((c == '}' || c == ']') && --open == 0) {
      return base_ + (i + 1 < n_ ? idx_[i + 1] : len_);
    }
    ++i;
  }
}

template <class H, bool kChunked, bool kEmptyAsNull>
inline Code IndexWalker<H, kChunked, kEmptyAsNull>::scalar(std::uint32_t i) {
  at_ = i;
  const char c = buf_[idx_[i]];
  if (c == '"') {
    const std::string_view raw = string_text(i);
    if (raw.data() == nullptr) return simdjson::STRING_ERROR;
    if constexpr (kEmptyAsNull) {
      if (raw.empty()) {
        h_.null_value();
        return simdjson::SUCCESS;
      }
    }
    if (!has_backslash(raw.data(), raw.size())) {
      if constexpr (kTakesPlainText<H>) {
        h_.plain_string(raw);
      } else if constexpr (kBinaryWriter<H>) {
        h_.padded_string(raw);
      } else if constexpr (kFusedBinary<H>) {
        h_.plain_string(raw);
      } else if constexpr (std::is_same_v<H, Handler>) {
        // As stable_key() in member_key().
        h_.stable_string(raw);
      } else {
        h_.string_value(raw);
      }
      return simdjson::SUCCESS;
    }
    std::string_view s;
    if (!unescape(raw, s)) return simdjson::STRING_ERROR;
    if constexpr (kBinaryWriter<H>) {
      h_.padded_string(s);
    } else {
      h_.string_value(s);
    }
    return simdjson::SUCCESS;
  }
  const std::string_view t = token(i);
  switch (c) {
    case 't':
      if (!is_literal(t, "true")) return simdjson::T_ATOM_ERROR;
      h_.bool_value(true);
      return simdjson::SUCCESS;
    case 'f':
      if (!is_literal(t, "false")) return simdjson::F_ATOM_ERROR;
      h_.bool_value(false);
      return simdjson::SUCCESS;
    case 'n':
      if (!is_literal(t, "null")) return simdjson::N_ATOM_ERROR;
      h_.null_value();
      return simdjson::SUCCESS;
    default:
      break;
  }
  NumberParts parts;
  constexpr bool kParsed = kBinaryWriter<H> || kFusedBinary<H>;
  const NumberKind kind = number_kind<kParsed>(t, parts);
  if (kind == NumberKind::invalid) return simdjson::NUMBER_ERROR;
  if constexpr (kParsed) {
    if (kind == NumberKind::integer) {
      // Beyond int64 (rare) the writer decides from the text.
      constexpr std::uint64_t kMax = std::uint64_t{1} << 63;
      const std::uint64_t m = parts.digits;
      if (parts.int_digits <= 19 && m < kMax + (parts.negative ? 1 : 0)) {
        const auto v = parts.negative ? static_cast<std::int64_t>(0 - m)
                                      : static_cast<std::int64_t>(m);
        if constexpr (kFusedBinary<H>) {
          h_.json_integer(v, t);
        } else {
          h_.json_integer(v);
        }
        return simdjson::SUCCESS;
      }
    } else if (parts.int_digits + parts.frac_digits <= 19 &&
               parts.power >= simdjson::internal::smallest_power &&
               parts.power <= simdjson::internal::largest_power) {
      // The digits are exact: simdjson's Eisel-Lemire step rounds them
      // correctly, or declines (an infinity, a rare tie). Longer mantissas,
      // zero, and what it declines take the text path, where the writer
      // decides what they become.
      double d = 0;
      if (simdjson::builtin::numberparsing::compute_float_64(
              parts.power, parts.digits, parts.negative, d) &&
          d != 0 && std::isfinite(d)) {
        h_.decimal_value(t, d);
        return simdjson::SUCCESS;
      }
    }
  }
  h_.number_text(t);
  return simdjson::SUCCESS;
}

template <class H, bool kChunked, bool kEmptyAsNull>
inline typename IndexWalker<H, kChunked, kEmptyAsNull>::Open
IndexWalker<H, kChunked, kEmptyAsNull>::open(bool array, std::uint32_t i,
                                             std::uint32_t depth, Code& err) {
  if (depth >= max_depth_) {
    err = simdjson::DEPTH_ERROR;
    return Open::end;
  }
  emitted = true;
  at_ = i;
  const Flow f = array ? h_.begin_array() : h_.begin_object();
  if (f == Flow::stop) {
    stopped = true;
    consumed = end_after_stop(i, depth + 1);
    return Open::end;
  }
  if (f == Flow::skip) return Open::skipped;
  stack_[depth] = array ? 1 : 0;  // sized max_depth_ by the engine
  return Open::visited;
}

template <class H, bool kChunked, bool kEmptyAsNull>
inline bool IndexWalker<H, kChunked, kEmptyAsNull>::member_key(
    std::uint32_t i, std::uint32_t depth, Code& err) {
  at_ = i;
  const std::string_view raw = string_text(i);
  if (raw.data() == nullptr) {
    err = simdjson::STRING_ERROR;
    return false;
  }
  Flow kf = Flow::visit;
  // The key the handler expects next needs no scan for escapes.
  bool taken = false;
  [[maybe_unused]] char first = '\0';  // the value's first byte
  if constexpr (kPeeksValue<H>) {
    first = at(i + 2);
    if constexpr (kEmptyAsNull) first = empty_as_null(i + 2, first);
    // (The value's text is asked for only after its first byte, '"', was
    // seen in this chunk; at_ is the key's token. Without a colon between
    // them, the walk reports an error after the key.)
    const auto value = [this] { return string_text(at_ + 2); };
    taken = h_.raw_key(raw, first, value, kf);
  }
  if (taken) {
    // Sent.
  } else if (!has_backslash(raw.data(), raw.size())) {
    if constexpr (kPeeksValue<H>) {
      kf = h_.plain_key(raw, first);
    } else if constexpr (kTakesPlainText<H>) {
      kf = h_.plain_key(raw);
    } else if constexpr (kBinaryWriter<H>) {
      kf = h_.padded_key(raw);
    } else if constexpr (std::is_same_v<H, Handler>) {
      // Behind the interface: a handler that keeps names may keep these.
      kf = h_.stable_key(raw);
    } else {
      kf = h_.key(raw);
    }
  } else {
    std::string_view k;
    if (!unescape(raw, k)) {
      err = simdjson::STRING_ERROR;
      return false;
    }
    if constexpr (kBinaryWriter<H>) {
      kf = h_.padded_key(k);
    } else {
      kf = h_.key(k);
    }
  }
  if (kf == Flow::stop) {
    stopped = true;
    consumed = end_after_stop(i, depth);
    return false;
  }
  skip_next_ = kf == Flow::skip;
  return true;
}

// A skipped container is passed over by bracket counting on the index, as
// simdjson's On-Demand skips: stage 1 has checked its UTF-8, strings and
// control characters, but its grammar and scalars are not looked at (a
// query reads only what it needs). Its depth still counts.
template <class H, bool kChunked, bool kEmptyAsNull>
Code IndexWalker<H, kChunked, kEmptyAsNull>::skip_container(
    std::uint32_t& i, std::uint32_t depth) {
  std::uint32_t open = 1;
  for (++i;;) {
    if (i >= n_) {
      const Code err = more(i, simdjson::TAPE_ERROR, depth + open);
      if (err) return err;
      continue;
    }
    const char c = buf_[idx_[i]];
    if (c == '{' || c == '[') {
      if (depth + ++open > max_depth_) return simdjson::DEPTH_ERROR;
    } else if ((c == '}' || c == ']') && --open == 0) {
      ++i;
      return simdjson::SUCCESS;
    }
    ++i;
  }
}

// The states of the walk, as in simdjson's own stage 2: after a container
// opens, after a value, and after a container closes.
template <class H, bool kChunked, bool kEmptyAsNull>
Code IndexWalker<H, kChunked, kEmptyAsNull>::run() {
  std::uint32_t i = 0;      // the current token
  std::uint32_t depth = 0;  // open containers
  Code err = simdjson::SUCCESS;
  bool array = false;
  if constexpr (kPieces) {
    if (in_piece_) {
      // An item of the top-level array.
      depth = 1;
      stack_[0] = 1;
    }
  }

value:  // token i starts a value inside `depth` containers
  switch (at(i)) {
    case '{':
    case '[':
      array = buf_[idx_[i]] == '[';
      if constexpr (kEmptyAsNull) {
        // [] is a null (past the depth limit, an error as it was).
        if (array && depth < max_depth_) {
          const char next = at(i + 1);
          if (next == ']') {
            emitted = true;
            at_ = i;
            h_.null_value();
            i += 2;
            goto after_value;
          }
          if (next == '\0' && !final_) {
            // The bracket ends the chunk: read on from it.
            err = more(i, simdjson::TAPE_ERROR, depth);
            if (err) return err;
            goto value;
          }
        }
      }
      switch (open(array, i, depth, err)) {
        case Open::end:
          return err;
        case Open::skipped:
          err = skip_container(i, depth);
          if (err) return err;
          goto after_value;
        case Open::visited:
          break;
      }
      ++depth;
      ++i;
      if (array) goto array_begin;
      goto object_begin;
    // The first bytes of valid scalars go straight to scalar(); others are
    // checked to be able to start a value at all.
    case '"':
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
    case 't':
    case 'f':
    case 'n':
    scalar_value:
      err = scalar(i);
      if (err) return err;
      ++i;
      goto after_value;
    default:
      if (!starts_value(at(i))) {
        err = more(i, simdjson::TAPE_ERROR, depth);
        if (err) return err;
        goto value;
      }
      goto scalar_value;
  }

object_begin:
  if (at(i) == '}') {
    ++i;
    goto scope_end;
  }
  if constexpr (kChunked) {
    if (at(i) == '\0') {
      err = more(i, simdjson::TAPE_ERROR, depth);
      if (err) return err;
      goto object_begin;
    }
  }
object_field:
  if constexpr (kChunked) {
    // The colon is checked before the key goes out, so that a state tried
    // again in the next chunk has sent nothing.
    if (at(i) != '"' || at(i + 1) != ':') {
      err = more(i, simdjson::TAPE_ERROR, depth);
      if (err) return err;
      goto object_field;
    }
    if (!member_key(i, depth, err)) return err;
  } else {
    if (at(i) != '"') return simdjson::TAPE_ERROR;
    if (!member_key(i, depth, err)) return err;
    if (at(i + 1) != ':') return simdjson::TAPE_ERROR;
  }
  i += 2;
  if (!skip_next_) goto value;
  // The handler skipped the member's value, or sent it with the key (a
  // date, FusedFeatures::raw_key()): passed over.
  skip_next_ = false;
  if constexpr (kPeeksValue<H>) {
    // A null dropped with its key (the token is in this chunk: its first
    // byte was read).
    if (at(i) == 'n' && !is_literal(token(i), "null")) {
      at_ = i;
      return simdjson::N_ATOM_ERROR;
    }
  }
skipped_value:
  if (!starts_value(at(i))) {
    err = more(i, simdjson::TAPE_ERROR, depth);
    if (err) return err;
    goto skipped_value;
  }
  if (at(i) == '{' || at(i) == '[') {
    err = skip_container(i, depth);
    if (err) return err;
  } else {
    ++i;  // a skipped scalar, like a skipped container, is not looked at
  }
object_continue:
  switch (at(i)) {
    case ',':
      ++i;
      goto object_field;
    case '}':
      ++i;
      goto scope_end;
    default:
      err = more(i, simdjson::TAPE_ERROR, depth);
      if (err) return err;
      goto object_continue;
  }

array_begin:
  if (at(i) == ']') {
    ++i;
    goto scope_end;
  }
  if constexpr (kChunked) {
    if (at(i) == '\0') {
      err = more(i, simdjson::TAPE_ERROR, depth);
      if (err) return err;
      goto array_begin;
    }
  }
  goto value;
array_continue:
  switch (at(i)) {
    case ',':
      if constexpr (kPieces) {
        if (depth == 1 && base_ + idx_[i] >= mark_) [[unlikely]] {
          const std::size_t comma = base_ + idx_[i];
          if (in_piece_) {
            consumed = comma;
            return simdjson::SUCCESS;
          }
          const std::size_t to = marks_->at_comma(comma, mark_);
          if (to != comma) {
            // Past the items walked apart.
            err = index_from(to, 1, i);
            if (err) return err;
            goto array_continue;
          }
        }
      }
      ++i;
      goto value;
    case ']':
      if constexpr (kPieces) {
        if (in_piece_ && depth == 1) {
          consumed = base_ + idx_[i];
          return simdjson::SUCCESS;
        }
      }
      ++i;
      goto scope_end;
    default:
      err = more(i, simdjson::TAPE_ERROR, depth);
      if (err) return err;
      goto array_continue;
  }

scope_end:
  // The container at `depth` has just closed (its bracket was checked by
  // the state that saw it).
  at_ = i - 1;
  if (stack_[depth - 1]) {
    h_.end_array();
  } else {
    h_.end_object();
  }
  --depth;
after_value:
  if (depth == 0) {
    consumed = base_ + (i < n_ ? idx_[i] : len_);
    return simdjson::SUCCESS;
  }
  if (stack_[depth - 1]) goto array_continue;
  goto object_continue;
}

// Count text copied from memory (count_array_elements()).
struct CopyFrom {
  const char* p;
  std::size_t operator()(std::size_t offset, char* to, std::size_t k) const {
    std::memcpy(to, p + offset, k);
    return k;
  }
};

// The text every item of the array document at p[0, len) is likely to
// start with when it is a record: the first item's opening brace, the
// whitespace after it and its first key (64 bytes at most, without a
// backslash). Empty when the first item is no such object.
inline std::string_view record_start(const char* p, std::size_t len) {
  bool empty = false;
  const std::size_t from = array_items_start(p, len, empty);
  if (from == 0 || empty || p[from] != '{') return {};
  std::size_t i = from + 1;
  while (i < len && is_ws(p[i])) ++i;
  if (i == len || p[i] != '"') return {};
  for (++i; i < len && i - from < 64; ++i) {
    if (p[i] == '\\') return {};
    if (p[i] == '"') return {p + from, i + 1 - from};
  }
  return {};
}

// Whether a handler of JSON text may have a top-level array's items
// handled apart (Engine::Pieces).
inline bool items_apart(const JsonWriter&) { return true; }
inline bool items_apart(const transforms::FusedFeatures<JsonWriter>& f) {
  return f.items_apart();
}

// The writer a handler of JSON text writes with, and the features in
// front of it.
inline JsonWriter& writer_of(JsonWriter& w) { return w; }
inline JsonWriter& writer_of(transforms::FusedFeatures<JsonWriter>& f) {
  return f.next();
}
inline const transforms::FusedFeatures<JsonWriter>* features_of(
    const JsonWriter&) {
  return nullptr;
}
inline const transforms::FusedFeatures<JsonWriter>* features_of(
    const transforms::FusedFeatures<JsonWriter>& f) {
  return &f;
}

// A count's two parts one after the other.
class InTurn final : public CountSplit {
 public:
  InTurn(const char* p, char* buf, std::size_t block)
      : p_(p), buf_(buf), block_(block) {}
  void start(CountState& s, std::size_t from, std::size_t cut) override {
    count_range(s, p_, from, cut, buf_, block_, CopyFrom{p_});
  }
  void wait() override {}

 private:
  const char* p_;
  char* buf_;
  std::size_t block_;
};

class Engine final : public SimdEngine, Chunks {
 public:
  explicit Engine(std::uint32_t max_depth)
      : max_depth_(max_depth), stack_(max_depth) {}

  SimdResult parse(const char* p, std::size_t len, std::size_t capacity,
                   Handler& out, SimdProgress* progress) override;
  void set_chunking(const SimdChunking& c) override { chunking_ = c; }
  bool count_elements(const char* p, std::size_t len, std::uint64_t& n,
                      std::size_t block, bool in_two) const override {
    // Blocks copied from p, as they are from a file.
    std::string bufs[2];
    if (block != 0) {
      for (std::string& b : bufs) grow_scratch(b, block + 64);
    }
    InTurn in_turn(p, block == 0 ? nullptr : bufs[0].data(), block);
    return count_array_elements(p, len, n,
                                block == 0 ? nullptr : bufs[1].data(), block,
                                CopyFrom{p}, in_two ? &in_turn : nullptr);
  }

 private:
  using Parser = std::unique_ptr<simdjson::internal::dom_parser_implementation>;

  template <class H, bool kEmptyAsNull = false>
  SimdResult walk(const char* p, std::size_t len, H& h);
  /// walk() when `out` is the binary writer W, or the fused features in
  /// front of one, with the writer's buffer sized once from the input
  /// (binary output is rarely larger than its JSON). With kEmptyAsNull,
  /// `out` is what `empty_as_null` calls, told it takes the document.
  template <class W, bool kEmptyAsNull = false>
  std::optional<SimdResult> walk_binary(
      const char* p, std::size_t len, Handler& out,
      transforms::EmptyAsNull* empty_as_null = nullptr);
  template <class W>
  SimdResult finish(W& w);
  static bool reserve(Parser& parser, std::size_t len);
  Code index(const char* doc, std::size_t doc_len, std::size_t from,
             std::uint32_t open, Chunk& c) override;
  // index() of a chunk that stage 1 refused, `tried` bytes at most (a
  // chunk grows when it has too few tokens): when the document ends in
  // it, the chunk is indexed again up to the document's end and the
  // whitespace after it, as the last one, and SUCCESS. What follows is
  // then the caller's to read, as the next document or trailing content,
  // as when the document is indexed whole.
  Code index_to_end(const char* doc, std::size_t doc_len, std::size_t from,
                    std::uint32_t open, std::size_t tried, Chunk& c);
  // Indexes the chunk at doc[from] with `parser`, on either thread. With
  // a slot, the chunk's text is read into it (`text`, when it fits). A
  // chunk that would reach past `cut` ends there instead, with all of its
  // tokens, when the text before it is whole (Pieces: an item is likely
  // to begin there, after a comma).
  // `tried`, when given, is set to the most bytes stage 1 was given.
  Code index_with(Parser& parser, const char* doc, std::size_t doc_len,
                  std::size_t from, std::uint32_t& tokens, bool& final,
                  char* slot, const char*& text, std::size_t cut = SIZE_MAX,
                  std::size_t* tried = nullptr) const;

  // A mapped file's chunks are read through the file (SimdProgress::
  // copy()) into slots that are used again, chunk after chunk: on a
  // virtual machine, a page mapped fresh costs several times what copying
  // it does, and a file read so is never mapped. One slot per chunk in
  // turn, three: the worker fills the next one while the walk reads one,
  // and the text of the chunk before stays as it was.
  static constexpr std::size_t kSlots = 3;
  std::size_t slot_size() const {
    return chunking_.chunk + chunking_.chunk / 2 + kSlotPadding;
  }
  char* slot(std::uint64_t seq) {
    if (slots_.empty()) return nullptr;
    return slots_.data() + seq % kSlots * slot_size();
  }

  // The next chunk, indexed on the worker's thread while the walk reads
  // this one: from the token after this chunk's last, where the walk
  // nearly always asks for it. Otherwise it is indexed again, here.
  struct Ahead {
    bool pending = false;  // the worker has it, or had it
    const char* doc = nullptr;
    std::size_t doc_len = 0;
    std::size_t from = 0;
    Code err = simdjson::SUCCESS;
    std::uint32_t tokens = 0;
    bool final = false;
    char* slot = nullptr;
    const char* text = nullptr;
    std::size_t tried = 0;
  };
  static void index_ahead(void* engine);

  // The walk of a top-level array of records in pieces
  // (SimdChunking::pieces_from): while the walk reads one piece, the
  // worker walks the next into a handler and writer of its own, whose text
  // is spliced in after.
  //
  // Where an item begins cannot be known without walking the items before
  // it, so the worker's piece starts where one is likely to: at the first
  // place, a piece's worth of bytes on, that starts as the first item does
  // (record_start()) after a comma. Its text is kept only when the walk
  // comes to that comma between two items of the array: then the piece
  // began at an item, and walking it gave what the walk would have given.
  // Otherwise it is dropped and the walk reads on, and after a few such
  // misses stops looking. A piece that ends in an error is dropped too:
  // the walk then reads its text and reports the error where it is. A
  // trial (SimdChunking::pieces_trial) first tells whether pieces go
  // faster than the walk alone.
  template <class H, bool kEmptyAsNull>
  class Pieces final : public PieceMarks {
   public:
    Pieces(Engine& e, H& h, const char* doc, std::size_t len,
           std::string_view start);
    Pieces(const Pieces&) = delete;
    Pieces& operator=(const Pieces&) = delete;
    ~Pieces() {
      e_.worker_.wait();
      e_.pieces_ = false;
      e_.cut_ = SIZE_MAX;
    }
    std::size_t at_comma(std::size_t comma, std::size_t& mark) override;
    std::uint64_t kept() const { return kept_; }

   private:
    // The worker's chunks: its own index, and slots of its own for a
    // mapped file's text.
    class Reader final : public Chunks {
     public:
      explicit Reader(Engine& e) : e_(e) {}
      Code index(const char* doc, std::size_t doc_len, std::size_t from,
                 std::uint32_t open, Chunk& c) override;
      std::string slots;
      std::size_t cut = SIZE_MAX;  // where the piece likely ends

     private:
      Engine& e_;
      Parser stage1_;
      std::uint64_t seq_ = 0;
    };
    // Starts the worker on the piece after the comma or bracket at
    // `after`, and sets `mark` to the comma before it; SIZE_MAX, and the
    // walk goes on alone, when no place is found.
    void start(std::size_t after, std::size_t& mark);
    void stop(std::size_t& mark) {
      mark = SIZE_MAX;
      e_.pieces_ = false;  // the worker may index ahead again
      e_.cut_ = SIZE_MAX;
    }
    // Where an item is likely to begin: the first place in the piece's
    // worth of text from `from` on that starts as the first item does
    // after a comma (at `comma`) past `after`. SIZE_MAX: none.
    std::size_t likely_item(std::size_t after, std::size_t from,
                            std::size_t& comma) const;
    static void run(void* pieces);

    Engine& e_;
    H& h_;
    const char* doc_;
    std::size_t len_;
    std::string start_;  // record_start()
    PieceWriter out_;    // the worker's
    Reader reader_;
    std::vector<std::uint8_t> stack_;
    std::string scratch_;
    unsigned misses_ = 0;
    std::uint64_t kept_ = 0;
    // The piece: the worker walks from its item at `from_` (after the
    // comma at `comma_`) up to the first comma between items at `to_` or
    // past it, into `out_`.
    bool running_ = false;
    std::size_t comma_ = 0;
    std::size_t from_ = 0;
    std::size_t to_ = 0;
    // Set by the worker: whether the piece was walked to its end, which
    // is `ended_` (a comma between items, or the array's bracket).
    bool ok_ = false;
    std::size_t ended_ = 0;
    // The walk's piece began at `walk_from_` at `began_`; the worker's
    // took `worker_seconds_`. `speed_`: the worker's speed over the walk's,
    // averaged.
    using Clock = std::chrono::steady_clock;
    std::size_t walk_from_ = 0;
    Clock::time_point began_;
    double worker_seconds_ = 0;
    double speed_ = 1;
    // The trial (SimdChunking::pieces_trial): from the first comma between
    // items, the walk alone, then in pieces (after a first one), each over
    // as many bytes from `trial_from_` at `trial_began_`; `alone_` is the
    // walk's rate alone.
    enum class Trial { first, alone, warming, pieces, decided };
    // (Never 0.)
    static double seconds(Clock::time_point from, Clock::time_point to) {
      return std::max(std::chrono::duration<double>(to - from).count(), 1e-9);
    }
    Trial trial_ = Trial::first;
    std::size_t trial_from_ = 0;
    Clock::time_point trial_began_;
    double alone_ = 0;
    // The bytes of the next piece of the walk (worker: false) or the
    // worker, at most SimdChunking::piece.
    std::size_t piece(bool worker) const {
      const double p = static_cast<double>(e_.chunking_.piece);
      return static_cast<std::size_t>(worker ? std::min(p, p * speed_)
                                             : std::min(p, p / speed_));
    }
  };
  // Waits for the worker: the walk ends, or it asks for the next chunk.
  void settle() {
    if (!ahead_.pending) return;
    worker_.wait();
    ahead_.pending = false;
  }

  // A large array document converted to a binary format: its elements are
  // counted before the walk, each thread counting half of the text
  // (count_array_elements() with a CountSplit), and the writer streams the
  // array from its first chunk on (stream_array(), told at each chunk).
  // The output is then not held, nor are its pages touched fresh, a good
  // part of such a conversion's time on a virtual machine.
  struct Count {
    bool known = false;  // the text is an array that closes
    std::uint64_t n = 0;
  };
  // The count's first part, on the worker's thread.
  class FirstPart final : public CountSplit {
   public:
    FirstPart(Engine& e, const char* doc) : e_(e), doc_(doc) {}
    void start(CountState& s, std::size_t from, std::size_t cut) override {
      s_ = &s;
      from_ = from;
      cut_ = cut;
      e_.worker_.start(&FirstPart::run, this);
    }
    void wait() override { e_.worker_.wait(); }

   private:
    static void run(void* part);
    Engine& e_;
    const char* doc_;
    CountState* s_ = nullptr;
    std::size_t from_ = 0;
    std::size_t cut_ = 0;
  };
  // The count reads the text of a mapped file through the file
  // (SimdProgress::copy()), into each thread's block; other text in place.
  char* count_buf(int part) {
    return progress_ != nullptr ? count_bufs_[part].data() : nullptr;
  }
  std::size_t count_copy(std::size_t offset, char* buf, std::size_t k) const {
    return progress_->copy(offset, buf, k);
  }
  // Whatever ends the walk, the worker is done with the document and the
  // count and stream are forgotten before the caller is given it back.
  void settle_all() {
    worker_.wait();
    ahead_.pending = false;
    ahead_.doc = nullptr;
    count_ = Count();
    counted_ = nullptr;
  }

  Parser stage1_;
  Parser next_;  // the worker's, for the next chunk
  std::uint32_t max_depth_;
  std::vector<std::uint8_t> stack_;
  std::string scratch_;
  SimdProgress* progress_ = nullptr;
  SimdChunking chunking_;
  std::size_t ahead_from_ = SIZE_MAX;  // the walk's, from chunking_
  // A walk in pieces (Pieces) has the worker: nothing is indexed ahead,
  // and the walk's chunks end where the worker's piece begins (`cut_`).
  bool pieces_ = false;
  std::size_t cut_ = SIZE_MAX;
  Ahead ahead_;
  std::string slots_;      // kSlots of slot_size(), or none
  std::uint64_t seq_ = 0;  // the chunks the walk has been given
  Count count_;
  // Each thread's block of count text (kCountBlock + 64 bytes).
  std::string count_bufs_[2];
  // The handler told the count (Handler::top_array_items()): a binary
  // writer, or transforms in front of one that keep the count.
  Handler* counted_ = nullptr;
  Worker worker_;
};

inline SimdResult failure(Code e, bool emitted = false) {
  SimdResult r;
  r.ok = false;
  r.message = simdjson::error_message(e);
  r.emitted = emitted;
  return r;
}

bool Engine::reserve(Parser& parser, std::size_t len) {
  if (parser != nullptr && parser->capacity() >= len) return true;
  // Grow by at least half, so JSON Lines of rising length reallocate
  // rarely; simdjson allocates four bytes of index per byte of capacity.
  std::size_t cap = std::max<std::size_t>(len, 1 << 16);
  if (parser != nullptr) {
    cap = std::max(cap, parser->capacity() + parser->capacity() / 2);
  }
  cap = std::min<std::size_t>(std::max(cap, len),
                              simdjson::SIMDJSON_MAXSIZE_BYTES);
  if (parser == nullptr) {
    // The depth sizes simdjson's own stage 2, which this walk replaces.
    return simdjson::get_active_implementation()
               ->create_dom_parser_implementation(cap, 1, parser) ==
           simdjson::SUCCESS;
  }
  return parser->set_capacity(cap) == simdjson::SUCCESS;
}

Code Engine::index(const char* doc, std::size_t doc_len, std::size_t from,
                   std::uint32_t open, Chunk& c) {
  settle();
  Code err = simdjson::SUCCESS;
  std::size_t tried = 0;
  ++seq_;
  if (ahead_.doc == doc && ahead_.from == from && ahead_.doc_len == doc_len) {
    // The chunk indexed ahead, in next_: its index becomes the walk's.
    stage1_.swap(next_);
    err = ahead_.err;
    c.tokens = ahead_.tokens;
    c.final = ahead_.final;
    c.text = ahead_.text;
    tried = ahead_.tried;
  } else {
    // (In the slot the worker had, if any: nothing else uses it.)
    err = index_with(stage1_, doc, doc_len, from, c.tokens, c.final, slot(seq_),
                     c.text, cut_, &tried);
  }
  ahead_.doc = nullptr;
  c.end = doc_len;
  if (err && err != simdjson::MEMALLOC) {
    // Invalid UTF-8 or an unclosed string may follow the document.
    if (index_to_end(doc, doc_len, from, open, tried, c) == simdjson::SUCCESS) {
      err = simdjson::SUCCESS;
    }
  }
  // A chunk read from the mapping: its pages are read in ahead of the walk
  // and given back behind it.
  if (progress_ != nullptr && c.text == doc + from) progress_->passed(from);
  if (err) return err;
  c.stage1 = stage1_.get();
  if (!c.final && doc_len >= ahead_from_ && !pieces_ && Worker::useful()) {
    ahead_ = Ahead{true,
                   doc,
                   doc_len,
                   from + stage1_->structural_indexes[c.tokens],
                   simdjson::SUCCESS,
                   0,
                   false,
                   slot(seq_ + 1),
                   nullptr,
                   0};
    worker_.start(&Engine::index_ahead, this);
  }
  // (After the worker is started: the writer may write to the sink.)
  if (count_.known && counted_ != nullptr) counted_->top_array_items(count_.n);
  return simdjson::SUCCESS;
}

void Engine::FirstPart::run(void* part) {
  auto& f = *static_cast<FirstPart*>(part);
  Engine& e = f.e_;
  count_range(*f.s_, f.doc_, f.from_, f.cut_, e.count_buf(0), kCountBlock,
              [&e](std::size_t offset, char* buf, std::size_t k) {
                return e.count_copy(offset, buf, k);
              });
}

Code Engine::index_to_end(const char* doc, std::size_t doc_len,
                          std::size_t from, std::uint32_t open,
                          std::size_t tried, Chunk& c) {
  // Where the containers open at doc[from] (a token's start: outside any
  // string) close, within the chunk refused (or the largest chunk indexed
  // at once).
  const char* p = doc + from;
  const std::size_t n = std::min(
      doc_len - from, std::max(tried, chunking_.chunk + chunking_.chunk / 2));
  std::size_t e = skim_close(std::string_view(p, n), 0, open);
  if (e == std::string_view::npos) return simdjson::TAPE_ERROR;
  while (e < n && is_ws(p[e])) ++e;
  if (e == doc_len - from) return simdjson::TAPE_ERROR;  // nothing follows
  if (!reserve(stage1_, e)) return simdjson::MEMALLOC;
  const Code err = stage1_->stage1(reinterpret_cast<const std::uint8_t*>(p), e,
                                   simdjson::stage1_mode::regular);
  if (err) return err;
  if (stage1_->n_structural_indexes == 0) return simdjson::EMPTY;
  c.tokens = stage1_->n_structural_indexes;
  c.final = true;
  c.text = p;
  c.end = from + e;
  return simdjson::SUCCESS;
}

void Engine::index_ahead(void* engine) {
  auto& e = *static_cast<Engine*>(engine);
  Ahead& a = e.ahead_;
  try {
    a.err = e.index_with(e.next_, a.doc, a.doc_len, a.from, a.tokens, a.final,
                         a.slot, a.text, SIZE_MAX, &a.tried);
  } catch (...) {
    a.err = simdjson::MEMALLOC;  // (the task must not throw)
  }
}

Code Engine::index_with(Parser& parser, const char* doc, std::size_t doc_len,
                        std::size_t from, std::uint32_t& tokens, bool& final,
                        char* slot, const char*& text, std::size_t cut,
                        std::size_t* tried) const {
  const char* p = doc + from;
  const std::size_t rest = doc_len - from;
  // What the first try below reads (the rest, if it is the last chunk),
  // through the file into the slot; a chunk that grows past it is read
  // from the mapping. (The walk reads no byte past a chunk that is not
  // the last: it ends at a comma, or before a token cut short.)
  const auto reads = [rest](std::size_t len) {
    return rest <= len + len / 2 ? rest : len;
  };
  std::size_t copied = 0;
  if (slot != nullptr) {
    const std::size_t n = reads(chunking_.chunk);
    if (progress_->copy(from, slot, n) == n) {
      std::memset(slot + n, 0, kSlotPadding);
      p = slot;
      copied = n;
    }
  }
  text = p;
  // Room for the largest chunk (the last may be half as large again) from
  // the first: growing the index later frees and maps it again.
  if (!reserve(parser, std::min(rest, chunking_.chunk + chunking_.chunk / 2))) {
    return simdjson::MEMALLOC;
  }
  const auto stage1 = [&](std::size_t len, simdjson::stage1_mode mode) {
    if (tried != nullptr) *tried = std::max(*tried, len);
    if (!reserve(parser, len)) return simdjson::MEMALLOC;
    return parser->stage1(reinterpret_cast<const std::uint8_t*>(p), len, mode);
  };
  for (std::size_t len = chunking_.chunk;; len *= 2) {
    if (p != doc + from && reads(len) > copied) {
      p = doc + from;
      text = p;
    }
    if (cut > from && cut - from <= len && cut - from < rest) {
      // The walk comes to the comma before `cut` as the chunk's last token
      // and, when the item there was walked apart, goes on past it without
      // indexing further here. (Within what the slot holds.)
      const Code err = stage1(cut - from, simdjson::stage1_mode::regular);
      if (err != simdjson::UNCLOSED_STRING) {
        if (err) return err;
        if (parser->n_structural_indexes > chunking_.min_tokens) {
          final = false;
          tokens = parser->n_structural_indexes;
          return simdjson::SUCCESS;
        }
      }
      cut = SIZE_MAX;  // no item begins there, or too near: as without
    }
    if (rest <= len + len / 2) {
      // The last chunk: checked whole, as an unchunked document is.
      final = true;
      const Code err = stage1(rest, simdjson::stage1_mode::regular);
      if (err) return err;
      tokens = parser->n_structural_indexes;
      return tokens == 0 ? simdjson::EMPTY : simdjson::SUCCESS;
    }
    final = false;
    // The chunk ends after a comma, which is outside a string unless a
    // string holds it: then stage 1 finds the string unclosed, and the
    // chunk is indexed as below instead.
    const void* comma = memrchr(p + len / 2, ',', len - len / 2);
    if (comma != nullptr) {
      const auto after =
          static_cast<std::size_t>(static_cast<const char*>(comma) + 1 - p);
      const Code err = stage1(after, simdjson::stage1_mode::regular);
      if (err != simdjson::UNCLOSED_STRING) {
        if (err) return err;
        tokens = parser->n_structural_indexes;
        if (tokens <= chunking_.min_tokens) continue;
        // The next chunk starts at the last token (the comma).
        --tokens;
        return simdjson::SUCCESS;
      }
    }
    // simdjson's mode for a batch of a document stream indexes the chunk
    // whatever way it ends: a character cut short is left out, and so is
    // the quote of a string that does not close in it. It answers
    // CAPACITY when no document ends in the chunk (the usual case here),
    // having passed over the whole index backwards, and then has not
    // checked UTF-8: that is done below.
    const Code err = stage1(len, simdjson::stage1_mode::streaming_partial);
    if (err != simdjson::SUCCESS && err != simdjson::CAPACITY) return err;
    const std::uint32_t n = parser->n_structural_indexes;
    if (n <= chunking_.min_tokens) continue;
    // The last token may be cut short: the next chunk starts with it.
    tokens = n - 1;
    const std::uint32_t next = parser->structural_indexes[tokens];
    if (!simdjson::validate_utf8(p, next)) return simdjson::UTF8_ERROR;
    return simdjson::SUCCESS;
  }
}

template <class H, bool kEmptyAsNull>
Engine::Pieces<H, kEmptyAsNull>::Pieces(Engine& e, H& h, const char* doc,
                                        std::size_t len, std::string_view start)
    : e_(e),
      h_(h),
      doc_(doc),
      len_(len),
      start_(start),
      out_(writer_of(h), features_of(h)),
      reader_(e),
      stack_(e.max_depth_) {
  if (!e.slots_.empty()) grow_scratch(reader_.slots, kSlots * e.slot_size());
  // (During a trial, the walk first reads on alone, indexed ahead.)
  e.pieces_ = e.chunking_.pieces_trial == 0;
}

template <class H, bool kEmptyAsNull>
Code Engine::Pieces<H, kEmptyAsNull>::Reader::index(const char* doc,
                                                    std::size_t doc_len,
                                                    std::size_t from,
                                                    std::uint32_t open,
                                                    Chunk& c) {
  static_cast<void>(open);
  ++seq_;
  char* slot =
      slots.empty() ? nullptr : slots.data() + seq_ % kSlots * e_.slot_size();
  const Code err = e_.index_with(stage1_, doc, doc_len, from, c.tokens, c.final,
                                 slot, c.text, cut);
  c.end = doc_len;
  c.stage1 = stage1_.get();
  return err;
}

template <class H, bool kEmptyAsNull>
std::size_t Engine::Pieces<H, kEmptyAsNull>::at_comma(std::size_t comma,
                                                      std::size_t& mark) {
  const std::size_t trial = e_.chunking_.pieces_trial;
  if (trial_ == Trial::first) {
    // The walk alone, the next chunk indexed ahead, over `trial` bytes.
    trial_ = trial != 0 ? Trial::alone : Trial::decided;
    trial_from_ = comma;
    trial_began_ = Clock::now();
    if (trial_ == Trial::alone) {
      mark = comma + trial;
      return comma;
    }
  } else if (trial_ == Trial::alone) {
    // Then in pieces over as many.
    const Clock::time_point now = Clock::now();
    alone_ =
        static_cast<double>(comma - trial_from_) / seconds(trial_began_, now);
    trial_ = Trial::warming;
    e_.settle();
    e_.pieces_ = true;
  }
  if (!running_) {
    start(comma, mark);
    return comma;
  }
  const Clock::time_point here = Clock::now();
  e_.worker_.wait();
  running_ = false;
  e_.cut_ = SIZE_MAX;
  if (comma != comma_) {
    // The piece did not begin at an item (the walk passed its comma): an
    // object of the same first key inside an item, likely. Three such in a
    // row, and the walk goes on alone.
    if (++misses_ == 3) {
      stop(mark);
    } else {
      start(comma, mark);
    }
    return comma;
  }
  if (!ok_) {
    stop(mark);
    return comma;
  }
  // The next pieces are sized for both to end together: the slower
  // thread's is smaller, as their speeds are, which differ as the CPUs do
  // (two of a virtual machine were seen to run a third apart).
  const double walk = std::chrono::duration<double>(here - began_).count();
  if (walk > 0 && worker_seconds_ > 0) {
    const double ratio = static_cast<double>(ended_ - from_) / worker_seconds_ /
                         (static_cast<double>(comma - walk_from_) / walk);
    speed_ = std::clamp((speed_ + ratio) / 2, 0.25, 4.0);
  }
  out_.splice_into(h_);
  ++kept_;
  misses_ = 0;
  const std::size_t ended = ended_;
  if (trial_ == Trial::warming) {
    // Timed from the end of the first piece: before it, the worker's
    // writer and index were made, their pages touched for the first time.
    trial_ = Trial::pieces;
    trial_from_ = ended;
    trial_began_ = Clock::now();
  } else if (trial_ == Trial::pieces && ended - trial_from_ >= trial) {
    // The walk goes on alone if the pieces went clearly slower than it
    // did: two threads that both walk may each run slower than one that
    // walks while the other indexes, as two CPUs of a virtual machine
    // were seen to, and the walk may cost little more than its index.
    // (Clearly: timed over 8 MiB on such a machine, the walk alone of one
    // file ran at 570 to 1,250 MB/s from one run to the next.)
    trial_ = Trial::decided;
    const double rate = static_cast<double>(ended - trial_from_) /
                        seconds(trial_began_, Clock::now());
    if (rate < alone_ * 0.9) {
      stop(mark);
      return ended;
    }
  }
  start(ended, mark);
  return ended;
}

template <class H, bool kEmptyAsNull>
std::size_t Engine::Pieces<H, kEmptyAsNull>::likely_item(
    std::size_t after, std::size_t from, std::size_t& comma) const {
  // Looked for within a piece's worth of text: records are shorter.
  const std::size_t end = std::min(len_, from + e_.chunking_.piece);
  while (from < end) {
    const void* found =
        memmem(doc_ + from, end - from, start_.data(), start_.size());
    if (found == nullptr) break;
    const auto at =
        static_cast<std::size_t>(static_cast<const char*>(found) - doc_);
    std::size_t c = at;
    while (c > after && is_ws(doc_[c - 1])) --c;
    if (c > after + 1 && doc_[c - 1] == ',') {
      comma = c - 1;
      return at;
    }
    from = at + 1;
  }
  return SIZE_MAX;
}

template <class H, bool kEmptyAsNull>
void Engine::Pieces<H, kEmptyAsNull>::start(std::size_t after,
                                            std::size_t& mark) {
  from_ = likely_item(after, after + piece(false), comma_);
  if (from_ == SIZE_MAX) {
    stop(mark);
    return;
  }
  // The worker's piece ends at the first comma between items from to_
  // on: where the next likely item begins, if one does, or else past it.
  std::size_t end = 0;
  reader_.cut = likely_item(from_, from_ + piece(true), end);
  to_ = reader_.cut != SIZE_MAX ? end : from_ + piece(true);
  running_ = true;
  e_.worker_.start(&Pieces::run, this);
  walk_from_ = after;
  began_ = Clock::now();
  e_.cut_ = from_;
  mark = comma_;
}

template <class H, bool kEmptyAsNull>
void Engine::Pieces<H, kEmptyAsNull>::run(void* pieces) {
  auto& ps = *static_cast<Pieces*>(pieces);
  const Clock::time_point began = Clock::now();
  ps.ok_ = false;
  try {
    ps.out_.begin(ps.to_ - ps.from_, ps.doc_, ps.len_ + kSlotPadding);
    H* h = nullptr;
    if constexpr (std::is_same_v<H, JsonWriter>) {
      h = &ps.out_.writer();
    } else {
      h = &ps.out_.fused();
    }
    Chunk c;
    if (ps.reader_.index(ps.doc_, ps.len_, ps.from_, 1, c)) return;
    IndexWalker<H, true, kEmptyAsNull> walk(
        *h, ps.doc_, ps.len_, *c.stage1, ps.e_.max_depth_, ps.stack_,
        ps.scratch_, &ps.reader_, c.tokens, c.final, c.text, c.end);
    walk.walk_piece(ps.from_, ps.to_);
    if (walk.run() || walk.stopped) return;
    ps.ended_ = walk.consumed;
    ps.ok_ = true;
    ps.worker_seconds_ =
        std::chrono::duration<double>(Clock::now() - began).count();
  } catch (...) {
    // Dropped: the walk reads the piece itself.
  }
}

template <class W>
SimdResult Engine::finish(W& w) {
  Code err = simdjson::SUCCESS;
  SimdResult r;
  try {
    err = w.run();
  } catch (const Error&) {
    // The handler refused a value (a writer's --lossy, a transform): the
    // reader adds where it is to the error.
    r.refused = std::current_exception();
    r.refused_at = w.refused_at();
    r.emitted = true;
    return r;
  }
  r.emitted = w.emitted;
  r.stopped = w.stopped;
  r.consumed = w.consumed;
  if (r.stopped) return r;
  if (err) return failure(err, w.emitted);
  return r;
}

template <class H, bool kEmptyAsNull>
SimdResult Engine::walk(const char* p, std::size_t len, H& h) {
  if (len < chunking_.from) {
    IndexWalker<H, false, kEmptyAsNull> w(h, p, len, *stage1_, max_depth_,
                                          stack_, scratch_);
    return finish(w);
  }
  // However the walk ends (an error, a stop, an exception), the worker is
  // done with the document before the caller is given it back.
  struct Settle {
    Engine& e;
    ~Settle() { e.settle_all(); }
  } settle{*this};
  if (h.takes_array_count() && len >= chunking_.ahead_from &&
      Worker::useful()) {
    for (std::string& b : count_bufs_) {
      if (b.size() < kCountBlock + 64) grow_scratch(b, kCountBlock + 64);
    }
    FirstPart first(*this, p);
    count_.known = count_array_elements(
        p, len, count_.n, count_buf(1), kCountBlock,
        [this](std::size_t offset, char* buf, std::size_t k) {
          return count_copy(offset, buf, k);
        },
        &first);
    counted_ = &h;
  }
  ahead_from_ = kTakesPlainText<H>
                    ? std::min(chunking_.ahead_from, chunking_.text_ahead_from)
                    : chunking_.ahead_from;
  // Slots for a mapped file's chunks (a byte read through it tells).
  char probe = 0;
  if (progress_ != nullptr && progress_->copy(0, &probe, 1) == 1) {
    if (slots_.size() != kSlots * slot_size()) {
      grow_scratch(slots_, kSlots * slot_size());
    }
  } else {
    slots_.clear();
  }
  // A top-level array of records written as JSON text: in pieces.
  // (Of another handler: none, and never made.)
  std::optional<Pieces<std::conditional_t<kTakesPlainText<H>, H, JsonWriter>,
                       kEmptyAsNull>>
      pieces;
  if constexpr (kTakesPlainText<H>) {
    if (len >= chunking_.pieces_from && max_depth_ >= 2 && items_apart(h) &&
        Worker::useful()) {
      const std::string_view start = record_start(p, len);
      if (!start.empty()) pieces.emplace(*this, h, p, len, start);
    }
  }
  Chunk c;
  const Code err = index(p, len, 0, 0, c);
  if (err) return failure(err);
  IndexWalker<H, true, kEmptyAsNull> w(h, p, len, *c.stage1, max_depth_, stack_,
                                       scratch_, this, c.tokens, c.final,
                                       c.text, c.end);
  if constexpr (kTakesPlainText<H>) {
    if (pieces) w.walk_in_pieces(&*pieces);
  }
  SimdResult r = finish(w);
  if (pieces) r.pieces_apart = pieces->kept();
  return r;
}

SimdResult Engine::parse(const char* p, std::size_t len, std::size_t capacity,
                         Handler& out, SimdProgress* progress) {
  static_cast<void>(capacity);  // stage 1 reads the padding past len only
  if (len > simdjson::SIMDJSON_MAXSIZE_BYTES)
    return failure(simdjson::CAPACITY);
  progress_ = progress;
  if (len < chunking_.from) {
    if (!reserve(stage1_, len)) return failure(simdjson::MEMALLOC);
    const Code err = stage1_->stage1(reinterpret_cast<const std::uint8_t*>(p),
                                     len, simdjson::stage1_mode::regular);
    if (err) return failure(err);
    // The caller sends only documents that start with a bracket.
    if (stage1_->n_structural_indexes == 0) return failure(simdjson::EMPTY);
  }

  // The two common handlers (final classes) by their type, which costs
  // less than dynamic_cast, once per line of JSON Lines; the casts below
  // still find them where type_info objects are not unique.
  const std::type_info& type = typeid(out);
  if (&type == &typeid(JsonWriter)) {
    return walk(p, len, static_cast<JsonWriter&>(out));
  }
  if (&type == &typeid(transforms::FusedFeatures<JsonWriter>)) {
    return walk(p, len,
                static_cast<transforms::FusedFeatures<JsonWriter>&>(out));
  }
  // --empty-as-null, in front of a writer or the fused features before
  // one: the walk turns "" and [] into nulls itself and calls them
  // directly.
  // (A final class, compared by type as the reader does: the casts below
  // run for each document of the other handlers.)
  if (type == typeid(transforms::EmptyAsNull)) {
    auto* e = static_cast<transforms::EmptyAsNull*>(&out);
    Handler& t = e->typed();
    if (auto* w = dynamic_cast<JsonWriter*>(&t)) {
      e->typed_document();
      return walk<JsonWriter, true>(p, len, *w);
    }
    if (auto* f = dynamic_cast<transforms::FusedFeatures<JsonWriter>*>(&t)) {
      e->typed_document();
      return walk<transforms::FusedFeatures<JsonWriter>, true>(p, len, *f);
    }
    // convert to a binary format: the same, to its writer.
    if (auto r = walk_binary<CborWriter, true>(p, len, t, e)) return *r;
    if (auto r = walk_binary<msgpack::MsgpackWriter, true>(p, len, t, e)) {
      return *r;
    }
    if (auto r = walk_binary<JsonbWriter, true>(p, len, t, e)) return *r;
  }
  // The common case, fmt without transforms: devirtualised calls.
  if (auto* w = dynamic_cast<JsonWriter*>(&out)) return walk(p, len, *w);
  // fmt with the writer features: the fused handler, called directly.
  if (auto* f = dynamic_cast<transforms::FusedFeatures<JsonWriter>*>(&out)) {
    return walk(p, len, *f);
  }
  if (auto* n = dynamic_cast<NullHandler*>(&out)) return walk(p, len, *n);
  // convert to a binary format, with or without the writer features:
  // direct calls.
  if (auto r = walk_binary<CborWriter>(p, len, out)) return *r;
  if (auto r = walk_binary<msgpack::MsgpackWriter>(p, len, out)) return *r;
  if (auto r = walk_binary<JsonbWriter>(p, len, out)) return *r;
  return walk(p, len, out);
}

template <class W, bool kEmptyAsNull>
std::optional<SimdResult> Engine::walk_binary(
    const char* p, std::size_t len, Handler& out,
    transforms::EmptyAsNull* empty_as_null) {
  if (auto* w = dynamic_cast<W*>(&out)) {
    if (empty_as_null != nullptr) empty_as_null->typed_document();
    w->size_hint(len);
    return walk<W, kEmptyAsNull>(p, len, *w);
  }
  if (auto* f = dynamic_cast<transforms::FusedFeatures<W>*>(&out)) {
    if (empty_as_null != nullptr) empty_as_null->typed_document();
    f->next().size_hint(len);
    return walk<transforms::FusedFeatures<W>, kEmptyAsNull>(p, len, *f);
  }
  return std::nullopt;
}

}  // namespace
}  // namespace jbx
