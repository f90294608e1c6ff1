#include "formats/jsonb/jsonb_number.h"

#include <algorithm>
#include <charconv>
#include <vector>

namespace jbx::jsonb {

void append_twos_complement_decimal(std::span<const std::uint8_t> be,
                                    std::string& out) {
  const bool negative = (be[0] & 0x80) != 0;
  // Magnitude as big-endian bytes: negate the two's complement if needed.
  std::vector<std::uint8_t> mag(be.begin(), be.end());
  if (negative) {
    for (auto& b : mag) b = static_cast<std::uint8_t>(~b);
    for (std::size_t i = mag.size(); i-- > 0;) {
      if (++mag[i] != 0) break;
    }
  }
  // Little-endian 32-bit limbs of the magnitude.
  std::vector<std::uint32_t> limbs((mag.size() + 3) / 4, 0);
  for (std::size_t i = 0; i < mag.size(); ++i) {
    const std::size_t bit = (mag.size() - 1 - i) * 8;
    limbs[bit / 32] |= static_cast<std::uint32_t>(mag[i]) << (bit % 32);
  }
  while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
  // Repeated division by 1e9 gives base-1e9 chunks, least significant first.
  std::vector<std::uint32_t> chunks;
  while (!limbs.empty()) {
    std::uint64_t rem = 0;
    for (std::size_t i = limbs.size(); i-- > 0;) {
      const std::uint64_t cur = (rem << 32) | limbs[i];
      limbs[i] = static_cast<std::uint32_t>(cur / 1000000000u);
      rem = cur % 1000000000u;
    }
    chunks.push_back(static_cast<std::uint32_t>(rem));
    while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
  }
  if (chunks.empty()) {
    out.push_back('0');
    return;
  }
  if (negative) out.push_back('-');
  char buf[16];
  auto r = std::to_chars(buf, buf + sizeof buf, chunks.back());
  out.append(buf, r.ptr);
  for (std::size_t i = chunks.size() - 1; i-- > 0;) {
    r = std::to_chars(buf, buf + sizeof buf, chunks[i]);
    const auto len = static_cast<std::size_t>(r.ptr - buf);
    out.append(9 - len, '0');
    out.append(buf, len);
  }
}

void decimal_to_twos_complement(std::string_view digits, bool negative,
                                std::string& out) {
  // Little-endian 32-bit limbs: multiply by 10^k and add, 9 digits a step.
  std::vector<std::uint32_t> limbs;
  std::size_t i = 0;
  while (i < digits.size()) {
    const std::size_t take = std::min<std::size_t>(9, digits.size() - i);
    std::uint32_t chunk = 0;
    std::uint32_t mul = 1;
    for (std::size_t k = 0; k < take; ++k) {
      chunk = chunk * 10 + static_cast<std::uint32_t>(digits[i + k] - '0');
      mul *= 10;
    }
    i += take;
    std::uint64_t carry = chunk;
    for (auto& limb : limbs) {
      const std::uint64_t cur = static_cast<std::uint64_t>(limb) * mul + carry;
      limb = static_cast<std::uint32_t>(cur);
      carry = cur >> 32;
    }
    if (carry != 0) limbs.push_back(static_cast<std::uint32_t>(carry));
  }
  // Big-endian magnitude bytes with one extra leading zero byte for the sign.
  out.assign(limbs.size() * 4 + 1, '\0');
  for (std::size_t k = 0; k < limbs.size(); ++k) {
    for (int b = 0; b < 4; ++b) {
      out[out.size() - 1 - (k * 4 + static_cast<std::size_t>(b))] =
          static_cast<char>((limbs[k] >> (8 * b)) & 0xff);
    }
  }
  if (negative) {
    for (auto& c : out) c = static_cast<char>(~static_cast<unsigned char>(c));
    for (std::size_t k = out.size(); k-- > 0;) {
      out[k] = static_cast<char>(static_cast<unsigned char>(out[k]) + 1);
      if (out[k] != 0) break;
    }
  }
  // Minimal form: drop a leading byte that only repeats the sign bit.
  std::size_t drop = 0;
  const auto u = [&](std::size_t k) {
    return static_cast<unsigned char>(out[k]);
  };
  while (drop + 1 < out.size()) {
    const bool redundant = (u(drop) == 0x00 && (u(drop + 1) & 0x80) == 0) ||
                           (u(drop) == 0xff && (u(drop + 1) & 0x80) != 0);
    if (!redundant) break;
    ++drop;
  }
  out.erase(0, drop);
}

void append_decimal_text(std::string_view unscaled, std::int64_t scale,
                         std::string& out) {
  const bool negative = !unscaled.empty() && unscaled[0] == '-';
  const std::string_view digits = negative ? unscaled.substr(1) : unscaled;
  const auto n = static_cast<std::int64_t>(digits.size());
  const std::int64_t adjusted = -scale + (n - 1);
  if (negative) out.push_back('-');
  if (scale == 0) {
    out.append(digits);
    return;
  }
  if (scale > 0 && adjusted >= -6) {
    if (n > scale) {
      out.append(digits.substr(0, static_cast<std::size_t>(n - scale)));
      out.push_back('.');
      out.append(digits.substr(static_cast<std::size_t>(n - scale)));
    } else {
      out.append("0.");
      out.append(static_cast<std::size_t>(scale - n), '0');
      out.append(digits);
    }
    return;
  }
  out.push_back(digits[0]);
  if (n > 1) {
    out.push_back('.');
    out.append(digits.substr(1));
  }
  out.push_back('E');
  if (adjusted >= 0) out.push_back('+');
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, adjusted);
  out.append(buf, r.ptr);
}

}  // namespace jbx::jsonb
