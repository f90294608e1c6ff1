#include "core/events.h"

namespace jbx {

Flow Handler::stable_key(std::string_view name) { return key(name); }

}  // namespace jbx
