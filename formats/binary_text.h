// Text strings of the binary formats (CBOR, MessagePack, JSONB): one pass
// that checks UTF-8 and, at the same time, learns whether the JSON writer
// has anything to escape. Strings that are plain go to the writer without a
// second scan (JsonWriter::plain_string), which is most of the work of a
// binary-to-JSON conversion after decoding.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/events.h"
#include "formats/json/json_writer.h"

namespace jbx::detail {

struct TextScan {
  static constexpr std::size_t npos = ~std::size_t{0};
  /// Offset of the first byte that is not part of valid UTF-8 (RFC 3629: no
  /// overlongs, no surrogates, nothing above U+10FFFF), or npos.
  std::size_t invalid_at = npos;
  /// No '"', '\\' or control character: JSON needs no escape (non-ASCII
  /// text is copied as is unless --ascii, which the writer handles).
  bool plain = true;
};

namespace text_scan {

#if defined(__SSE2__)
// 16 bytes at a time; one bit per byte in the mask.
constexpr std::size_t kWord = 16;
constexpr int kBitsPerByte = 1;

// Bit k set when byte k of p[0..16) is a control character, '"', '\\' or
// >= 0x80 (a signed compare puts those below 0x20 too).
[[gnu::always_inline]] inline std::uint64_t special(const std::uint8_t* p) {
  __m128i v;
  std::memcpy(&v, p, sizeof v);
  const __m128i low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
  const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  const __m128i back = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  return static_cast<std::uint32_t>(
      _mm_movemask_epi8(_mm_or_si128(low, _mm_or_si128(quote, back))));
}

// The mask bits of the first `k` (<= 2 * kWord) bytes.
[[gnu::always_inline]] inline std::uint64_t first_bytes(std::size_t k) {
  return (std::uint64_t{1} << k) - 1;
}
#else
// 8 bytes at a time in a general register; the high bit of each byte.
constexpr std::size_t kWord = 8;
constexpr int kBitsPerByte = 8;

constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;

// The high bit of each byte that is a control character, '"', '\\' or
// >= 0x80. Bytes above a flagged one may be flagged falsely (borrows run
// upwards); the lowest flagged byte is always right.
[[gnu::always_inline]] inline std::uint64_t special(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) {
    v = __builtin_bswap64(v);
  }
  const std::uint64_t ctrl = (v - kOnes * 0x20) & ~v;
  const std::uint64_t q = v ^ (kOnes * '"');
  const std::uint64_t bs = v ^ (kOnes * '\\');
  const std::uint64_t quote = (q - kOnes) & ~q;
  const std::uint64_t back = (bs - kOnes) & ~bs;
  return (ctrl | quote | back | v) & kHighs;
}

[[gnu::always_inline]] inline std::uint64_t first_bytes(std::size_t k) {
  return (std::uint64_t{1} << (8 * k)) - 1;
}
#endif

// What a lead byte (>= 0x80) starts: a sequence of `len` bytes (0: none),
// whose second byte is within [lo, hi].
struct Lead {
  std::size_t len = 0;
  std::uint8_t lo = 0x80;
  std::uint8_t hi = 0xbf;
};
constexpr Lead lead(std::uint8_t c) {
  Lead l;
  if (c >= 0xc2 && c <= 0xdf) {
    l.len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    l.len = 3;
    if (c == 0xe0) l.lo = 0xa0;  // overlong
    if (c == 0xed) l.hi = 0x9f;  // surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    l.len = 4;
    if (c == 0xf0) l.lo = 0x90;  // overlong
    if (c == 0xf4) l.hi = 0x8f;  // above U+10FFFF
  }
  return l;
}

// Length of the valid UTF-8 sequence whose lead byte (>= 0x80) is s[0], or 0
// when there is none within the n bytes left.
inline std::size_t sequence(const std::uint8_t* s, std::size_t n) {
  const auto [len, lo, hi] = lead(s[0]);
  if (len == 0) return 0;
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if ((s[k] & 0xc0) != 0x80) return 0;
  }
  return len;
}

}  // namespace text_scan

/// What is wrong with the bytes at `s` (the `n` left of a string), where
/// scan_text() found the first that is not UTF-8: "byte 0xff cannot start
/// a character", "byte 0x28 cannot follow 0xc3", with why for an overlong
/// form, a surrogate or a code point past U+10FFFF, or "the string ends
/// inside 0xe6 0xa2". For an error message: out of line.
[[gnu::noinline]] inline std::string describe_invalid_utf8(
    const std::uint8_t* s, std::size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto hex = [](std::uint8_t b) {
    return std::string{'0', 'x', kHex[b >> 4], kHex[b & 15]};
  };
  const std::uint8_t c = s[0];
  const auto [len, lo, hi] = text_scan::lead(c);
  if (len == 0) return "byte " + hex(c) + " cannot start a character";
  std::string seq = hex(c);
  for (std::size_t k = 1; k < len; ++k) {
    if (k >= n) return "the string ends inside " + seq;
    const std::uint8_t b = s[k];
    const bool in_range = k == 1 ? b >= lo && b <= hi : (b & 0xc0) == 0x80;
    if (!in_range) {
      std::string why;
      if (k == 1 && (b & 0xc0) == 0x80) {
        why = c == 0xed   ? " (a UTF-16 surrogate)"
              : c == 0xf4 ? " (above U+10FFFF)"
                          : " (an overlong form)";
      }
      return "byte " + hex(b) + " cannot follow " + seq + why;
    }
    seq += ' ' + hex(b);
  }
  return "byte " + hex(c) + " cannot start a character";  // (valid)
}

