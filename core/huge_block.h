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
/// Release it with release_mapping(p, len).
void* huge_block(std::size_t len);

/// Called once the run's last input is done: the large blocks still held
/// (mappings, and blocks of 128 KiB or more from operator new) are then
/// left for the process's exit to reclaim instead of being unmapped one by
/// one. On a small input, unmapping them is a tenth of the run: each
/// munmap of a large block is a system call that frees its pages and
/// flushes the TLB, which exit does once for the whole address space.
void keep_large_blocks_to_exit();
/// Whether keep_large_blocks_to_exit() was called.
bool large_blocks_kept_to_exit();

/// munmap(p, len), unless the blocks are kept to the exit.
void release_mapping(void* p, std::size_t len);

}  // namespace jbx
