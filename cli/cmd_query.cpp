// `jbx query EXPR [FILE...]`: RFC 9535 JSONPath (or --pointer, RFC 6901)
// over every input format. The query is parsed before any input is opened;
// each document streams through a path::StreamSelector, which skips what
// cannot match; selected nodes go to an output mode (values, raw strings,
// paths, path+value objects) over any output format. It uses the pipeline's
// input and option helpers but drives the inputs itself, because --first
// stops reading across documents and files and --wrap spans all inputs.
#include <unistd.h>

#include <fmt/format.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/diagnostic.h"
#include "cli/exit_code.h"
#include "cli/pipeline.h"
#include "cli/transforms_from_flags.h"
#include "core/error.h"
#include "core/huge_block.h"
#include "core/path/eval.h"
#include "core/path/path.h"
#include "formats/json/json_format.h"
#include "formats/json/json_writer.h"

namespace jbx::cli {

namespace {

[[noreturn]] void usage(std::string msg) {
  throw Error(Errc::usage, std::move(msg));
}

/// `jbx: error: invalid query: MESSAGE`, then the query line and a caret
/// under the offending character.
void print_query_error(std::string_view what, const Error& e,
                       std::string_view text) {
  std::string msg = fmt::format("{}: {}", what, e.message);
  if (e.offset) {
    const LineCol lc = locate(text, *e.offset);
    const Excerpt x = excerpt(lc.line_text, lc.line_offset, 120);
    msg += fmt::format("\n  {}\n  {}^", x.text,
                       std::string(static_cast<std::size_t>(x.caret - 1), ' '));
  }
  print_message("error", msg);
}

enum class Shape : std::uint8_t {
  values,     // each value through the writer
  raw,        // strings as text, other values as compact JSON, one a line
  paths,      // plain text paths, one a line
  with_path,  // {"path": ..., "value": ...} through the writer
};

struct Settings {
  Shape shape = Shape::values;
  bool pointers = false;  // JSON Pointers instead of normalized paths
  bool wrap = false;
  bool first = false;
  char terminator = '\n';   // raw and path text
  bool plain_paths = true;  // paths as text lines (JSON output, no --wrap)
};

/// Turns selected nodes into output. Owns nothing; counts the results.
class Output final : public path::NodeSink {
 public:
  Output(const Settings& s, Sink& sink, Writer& writer, WriteOptions text_opts)
      : s_(s), sink_(sink), writer_(writer), text_opts_(text_opts) {}

  std::uint64_t count() const { return count_; }

  /// The transform flags: selected values pass through them to the writer
  /// (paths and the with-path wrapper do not). Rebuilt after an input
  /// error, since the transforms may be inside a value.
  void set_features(const FeatureTransforms& f) {
    features_ = &f;
    reset_features();
  }
  void reset_features() {
    chain_ = std::make_unique<TransformChain>();
    values_ = &features_->wrap(writer_, *chain_, writer_binary_);
  }
  void set_binary(bool binary) { writer_binary_ = binary; }

  Handler* begin_node(std::span<const path::Step> location) override {
    switch (s_.shape) {
      case Shape::values:
        return values_;
      case Shape::raw:
        scratch_.clear();
        raw_writer_ = std::make_unique<RawValue>(scratch_, text_opts_);
        raw_chain_ = std::make_unique<TransformChain>();
        return &features_->wrap(*raw_writer_, *raw_chain_, false);
      case Shape::paths: {
        const std::string p = where(location);
        if (s_.wrap) {
          writer_.string_value(p);
        } else if (!s_.plain_paths) {
          writer_.string_value(p);
          writer_.end_document();
        } else {
          sink_.write(p);
          sink_.put(s_.terminator);
        }
        return nullptr;
      }
      case Shape::with_path:
        writer_.begin_object();
        writer_.key(s_.pointers ? "pointer" : "path");
        writer_.string_value(where(location));
        writer_.key("value");
        return values_;
    }
    return nullptr;
  }

