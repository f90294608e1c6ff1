// One entry point per subcommand, each in its own cmd_*.cpp.
#pragma once

namespace jbx::cli {

class Args;

int run_fmt(const Args& args);
int run_validate(const Args& args);
int run_convert(const Args& args);
int run_query(const Args& args);

}  // namespace jbx::cli
