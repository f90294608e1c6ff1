// The simdjson walk built for the compiler's baseline instruction set (the
// portable kernel on x86-64, NEON on arm64), and the run-time choice.
#include "formats/json/json_simd_impl.h"

namespace jbx {

namespace simd_portable {
std::unique_ptr<SimdEngine> make(std::uint32_t max_depth) {
  return std::make_unique<Engine>(max_depth);
}
}  // namespace simd_portable

std::unique_ptr<SimdEngine> make_simd_engine(std::uint32_t max_depth) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  // Every CPU with AVX2 and BMI2 also has LZCNT (which clang cannot test).
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
      __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("pclmul")) {
    if (auto e = simd_haswell::make(max_depth)) return e;
  }
#endif
  return simd_portable::make(max_depth);
}

}  // namespace jbx
