#include "formats/json/json_reader.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <exception>
#include <optional>
#include <typeinfo>

#include "core/error.h"
#include "core/sink.h"
#include "core/transforms/nulls.h"
#include "core/worker.h"
#include "formats/cbor/cbor_writer.h"
#include "formats/json/json_fused.h"
#include "formats/json/json_parser.h"
#include "formats/json/json_piece_writer.h"
#include "formats/json/json_simd.h"
#include "formats/json/json_writer.h"
#include "formats/jsonb/jsonb_writer.h"
#include "formats/msgpack/msgpack_writer.h"

namespace jbx {

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;  // lines mode read size
// Lines mode: the window's complete lines are read on two threads when they
// hold at least twice this many bytes. (Below, starting the worker and
// splicing its text in cost more than the overlap gains.)
constexpr std::size_t kHalvesFrom = std::size_t{64} << 10;
// Lines mode: each of the two halves holds at most this many bytes.
constexpr std::size_t kHalfMax = std::size_t{1} << 20;
// Lines mode: the share of the worker's half in the lines cut in two, in
// kShares parts, changes by this many parts after each half.
constexpr std::size_t kShares = 256;
constexpr std::size_t kShareStep = 4;
// How much of a line before a streamed document is kept to show it whole
// in an error message.
constexpr std::size_t kLineContext = 4096;
// The walk over simdjson values recurses; beyond this --max-depth the
// iterative scalar parser reads instead, so no limit can overflow the stack.
constexpr std::uint32_t kMaxRecursion = 4096;
inline bool is_ws(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool blank(std::string_view s) {
  for (const char c : s) {
    if (!is_ws(c)) return false;
  }
  return true;
}

// Where the container starting at text[start] ends (one past its closing
// bracket); text.size() if it does not.
std::size_t skim_end(std::string_view text, std::size_t start) {
  const std::size_t end = skim_close(text, start, 0);
  return end == std::string_view::npos ? text.size() : end;
}

// Rethrows the Error the handler threw in the simdjson walk, with the
// offset of the token it refused when it has none.
[[noreturn]] void rethrow_refused(const SimdResult& r, std::uint64_t origin) {
  try {
    std::rethrow_exception(r.refused);
  } catch (Error& e) {
    if (!e.offset) e.offset = origin + r.refused_at;
    throw;
  }
}

// Tells the source how far the walk of a large document has got, so that a
// mapped file is read in ahead of it and given back behind it.
class SourceProgress final : public SimdProgress {
 public:
  SourceProgress(Source& in, std::uint64_t start) : in_(in), start_(start) {}
  void passed(std::size_t offset) override { in_.passed(start_ + offset); }
  std::size_t copy(std::size_t offset, char* buf, std::size_t n) override {
    return in_.copy_mapped(start_ + offset, buf, n);
  }

 private:
  Source& in_;
  std::uint64_t start_;
};

// Inputs at least this large are mapped to be read in order (see
// Source::read_in_order()), not read in whole at once.
constexpr std::int64_t kInOrderFrom = std::int64_t{16} << 20;

}  // namespace

struct JsonReader::Impl {
  std::unique_ptr<SimdEngine> engine;
  std::optional<SimdChunking> chunking;  // as set for tests
};

// JSON Lines into a writer (JSON, CBOR, MessagePack or JSONB), alone or
// behind the fused features, or only checked (NullHandler), on two threads: the
// complete lines in the window are cut in two at a line's end. This thread
// reads the first half line by line, as on one thread, while the worker reads
// the second into handlers of its own (HalfOut); when this thread gets there,
// the worker's output is appended after its own, and the lines are counted as
// read. A line the worker cannot read (any error, the features' too) drops its
// whole half, which this thread then reads as on one thread: the output
// and the messages are the same.

namespace {

// The worker's handlers for the halves read into one kind of handler.
class HalfOut {
 public:
  virtual ~HalfOut() = default;
  /// New handlers for a half of about `bytes` bytes of input, which a
  /// writer may read up to `size` bytes from `readable`.
  virtual void begin(std::size_t bytes, const char* readable,
                     std::size_t size) = 0;
  virtual Handler& handler() = 0;
  /// Whether `out` is of the kind of handler these were made for.
  virtual bool fits(Handler& out) const = 0;
  /// Appends what the half wrote to the output of `out`, which fits().
  virtual void append_to(Handler& out) const = 0;
  virtual std::string_view text() const = 0;
};

// The JSON writer, alone or behind its features (PieceWriter).
class JsonHalf final : public HalfOut {
 public:
  JsonHalf(const JsonWriter& w, const transforms::FusedFeatures<JsonWriter>* f)
      : out_(w, f), fused_(f != nullptr) {}
  void begin(std::size_t bytes, const char* readable,
             std::size_t size) override {
    out_.begin_documents(bytes, readable, size);
  }
  Handler& handler() override { return out_.handler(); }
  bool fits(Handler& out) const override {
    return fused_ ? typeid(out) == typeid(transforms::FusedFeatures<JsonWriter>)
                  : typeid(out) == typeid(JsonWriter);
  }
  void append_to(Handler& out) const override {
    out_.append_documents_to(
        fused_ ? static_cast<transforms::FusedFeatures<JsonWriter>&>(out).next()
               : static_cast<JsonWriter&>(out));
  }
  std::string_view text() const override { return out_.text(); }

