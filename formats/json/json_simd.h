// The simdjson-indexed walk behind the JSON reader, compiled once per CPU
// kernel (AVX2 "haswell" on x86-64, and the portable build) and chosen at
// run time. Only json_reader.cpp uses it; it knows nothing of errors'
// wording (the scalar parser explains them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include "core/events.h"

namespace jbx {

struct SimdResult {
  bool ok = true;
  const char* message = "";  // simdjson's description when !ok
  bool emitted = false;      // some event was sent before the error
  bool stopped = false;      // the handler returned Flow::stop
  // To the next token after the document, or all of it at the end; when
  // stopped, where bracket counting over the index ends the document.
  std::size_t consumed = 0;
  // A jbx::Error thrown by the handler, and the offset of the token whose
  // event it refused.
  std::exception_ptr refused;
  std::size_t refused_at = 0;
  // The pieces of the top-level array walked on the second thread and
  // kept (SimdChunking::pieces_from).
  std::uint64_t pieces_apart = 0;
};

/// Told how far the walk of a large document has got: it reads such a
/// document front to back, a chunk at a time.
class SimdProgress {
 public:
  /// The walk needs nothing before p[offset] any more.
  virtual void passed(std::size_t offset) = 0;
  /// Called from a second thread: copies the document's bytes [offset,
  /// offset + n) to buf through its file, if it is a mapped file, without
  /// mapping them ahead of the walk; returns how many it copied (0 for an
  /// input that is not such a file).
  virtual std::size_t copy(std::size_t offset, char* buf, std::size_t n) = 0;

 protected:
  ~SimdProgress() = default;
};

/// How the engine indexes a large document: a chunk at a time, so that
/// memory does not grow with the document (a whole document's index takes
/// four bytes per structural character), the index of a chunk is still in
/// the CPU's cache when the walk reads it, and the walk reads the input
/// front to back. The next chunk is indexed while the walk reads one.
/// Tests make the chunks tiny.
struct SimdChunking {
  std::size_t chunk = std::size_t{512} << 10;
  std::size_t from = std::size_t{1} << 20;  // documents this large on
  // A chunk that is not the last gives the walk at least this many tokens
  // (at least 4); a token longer than a chunk makes the chunk grow.
  std::uint32_t min_tokens = 64;
  // In documents this large (SIZE_MAX: none) the next chunk is indexed on
  // a second thread while the walk reads this one, when the process may
  // run on more than one CPU. In smaller ones, starting the thread and
  // its index cost about as much as the overlap gains.
  std::size_t ahead_from = std::size_t{16} << 20;
  // A walk that writes JSON text costs more than the index it reads, so
  // the overlap gains more: it is indexed ahead from the smaller of this
  // and ahead_from.
  std::size_t text_ahead_from = std::size_t{3} << 20;
  // In documents this large (SIZE_MAX: none) written as JSON text, a
  // top-level array of objects (records) is walked in pieces of about
  // `piece` bytes, every other one on a second thread into a writer of its
  // own, whose text is spliced in: the text is the same. Tests lower these
  // and the trial below. (From 10 MiB the wall time of 12 to 38 MB seed
  // arrays fell by 5% to 18%, for a tenth to a fifth more CPU time and
  // about 15 MiB more memory; on 5 to 9 MB ones pieces gained nothing.)
  std::size_t pieces_from = std::size_t{10} << 20;
  std::size_t piece = std::size_t{2} << 20;
  // The array is first walked alone (indexed ahead) over this many bytes,
  // then in pieces over as many, and goes on in pieces unless that was
  // clearly slower. 0: in pieces from the first item on. (A trial of
  // 8 MiB left little of a 38 MB array to gain on.)
  std::size_t pieces_trial = std::size_t{2} << 20;
};

class SimdEngine {
 public:
  virtual ~SimdEngine() = default;
  /// Parses the object or array document at p[0, len), p readable up to
  /// p + capacity (capacity >= len + 64), sending events to `out` (no
  /// end_document). Never throws for malformed input. A jbx::Error thrown
  /// by `out` is returned in `refused` (the reader adds its offset); other
  /// exceptions from `out` pass through. `progress`, if not null, hears
  /// how far the walk of a large document has got.
  virtual SimdResult parse(const char* p, std::size_t len, std::size_t capacity,
                           Handler& out, SimdProgress* progress) = 0;
  virtual void set_chunking(const SimdChunking& c) = 0;
  /// The elements of the array document at p[0, len) (readable 64 bytes
  /// past len), as counted before a large array is streamed to a binary
  /// writer: exact for every document the walk takes to the array's end.
  /// False when the text does not start with '[' or the array does not
  /// close. With `block` (a multiple of 64), the text is read in copies of
  /// that many bytes, as the count reads a file; 0 reads p. `in_two`:
  /// counted in two parts as two threads count a large document (the
  /// second from an unknown depth), here one after the other.
  virtual bool count_elements(const char* p, std::size_t len, std::uint64_t& n,
                              std::size_t block, bool in_two) const = 0;
};

/// Resizes the walk's scratch text to `n` bytes. Out of line, in code
/// built for every CPU: a kernel must not define the standard library's
/// inline functions (tests/build/kernel_symbols.cmake).
void grow_scratch(std::string& s, std::size_t n);

/// Where the containers open at text[start] (outside any string) close:
/// one past the bracket that closes the `open` ones open there and those
/// opened after it, by bracket counting outside strings; npos if they do
/// not close in `text`. Only a splitter: the text is then parsed and
/// checked for real. Out of line, as grow_scratch().
std::size_t skim_close(std::string_view text, std::size_t start,
                       std::size_t open);

/// The fastest engine this CPU runs, for documents nested at most
/// `max_depth` deep.
std::unique_ptr<SimdEngine> make_simd_engine(std::uint32_t max_depth);

namespace simd_portable {
std::unique_ptr<SimdEngine> make(std::uint32_t max_depth);
}
namespace simd_haswell {
/// nullptr when this build has no AVX2 kernel.
std::unique_ptr<SimdEngine> make(std::uint32_t max_depth);
}  // namespace simd_haswell

}  // namespace jbx
