#include "cli/diagnostic.h"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

namespace jbx::cli {

namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
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
  lc.caret_column = col;
  return lc;
}

std::string render_error(const Error& e, std::string_view text) {
  std::string where = location_prefix(e, text);
  std::string out = "jbx: error: ";
  if (!where.empty()) out += where + ": ";
  out += full_message(e);
  out += '\n';
  if (e.offset && !e.binary && !text.empty()) {
    const LineCol lc = locate(text, *e.offset);
    // Long lines are cut around the caret so it stays on screen.
    std::string_view shown = lc.line_text;
    std::uint64_t caret = lc.caret_column;
    constexpr std::uint64_t kMax = 120;
    if (shown.size() > kMax && caret > kMax / 2) {
      std::size_t cut = static_cast<std::size_t>(caret - kMax / 2);
      while (cut < shown.size() &&
             is_continuation(static_cast<unsigned char>(shown[cut]))) {
        ++cut;
      }
      std::uint64_t cps = 0;
      for (std::size_t i = 0; i < cut; ++i) {
        if (!is_continuation(static_cast<unsigned char>(shown[i]))) ++cps;
      }
      shown.remove_prefix(cut);
      caret -= cps;
    }
    if (shown.size() > kMax) {
      std::size_t end = kMax;
      while (end < shown.size() &&
             is_continuation(static_cast<unsigned char>(shown[end]))) {
        ++end;
      }
      shown = shown.substr(0, end);
    }
    std::string line;
    for (const char c : shown) line += (c == '\t') ? ' ' : c;
    // Control bytes would garble the terminal; show them as '?'.
    for (char& c : line) {
      if (static_cast<unsigned char>(c) < 0x20) c = '?';
    }
    out += "  " + line + "\n";
    out += "  " + std::string(static_cast<std::size_t>(caret - 1), ' ') + "^\n";
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
