// `jbx convert`: any registered format to any other, through the shared
// pipeline (cli/pipeline.h). Input formats are sniffed, then taken from the
// extension, --from overrides; the output format is --to, else -o FILE's
// extension, else (with -i) the file's own format, else JSON. Binary output
// is never written to a terminal.
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/pipeline.h"
#include "cli/transforms_from_flags.h"
#include "core/error.h"
#include "core/source.h"
#include "formats/json/json_format.h"

namespace jbx::cli {

namespace {

int convert_to(const Args& args, const FormatSpec* to,
               std::vector<std::string> inputs) {
  Pipeline pipeline(args);
  if (!inputs.empty()) pipeline.set_inputs(std::move(inputs));
  pipeline.set_output_format(to);
  const FormatSpec& out = pipeline.output_format();
  // --keys=error is enforced where non-string keys are met: in the readers.
  pipeline.read_opts().keys_error = pipeline.write_opts().keys_error;
  if (&out == &kJsonLinesFormat) pipeline.write_opts().lines = true;

  // Like gzip: binary bytes on a terminal are never what was meant.
  if (out.binary && !args.has("output") && !args.has("in-place") &&
      isatty(1) == 1) {
    throw Error(Errc::usage,
                fmt::format("refusing to write {} to a terminal: use -o FILE "
                            "or redirect standard output",
                            out.name));
  }
  add_feature_transforms(pipeline, args);
  return pipeline.run();
}

// The format `path` is read in, for -i without --to; nullptr when it cannot
// be opened (the pipeline then reports that).
const FormatSpec* format_of(const std::string& path, const Args& args) {
  try {
    std::unique_ptr<Source> src = Source::open(path);
    return &input_format(*src, args);
  } catch (const Error&) {
    return nullptr;
  }
}

}  // namespace

int run_convert(const Args& args) {
  // Unknown format names are usage errors before any input is opened.
  if (const auto from = args.value("from")) format_named(*from);
  const FormatSpec* to = nullptr;
  if (const auto name = args.value("to")) to = &format_named(*name);

  // In place without --to, each file keeps its own format (a MessagePack
  // file rewritten in its smallest forms stays MessagePack).
  if (args.has("in-place") && to == nullptr && !args.positionals.empty()) {
    int code = 0;
    for (const std::string& path : args.positionals) {
      const FormatSpec* own = path == "-" ? nullptr : format_of(path, args);
      code = std::max(code, convert_to(args, own, {path}));
    }
    return code;
  }
  return convert_to(args, to, {});
}

}  // namespace jbx::cli
