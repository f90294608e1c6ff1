# With simdjson compiled in (JBX_STATIC_RUNTIME), jbx needs no shared library
# but the C library's: loading libstdc++.so and the like would cost about
# half a millisecond on every run. With STATIC_PIE (JBX_STATIC_LIBC) it needs
# none at all, nor the dynamic loader. This check fails on anything more.
#   cmake -DBINARY=jbx -DREADELF=readelf [-DSTATIC_PIE=ON] -P linkage.cmake
execute_process(COMMAND ${READELF} -d -l ${BINARY}
                OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} failed on ${BINARY}")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]\n]*\\]" needed "${listing}")
if(STATIC_PIE)
  if(NOT needed STREQUAL "" OR listing MATCHES "INTERP")
    message(FATAL_ERROR "${BINARY} is not a static PIE: ${needed}")
  endif()
  if(NOT listing MATCHES "Elf file type is DYN")
    message(FATAL_ERROR "${BINARY} is static but not position-independent")
  endif()
  return()
endif()
if(needed STREQUAL "")
  message(FATAL_ERROR "no shared libraries listed in ${BINARY}")
endif()
set(extra "")
foreach(entry IN LISTS needed)
  string(REGEX REPLACE ".*\\[(.*)\\]" "\\1" lib "${entry}")
  if(NOT lib MATCHES "^(libc|libm|libpthread|libdl|librt|ld-linux.*)\\.so")
    string(APPEND extra " ${lib}")
  endif()
endforeach()
if(NOT extra STREQUAL "")
  message(FATAL_ERROR "${BINARY} needs shared libraries beyond libc:${extra}")
endif()
