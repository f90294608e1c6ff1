#include "core/events.h"

namespace jbx {

Flow Handler::stable_key(std::string_view name) { return key(name); }

Flow Handler::escape_free_key(std::string_view name) { return key(name); }

void Handler::stable_string(std::string_view utf8) { string_value(utf8); }

}  // namespace jbx
