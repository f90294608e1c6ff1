#include "cli/pipeline.h"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "cli/args.h"
#include "cli/diagnostic.h"
#include "cli/exit_code.h"
#include "cli/suggest.h"
#include "core/error.h"
#include "core/huge_block.h"
#include "core/sort_keys.h"
#include "formats/json/json_format.h"
#include "formats/json/json_reader.h"
#include "formats/json/json_writer.h"

namespace jbx::cli {

namespace {

[[noreturn]] void usage(std::string msg) {
  throw Error(Errc::usage, std::move(msg));
}

long parse_int(const Args& args, std::string_view flag, long lo, long hi,
               long fallback) {
  const auto v = args.value(flag);
  if (!v) return fallback;
  long n = 0;
  const char* b = v->data();
  const char* e = b + v->size();
  const auto r = std::from_chars(b, e, n);
  if (r.ec != std::errc() || r.ptr != e || n < lo || n > hi) {
    usage(
        fmt::format("invalid value '{}' for --{}: expected a number from "
                    "{} to {}",
                    *v, flag, lo, hi));
  }
  return n;
}

bool is_json_family(const FormatSpec& f) {
  return &f == &kJsonFormat || &f == &kJsonLinesFormat;
}

bool has_lines_extension(std::string_view path) {
  return !path.empty() && format_for_path(path) == &kJsonLinesFormat;
}

bool stdout_is_terminal() { return isatty(1) == 1; }

// On a terminal each document is shown as soon as it is complete (think
// `tail -f log.jsonl | jbx fmt`), not when the output buffer fills.
class FlushEachDocument final : public CountKeepingHandler {
 public:
  FlushEachDocument(Handler& next, Sink& sink)
      : CountKeepingHandler(next), sink_(sink) {}
  void end_document() override {
    next_.end_document();
    sink_.flush();
  }