/// scan_text() from s[i] on, for what its inline part does not decide.
[[gnu::noinline]] inline TextScan scan_text_from(
    const std::uint8_t* s, std::size_t i, std::size_t n,
    const std::uint8_t* readable_end) {
  using namespace text_scan;
  TextScan r;
  const auto readable = static_cast<std::size_t>(readable_end - s);
  while (i < n) {
    std::uint64_t m = 0;
    if (i + kWord <= n) {
      m = special(s + i);
      if (m == 0) {
        i += kWord;
        continue;
      }
    } else if (i + kWord <= readable) {
      // The last partial word: bytes past the string are masked off.
      m = special(s + i) & first_bytes(n - i);
      if (m == 0) return r;
    } else {
      // Too near the end of the buffer for a word: byte by byte.
      const std::uint8_t c = s[i];
      if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
        ++i;
        continue;
      }
    }
    if (m != 0) {
      i += static_cast<std::size_t>(std::countr_zero(m)) / kBitsPerByte;
    }
    const std::uint8_t c = s[i];
    if (c < 0x80) {
      r.plain = false;
      ++i;
      continue;
    }
    const std::size_t len = sequence(s + i, n - i);
    if (len == 0) {
      r.invalid_at = i;
      return r;
    }
    i += len;
  }
  return r;
}

/// Scans s[0..n). Bytes up to `readable_end` (>= s + n) may be loaded, but
/// never count: a short string is checked with whole-word loads and a mask,
/// without a loop over its bytes. Inline, for that case; the rest is not.
[[gnu::always_inline]] inline TextScan scan_text(
    const std::uint8_t* s, std::size_t n, const std::uint8_t* readable_end) {
  using namespace text_scan;
  std::size_t i = 0;
#if defined(__SSE2__)
  // Most strings are under 32 bytes and of every length: two words checked
  // at once, masked to the string, leave no branch on the length for the
  // predictor to miss.
  if (static_cast<std::size_t>(readable_end - s) >= 2 * kWord) {
    const std::uint64_t both = special(s) | (special(s + kWord) << kWord);
    const std::uint64_t m = both & first_bytes(n < 2 * kWord ? n : 2 * kWord);
    if (m == 0) [[likely]] {
      if (n <= 2 * kWord) return TextScan();
      i = 2 * kWord;
    } else {
      i = static_cast<std::size_t>(std::countr_zero(m));
    }
  }
#endif
  return scan_text_from(s, i, n, readable_end);
}

/// first_special() from s[i] on, for what its inline part does not decide.
[[gnu::noinline]] inline std::size_t first_special_from(
    const std::uint8_t* s, std::size_t i, std::size_t n,
    const std::uint8_t* readable_end) {
  using namespace text_scan;
  const auto readable = static_cast<std::size_t>(readable_end - s);
  while (i < n) {
    std::uint64_t m = 0;
    if (i + kWord <= n) {
      m = special(s + i);
    } else if (i + kWord <= readable) {
      m = special(s + i) & first_bytes(n - i);
      if (m == 0) return n;
    } else {
      const std::uint8_t c = s[i];
      if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return i;
      ++i;
      continue;
    }
    if (m != 0) {
      return i + static_cast<std::size_t>(std::countr_zero(m)) / kBitsPerByte;
    }
    i += kWord;
  }
  return n;
}

/// Index of the first byte of s[0..n) that is a control character, '"',
/// '\\' or >= 0x80, or n when there is none; `readable_end` as for
/// scan_text. For text that is not UTF-8 (JSONB's Latin-1 strings): n means
/// plain ASCII. Inline for a short string, as scan_text() is.
[[gnu::always_inline]] inline std::size_t first_special(
    const std::uint8_t* s, std::size_t n, const std::uint8_t* readable_end) {
  using namespace text_scan;
#if defined(__SSE2__)
  if (static_cast<std::size_t>(readable_end - s) >= 2 * kWord) {
    const std::uint64_t both = special(s) | (special(s + kWord) << kWord);
    const std::uint64_t m = both & first_bytes(n < 2 * kWord ? n : 2 * kWord);
    if (m != 0) return static_cast<std::size_t>(std::countr_zero(m));
    if (n <= 2 * kWord) return n;
    return first_special_from(s, 2 * kWord, n, readable_end);
  }
#endif
  return first_special_from(s, 0, n, readable_end);
}

/// Delivers a scanned string. `readable` is how many bytes from s.data()
/// may be read (at least s.size()): the JSON writer copies a plain one in
/// whole words when it can.
template <class H>
[[gnu::always_inline]] inline void emit_string(H& h, std::string_view s,
                                               bool plain,
                                               std::size_t readable) {
  if constexpr (std::is_same_v<H, JsonWriter>) {
    if (plain) {
      h.direct_string(s, readable);
      return;
    }
  }
  h.string_value(s);
}

/// Delivers a scanned map key, like emit_string.
template <class H>
[[gnu::always_inline]] inline Flow emit_key(H& h, std::string_view s,
                                            bool plain, std::size_t readable) {
  if constexpr (std::is_same_v<H, JsonWriter>) {
    if (plain) return h.direct_key(s, readable);
  }
  return h.key(s);
}

/// Delivers an integer; the JSON writer's inline form when it is the
/// handler.
template <class H>
[[gnu::always_inline]] inline void emit_int(H& h, std::int64_t v) {
  if constexpr (std::is_same_v<H, JsonWriter>) {
    h.direct_int(v);
  } else {
    h.int_value(v);
  }
}

}  // namespace jbx::detail
