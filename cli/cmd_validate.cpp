// `jbx validate`: checks that each input is well-formed (strict RFC 8259
// JSON with UTF-8, JSON Lines line by line, or any registered binary
// format) and reports every problem with its location. Exit 0 when all are
// valid, 1 when any is invalid, 2 on usage or I/O errors.
#include <unistd.h>

#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/pipeline.h"
#include "core/error.h"
#include "core/huge_block.h"
#include "formats/json/json_format.h"
#include "formats/json/json_reader.h"

namespace jbx::cli {

namespace {

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

// Colours a rendered text diagnostic like compilers do: "error" in bold
// red, the caret in bold green.
std::string colorize(std::string text) {
  const std::string prefix = "jbx: error: ";
  if (text.compare(0, prefix.size(), prefix) == 0) {
    text.replace(0, prefix.size(), "jbx: \x1b[1;31merror\x1b[0m: ");
  }
  if (text.size() >= 2 && text[text.size() - 2] == '^') {
    text.replace(text.size() - 2, 1, "\x1b[1;32m^\x1b[0m");
  }
  return text;
}

class Reporter {
 public:
  Reporter(const Args& args)
      : quiet_(args.has("quiet")),
        format_(args.value("error-format").value_or("text") == "json"
                    ? ErrorFormat::json
                    : ErrorFormat::text),
        color_(use_color(args, isatty(2) == 1)) {}

  void operator()(Error& e, const Source* src, const Reader* reader) const {
    if (quiet_) return;
    std::string text = render_report(e, src, reader, format_);
    if (color_ && format_ == ErrorFormat::text) text = colorize(text);
    write_stderr(text);
  }

 private:
  bool quiet_;
  ErrorFormat format_;
  bool color_;
};

bool is_failure(Errc code) {
  return code == Errc::io || code == Errc::usage || code == Errc::unsupported;
}

}  // namespace

int run_validate(const Args& args) {
  const Reporter report(args);
  const ReadOptions base_options = read_options(args);
  std::vector<std::string> inputs = args.positionals;
  if (inputs.empty()) inputs.emplace_back("-");

  bool invalid = false;
  bool failed = false;
  for (const std::string& path : inputs) {
    std::unique_ptr<Source> src;
    std::unique_ptr<Reader> reader;
    ReadOptions ro = base_options;
    try {
      src = Source::open(path);
      const FormatSpec& format = input_format(*src, args);
      if (&format == &kJsonLinesFormat) ro.lines = true;
      reader = make_reader(*src, format, ro, /*single_json=*/true);
    } catch (Error& e) {
      report(e, src.get(), nullptr);
      failed = true;
      continue;
    }
    NullHandler null;
    std::uint64_t documents = 0;
    bool bad = false;
    for (;;) {
      try {
        if (!reader->read_document(null)) break;
        ++documents;
      } catch (Error& e) {
        bad = true;
        if (is_failure(e.code)) {
          failed = true;
        } else {
          invalid = true;
        }
        report(e, src.get(), reader.get());
        // JSON Lines: every bad line is reported; elsewhere the first
        // error ends the input.
        if (!reader->goes_on_after_error() || e.code == Errc::io) break;
      }
    }
    if (!bad && documents == 0 && !ro.lines) {
      // An empty input is not a JSON text (RFC 8259 needs one value).
      // Blank text gets a line and column; a truly empty input has none.
      const auto* json = dynamic_cast<const JsonReader*>(reader.get());
      Error e(Errc::unexpected_end,
              json != nullptr ? "unexpected end of input, expected a value"
                              : "empty input, expected a document");
      if (json != nullptr && !json->text().empty()) {
        e.offset = json->text().size();
      }
      report(e, src.get(), reader.get());
      invalid = true;
    }
    // The last input: its reader's large blocks are left to the exit.
    if (&path == &inputs.back()) keep_large_blocks_to_exit();
  }
  if (failed) return to_int(ExitCode::error);
  return invalid ? to_int(ExitCode::negative) : to_int(ExitCode::ok);
}

}  // namespace jbx::cli