  bool end_node() override {
    switch (s_.shape) {
      case Shape::values:
        if (!s_.wrap) values_->end_document();
        break;
      case Shape::raw:
        raw_writer_->finish_value();
        sink_.write(scratch_.data());
        sink_.put(s_.terminator);
        raw_chain_.reset();
        raw_writer_.reset();
        break;
      case Shape::paths:
        break;
      case Shape::with_path:
        writer_.end_object();
        if (!s_.wrap) writer_.end_document();
        break;
    }
    ++count_;
    return !(s_.first && count_ >= 1);
  }

 private:
  /// One result for --raw: a top-level string as its text, anything else
  /// as compact JSON, both without the final newline.
  class RawValue final : public ForwardingHandler {
   public:
    RawValue(StringSink& out, const WriteOptions& o)
        : ForwardingHandler(json_), out_(out), json_(out, o) {}
    Flow begin_object() override {
      ++depth_;
      return json_.begin_object();
    }
    Flow begin_array() override {
      ++depth_;
      return json_.begin_array();
    }
    void end_object() override {
      --depth_;
      json_.end_object();
    }
    void end_array() override {
      --depth_;
      json_.end_array();
    }
    void string_value(std::string_view s) override {
      if (depth_ == 0 && !annotated_) {
        out_.write(s);
        raw_ = true;
        return;
      }
      json_.string_value(s);
    }
    void annotation(const Annotation& a) override {
      if (depth_ == 0) annotated_ = true;
      json_.annotation(a);
    }
    void finish_value() {
      if (raw_) return;
      json_.end_document();
      // The JSON writer ends each document with a newline; the caller
      // writes its own terminator.
      const std::string_view d = out_.data();
      if (!d.empty() && d.back() == '\n') {
        std::string keep(d.substr(0, d.size() - 1));
        out_.clear();
        out_.write(keep);
      }
    }

   private:
    StringSink& out_;
    JsonWriter json_;
    int depth_ = 0;
    bool raw_ = false;
    bool annotated_ = false;
  };

  std::string where(std::span<const path::Step> location) const {
    return s_.pointers ? path::json_pointer(location)
                       : path::normalized_path(location);
  }