 private:
  PieceWriter out_;
  bool fused_;
};

// A binary writer W, alone or behind its features.
template <class W>
class BinaryHalf final : public HalfOut {
 public:
  BinaryHalf(const W& w, const transforms::FusedFeatures<W>* f)
      : write_(w.options()) {
    if (f != nullptr) fused_options_ = f->options();
  }
  void begin(std::size_t bytes, const char* /*readable*/,
             std::size_t /*size*/) override {
    // Made on the worker, from its heap, as PieceWriter's.
    if (sink_ == nullptr) sink_ = std::make_unique<StringSink>();
    sink_->clear();
    sink_->reserve(bytes);
    fused_.reset();
    writer_ = std::make_unique<W>(*sink_, write_);
    if (fused_options_) {
      fused_ = std::make_unique<transforms::FusedFeatures<W>>(*writer_,
                                                              *fused_options_);
    }
  }
  Handler& handler() override {
    if (fused_ != nullptr) return *fused_;
    return *writer_;
  }
  bool fits(Handler& out) const override {
    return fused_options_ ? typeid(out) == typeid(transforms::FusedFeatures<W>)
                          : typeid(out) == typeid(W);
  }
  void append_to(Handler& out) const override {
    W& w = fused_options_
               ? static_cast<transforms::FusedFeatures<W>&>(out).next()
               : static_cast<W&>(out);
    w.append_documents(text());
  }
  std::string_view text() const override { return sink_->data(); }

 private:
  WriteOptions write_;
  std::optional<transforms::FusedOptions> fused_options_;
  std::unique_ptr<StringSink> sink_;
  std::unique_ptr<W> writer_;
  std::unique_ptr<transforms::FusedFeatures<W>> fused_;
};

// No output: a syntax check (jbx validate).
class NullHalf final : public HalfOut {
 public:
  void begin(std::size_t /*bytes*/, const char* /*readable*/,
             std::size_t /*size*/) override {}
  Handler& handler() override { return null_; }
  bool fits(Handler& out) const override {
    return typeid(out) == typeid(NullHandler);
  }
  void append_to(Handler& /*out*/) const override {}
  std::string_view text() const override { return {}; }

 private:
  NullHandler null_;
};

template <class W>
std::unique_ptr<HalfOut> binary_half(Handler& out) {
  if (typeid(out) == typeid(W)) {
    return std::make_unique<BinaryHalf<W>>(static_cast<W&>(out), nullptr);
  }
  if (typeid(out) == typeid(transforms::FusedFeatures<W>)) {
    auto& f = static_cast<transforms::FusedFeatures<W>&>(out);
    return std::make_unique<BinaryHalf<W>>(f.next(), &f);
  }
  return nullptr;
}

// Handlers for the halves read into `out`; null when `out` is none of the
// writers, alone or behind the fused features.
std::unique_ptr<HalfOut> half_out(Handler& out) {
  if (typeid(out) == typeid(JsonWriter)) {
    return std::make_unique<JsonHalf>(static_cast<JsonWriter&>(out), nullptr);
  }
  if (typeid(out) == typeid(transforms::FusedFeatures<JsonWriter>)) {
    auto& f = static_cast<transforms::FusedFeatures<JsonWriter>&>(out);
    return std::make_unique<JsonHalf>(f.next(), &f);
  }
  if (typeid(out) == typeid(NullHandler)) return std::make_unique<NullHalf>();
  for (auto* make :
       {&binary_half<CborWriter>, &binary_half<msgpack::MsgpackWriter>,
        &binary_half<JsonbWriter>}) {
    if (auto h = make(out)) return h;
  }
  return nullptr;
}

}  // namespace

struct JsonReader::Halves {
  Halves(std::unique_ptr<HalfOut> o, std::uint32_t depth_limit,
         std::size_t simd_bytes)
      : out(std::move(o)),
        engine(make_simd_engine(depth_limit)),
        max_depth(depth_limit),
        simd_limit(simd_bytes) {}
  ~Halves() { worker.wait(); }  // before the rest goes

