#include "formats/json/json_reader.h"

#include <cstring>

#include "core/error.h"
#include "formats/json/json_parser.h"

namespace jbx {

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;  // lines mode read size

bool blank(std::string_view s) {
  for (const char c : s) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  }
  return true;
}

}  // namespace

struct JsonReader::Impl {};

JsonReader::JsonReader(Source& in, const ReadOptions& o, JsonMode mode)
    : in_(in), opt_(o), mode_(mode), impl_(std::make_unique<Impl>()) {}

JsonReader::~JsonReader() = default;

bool JsonReader::read_document(Handler& out) {
  return mode_ == JsonMode::lines ? read_line(out) : read_whole(out);
}

void JsonReader::parse_doc(std::string_view doc, std::uint64_t base,
                           Handler& out, bool single) {
  JsonScalarParser p(doc, base, opt_.max_depth);
  p.parse_value(out);
  if (single) {
    p.expect_end();
  } else {
    p.expect_separator();
  }
}

bool JsonReader::read_whole(Handler& out) {
  if (!started_) {
    started_ = true;
    text_ = in_.whole();
  }
  if (done_) return false;
  JsonScalarParser p(text_, 0, opt_.max_depth);
  p.set_position(pos_);
  if (p.at_end()) {
    done_ = true;
    return false;
  }
  try {
    p.parse_value(out);
    if (mode_ == JsonMode::single) {
      p.expect_end();
    } else {
      p.expect_separator();
    }
  } catch (...) {
    done_ = true;
    throw;
  }
  pos_ = p.position();
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
      parse_doc(line, base, out, true);
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
