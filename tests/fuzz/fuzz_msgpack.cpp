// libFuzzer target for the MessagePack reader: decode every value straight
// into the MessagePack writer, then check that jbx's own bytes decode to the
// same events (integers keep their value, doubles their bits, extensions and
// timestamps their payload). Also runs the sniffer on the input. A
// jbx::Error from the first read is fine when it is binary with an offset
// inside the input; a crash, a leak or a disagreement aborts.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"
#include "core/sink.h"
#include "formats/msgpack/msgpack_format.h"
#include "formats/msgpack/msgpack_reader.h"
#include "formats/msgpack/msgpack_writer.h"

namespace {

// Logs events canonically and forwards them to `next` when there is one.
// An integer logs alike as int_value and uint_value: the writer picks the
// smallest form, the reader the signed event when it fits.
class Log final : public jbx::Handler {
 public:
  explicit Log(jbx::Handler* next) : next_(next) {}
  std::string text;

  jbx::Flow begin_object() override {
    text += "{";
    if (next_) next_->begin_object();
    return jbx::Flow::visit;
  }
  jbx::Flow key(std::string_view k) override {
    text += fmt::format("k{}:{};", k.size(), k);
    if (next_) next_->key(k);
    return jbx::Flow::visit;
  }
  void end_object() override {
    text += "}";
    if (next_) next_->end_object();
  }
  jbx::Flow begin_array() override {
    text += "[";
    if (next_) next_->begin_array();
    return jbx::Flow::visit;
  }
  void end_array() override {
    text += "]";
    if (next_) next_->end_array();
  }
  void null_value() override {
    text += "n;";
    if (next_) next_->null_value();
  }
  void bool_value(bool b) override {
    text += b ? "t;" : "f;";
    if (next_) next_->bool_value(b);
  }
  void int_value(std::int64_t v) override {
    text += fmt::format("i{};", v);
    if (next_) next_->int_value(v);
  }
  void uint_value(std::uint64_t v) override {
    text += fmt::format("i{};", v);
    if (next_) next_->uint_value(v);
  }
  void double_value(double v) override {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    text += fmt::format("d{:x};", bits);
    if (next_) next_->double_value(v);
  }
  void number_text(std::string_view t) override {
    text += fmt::format("x{};", t);
    if (next_) next_->number_text(t);
  }
  void string_value(std::string_view s) override {
    text += fmt::format("s{}:{};", s.size(), s);
    if (next_) next_->string_value(s);
  }
  void bytes_value(std::span<const std::uint8_t> b) override {
    text += fmt::format(
        "b{}:{};", b.size(),
        std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
    if (next_) next_->bytes_value(b);
  }
  void timestamp_value(const jbx::Timestamp& t) override {
    text += fmt::format("T{},{},{},{},{},{},{};", static_cast<int>(t.kind),
                        t.seconds, t.nanos, t.has_offset, t.offset_seconds,
                        t.precision, t.zone);
    if (next_) next_->timestamp_value(t);
  }
  void annotation(const jbx::Annotation& a) override {
    text += fmt::format("@{}:{};", a.name.size(), a.name);
    if (next_) next_->annotation(a);
  }
  void end_document() override {
    text += "|";
    if (next_) next_->end_document();
  }

 private:
  jbx::Handler* next_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)jbx::msgpack::sniff(in);
  jbx::ReadOptions o;
  o.max_depth = 256;
  jbx::WriteOptions w;
  jbx::StringSink sink;
  jbx::msgpack::MsgpackWriter writer(sink, w);
  Log first(&writer);
  try {
    jbx::msgpack::MsgpackReader r(in, o);
    while (r.read_document(first)) {
    }
  } catch (const jbx::Error& e) {
    // A clean reader error: binary, with an offset inside the input.
    if (!e.binary || !e.offset || *e.offset > size) std::abort();
    return 0;
  }
  Log second(nullptr);
  try {
    jbx::msgpack::MsgpackReader r(sink.data(), o);
    while (r.read_document(second)) {
    }
  } catch (const jbx::Error&) {
    std::abort();  // jbx's own MessagePack must read back
  }
  if (first.text != second.text) std::abort();
  return 0;
}
