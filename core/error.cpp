#include "core/error.h"

namespace jbx {

const char* errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::io:
      return "io";
    case Errc::syntax:
      return "syntax";
    case Errc::unexpected_end:
      return "unexpected_end";
    case Errc::invalid_utf8:
      return "invalid_utf8";
    case Errc::depth_limit:
      return "depth_limit";
    case Errc::type_mismatch:
      return "type_mismatch";
    case Errc::unsupported:
      return "unsupported";
    case Errc::lossy:
      return "lossy";
    case Errc::invalid_query:
      return "invalid_query";
    case Errc::schema_violation:
      return "schema_violation";
    case Errc::usage:
      return "usage";
  }
  return "unknown";
}

}  // namespace jbx
