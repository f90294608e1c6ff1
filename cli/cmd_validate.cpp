// Placeholder until the subcommand lands; replaced by its implementation.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/error.h"

namespace jbx::cli {

int run_validate(const Args&) {
  throw Error(Errc::unsupported, "'validate' is not built yet");
}

}  // namespace jbx::cli