 private:
  Sink& sink_;
};

}  // namespace

bool use_color(const Args& args, bool to_terminal) {
  const std::string when = args.value("color").value_or("auto");
  if (when == "always") return true;
  if (when == "never") return false;
  if (when != "auto") {
    usage(
        fmt::format("invalid value '{}' for --color: expected auto, "
                    "always or never",
                    when));
  }
  if (!to_terminal) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  return term == nullptr || std::strcmp(term, "dumb") != 0;
}

ReadOptions read_options(const Args& args) {
  ReadOptions ro;
  ro.max_depth = static_cast<std::uint32_t>(
      parse_int(args, "max-depth", 1, 100000000, ro.max_depth));
  ro.lines = args.has("lines");
  return ro;
}

WriteOptions write_options(const Args& args) {
  WriteOptions wo;
  wo.indent = static_cast<int>(parse_int(args, "indent", 0, 16, wo.indent));
  if (args.has("indent") && wo.indent == 0) wo.compact = true;
  wo.tab = args.has("tab");
  if (args.has("compact")) wo.compact = true;
  wo.ascii = args.has("ascii");
  wo.lines = args.has("lines");
  if (const auto b = args.value("bytes")) {
    if (*b == "base64") {
      wo.bytes = BytesEncoding::base64;
    } else if (*b == "base64url") {
      wo.bytes = BytesEncoding::base64url;
    } else if (*b == "hex") {
      wo.bytes = BytesEncoding::hex;
    } else if (*b == "array") {
      wo.bytes = BytesEncoding::array;
    } else {
      usage(fmt::format("invalid value '{}' for --bytes", *b));
    }
  }
  if (const auto n = args.value("nan")) {
    if (*n == "error") {
      wo.nan = NanPolicy::error;
    } else if (*n == "null") {
      wo.nan = NanPolicy::null;
    } else if (*n == "string") {
      wo.nan = NanPolicy::string;
    } else {
      usage(fmt::format("invalid value '{}' for --nan", *n));
    }
  }
  if (const auto t = args.value("type-names")) {
    if (*t != "keep" && *t != "drop") {
      usage(fmt::format("invalid value '{}' for --type-names", *t));
    }
    wo.drop_type_names = *t == "drop";
  }
  if (const auto k = args.value("keys")) {
    if (*k != "text" && *k != "error") {
      usage(fmt::format("invalid value '{}' for --keys", *k));
    }
    wo.keys_error = *k == "error";
  }
  if (const auto l = args.value("lossy")) {
    if (*l == "error") {
      wo.lossy = LossyPolicy::error;
    } else if (*l == "string") {
      wo.lossy = LossyPolicy::string;
    } else if (*l == "nearest") {
      wo.lossy = LossyPolicy::nearest;
    } else {
      usage(fmt::format("invalid value '{}' for --lossy", *l));
    }
  }
  if (const auto d = args.value("decimals")) {
    if (*d != "double" && *d != "exact") {
      usage(fmt::format("invalid value '{}' for --decimals", *d));
    }
    wo.exact_decimals = *d == "exact";
  }
  wo.canonical = args.has("canonical");
  return wo;
}

const FormatSpec& format_named(std::string_view name) {
  if (const FormatSpec* f = find_format(name)) return *f;
  std::vector<std::string_view> names;
  for (const FormatSpec* f : formats()) names.push_back(f->name);
  usage(fmt::format("unknown format '{}'{}", name, did_you_mean(name, names)));
}

const FormatSpec& input_format(Source& src, const Args& args) {
  const FormatSpec* f = nullptr;
  if (const auto from = args.value("from")) {
    f = &format_named(*from);
  } else {
    const std::string_view head = src.peek(64);
    const FormatSpec* by_ext =
        src.path().empty() ? nullptr : format_for_path(src.path());
    if (const FormatSpec* magic = magic_format(head)) {
      f = magic;
    } else if (by_ext != nullptr && by_ext->binary) {
      // Without a magic number, binary content is ambiguous (a JSONB scalar
      // or a short MessagePack file also reads as CBOR), so an extension
      // naming one binary format is the stronger evidence.
      f = by_ext;
    } else if (kJsonFormat.sniff(head)) {
      // Text that starts like JSON is JSON: some binary sniffers would take
      // `{` (a CBOR text string head) or a digit (a CBOR integer) too.
      f = by_ext != nullptr ? by_ext : &kJsonFormat;
    } else if (const FormatSpec* sniffed = sniff_format(head, by_ext)) {
      f = sniffed->binary     ? &settle_sniffed(src, head, *sniffed, by_ext)
          : by_ext == nullptr ? sniffed
                              : by_ext;
    } else if (by_ext != nullptr) {
      f = by_ext;
    } else {
      f = &kJsonFormat;
    }
  }
  if (f == &kJsonFormat && args.has("lines")) f = &kJsonLinesFormat;
  return *f;
}

std::unique_ptr<Reader> make_reader(Source& src, const FormatSpec& format,
                                    const ReadOptions& ro, bool single_json) {
  if (&format == &kJsonLinesFormat) {
    return std::make_unique<JsonReader>(src, ro, JsonMode::lines);
  }
  if (&format == &kJsonFormat) {
    const JsonMode mode = ro.lines      ? JsonMode::lines
                          : single_json ? JsonMode::single
                                        : JsonMode::stream;
    return std::make_unique<JsonReader>(src, ro, mode);
  }
  return format.make_reader(src, ro);
}

std::string render_report(Error& e, const Source* src, const Reader* reader,
                          ErrorFormat format) {
  if (e.input.empty() && src != nullptr) e.input = src->name();
  const auto* json = dynamic_cast<const JsonReader*>(reader);
  // The input's first byte is one no JSON text starts with (a control
  // character or not ASCII): most likely a binary format that its content
  // did not give away, as a JSONB scalar does not.
  if (json != nullptr && e.offset == 0u && !e.binary &&
      e.message.starts_with("expected a value, found byte 0x")) {
    e.message += " (binary input? --from names its format)";
  }
  std::string out;
  if (json != nullptr && e.offset && !e.binary && json->text().empty() &&
      json->error_line().number > 0 && *e.offset >= json->error_line().start) {
    // Streamed JSON Lines: only the bad line is at hand. Render relative to
    // it, then put back its real line number and offset.
    const JsonReader::Line& line = json->error_line();
    Error rel = e;
    rel.offset = *e.offset - line.start;
    // An empty last line (the end of a blank input) still has a position.
    const std::string_view text =
        line.text.empty() ? std::string_view("\n") : line.text;
    if (format == ErrorFormat::json) {
      out = render_error_json(rel, text);
      const std::string from =
          fmt::format(",\"offset\":{},\"line\":1,", *rel.offset);
      const std::string to =
          fmt::format(",\"offset\":{},\"line\":{},", *e.offset, line.number);
      const auto at = out.find(from);
      if (at != std::string::npos) out.replace(at, from.size(), to);
    } else {
      out = render_error(rel, text);
      const std::string from = fmt::format("jbx: error: {}:1:", e.input);
      const std::string to =
          fmt::format("jbx: error: {}:{}:", e.input, line.number);
      if (out.compare(0, from.size(), from) == 0) {
        out.replace(0, from.size(), to);
      }
    }
  } else {
    const std::string_view text =
        json != nullptr ? json->text() : std::string_view();
    out = format == ErrorFormat::json ? render_error_json(e, text)
                                      : render_error(e, text);
  }
  return out;
}

void report_error(Error& e, const Source* src, const Reader* reader,
                  ErrorFormat format) {
  const std::string out = render_report(e, src, reader, format);
  // Best effort: a failing stderr has nowhere left to report to.
  const char* p = out.data();
  std::size_t n = out.size();
  while (n > 0) {
    const ssize_t k = ::write(2, p, n);
    if (k <= 0) break;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
}

Pipeline::Pipeline(const Args& args)
    : args_(args), read_(read_options(args)), write_(write_options(args)) {
  inputs_ = args.positionals;
  if (inputs_.empty()) inputs_.emplace_back("-");
  output_path_ = args.value("output").value_or("");
  in_place_ = args.has("in-place");
  sort_keys_ = args.has("sort-keys");
  lines_flag_ = args.has("lines");
  if (in_place_ && !output_path_.empty()) {
    usage("--output and --in-place cannot be used together");
  }
  // Reject bad values before any input is read.
  use_color(args, false);
  if (const auto from = args.value("from")) format_named(*from);
}

Pipeline::~Pipeline() = default;

void Pipeline::set_inputs(std::vector<std::string> inputs) {
  inputs_ = std::move(inputs);
  if (inputs_.empty()) inputs_.emplace_back("-");
}

void Pipeline::set_output_format(const FormatSpec* format) {
  output_format_ = format;
}

const FormatSpec& Pipeline::output_format() const {
  if (output_format_ != nullptr) return *output_format_;
  if (!output_path_.empty()) {
    if (const FormatSpec* f = format_for_path(output_path_)) return *f;
  }
  return kJsonFormat;
}

void Pipeline::wrap(WrapFn fn) { wraps_.push_back(std::move(fn)); }

int Pipeline::run_to(Sink& sink, bool to_terminal,
                     const std::vector<std::string>& inputs, bool& any_error,
                     bool last) {
  const FormatSpec& out_format = output_format();
  WriteOptions wo = write_;
  if (is_json_family(out_format)) {
    wo.color = use_color(args_, to_terminal);
    // JSON Lines out when asked, when writing a .jsonl file, or when every
    // input is one.
    bool all_lines = !inputs.empty();
    for (const std::string& in : inputs) {
      if (!has_lines_extension(in)) all_lines = false;
    }
    if (lines_flag_ || has_lines_extension(output_path_) || all_lines) {
      wo.lines = true;
    }
  }

  std::unique_ptr<Writer> writer;
  std::unique_ptr<TransformChain> chain;
  Handler* head = nullptr;
  const auto build = [&] {
    chain = std::make_unique<TransformChain>();
    writer = out_format.make_writer(sink, wo);
    head = writer.get();
    if (to_terminal) head = &chain->make<FlushEachDocument>(*head, sink);
    if (sort_keys_) head = &chain->make<SortKeys>(*head);
    for (const WrapFn& fn : wraps_) head = &fn(*head, *chain);
  };
  build();

  for (const std::string& path : inputs) {
    std::unique_ptr<Source> src;
    try {
      src = Source::open(path);
    } catch (Error& e) {
      sink.flush();
      report_error(e, nullptr, nullptr);
      any_error = true;
      continue;
    }
    std::unique_ptr<Reader> reader;
    // JSON Lines: a bad line is reported and skipped and the next one is
    // read, as in query and validate; in any other input (binary ones
    // with --lines too) an error ends that input. Either way the exit
    // status says something went wrong.
    bool lines = false;
    for (bool more = true; more;) {
      try {
        if (!reader) {
          ReadOptions ro = read_;
          const FormatSpec& in_format = input_format(*src, args_);
          if (&in_format == &kJsonLinesFormat) ro.lines = true;
          lines = ro.lines;
          reader = make_reader(*src, in_format, ro, single_json_);
        }
        while (reader->read_document(*head)) {
        }
        more = false;
        const auto* json = dynamic_cast<const JsonReader*>(reader.get());
        if (json != nullptr && !lines && json->documents() == 0) {
          // Like validate: a JSON input holds at least one value.
          Error e(Errc::unexpected_end,
                  "unexpected end of input, expected a value");
          if (json->size_read() > 0) e.offset = json->size_read();
          throw e;
        }
      } catch (Error& e) {
        // Output errors and usage errors end the run.
        if (!e.input.empty() && e.input != src->name()) throw;
        if (e.code == Errc::usage) throw;
        writer->abandon();
        sink.flush();
        report_error(e, src.get(), reader.get());
        any_error = true;
        // The chain may be in the middle of a document: start afresh.
        build();
        more = more && reader != nullptr && reader->goes_on_after_error();
      }
    }
    // The reader and the input go next, and nothing more is read: their
    // large blocks are left to the exit.
    if (last && &path == &inputs.back()) keep_large_blocks_to_exit();
  }
  writer->finish();
  sink.flush();
  return any_error ? to_int(ExitCode::error) : to_int(ExitCode::ok);
}

int Pipeline::run() {
  bool any_error = false;
  if (in_place_) {
    for (const std::string& path : inputs_) {
      if (path == "-") usage("--in-place needs file arguments, not stdin");
    }
    for (const std::string& path : inputs_) {
      bool failed = false;
      try {
        // Like sed -i: a device or FIFO has no contents to replace.
        struct stat st {};
        if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
          Error e(Errc::io, "not a regular file: --in-place rewrites files");
          e.input = path;
          throw e;
        }
        AtomicFileSink sink(path);
        run_to(sink, false, {path}, failed, &path == &inputs_.back());
        if (!failed) sink.commit();
      } catch (Error& e) {
        report_error(e, nullptr, nullptr);
        failed = true;
      }
      if (failed) any_error = true;
    }
    return any_error ? to_int(ExitCode::error) : to_int(ExitCode::ok);
  }
  if (!output_path_.empty()) {
    AtomicFileSink sink(output_path_);
    run_to(sink, false, inputs_, any_error, true);
    // All or nothing: a failed input leaves the target as it was.
    if (!any_error) sink.commit();
    return any_error ? to_int(ExitCode::error) : to_int(ExitCode::ok);
  }
  FdSink sink(1, "<stdout>");
  return run_to(sink, stdout_is_terminal(), inputs_, any_error, true);
}

}  // namespace jbx::cli
