#include "formats/patched_buffer.h"

#include <fmt/format.h>

#include "core/error.h"

namespace jbx::detail {

void StreamedArray::end(std::uint64_t had) const {
  if (had != count) {
    throw Error(Errc::syntax,
                fmt::format("the array has {} elements, not the {} its text "
                            "was counted to have",
                            had, count));
  }
}

void StreamedArray::end_document(bool inside) {
  const bool was = on;
  on = false;
  if (was && inside) throw Error(Errc::syntax, "the streamed array ends early");
}

}  // namespace jbx::detail
