#include "core/byte_buffer.h"

#include <algorithm>

namespace jbx {

void ByteBuffer::grow_slow(std::size_t n) {
  const auto cap = static_cast<std::size_t>(end_ - data_.get());
  reallocate(std::max(cap == 0 ? std::size_t{4096} : cap * 2, size() + n));
}

void ByteBuffer::reallocate(std::size_t cap) {
  // Large buffers in whole 2 MiB units, which the allocator can place on
  // transparent huge pages: one page fault per 2 MiB written instead of
  // one per 4 KiB. Untouched capacity costs address space only.
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  if (cap >= kHuge / 2) cap = (cap + kHuge - 1) & ~(kHuge - 1);
  // Default-initialised: new bytes are written before they are read.
  const std::size_t len = size();
  std::unique_ptr<char[]> bigger(new char[cap]);
  if (len > 0) std::memcpy(bigger.get(), data_.get(), len);
  data_ = std::move(bigger);
  cur_ = data_.get() + len;
  end_ = data_.get() + cap;
}

}  // namespace jbx
