// The output the binary writers (CBOR, MessagePack, JSONB) hold while the
// counts of containers still open are not known: a container's head takes
// one placeholder byte in the buffer, set in place when it ends with a
// short count, and otherwise recorded as a patch (its place and count) in
// document order, spliced in as the buffer goes to the sink. The buffer
// goes to the sink whole at the document's end, or a front part at a time
// while a large array is streamed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/byte_buffer.h"
#include "core/sink.h"

namespace jbx::detail {

/// The most bytes a patch's head takes (CBOR's: 9).
inline constexpr std::size_t kMaxPatchHead = 16;

/// Writes buf[from, cut) to `out` with the patches placed before `cut`
/// (the first ones) over their placeholders, each written by
/// `encode(patch, head)`, which returns its size (at most kMaxPatchHead).
/// Then drops buf[0, cut) and those patches, and moves the places of the
/// others. Returns how many patches it dropped: the writer moves the
/// places of its open containers, which are after `cut`.
template <class Patch, class Encode>
std::size_t flush_patched(Sink& out, ByteBuffer& buf, std::size_t from,
                          std::size_t cut, std::vector<Patch>& patches,
                          Encode encode) {
  const std::string_view all = buf.view();
  std::size_t prev = from;
  std::size_t k = 0;
  char head[kMaxPatchHead];
  for (; k < patches.size() && patches[k].pos < cut; ++k) {
    const Patch& p = patches[k];
    out.write(all.substr(prev, p.pos - prev));
    out.write(std::string_view(head, encode(p, head)));
    prev = p.pos + 1;  // over the one-byte placeholder
  }
  out.write(all.substr(prev, cut - prev));
  buf.drop_front(cut);
  patches.erase(patches.begin(),
                patches.begin() + static_cast<std::ptrdiff_t>(k));
  for (Patch& p : patches) p.pos -= cut;
  return k;
}

/// A top-level array written as it is read (the writers' stream_array()):
/// its head, with the count of its elements found ahead in its text, is
/// written already.
struct StreamedArray {
  bool on = false;
  std::uint64_t count = 0;

  /// The array ends with `had` elements: Error(syntax) unless that is
  /// `count`, as the head promised.
  void end(std::uint64_t had) const;
  /// The document ends: Error(syntax) if it ends inside the array (the
  /// head promised elements that are not there). No longer on, either way.
  void end_document(bool inside);
  /// An error ended the document (Writer::abandon()): what `out` still
  /// holds of the streamed array is taken back. No longer on.
  void abandon(Sink& out) {
    if (on) out.drop_document();
    on = false;
  }
};

}  // namespace jbx::detail
