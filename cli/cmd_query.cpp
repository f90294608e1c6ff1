// Placeholder until the subcommand lands; replaced by its implementation.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/error.h"

namespace jbx::cli {

int run_query(const Args&) {
  throw Error(Errc::unsupported, "'query' is not built yet");
}

}  // namespace jbx::cli
