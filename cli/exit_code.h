// Exit codes, as in grep and ripgrep; documented in jbx(1) EXIT STATUS.
#pragma once

namespace jbx::cli {

enum class ExitCode : int {
  ok = 0,
  negative = 1,  // validate: input invalid; query -e: nothing matched
  error = 2,     // usage, malformed input, I/O, internal error
  interrupted = 130,
};

constexpr int to_int(ExitCode c) { return static_cast<int>(c); }

}  // namespace jbx::cli
