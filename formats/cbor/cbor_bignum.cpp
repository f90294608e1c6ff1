#include "formats/cbor/cbor_bignum.h"

#include <algorithm>
#include <vector>

namespace jbx::cbor::detail {

namespace {

// Little-endian limbs in base 2^32.
using Limbs = std::vector<std::uint32_t>;

void trim(Limbs& n) {
  while (!n.empty() && n.back() == 0) n.pop_back();
}

void mul_add(Limbs& n, std::uint32_t mul, std::uint32_t add) {
  std::uint64_t carry = add;
  for (std::uint32_t& limb : n) {
    const std::uint64_t v = std::uint64_t{limb} * mul + carry;
    limb = static_cast<std::uint32_t>(v);
    carry = v >> 32;
  }
  if (carry != 0) n.push_back(static_cast<std::uint32_t>(carry));
}

// Divides in place, returns the remainder.
std::uint32_t div_small(Limbs& n, std::uint32_t div) {
  std::uint64_t rem = 0;
  for (auto it = n.rbegin(); it != n.rend(); ++it) {
    const std::uint64_t cur = (rem << 32) | *it;
    *it = static_cast<std::uint32_t>(cur / div);
    rem = cur % div;
  }
  trim(n);
  return static_cast<std::uint32_t>(rem);
}

Limbs from_decimal(std::string_view digits) {
  Limbs n;
  // Nine decimal digits at a time: 10^9 fits a limb.
  std::size_t i = 0;
  const std::size_t head = digits.size() % 9;
  auto chunk = [&](std::size_t len) {
    std::uint32_t v = 0;
    std::uint32_t scale = 1;
    for (std::size_t k = 0; k < len; ++k) {
      v = v * 10 + static_cast<std::uint32_t>(digits[i + k] - '0');
      scale *= 10;
    }
    i += len;
    mul_add(n, scale, v);
  };
  if (head != 0) chunk(head);
  while (i < digits.size()) chunk(9);
  trim(n);
  return n;
}

std::string to_decimal(Limbs n) {
  trim(n);
  if (n.empty()) return "0";
  std::vector<std::uint32_t> groups;  // base 10^9, least significant first
  while (!n.empty()) groups.push_back(div_small(n, 1'000'000'000));
  std::string out = std::to_string(groups.back());
  for (auto it = groups.rbegin() + 1; it != groups.rend(); ++it) {
    const std::string g = std::to_string(*it);
    out.append(9 - g.size(), '0');
    out += g;
  }
  return out;
}

}  // namespace

std::string bytes_to_decimal(std::span<const std::uint8_t> bytes) {
  std::size_t start = 0;
  while (start < bytes.size() && bytes[start] == 0) ++start;
  const std::size_t len = bytes.size() - start;
  if (len <= 8) {
    std::uint64_t v = 0;
    for (std::size_t i = start; i < bytes.size(); ++i) v = (v << 8) | bytes[i];
    return std::to_string(v);
  }
  Limbs n((len + 3) / 4, 0);
  for (std::size_t k = 0; k < len; ++k) {
    const std::uint8_t b = bytes[bytes.size() - 1 - k];
    n[k / 4] |= std::uint32_t{b} << (8 * (k % 4));
  }
  return to_decimal(std::move(n));
}

std::string decimal_to_bytes(std::string_view digits) {
  Limbs n = from_decimal(digits);
  std::string out;
  out.reserve(n.size() * 4);
  for (auto it = n.rbegin(); it != n.rend(); ++it) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      const auto b = static_cast<char>((*it >> shift) & 0xff);
      if (out.empty() && b == 0) continue;
      out.push_back(b);
    }
  }
  return out;
}

std::string decimal_increment(std::string_view digits) {
  std::string out(digits);
  for (auto it = out.rbegin(); it != out.rend(); ++it) {
    if (*it != '9') {
      ++*it;
      return out;
    }
    *it = '0';
  }
  out.insert(out.begin(), '1');
  return out;
}

std::string decimal_decrement(std::string_view digits) {
  std::string out(digits);
  for (auto it = out.rbegin(); it != out.rend(); ++it) {
    if (*it != '0') {
      --*it;
      break;
    }
    *it = '9';
  }
  const std::size_t nz = out.find_first_not_of('0');
  if (nz == std::string::npos) return "0";
  out.erase(0, nz);
  return out;
}

std::string decimal_mul_pow(std::string_view digits, std::uint32_t exp2,
                            std::uint32_t exp5) {
  Limbs n = from_decimal(digits);
  if (n.empty()) return "0";
  // 2^31 and 5^13 are the largest powers that fit a 32-bit multiplier.
  for (; exp2 >= 31; exp2 -= 31) mul_add(n, 1u << 31, 0);
  if (exp2 > 0) mul_add(n, 1u << exp2, 0);
  for (; exp5 >= 13; exp5 -= 13) mul_add(n, 1220703125u, 0);
  std::uint32_t p = 1;
  for (; exp5 > 0; --exp5) p *= 5;
  mul_add(n, p, 0);
  return to_decimal(std::move(n));
}

int decimal_compare(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace jbx::cbor::detail
