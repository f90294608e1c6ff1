// libFuzzer target for the CBOR reader and writer: decode every data item
// straight into the CBOR writer (exact decimals, so numbers survive as
// read), then check that jbx's own CBOR decodes to the same events. The
// deterministic (--canonical) encoding must read back and be a fixed point:
// re-encoding it canonically gives the same bytes. Also runs the sniffer.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"
#include "core/sink.h"
#include "core/source.h"
#include "formats/cbor/cbor_reader.h"
#include "formats/cbor/cbor_writer.h"

namespace {

// Logs events canonically and forwards them to `next` when there is one.
// An integer and the same integer spelled as number text log alike (a
// bignum that fits 64 bits is written back as a plain integer); an instant
// logs its point in time and offset, not how it was spelled (tag 1 epoch
// seconds may come back as tag 0 text).
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
    const bool integer = t.find_first_of(".eE") == std::string_view::npos;
    text += fmt::format("{}{};", integer ? 'i' : 'x', t);
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
    text += fmt::format("T{},{},{},{};", static_cast<int>(t.kind), t.seconds,
                        t.nanos, t.has_offset ? t.offset_seconds : 0);
    if (next_) next_->timestamp_value(t);
  }
  void annotation(const jbx::Annotation& a) override {
    if (a.kind == jbx::Annotation::Kind::cbor_tag) {
      text += fmt::format("@{};", a.tag);
    } else {
      text += fmt::format("@{}:{};", a.name.size(), a.name);
    }
    if (next_) next_->annotation(a);
  }
  void end_document() override {
    text += "|";
    if (next_) next_->end_document();
  }

 private:
  jbx::Handler* next_;
};

// Reads every document of `bytes` into `h`.
void read_all(std::string_view bytes, const jbx::ReadOptions& o,
              jbx::Handler& h) {
  auto src = jbx::Source::from_memory("<fuzz>", std::string(bytes));
  jbx::CborReader r(*src, o);
  while (r.read_document(h)) {
  }
}

// Encodes every document of `bytes` (known to read cleanly).
std::string encode(std::string_view bytes, const jbx::ReadOptions& o,
                   const jbx::WriteOptions& w) {
  jbx::StringSink sink;
  jbx::CborWriter writer(sink, w);
  read_all(bytes, o, writer);
  return std::string(sink.data());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  (void)jbx::cbor::sniff(in);
  jbx::ReadOptions o;
  o.max_depth = 256;
  jbx::WriteOptions w;
  w.exact_decimals = true;
  jbx::StringSink sink;
  jbx::CborWriter writer(sink, w);
  Log first(&writer);
  try {
    read_all(in, o, first);
  } catch (const jbx::Error& e) {
    // A clean reader error: binary, with an offset inside the input. The
    // writer may refuse a value (a local date-time beyond year 9999).
    if (e.binary
            ? !e.offset || *e.offset > size
            : e.code != jbx::Errc::lossy && e.code != jbx::Errc::unsupported) {
      std::abort();
    }
    return 0;
  }
  Log second(nullptr);
  try {
    read_all(sink.data(), o, second);
  } catch (const jbx::Error&) {
    std::abort();  // jbx's own CBOR must read back
  }
  if (first.text != second.text) std::abort();

  // The deterministic encoding reads back and is its own fixed point.
  jbx::WriteOptions c = w;
  c.canonical = true;
  try {
    const std::string once = encode(sink.data(), o, c);
    if (encode(once, o, c) != once) std::abort();
  } catch (const jbx::Error&) {
    std::abort();
  }
  return 0;
}
