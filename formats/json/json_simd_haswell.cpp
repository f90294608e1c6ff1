// The simdjson walk built for AVX2 CPUs (simdjson's "haswell" kernel).
// CMakeLists.txt compiles this file alone with -mavx2 -mbmi -mbmi2 -mpclmul
// -mlzcnt; it runs only after json_simd_portable.cpp checked the CPU.
#if defined(__x86_64__) && defined(__AVX2__) && defined(__BMI__) && \
    defined(__PCLMUL__) && defined(__LZCNT__)
#include "formats/json/json_simd_impl.h"

namespace jbx::simd_haswell {
std::unique_ptr<SimdEngine> make(std::uint32_t max_depth) {
  return std::make_unique<Engine>(max_depth);
}
}  // namespace jbx::simd_haswell

#else
#include "formats/json/json_simd.h"

namespace jbx::simd_haswell {
std::unique_ptr<SimdEngine> make(std::uint32_t) { return nullptr; }
}  // namespace jbx::simd_haswell
#endif
