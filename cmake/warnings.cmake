# Warning and sanitizer flags for jbx's own targets only: dependencies are
# consumed as system headers and never see -Werror.

set(JBX_WARNING_FLAGS -Wall -Wextra)
if(JBX_PEDANTIC)
  list(APPEND JBX_WARNING_FLAGS -Wpedantic -Wshadow -Wnon-virtual-dtor
       -Wold-style-cast -Wcast-align -Woverloaded-virtual
       -Wimplicit-fallthrough -Wformat=2)
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC 12 at -O3 reports impossible overlaps inside std::string
  # concatenation (GCC bug 105329); the warning is wrong, not our code.
  list(APPEND JBX_WARNING_FLAGS -Wno-restrict)
endif()
if(JBX_WERROR)
  list(APPEND JBX_WARNING_FLAGS -Werror)
endif()

if(JBX_SANITIZE)
  string(REPLACE ";" "," _jbx_san "${JBX_SANITIZE}")
  add_compile_options(-fsanitize=${_jbx_san} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${_jbx_san})
endif()

function(jbx_strict target)
  target_compile_options(${target} PRIVATE ${JBX_WARNING_FLAGS})
endfunction()
