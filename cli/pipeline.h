// The input -> transforms -> output pipeline shared by the commands that
// write documents (fmt, convert, query): which inputs, which reader for each
// (--from, extension, content sniffing), which writer and where (-o FILE,
// -i in place, stdout), colour, option flags, and how errors are reported.
// Commands plug in their own transforms; they never open files themselves.
// Not for validate's verdict logic (cmd_validate.cpp), which reuses the
// input helpers below.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/events.h"
#include "core/options.h"
#include "core/sink.h"
#include "core/source.h"
#include "formats/format.h"

namespace jbx::cli {

class Args;

/// Owns the transforms a command builds for one output stream; they live
/// until that output is finished.
class TransformChain {
 public:
  /// Creates a transform owned by the chain and returns it, e.g.
  /// `Handler& h = chain.make<MySelector>(next, expr);`.
  template <class T, class... A>
  T& make(A&&... args) {
    auto p = std::make_unique<T>(std::forward<A>(args)...);
    T& ref = *p;
    owned_.push_back(std::move(p));
    return ref;
  }

 private:
  std::vector<std::unique_ptr<Handler>> owned_;
};

/// Wraps the handler chain: receives the handler that writes (the writer,
/// or -S's sorter in front of it) and returns the handler the reader must
/// feed. Called once per output stream (once, or once per file with -i).
using WrapFn = std::function<Handler&(Handler& next, TransformChain& chain)>;

/// How an error is shown: `jbx: error: FILE:LINE:COL: ...` with the source
/// line and a caret, or one JSON object per line (--error-format=json).
enum class ErrorFormat : std::uint8_t { text, json };

/// Colour for an output to a terminal or not: --color=always|never|auto;
/// auto is on when `to_terminal` and NO_COLOR is unset or empty and TERM is
/// not "dumb". Throws Error(usage) for an unknown value.
bool use_color(const Args& args, bool to_terminal);

/// ReadOptions from --max-depth and --lines. Throws Error(usage).
ReadOptions read_options(const Args& args);

/// WriteOptions from --indent, --tab, -c, -a, --lines, --bytes, --nan,
/// --type-names, --keys, --lossy, --decimals, --canonical (whichever the
/// command has). Colour is decided per output by the pipeline, not here.
/// Throws Error(usage) for a bad value (--indent must be 0..16; 0 means
/// compact).
WriteOptions write_options(const Args& args);

/// The format named by --from/--to style NAME. Throws Error(usage) with a
/// "did you mean" hint when unknown.
const FormatSpec& format_named(std::string_view name);

/// The format to read `src` with: --from if given; else content that
/// starts like JSON text is JSON (or JSON Lines by extension) unless the
/// extension names a binary format; else the registry's content sniffing
/// (binary signatures); else the extension; else JSON. --lines turns JSON
/// into JSON Lines. Throws Error(usage) for an unknown --from.
const FormatSpec& input_format(Source& src, const Args& args);

/// A reader for `src`. For JSON, `single_json` asks for exactly one
/// document (validate) instead of a jq-style stream of documents.
std::unique_ptr<Reader> make_reader(Source& src, const FormatSpec& format,
                                    const ReadOptions& ro,
                                    bool single_json = false);

/// Prints an error that happened while reading `src` through `reader`
/// (either may be null): sets e.input when empty, adds FILE:LINE:COL, the
/// source line and a caret for text inputs (also in streamed JSON Lines),
/// FILE@OFFSET for binary ones. Never throws.
void report_error(Error& e, const Source* src, const Reader* reader,
                  ErrorFormat format = ErrorFormat::text);

/// What report_error() prints, as a string (ends in a newline).
std::string render_report(Error& e, const Source* src, const Reader* reader,
                          ErrorFormat format = ErrorFormat::text);

/// The shared pipeline of fmt, convert and query.
///
/// Typical use in a command:
///   Pipeline p(args);                       // reads the common flags
///   p.set_output_format(find_format("cbor")); // optional, default json/-o ext
///   p.wrap([&](Handler& next, TransformChain& c) -> Handler& {
///     return c.make<Selector>(next, query);
///   });
///   return p.run();                         // the exit code
///
/// run() processes each input in turn (positionals, or stdin when none; "-"
/// is stdin), reports a bad input with report_error() and goes on with the
/// next one; the result is 0 when all went well, 2 otherwise. Errors of the
/// output itself (a full disk, /dev/full) end the run: they propagate as
/// jbx::Error with e.input set to the sink's name, and app.cpp exits 2.
/// A closed stdout (`| head -1`) propagates BrokenPipe: app.cpp exits 0.
///
/// -o FILE writes all documents to FILE atomically, committed only when
/// every input succeeded. -i rewrites each input file atomically (mode
/// kept; a failing file is left untouched and the others are still done).
/// -S sorts keys just before the writer (after the command's transforms).
class Pipeline {
 public:
  /// Reads the common flags of args (see read_options(), write_options(),
  /// -o, -i, --color, -S, --from, --to is left to the command). Throws
  /// Error(usage) for bad values or -o together with -i.
  explicit Pipeline(const Args& args);
  ~Pipeline();

  /// Overrides the inputs (default: args.positionals, or "-" when none).
  /// `query` uses it to take the expression off the positionals first.
  void set_inputs(std::vector<std::string> inputs);

  /// The output format; default: -o FILE's extension if registered, else
  /// JSON. nullptr restores the default.
  void set_output_format(const FormatSpec* format);
  const FormatSpec& output_format() const;

  /// The options the pipeline will use; commands may adjust them before
  /// run() (e.g. convert forces lines when writing jsonl).
  ReadOptions& read_opts() { return read_; }
  WriteOptions& write_opts() { return write_; }

  /// Adds a transform wrapper. With several, the first added is closest
  /// to the writer.
  void wrap(WrapFn fn);

  /// For JSON input: read exactly one document per input instead of a
  /// stream of concatenated documents.
  void set_single_json(bool single) { single_json_ = single; }

  /// Runs the pipeline; returns the exit code (0 or 2). Throws only for
  /// output errors and BrokenPipe (see the class comment).
  int run();

 private:
  /// `last`: the run ends with these inputs (keep_large_blocks_to_exit()
  /// once the last is read).
  int run_to(Sink& sink, bool to_terminal, const std::vector<std::string>& in,
             bool& any_error, bool last);

  const Args& args_;
  std::vector<std::string> inputs_;
  ReadOptions read_;
  WriteOptions write_;
  const FormatSpec* output_format_ = nullptr;
  std::vector<WrapFn> wraps_;
  std::string output_path_;
  bool in_place_ = false;
  bool sort_keys_ = false;
  bool single_json_ = false;
  bool lines_flag_ = false;
};

}  // namespace jbx::cli