  const Settings& s_;
  Sink& sink_;
  Writer& writer_;
  WriteOptions text_opts_;
  StringSink scratch_;
  std::unique_ptr<RawValue> raw_writer_;
  const FeatureTransforms* features_ = nullptr;
  std::unique_ptr<TransformChain> chain_, raw_chain_;
  Handler* values_ = nullptr;
  bool writer_binary_ = false;
  std::uint64_t count_ = 0;
};

Settings settings_from(const Args& args, bool json_output) {
  Settings s;
  s.wrap = args.has("wrap");
  s.first = args.has("first");
  s.pointers = args.has("pointers");
  const bool raw = args.has("raw") || args.has("raw0");
  if (args.has("raw0")) s.terminator = '\0';
  const bool paths = args.has("paths") || args.has("pointers");
  const bool with_path = args.has("with-path");
  if (with_path && args.has("paths")) {
    usage("--with-path already prints paths; drop --paths");
  }
  if (raw && with_path) usage("--raw cannot be combined with --with-path");
  if (raw && s.wrap) usage("--raw cannot be combined with --wrap");
  if (raw && !json_output)
    usage("--raw writes text; it cannot be used with -t");
  s.plain_paths = json_output && !s.wrap;
  if (with_path) {
    s.shape = Shape::with_path;
  } else if (paths) {
    s.shape = Shape::paths;
  } else if (raw) {
    s.shape = Shape::raw;
  }
  return s;
}

}  // namespace

int run_query(const Args& args) {
  // Parse and validate everything before touching any input.
  std::vector<std::string> inputs = args.positionals;
  path::Query query;
  if (const auto ptr = args.value("pointer")) {
    try {
      query = path::parse_pointer(*ptr);
    } catch (const Error& e) {
      print_query_error("invalid JSON Pointer", e, *ptr);
      return to_int(ExitCode::error);
    }
  } else {
    if (inputs.empty()) {
      usage(
          "jbx query: missing EXPR (a JSONPath query such as '$.a[0]', or "
          "--pointer PTR)");
    }
    const std::string text = inputs.front();
    inputs.erase(inputs.begin());
    try {
      query = path::parse(text);
    } catch (const Error& e) {
      print_query_error("invalid query", e, text);
      return to_int(ExitCode::error);
    }
  }
  if (args.has("smart-match")) {
    path::match_names(query, path::NameMatch::smart);
  } else if (args.has("ignore-case")) {
    path::match_names(query, path::NameMatch::ignore_case);
  }
  if (inputs.empty()) inputs.emplace_back("-");
  if (args.has("in-place")) usage("jbx query does not rewrite files in place");

  const ReadOptions ro = read_options(args);
  WriteOptions wo = write_options(args);
  const std::string output_path = args.value("output").value_or("");
  const FormatSpec* out_format = &kJsonFormat;
  if (const auto to = args.value("to")) {
    out_format = &format_named(*to);
  } else if (!output_path.empty()) {
    if (const FormatSpec* f = format_for_path(output_path)) out_format = f;
  }
  const bool json_output =
      out_format == &kJsonFormat || out_format == &kJsonLinesFormat;
  const Settings settings = settings_from(args, json_output);
  const FeatureTransforms features(args);
  // One result per line unless asked for pretty output; --wrap is one
  // document and pretty by default, like fmt.
  if (!settings.wrap && !args.has("indent") && !args.has("tab")) {
    wo.compact = true;
  }
  WriteOptions text_opts = wo;
  text_opts.color = false;
  text_opts.compact = true;
  const bool to_terminal = output_path.empty() && isatty(1) == 1;
  if (json_output) wo.color = use_color(args, to_terminal);

  std::unique_ptr<Sink> sink_owner;
  AtomicFileSink* file_sink = nullptr;
  if (output_path.empty()) {
    sink_owner = std::make_unique<FdSink>(1, "<stdout>");
  } else {
    auto f = std::make_unique<AtomicFileSink>(output_path);
    file_sink = f.get();
    sink_owner = std::move(f);
  }
  Sink& sink = *sink_owner;
  std::unique_ptr<Writer> writer = out_format->make_writer(sink, wo);
  Output output(settings, sink, *writer, text_opts);
  output.set_binary(out_format->binary);
  output.set_features(features);
  path::StreamSelector selector(query, output);
  if (settings.wrap) writer->begin_array();

  bool any_error = false;
  for (const std::string& input : inputs) {
    if (!selector.active()) break;
    std::unique_ptr<Source> src;
    try {
      src = Source::open(input);
    } catch (Error& e) {
      sink.flush();
      report_error(e, nullptr, nullptr);
      any_error = true;
      continue;
    }
    std::unique_ptr<Reader> reader;
    // JSON Lines: a bad line is reported and the next line is read; in any
    // other input (binary ones with --lines too) an error ends that input.
    for (bool more = true; more && selector.active();) {
      try {
        if (!reader) {
          ReadOptions in_ro = ro;
          const FormatSpec& in_format = input_format(*src, args);
          if (&in_format == &kJsonLinesFormat) in_ro.lines = true;
          reader = make_reader(*src, in_format, in_ro);
        }
        while (selector.active() && reader->read_document(selector)) {
        }
        more = false;
      } catch (Error& e) {
        if (!e.input.empty() && e.input != src->name()) throw;  // output
        selector.end_document();
        output.reset_features();
        if (!settings.wrap) {
          if (auto* jw = dynamic_cast<JsonWriter*>(writer.get())) jw->abandon();
        }
        sink.flush();
        report_error(e, src.get(), reader.get());
        any_error = true;
        more = reader != nullptr && reader->goes_on_after_error();
      }
    }
    // Nothing more is read: the reader's large blocks are left to the exit.
    if (&input == &inputs.back() || !selector.active()) {
      keep_large_blocks_to_exit();
    }
  }
  if (settings.wrap) {
    writer->end_array();
    writer->end_document();
  }
  writer->finish();
  sink.flush();
  if (file_sink != nullptr && !any_error) file_sink->commit();
  if (any_error) return to_int(ExitCode::error);
  if (args.has("exit-status") && output.count() == 0) {
    return to_int(ExitCode::negative);
  }
  return to_int(ExitCode::ok);
}

}  // namespace jbx::cli