  std::unique_ptr<HalfOut> out;
  std::unique_ptr<SimdEngine> engine;  // made only where the reader has one
  std::uint32_t max_depth;
  std::size_t simd_limit;
  // The half: the lines in text[from, to) (`to` just past a newline),
  // readable up to `capacity`; the input offset of text[0].
  const char* text = nullptr;
  std::size_t capacity = 0;
  std::size_t from = 0;
  std::size_t to = 0;
  std::uint64_t base = 0;
  bool active = false;            // started and not yet joined
  std::atomic<bool> done{false};  // the worker has read it
  // What reading it gave: whether every line was read, and how many lines
  // and documents there were.
  bool ok = false;
  std::uint64_t lines = 0;
  std::uint64_t documents = 0;
  Worker worker;  // last: it goes first, after the wait above

  // Reads the half at `arg` (the worker's task).
  static void run(void* arg) {
    auto& h = *static_cast<Halves*>(arg);
    h.ok = false;
    h.lines = 0;
    h.documents = 0;
    struct Done {
      std::atomic<bool>& done;
      ~Done() { done.store(true, std::memory_order_release); }
    } done{h.done};
    try {
      h.out->begin(h.to - h.from, h.text, h.capacity);
      Handler& handler = h.out->handler();
      for (std::size_t b = h.from; b < h.to;) {
        const auto* nl =
            static_cast<const char*>(std::memchr(h.text + b, '\n', h.to - b));
        const auto e = static_cast<std::size_t>(nl - h.text);
        ++h.lines;
        if (!blank({h.text + b, e - b})) {
          if (!h.line(b, e, handler)) return;
          handler.end_document();
          ++h.documents;
        }
        b = e + 1;
      }
      h.ok = true;
    } catch (...) {
      // Dropped: this thread reads the half again, and meets it.
    }
  }

  // Reads the line text[b, e) (not blank) as read_line() would; false
  // when that would not simply succeed.
  bool line(std::size_t b, std::size_t e, Handler& h) const {
    const std::string_view line(text + b, e - b);
    std::size_t first = 0;
    while (is_ws(line[first])) ++first;
    const char c = line[first];
    const std::size_t len = line.size() - first;
    if ((c == '{' || c == '[') && len <= simd_limit) {
      const SimdResult r = engine->parse(line.data() + first, len,
                                         capacity - b - first, h, nullptr);
      return r.ok && !r.refused && !r.stopped && r.consumed == len;
    }
    JsonScalarParser p(line, base + b, max_depth);
    p.set_position(first);
    if (!p.parse_value(h)) return false;
    p.expect_end();
    return true;
  }
};

namespace {

// Declares the padded input readable to the JSON writer for one parse.
class ReadableWindow {
 public:
  ReadableWindow(JsonWriter* w, const char* p, std::size_t capacity) : w_(w) {
    if (w_ != nullptr) w_->set_readable(p, capacity);
  }
  ~ReadableWindow() {
    if (w_ != nullptr) w_->clear_readable();
  }
  ReadableWindow(const ReadableWindow&) = delete;
  ReadableWindow& operator=(const ReadableWindow&) = delete;

