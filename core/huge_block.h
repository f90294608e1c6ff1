// Anonymous memory on transparent huge pages, for large buffers that are
// filled once: in a virtual machine the first touch of each 4 KiB page
// costs a trap to the hypervisor, and a 2 MiB page takes one for 512.
#pragma once

#include <cstddef>

namespace jbx {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

/// `len` rounded up to a whole number of huge pages.
constexpr std::size_t huge_round(std::size_t len) {
  return (len + kHugePage - 1) / kHugePage * kHugePage;
}

/// An anonymous block of `len` bytes (a multiple of kHugePage) aligned to a
/// huge page, with huge pages asked for; nullptr when it cannot be had.
/// Release it with munmap(p, len).
void* huge_block(std::size_t len);

}  // namespace jbx
