# With simdjson compiled in (JBX_STATIC_RUNTIME), jbx needs no shared library
# but the C library's: loading libstdc++.so and the like would cost about
# half a millisecond on every run. This check fails on any other DT_NEEDED.
#   cmake -DBINARY=jbx -DREADELF=readelf -P linkage.cmake
execute_process(COMMAND ${READELF} -d ${BINARY}
                OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} failed on ${BINARY}")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]\n]*\\]" needed "${listing}")
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
