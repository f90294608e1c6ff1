#include "formats/jsonb/jsonb_format.h"

#include "core/error.h"
#include "formats/jsonb/jsonb_reader.h"
#include "formats/jsonb/jsonb_writer.h"

namespace jbx {

namespace {

constexpr std::string_view kExtensions[] = {"jsonb"};

// Object (0xa6), array (0x94..0xa4) and typed value (0x92) tags: bytes that
// no JSON text starts with, and what a JSONB file of objects or arrays
// starts with.
bool is_container_start(unsigned char t) {
  return t == 0xa6 || t == 0x92 || (t >= 0x94 && t <= 0xa4);
}

// A head cut short is accepted when at least this long (the CLI peeks 64
// bytes) and holding at least this many values and keys before the cut.
constexpr std::size_t kMinCutHead = 64;
constexpr std::size_t kMinCutValues = 4;

// Counts the values and keys of a trial decode.
class Counter final : public Handler {
 public:
  std::size_t n = 0;
  Flow begin_object() override { return ++n, Flow::visit; }
  Flow key(std::string_view) override { return ++n, Flow::visit; }
  void end_object() override {}
  Flow begin_array() override { return ++n, Flow::visit; }
  void end_array() override {}
  void null_value() override { ++n; }
  void bool_value(bool) override { ++n; }
  void int_value(std::int64_t) override { ++n; }
  void uint_value(std::uint64_t) override { ++n; }
  void double_value(double) override { ++n; }
  void number_text(std::string_view) override { ++n; }
  void string_value(std::string_view) override { ++n; }
  void bytes_value(std::span<const std::uint8_t>) override { ++n; }
  void timestamp_value(const Timestamp&) override { ++n; }
  void annotation(const Annotation&) override {}
  void end_document() override {}
};

}  // namespace

// JSONB has no magic number and its container tags are also CBOR and
// MessagePack array/map bytes, so the sniffer is strict: the head must
// decode as JSONB documents that each start with an object, array or typed
// tag, with string keys only (fastjson2 writes other keys only with
// WriteClassName) and no control characters in Latin-1 strings. A head cut
// off inside a document passes only if it is at least kMinCutHead bytes
// long (a peek limit, not the end of a small file) and kMinCutValues values
// and keys decoded before the cut; any other error rejects it. Measured on
// CBOR and MessagePack encodings of the shared JSON corpus, none of which
// it accepts (jsonb_reader_test.cpp, sniffer_...).
bool sniff_jsonb(std::string_view head) {
  if (head.empty() ||
      !is_container_start(static_cast<unsigned char>(head[0]))) {
    return false;
  }
  JsonbReadOptions jo;
  jo.refs = JsonbRefs::keep;
  jo.sniffing = true;
  JsonbReader reader(head, ReadOptions{}, std::move(jo));
  Counter counter;
  try {
    for (;;) {
      const std::size_t at = reader.offset();
      if (at < head.size() &&
          !is_container_start(static_cast<unsigned char>(head[at]))) {
        return false;
      }
      if (!reader.read_document(counter)) return true;
    }
  } catch (const Error& e) {
    return e.code == Errc::unexpected_end && head.size() >= kMinCutHead &&
           counter.n >= kMinCutValues;
  }
}

namespace {

std::unique_ptr<Reader> make_reader(Source& in, const ReadOptions& o) {
  return std::make_unique<JsonbReader>(in, o);
}

std::unique_ptr<Writer> make_writer(Sink& out, const WriteOptions& o) {
  return std::make_unique<JsonbWriter>(out, o);
}

}  // namespace

const FormatSpec kJsonbFormat{
    "jsonb",     "fastjson2 JSONB binary JSON",
    kExtensions, true,
    sniff_jsonb, make_reader,
    make_writer,
};

}  // namespace jbx
