#include "cli/diagnostic.h"

#include <unistd.h>

#include <utf8proc.h>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace jbx::cli {

namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// `s` as a JSON string. A byte that is not part of valid UTF-8 (a file
// name may have one) becomes U+FFFD, so that the line stays JSON.
void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80) {
      utf8proc_int32_t cp = 0;
      const utf8proc_ssize_t n = utf8proc_iterate(
          reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
          static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
      if (n > 0) {
        out.append(s.substr(i, static_cast<std::size_t>(n)));
        i += static_cast<std::size_t>(n) - 1;
      } else {
        out += "\\ufffd";
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void write_stderr(const std::string& s) {
  const char* p = s.data();
  std::size_t n = s.size();
  while (n > 0) {
    const ssize_t k = ::write(2, p, n);
    if (k <= 0) return;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
}

std::string location_prefix(const Error& e, std::string_view text) {
  std::string where = e.input;
  if (e.offset) {
    if (e.binary || text.empty()) {
      where += fmt::format("@{}", *e.offset);
    } else {
      const LineCol lc = locate(text, *e.offset);
      where += fmt::format(":{}:{}", lc.line, lc.column);
    }
  }
  return where;
}

std::string full_message(const Error& e) {
  std::string msg;
  for (const std::string& c : e.context) {
    msg += c;
    msg += ": ";
  }
  if (!e.pointer.empty()) msg += fmt::format("at {}: ", e.pointer);
  msg += e.message;
  return msg;
}

}  // namespace

LineCol locate(std::string_view text, std::uint64_t offset) {
  const std::size_t off = std::min<std::size_t>(offset, text.size());
  LineCol lc;
  const std::size_t line_start =
      off == 0 ? 0 : text.rfind('\n', off - 1) + 1;  // npos + 1 == 0
  lc.line =
      1 + static_cast<std::uint64_t>(std::count(
              text.begin(),
              text.begin() + static_cast<std::ptrdiff_t>(line_start), '\n'));
  std::uint64_t col = 1;
  for (std::size_t i = line_start; i < off; ++i) {
    if (!is_continuation(static_cast<unsigned char>(text[i]))) ++col;
  }
  lc.column = col;
  std::size_t line_end = text.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = text.size();
  lc.line_text = text.substr(line_start, line_end - line_start);
  if (!lc.line_text.empty() && lc.line_text.back() == '\r') {
    lc.line_text.remove_suffix(1);
  }
  lc.line_offset = off - line_start;
  return lc;
}

Excerpt excerpt(std::string_view line, std::size_t at, std::uint64_t max) {
  // Only bytes near `at` can show (a line may be a whole minified
  // document): a character takes at most 4 bytes, and all but combining
  // marks at least a column.
  at = std::min(at, line.size());
  const std::size_t reach = 4 * static_cast<std::size_t>(max) + 4;
  if (at > reach) {
    std::size_t begin = at - reach;
    while (begin < at &&
           is_continuation(static_cast<unsigned char>(line[begin]))) {
      ++begin;
    }
    line.remove_prefix(begin);
    at -= begin;
  }
  line = line.substr(0, at + reach);
  // Each character as the terminal shows it: its bytes, or one byte in
  // their place, and the columns it takes.
  struct Glyph {
    std::size_t at;
    std::size_t size;
    std::uint64_t column;  // where it starts, from 0
    char shown_as;         // '\0': its own bytes
  };
  std::vector<Glyph> glyphs;
  std::uint64_t column = 0;
  std::size_t caret = SIZE_MAX;  // the glyph that holds byte `at`
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(line.data());
  for (std::size_t i = 0; i < line.size();) {
    utf8proc_int32_t cp = -1;
    const utf8proc_ssize_t n = utf8proc_iterate(
        bytes + i, static_cast<utf8proc_ssize_t>(line.size() - i), &cp);
    Glyph g{i, 1, column, '?'};
    std::uint64_t width = 1;
    if (n > 0) {
      g.size = static_cast<std::size_t>(n);
      if (cp == '\t') {
        g.shown_as = ' ';
      } else if (utf8proc_category(cp) != UTF8PROC_CATEGORY_CC &&
                 !(cp >= 0x202A && cp <= 0x202E) &&
                 !(cp >= 0x2066 && cp <= 0x2069)) {
        g.shown_as = '\0';
        width = static_cast<std::uint64_t>(utf8proc_charwidth(cp));
      }
    }
    if (caret == SIZE_MAX && at < i + g.size) caret = glyphs.size();
    glyphs.push_back(g);
    column += width;
    i += g.size;
  }
  const std::uint64_t total = column;
  const std::uint64_t caret_column =
      caret == SIZE_MAX ? total : glyphs[caret].column;
  // A long line is cut so that the caret stays on screen, in the middle
  // when it is far in.
  std::uint64_t from = 0;
  if (total > max && caret_column + 1 > max / 2) {
    from = caret_column + 1 - max / 2;
  }
  Excerpt e;
  e.caret = 1;
  bool started = false;
  std::uint64_t first = 0;
  for (const Glyph& g : glyphs) {
    if (g.column < from) continue;
    if (!started) {
      started = true;
      first = g.column;
    }
    const std::uint64_t end = &g == &glyphs.back() ? total : (&g + 1)->column;
    if (end - first > max) break;
    if (g.shown_as != '\0') {
      e.text += g.shown_as;
    } else {
      e.text.append(line.substr(g.at, g.size));
    }
  }
  if (!started) first = total;
  e.caret = 1 + (caret_column >= first ? caret_column - first : 0);
  return e;
}

std::string render_error(const Error& e, std::string_view text) {
  std::string where = location_prefix(e, text);
  std::string out = "jbx: error: ";
  if (!where.empty()) out += where + ": ";
  out += full_message(e);
  out += '\n';
  if (e.offset && !e.binary && !text.empty()) {
    const LineCol lc = locate(text, *e.offset);
    const Excerpt x = excerpt(lc.line_text, lc.line_offset, 120);
    out += "  " + x.text + "\n";
    out +=
        "  " + std::string(static_cast<std::size_t>(x.caret - 1), ' ') + "^\n";
  }
  return out;
}

std::string render_error_json(const Error& e, std::string_view text) {
  std::string out = "{\"file\":";
  append_json_string(out, e.input);
  if (e.offset) {
    out += fmt::format(",\"offset\":{}", *e.offset);
    if (!e.binary && !text.empty()) {
      const LineCol lc = locate(text, *e.offset);
      out += fmt::format(",\"line\":{},\"column\":{}", lc.line, lc.column);
    }
  }
  out += ",\"code\":";
  append_json_string(out, errc_name(e.code));
  if (!e.pointer.empty()) {
    out += ",\"pointer\":";
    append_json_string(out, e.pointer);
  }
  out += ",\"message\":";
  append_json_string(out, full_message(e));
  out += "}\n";
  return out;
}

void print_error(const Error& e, std::string_view text) {
  write_stderr(render_error(e, text));
}

void print_message(std::string_view severity, std::string_view message) {
  write_stderr(fmt::format("jbx: {}: {}\n", severity, message));
}

}  // namespace jbx::cli
