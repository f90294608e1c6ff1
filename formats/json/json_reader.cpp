#include "formats/json/json_reader.h"

#include <cstring>
#include <exception>

#include "core/error.h"
#include "formats/json/json_parser.h"
#include "formats/json/json_simd.h"

namespace jbx {

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;  // lines mode read size
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
// bracket), by bracket counting outside strings; text.size() if it does not.
// Only a splitter: the document is then parsed and checked for real.
std::size_t skim_end(std::string_view text, std::size_t start) {
  std::size_t depth = 0;
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
  return n;
}

// Which token the handler refused in the simdjson walk, from `at`, where
// the walk stood (doc.size() at the end). simdjson has moved past a string,
// literal, decimal or closing bracket to the ',', ']' or '}' after it, past
// a key to its value and past an opening bracket; an integer is handed over
// before it moves on, so a key followed by an integer counts as the
// integer's.
std::size_t refused_token(std::string_view doc, std::size_t at) {
  const auto trim = [doc](std::size_t end) {
    while (end > 0 && is_ws(doc[end - 1])) --end;
    return end;
  };
  if (at >= doc.size() || doc[at] == ',' || doc[at] == ']' || doc[at] == '}') {
    return token_start(doc, trim(at));
  }
  const char c = doc[at];
  if (c == '-' || (c >= '0' && c <= '9')) return at;
  const std::size_t before = trim(at);
  if (before == 0) return at;
  switch (doc[before - 1]) {
    case ':':
      return token_start(doc, trim(before - 1));
    case '[':
    case '{':
    case ']':
    case '}':
      return before - 1;
    default:
      return at;
  }
}

// Rethrows the Error the handler threw in the simdjson walk, with the
// offset of the token it refused when it has none.
[[noreturn]] void rethrow_refused(const SimdResult& r, std::string_view doc,
                                  std::uint64_t origin) {
  try {
    std::rethrow_exception(r.refused);
  } catch (Error& e) {
    if (!e.offset) e.offset = origin + refused_token(doc, r.refused_at);
    throw;
  }
}

}  // namespace

struct JsonReader::Impl {
  std::unique_ptr<SimdEngine> engine;
};

JsonReader::JsonReader(Source& in, const ReadOptions& o, JsonMode mode)
    : in_(in), opt_(o), mode_(mode), impl_(std::make_unique<Impl>()) {
  if (opt_.max_depth <= kMaxRecursion) {
    impl_->engine = make_simd_engine(opt_.max_depth);
  }
}

JsonReader::~JsonReader() = default;

bool JsonReader::read_document(Handler& out) {
  return mode_ == JsonMode::lines ? read_line(out) : read_whole(out);
}

bool JsonReader::use_simd(std::size_t len) const {
  return impl_->engine != nullptr && len <= simd_limit_;
}

std::size_t JsonReader::parse_doc(std::string_view text, std::size_t start,
                                  std::size_t end_hint, std::size_t capacity,
                                  std::uint64_t base, Handler& out,
                                  bool single) {
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
  const SimdResult r = impl_->engine->parse(
      text.data() + start, end_hint - start, capacity - start, out);
  if (r.refused) {
    rethrow_refused(r, text.substr(start, end_hint - start), base + start);
  }
  if (r.stopped) return skim_end(text, start);
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
                     out, single);
  } catch (...) {
    done_ = true;
    throw;
  }
  if (single) done_ = true;
  ++documents_;
  out.end_document();
  return true;
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
    scan = buf_end_;
    if (buf_begin_ > 0) {
      std::memmove(buf_.data(), buf_.data() + buf_begin_,
                   buf_end_ - buf_begin_);
      buf_offset_ += buf_begin_;
      buf_end_ -= buf_begin_;
      scan -= buf_begin_;
      buf_begin_ = 0;
    }
    const std::size_t room_needed = kChunk / 2 + Source::kPadding;
    if (buf_.size() < buf_end_ + room_needed) {
      buf_.resize(std::max(buf_.size() * 2, kChunk + Source::kPadding));
    }
    const std::size_t got = in_.read(buf_.data() + buf_end_,
                                     buf_.size() - Source::kPadding - buf_end_);
    if (got == 0) {
      eof_ = true;
    } else {
      buf_end_ += got;
    }
    // simdjson reads the padding after a line's end: keep it zero, not
    // stale bytes of earlier reads.
    std::memset(buf_.data() + buf_end_, 0, Source::kPadding);
  }
}

bool JsonReader::read_line(Handler& out) {
  for (;;) {
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
