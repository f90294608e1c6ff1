# The AVX2 walk (formats/json/json_simd_haswell.cpp) is compiled with
# -mavx2 and runs only on CPUs that have it. A weak (COMDAT) function it
# defines, an inline function it did not inline, could be the copy the
# linker keeps for every caller, and then a CPU without AVX2 would run it.
# This check fails when the object defines any weak function.
#   cmake -DARCHIVE=libjbxlib.a -DNM=nm -P kernel_symbols.cmake
execute_process(COMMAND ${NM} -A -C --defined-only ${ARCHIVE}
                OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${ARCHIVE}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(found 0)
set(weak "")
foreach(line IN LISTS lines)
  if(line MATCHES "json_simd_haswell\\.cpp\\.o:")
    set(found 1)
    if(line MATCHES "json_simd_haswell\\.cpp\\.o:[0-9a-f]* W ")
      string(APPEND weak "${line}\n")
    endif()
  endif()
endforeach()
if(NOT found)
  message(FATAL_ERROR "no symbols of json_simd_haswell.cpp.o in ${ARCHIVE}")
endif()
if(NOT weak STREQUAL "")
  message(FATAL_ERROR "weak functions compiled for AVX2:\n${weak}")
endif()
