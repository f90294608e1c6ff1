// Placeholder until the subcommand lands; replaced by its implementation.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/error.h"

namespace jbx::cli {

int run_convert(const Args&) {
  throw Error(Errc::unsupported, "'convert' is not built yet");
}

}  // namespace jbx::cli
