#include "formats/json/json_reader.h"

#include <cstring>

#include <simdjson.h>

#include "core/error.h"
#include "formats/json/json_parser.h"
#include "formats/json/json_writer.h"

namespace jbx {

namespace {

namespace od = simdjson::ondemand;

constexpr std::size_t kChunk = std::size_t{1} << 20;  // lines mode read size
// The walk over simdjson values recurses; beyond this --max-depth the
// iterative scalar parser reads instead, so no limit can overflow the stack.
constexpr std::uint32_t kMaxRecursion = 4096;
// Not produced by the walk: marks "the handler asked to stop".
constexpr simdjson::error_code kStopped = simdjson::UNINITIALIZED;

inline bool is_ws(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool blank(std::string_view s) {
  for (const char c : s) {
    if (!is_ws(c)) return false;
  }
  return true;
}

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// RFC 8259 number grammar; simdjson's On-Demand token boundaries are looser.
bool valid_number(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  if (i < n && s[i] == '-') ++i;
  if (i >= n) return false;
  if (s[i] == '0') {
    ++i;
  } else if (is_digit(s[i])) {
    while (i < n && is_digit(s[i])) ++i;
  } else {
    return false;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (i >= n || !is_digit(s[i])) return false;
    while (i < n && is_digit(s[i])) ++i;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= n || !is_digit(s[i])) return false;
    while (i < n && is_digit(s[i])) ++i;
  }
  return i == n;
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

// Sends the events of simdjson values to H. A template so that the JSON
// writer (a final class) is called without virtual dispatch.
template <class H>
class Walker {
 public:
  Walker(H& h, std::uint32_t max_depth) : h_(h), max_depth_(max_depth) {}

  bool emitted = false;  // some event went out
  bool stopped = false;

  simdjson::error_code value(od::value v, std::uint32_t depth) {
    od::json_type t{};
    auto err = v.type().get(t);
    if (err) return err;
    switch (t) {
      case od::json_type::array: {
        if (depth >= max_depth_) return simdjson::DEPTH_ERROR;
        od::array a;
        err = v.get_array().get(a);
        if (err) return err;
        emitted = true;
        const Flow f = h_.begin_array();
        if (f == Flow::stop) {
          stopped = true;
          return kStopped;
        }
        for (auto elem : a) {
          od::value ev;
          err = std::move(elem).get(ev);
          if (err) return err;
          if (f == Flow::skip) continue;
          err = value(ev, depth + 1);
          if (err) return err;
        }
        if (f == Flow::visit) h_.end_array();
        return simdjson::SUCCESS;
      }
      case od::json_type::object: {
        if (depth >= max_depth_) return simdjson::DEPTH_ERROR;
        od::object o;
        err = v.get_object().get(o);
        if (err) return err;
        emitted = true;
        const Flow f = h_.begin_object();
        if (f == Flow::stop) {
          stopped = true;
          return kStopped;
        }
        for (auto field : o) {
          od::field fl;
          err = std::move(field).get(fl);
          if (err) return err;
          std::string_view k;
          err = fl.unescaped_key().get(k);
          if (err) return err;
          if (f == Flow::skip) continue;
          const Flow kf = h_.key(k);
          if (kf == Flow::stop) {
            stopped = true;
            return kStopped;
          }
          if (kf == Flow::skip) continue;
          err = value(fl.value(), depth + 1);
          if (err) return err;
        }
        if (f == Flow::visit) h_.end_object();
        return simdjson::SUCCESS;
      }
      case od::json_type::number: {
        std::string_view raw = v.raw_json_token();
        while (!raw.empty() && is_ws(raw.back())) raw.remove_suffix(1);
        if (!valid_number(raw)) return simdjson::NUMBER_ERROR;
        h_.number_text(raw);
        return simdjson::SUCCESS;
      }
      case od::json_type::string: {
        std::string_view s;
        err = v.get_string().get(s);
        if (err) return err;
        h_.string_value(s);
        return simdjson::SUCCESS;
      }
      case od::json_type::boolean: {
        bool b = false;
        err = v.get_bool().get(b);
        if (err) return err;
        h_.bool_value(b);
        return simdjson::SUCCESS;
      }
      case od::json_type::null: {
        bool is_null = false;
        err = v.is_null().get(is_null);
        if (err) return err;
        if (!is_null) return simdjson::N_ATOM_ERROR;
        h_.null_value();
        return simdjson::SUCCESS;
      }
    }
    return simdjson::TAPE_ERROR;
  }

 private:
  H& h_;
  std::uint32_t max_depth_;
};

struct SimdResult {
  simdjson::error_code error = simdjson::SUCCESS;
  bool emitted = false;
  bool stopped = false;
  std::size_t consumed = 0;  // up to the next token, or len when at the end
};

// Parses the container document at p[0..len) (readable up to p + capacity).
template <class H>
SimdResult run_simd(od::parser& parser, const char* p, std::size_t len,
                    std::size_t capacity, H& h, std::uint32_t max_depth) {
  SimdResult r;
  od::document doc;
  r.error = parser.iterate(p, len, capacity).get(doc);
  if (r.error) return r;
  od::value root;
  r.error = doc.get_value().get(root);
  if (r.error) return r;
  Walker<H> w(h, max_depth);
  r.error = w.value(root, 0);
  r.emitted = w.emitted;
  r.stopped = w.stopped;
  if (r.error) return r;
  const char* loc = nullptr;
  const auto e = doc.current_location().get(loc);
  if (e == simdjson::OUT_OF_BOUNDS) {
    r.consumed = len;
  } else if (e) {
    r.error = e;
  } else {
    r.consumed = static_cast<std::size_t>(loc - p);
  }
  return r;
}

SimdResult dispatch_simd(od::parser& parser, const char* p, std::size_t len,
                         std::size_t capacity, Handler& out,
                         std::uint32_t max_depth) {
  // The common case, fmt without transforms: devirtualised calls.
  if (auto* w = dynamic_cast<JsonWriter*>(&out)) {
    return run_simd(parser, p, len, capacity, *w, max_depth);
  }
  if (auto* n = dynamic_cast<NullHandler*>(&out)) {
    return run_simd(parser, p, len, capacity, *n, max_depth);
  }
  return run_simd(parser, p, len, capacity, out, max_depth);
}

}  // namespace

struct JsonReader::Impl {
  od::parser parser;
};

JsonReader::JsonReader(Source& in, const ReadOptions& o, JsonMode mode)
    : in_(in), opt_(o), mode_(mode), impl_(std::make_unique<Impl>()) {}

JsonReader::~JsonReader() = default;

bool JsonReader::read_document(Handler& out) {
  return mode_ == JsonMode::lines ? read_line(out) : read_whole(out);
}

bool JsonReader::use_simd(std::size_t len) const {
  return opt_.max_depth <= kMaxRecursion && len <= simd_limit_;
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
  const SimdResult r =
      dispatch_simd(impl_->parser, text.data() + start, end_hint - start,
                    capacity - start, out, opt_.max_depth);
  if (r.stopped) return skim_end(text, start);
  if (r.error == simdjson::SUCCESS) {
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
  throw Error(
      Errc::syntax,
      std::string("invalid JSON (") + simdjson::error_message(r.error) + ")",
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