 private:
  JsonWriter* w_;
};

}  // namespace

JsonReader::JsonReader(Source& in, const ReadOptions& o, JsonMode mode)
    : in_(in),
      opt_(o),
      mode_(mode),
      impl_(std::make_unique<Impl>()),
      halves_from_(kHalvesFrom) {
  if (opt_.max_depth <= kMaxRecursion) {
    impl_->engine = make_simd_engine(opt_.max_depth);
  }
}

JsonReader::~JsonReader() = default;

void JsonReader::start_half(Handler& out) {
  if (halves_from_ == SIZE_MAX || impl_->engine == nullptr) return;
  if (buf_offset_ + buf_begin_ < halves_resume_) return;
  const std::size_t avail = buf_end_ - buf_begin_;
  if (avail < 2 * halves_from_ || avail < 2) return;
  if (halves_ == nullptr || !halves_->out->fits(out)) {
    std::unique_ptr<HalfOut> o = half_out(out);
    if (o == nullptr) return;
    if (!Worker::useful()) {
      halves_from_ = SIZE_MAX;
      return;
    }
    halves_.reset();
    halves_ =
        std::make_unique<Halves>(std::move(o), opt_.max_depth, simd_limit_);
    if (impl_->chunking) {
      halves_->engine->set_chunking(*impl_->chunking);
    }
  }
  // The complete lines, cut in two at the end of the line in the middle.
  // (At most kHalfMax bytes each: the worker's output waits in memory.)
  const char* p = buf_.data();
  const auto* last = static_cast<const char*>(
      memrchr(p + buf_begin_, '\n', std::min(avail, 2 * kHalfMax)));
  if (last == nullptr) return;
  const auto end = static_cast<std::size_t>(last - p) + 1;
  if (end - buf_begin_ < 2 * halves_from_) return;
  const std::size_t mid =
      buf_begin_ + (end - buf_begin_) * (kShares - halves_share_) / kShares;
  const auto* cut =
      static_cast<const char*>(std::memchr(p + mid, '\n', end - mid));
  const auto from = static_cast<std::size_t>(cut - p) + 1;
  if (from >= end) return;  // one long line: nothing is left for a half
  Halves& h = *halves_;
  h.text = p;
  h.capacity = buf_.size();
  h.from = from;
  h.to = end;
  h.base = buf_offset_;
  h.active = true;
  h.done.store(false, std::memory_order_relaxed);
  h.worker.start(&Halves::run, &h);
}

void JsonReader::join_half(Handler& out) {
  Halves& h = *halves_;
  // This thread reads its lines in more steps (one call each) and appends
  // the worker's output: the cut moves until neither waits for the other
  // much.
  if (h.done.load(std::memory_order_acquire)) {
    halves_share_ = std::min(halves_share_ + kShareStep, kShares - kShareStep);
  } else {
    halves_share_ = std::max(halves_share_ - kShareStep, kShareStep);
  }
  h.worker.wait();
  h.active = false;
  if (!h.ok || !h.out->fits(out)) {
    // This thread reads the half's lines, and the worker none of them.
    halves_resume_ = buf_offset_ + h.to;
    return;
  }
  h.out->append_to(out);
  // The worker writes its next half over this output.
  const std::string_view text = h.out->text();
  Worker::evict(text.data(), text.size());
  buf_begin_ = h.to;
  line_no_ += h.lines;
  documents_ += h.documents;
  ++halves_apart_;
}

bool JsonReader::read_document(Handler& out) {
  if (mode_ == JsonMode::lines) return read_line(out);
  if (!started_) {
    // A pipe of unknown length may never end (`yes '{}' | jbx ...`): read
    // it as it comes. Files and memory are mapped or held whole.
    streaming_ = mode_ == JsonMode::stream && in_.size_hint() < 0;
  }
  return streaming_ ? read_stream(out) : read_whole(out);
}

void grow_scratch(std::string& s, std::size_t n) { s.resize(n); }

std::size_t skim_close(std::string_view text, std::size_t start,
                       std::size_t open) {
  std::size_t depth = open;
  const char* p = text.data();
  const std::size_t n = text.size();
  for (std::size_t i = start; i < n; ++i) {
    switch (p[i]) {
      case '"':
        for (++i; i < n; ++i) {
          if (p[i] == '\\') {
            ++i;
          } else if (p[i] == '"') {
            break;
          }
        }
        break;
      case '{':
      case '[':
        ++depth;
        break;
      case '}':
      case ']':
        if (depth <= 1) return i + 1;
        --depth;
        break;
      default:
        break;
    }
  }
  return std::string_view::npos;
}

void JsonReader::set_simd_chunking(const SimdChunking& c) {
  if (impl_->engine != nullptr) impl_->engine->set_chunking(c);
  impl_->chunking = c;
}

bool JsonReader::use_simd(std::size_t len) const {
  return impl_->engine != nullptr && len <= simd_limit_;
}

std::size_t JsonReader::parse_doc(std::string_view text, std::size_t start,
                                  std::size_t end_hint, std::size_t capacity,
                                  std::uint64_t base, Handler& out, bool single,
                                  bool from_source) {
  // text[start] is the first byte of the document. Containers go to
  // simdjson; scalars (small) and anything simdjson cannot take go to the
  // scalar parser, which also explains every error simdjson reports.
  const char c = text[start];
  const auto scalar = [&](Handler& h) {
    JsonScalarParser p(text, base, opt_.max_depth);
    p.set_position(start);
    const bool finished = p.parse_value(h);
    if (single) {
      if (finished) p.expect_end();
    } else {
      p.expect_separator();
    }
    return p.position();
  };
  if ((c != '{' && c != '[') || !use_simd(end_hint - start)) {
    return scalar(out);
  }
  // The JSON writer (a final class: comparing types is exact and cheaper
  // than a cast) may read the padded input for the length of the parse; in
  // lines mode the buffer moves as it grows. So may the writer behind the
  // fused features, which pass it the input's escape-free texts.
  // (Behind --empty-as-null, which the engine does itself in front of
  // them.)
  Handler* typed = &out;
  if (typeid(out) == typeid(transforms::EmptyAsNull)) {
    typed = &static_cast<transforms::EmptyAsNull&>(out).typed();
  }
  JsonWriter* writer = nullptr;
  if (typeid(*typed) == typeid(JsonWriter)) {
    writer = static_cast<JsonWriter*>(typed);
  } else if (typeid(*typed) == typeid(transforms::FusedFeatures<JsonWriter>)) {
    writer =
        &static_cast<transforms::FusedFeatures<JsonWriter>&>(*typed).next();
  }
  SimdResult r;
  {
    const ReadableWindow window(writer, text.data() + start, capacity - start);
    SourceProgress progress(in_, start);
    r = impl_->engine->parse(text.data() + start, end_hint - start,
                             capacity - start, out,
                             from_source ? &progress : nullptr);
  }
  pieces_apart_ += r.pieces_apart;
  if (r.refused) rethrow_refused(r, base + start);
  if (r.stopped) return start + r.consumed;
  if (r.ok) {
    const std::size_t next = start + r.consumed;
    if (r.consumed == end_hint - start) {
      // simdjson saw all of its window; check what follows the window.
      if (single) {
        std::size_t k = next;
        while (k < text.size() && is_ws(text[k])) ++k;
        if (k == text.size()) return next;
      } else if (next == text.size() || is_ws(text[next])) {
        return next;
      }
    } else if (!single && is_ws(text[next - 1])) {
      return next;
    }
    // Trailing content (single) or no whitespace before the next document:
    // the scalar parser names it.
  }
  if (!r.emitted) return scalar(out);
  NullHandler null;
  scalar(null);
  // Both parsers must agree; if they do not, still refuse the input.
  throw Error(Errc::syntax, std::string("invalid JSON (") + r.message + ")",
              base + start);
}

bool JsonReader::read_whole(Handler& out) {
  if (!started_) {
    started_ = true;
    // (Nothing is read in ahead yet: the walk of a large document reads
    // it through the file, and tells the source where it reads the
    // mapping.)
    if (in_.size_hint() >= kInOrderFrom) in_.read_in_order();
    text_ = in_.whole();
  }
  if (done_) return false;
  while (pos_ < text_.size() && is_ws(text_[pos_])) ++pos_;
  if (pos_ >= text_.size()) {
    done_ = true;
    return false;
  }
  const bool single = mode_ == JsonMode::single;
  // The first document is indexed over the rest of the input: usually it
  // is all there is. Later ones (a stream) are split off first so each
  // byte is indexed about once.
  std::size_t end_hint = text_.size();
  if (documents_ > 0 || text_.size() - pos_ > simd_limit_) {
    const char c = text_[pos_];
    if (c == '{' || c == '[') end_hint = skim_end(text_, pos_);
  }
  try {
    pos_ = parse_doc(text_, pos_, end_hint, text_.size() + Source::kPadding, 0,
                     out, single, /*from_source=*/true);
    in_.passed(pos_);
  } catch (...) {
    done_ = true;
    throw;
  }
  if (single) done_ = true;
  ++documents_;
  out.end_document();
  return true;
}

void JsonReader::Window::grow(std::size_t n, std::size_t keep) {
  auto p = std::make_unique_for_overwrite<char[]>(n);
  if (keep > 0) std::memcpy(p.get(), p_.get(), keep);
  p_ = std::move(p);
  size_ = n;
}

void JsonReader::refill(std::size_t keep) {
  if (keep > 0) {
    std::memmove(buf_.data(), buf_.data() + keep, buf_end_ - keep);
    buf_offset_ += keep;
    buf_end_ -= keep;
    buf_begin_ -= keep;
    if (scan_.active) scan_.pos -= keep;
  }
  const std::size_t room_needed = kChunk / 2 + Source::kPadding;
  if (buf_.size() < buf_end_ + room_needed) {
    buf_.grow(std::max(buf_.size() * 2, kChunk + Source::kPadding), buf_end_);
  }
  // One read, which may wait for the input; then, in lines mode, more for
  // as long as more is there at once (a pipe gives at most its buffer's
  // worth at a time), so that the window holds enough lines for two
  // threads (start_half()).
  const std::size_t room = buf_.size() - Source::kPadding;
  std::size_t got = in_.read(buf_.data() + buf_end_, room - buf_end_);
  buf_end_ += got;
  while (got > 0 && mode_ == JsonMode::lines && room - buf_end_ >= kChunk / 4 &&
         in_.ready()) {
    got = in_.read(buf_.data() + buf_end_, room - buf_end_);
    buf_end_ += got;
  }
  if (got == 0) eof_ = true;
  // simdjson reads the padding after a document's end: keep it zero, not
  // stale bytes of earlier reads.
  std::memset(buf_.data() + buf_end_, 0, Source::kPadding);
}

bool JsonReader::next_line(std::size_t& begin, std::size_t& end) {
  std::size_t scan = buf_begin_;
  for (;;) {
    const void* nl =
        scan < buf_end_ ? std::memchr(buf_.data() + scan, '\n', buf_end_ - scan)
                        : nullptr;
    if (nl != nullptr) {
      begin = buf_begin_;
      end =
          static_cast<std::size_t>(static_cast<const char*>(nl) - buf_.data());
      buf_begin_ = end + 1;
      ++line_no_;
      return true;
    }
    if (eof_) {
      if (buf_begin_ >= buf_end_) return false;
      begin = buf_begin_;
      end = buf_end_;
      buf_begin_ = buf_end_;
      ++line_no_;
      return true;
    }
    // Keep the unfinished line, read more after it.
    scan = buf_end_ - buf_begin_;
    refill(buf_begin_);
  }
}

// Finds where the document at buf_[buf_begin_] ends (one past it), scanning
// only bytes not seen before: a container by bracket counting outside
// strings, a string at its closing quote, other scalars at the first
// whitespace or delimiter. Only a splitter, like skim_end().
bool JsonReader::stream_end(std::size_t& end) {
  const char* p = buf_.data();
  const std::size_t n = buf_end_;
  if (!scan_.active) scan_ = Scan{true, buf_begin_, 0, false, false, false};
  if (scan_.found) {
    // Found before the last refill, when the document ended with what had
    // been read and the caller wanted to see one byte past it.
    end = scan_.pos;
    return true;
  }
  std::size_t i = scan_.pos;
  const char first = p[buf_begin_];
  const bool container = first == '{' || first == '[';
  if (!container && first != '"') {
    while (i < n && !is_ws(p[i]) && std::strchr("{}[],:\"", p[i]) == nullptr) {
      ++i;
    }
    scan_.pos = i;
    if (i == n) return false;
    end = i;
    return true;
  }
  // Bytes that change the scan's state; everything else is passed over.
  static constexpr auto kSpecial = [] {
    std::array<bool, 256> t{};
    for (const unsigned char c : {'"', '\\', '{', '}', '[', ']'}) t[c] = true;
    return t;
  }();
  if (!container && i == buf_begin_) {
    scan_.in_string = true;
    ++i;
  }
  while (i < n) {
    if (scan_.escape) {
      scan_.escape = false;
      ++i;
      continue;
    }
    while (i < n && !kSpecial[static_cast<unsigned char>(p[i])]) ++i;
    if (i == n) break;
    const char c = p[i++];
    if (scan_.in_string) {
      if (c == '\\') {
        scan_.escape = true;
      } else if (c == '"') {
        scan_.in_string = false;
        if (!container) {
          end = scan_.pos = i;
          scan_.found = true;
          return true;
        }
      }
    } else if (c == '"') {
      scan_.in_string = true;
    } else if (c == '{' || c == '[') {
      ++scan_.depth;
    } else if (c == '}' || c == ']') {
      if (--scan_.depth == 0) {
        end = scan_.pos = i;
        scan_.found = true;
        return true;
      }
    }
  }
  scan_.pos = i;
  return false;
}

void JsonReader::note_error_line(std::uint64_t offset) {
  if (offset < buf_offset_ || offset > buf_offset_ + buf_end_) return;
  const std::size_t at = static_cast<std::size_t>(offset - buf_offset_);
  const char* p = buf_.data();
  std::size_t start = at;
  while (start > 0 && p[start - 1] != '\n') --start;
  std::size_t stop = at;
  while (stop < buf_end_ && p[stop] != '\n') ++stop;
  error_line_.number =
      lines_before_ +
      static_cast<std::uint64_t>(std::count(p, p + start, '\n')) + 1;
  error_line_.start = buf_offset_ + start;
  error_line_.text.assign(p + start, stop - start);
  if (!error_line_.text.empty() && error_line_.text.back() == '\r') {
    error_line_.text.pop_back();
  }
}

bool JsonReader::read_stream(Handler& out) {
  started_ = true;
  if (done_) return false;
  std::size_t end = 0;
  for (;;) {
    while (buf_begin_ < buf_end_ && is_ws(buf_[buf_begin_])) ++buf_begin_;
    if (buf_begin_ == buf_end_) {
      if (eof_) {
        // No document at all: the caller reports the end of the input.
        if (documents_ == 0) note_error_line(buf_offset_ + buf_end_);
        done_ = true;
        return false;
      }
    } else if (stream_end(end) && (end < buf_end_ || eof_)) {
      break;  // and one byte past it is known, or the input ends there
    } else if (eof_) {
      end = buf_end_;  // unfinished: the parsers name what is missing
      break;
    }
    // Keep the start of the current line, so that an error in it shows
    // the whole line (up to a bound); count the newlines that leave.
    std::size_t keep = buf_begin_;
    while (keep > 0 && buf_begin_ - keep < kLineContext &&
           buf_[keep - 1] != '\n') {
      --keep;
    }
    if (keep > 0 && buf_[keep - 1] != '\n') keep = buf_begin_;
    lines_before_ += static_cast<std::uint64_t>(
        std::count(buf_.data(), buf_.data() + keep, '\n'));
    refill(keep);
  }
  scan_.active = false;
  const std::string_view text(buf_.data(), buf_end_);
  try {
    buf_begin_ = parse_doc(text, buf_begin_, end, buf_.size(), buf_offset_, out,
                           /*single=*/false);
  } catch (const Error& e) {
    done_ = true;
    if (e.offset && !e.binary) note_error_line(*e.offset);
    throw;
  }
  ++documents_;
  out.end_document();
  return true;
}

bool JsonReader::read_line(Handler& out) {
  for (;;) {
    // The worker's half follows this thread's: nothing past it is read
    // (and the window does not move) until the worker is done.
    if (halves_ != nullptr && halves_->active) {
      if (buf_begin_ == halves_->from) join_half(out);
    }
    if (halves_ == nullptr || !halves_->active) start_half(out);
    std::size_t b = 0;
    std::size_t e = 0;
    if (!next_line(b, e)) return false;
    const std::string_view line(buf_.data() + b, e - b);
    if (blank(line)) continue;
    const std::uint64_t base = buf_offset_ + b;
    try {
      std::size_t first = 0;
      while (is_ws(line[first])) ++first;
      parse_doc(line, first, line.size(), buf_.size() - b, base, out, true);
    } catch (const Error&) {
      error_line_.number = line_no_;
      error_line_.start = base;
      error_line_.text.assign(line);
      if (!error_line_.text.empty() && error_line_.text.back() == '\r') {
        error_line_.text.pop_back();
      }
      throw;
    }
    ++documents_;
    out.end_document();
    return true;
  }
}

}  // namespace jbx
