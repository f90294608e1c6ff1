#include "formats/json/json_format.h"

#include "formats/json/json_reader.h"
#include "formats/json/json_writer.h"

namespace jbx {

namespace {

constexpr std::string_view kJsonExtensions[] = {"json"};
constexpr std::string_view kJsonLinesExtensions[] = {"jsonl", "ndjson"};

// JSON text starts, after optional whitespace, with a value's first byte.
bool sniff_json(std::string_view head) {
  for (const char c : head) {
    switch (c) {
      case ' ':
      case '\t':
      case '\n':
      case '\r':
        continue;
      case '{':
      case '[':
      case '"':
      case 't':
      case 'f':
      case 'n':
      case '-':
        return true;
      default:
        return c >= '0' && c <= '9';
    }
  }
  return false;
}

std::unique_ptr<Reader> make_json_stream_reader(Source& in,
                                                const ReadOptions& o) {
  return std::make_unique<JsonReader>(
      in, o, o.lines ? JsonMode::lines : JsonMode::stream);
}

std::unique_ptr<Reader> make_json_lines_reader(Source& in,
                                               const ReadOptions& o) {
  return std::make_unique<JsonReader>(in, o, JsonMode::lines);
}

std::unique_ptr<Writer> make_json_writer(Sink& out, const WriteOptions& o) {
  return std::make_unique<JsonWriter>(out, o);
}

std::unique_ptr<Writer> make_json_lines_writer(Sink& out,
                                               const WriteOptions& o) {
  WriteOptions lines = o;
  lines.lines = true;
  return std::make_unique<JsonWriter>(out, lines);
}

}  // namespace

const FormatSpec kJsonFormat = {
    "json",     "JSON text (RFC 8259)",  kJsonExtensions,  false,
    sniff_json, make_json_stream_reader, make_json_writer,
};

const FormatSpec kJsonLinesFormat = {
    "jsonl",
    "JSON Lines: one document per line",
    kJsonLinesExtensions,
    false,
    nullptr,
    make_json_lines_reader,
    make_json_lines_writer,
};

}  // namespace jbx
