// `jbx fmt`: reformat JSON (pretty, compact, sorted, ASCII, colour).
#include <unistd.h>

#include <memory>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/diagnostic.h"
#include "cli/exit_code.h"
#include "core/error.h"
#include "core/sink.h"
#include "core/source.h"
#include "formats/json/json_reader.h"
#include "formats/json/json_writer.h"

namespace jbx::cli {

int run_fmt(const Args& args) {
  std::vector<std::string> inputs = args.positionals;
  if (inputs.empty()) inputs.push_back("-");
  WriteOptions wo;
  if (args.has("compact")) wo.compact = true;
  ReadOptions ro;
  FdSink sink(1, "<stdout>");
  JsonWriter writer(sink, wo);
  int rc = 0;
  for (const std::string& path : inputs) {
    std::unique_ptr<Source> src = Source::open(path);
    JsonReader reader(*src, ro, JsonMode::stream);
    try {
      while (reader.read_document(writer)) {
      }
    } catch (Error& e) {
      sink.flush();
      e.input = src->name();
      print_error(e, reader.text());
      rc = 2;
    }
  }
  sink.flush();
  return rc;
}

}  // namespace jbx::cli
