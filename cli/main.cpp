// jbx: convert, reformat, query and validate JSON and binary JSON.
#include <malloc.h>
#include <sys/mman.h>

#include <cstdlib>
#include <new>

#include "cli/app.h"
#include "core/huge_block.h"

int main(int argc, char** argv) { return jbx::cli::main(argc, argv); }

// Large blocks on transparent huge pages. simdjson sizes its structural
// index and string buffers to the document, and glibc serves such blocks
// with fresh mmap'd pages, each touched page a fault: on an 18 MB document
// about 2,900 faults, a third of `fmt`'s run time in a virtual machine.
// Asking the kernel for 2 MiB pages on those blocks (what glibc's
// glibc.malloc.hugetlb=1 tunable does, which only the environment can set)
// removes most of them. Everything else goes to malloc unchanged, and
// blocks are freed with free, so mixing with C allocation stays valid;
// once the run is over (jbx::keep_large_blocks_to_exit()), large blocks
// are left for the exit to reclaim.
// Sanitizer builds keep their own operator new.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JBX_KEEP_OPERATOR_NEW 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define JBX_KEEP_OPERATOR_NEW 1
#endif

#ifndef JBX_KEEP_OPERATOR_NEW
namespace {

using jbx::kHugePage;
constexpr std::size_t kHugeThreshold = kHugePage;

void* allocate(std::size_t n) noexcept {
  if (n < kHugeThreshold) return std::malloc(n == 0 ? 1 : n);
  // Aligned, so that the first bytes, the ones a small document touches,
  // are already on a huge page.
  const std::size_t rounded = (n + kHugePage - 1) & ~(kHugePage - 1);
  void* p = std::aligned_alloc(kHugePage, rounded);
  // Advice only: the block works the same when the kernel declines.
  if (p != nullptr) madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

// glibc's default mmap threshold: larger blocks are mappings of their own,
// each unmapped when freed.
constexpr std::size_t kOwnMapping = std::size_t{128} << 10;

void release(void* p) noexcept {
  if (p != nullptr && jbx::large_blocks_kept_to_exit() &&
      malloc_usable_size(p) >= kOwnMapping) {
    return;
  }
  std::free(p);
}

}  // namespace

void* operator new(std::size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return allocate(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return allocate(n);
}
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
#endif
