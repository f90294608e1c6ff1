// `jbx fmt`: reformat JSON (pretty, compact, sorted keys, ASCII, colour,
// JSON Lines), from files or stdin, to stdout, -o FILE or in place. All of
// it is the shared pipeline with the JSON writer, plus the transform flags
// (cli/transforms_from_flags.h).
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/pipeline.h"
#include "cli/transforms_from_flags.h"

namespace jbx::cli {

int run_fmt(const Args& args) {
  Pipeline pipeline(args);
  add_feature_transforms(pipeline, args);
  return pipeline.run();
}

}  // namespace jbx::cli
