#include "core/huge_block.h"

#include <sys/mman.h>

#include <cstdint>

namespace jbx {

namespace {
bool g_keep_to_exit = false;
}  // namespace

void keep_large_blocks_to_exit() { g_keep_to_exit = true; }

bool large_blocks_kept_to_exit() { return g_keep_to_exit; }

void release_mapping(void* p, std::size_t len) {
  if (!g_keep_to_exit) munmap(p, len);
}

void* huge_block(std::size_t len) {
  void* raw = mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto at = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (at + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > at) munmap(raw, aligned - at);
  const std::size_t tail = kHugePage - (aligned - at);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + len), tail);
  void* p = reinterpret_cast<void*>(aligned);
  // Advice only: the block works the same when the kernel declines.
  madvise(p, len, MADV_HUGEPAGE);
  return p;
}

}  // namespace jbx
