/* Picks the fill_segment that core.c calls: the best variant this CPU runs. */
#include <stdatomic.h>

#include "argon2-simd.h"
#include "upstream/core.h"

void argon2_fill_segment_ref(const argon2_instance_t *instance, argon2_position_t position);
#if defined(__x86_64__)
#define ARGON2_X86 1
void argon2_fill_segment_ssse3(const argon2_instance_t *instance, argon2_position_t position);
void argon2_fill_segment_avx2(const argon2_instance_t *instance, argon2_position_t position);
#endif

static _Atomic int forced = ARGON2_SIMD_BEST;

int argon2_simd_supported(argon2_simd simd) {
    switch (simd) {
    case ARGON2_SIMD_BEST:
    case ARGON2_SIMD_NONE:
        return 1;
#if ARGON2_X86
    case ARGON2_SIMD_SSSE3:
        return __builtin_cpu_supports("ssse3");
    case ARGON2_SIMD_AVX2:
        return __builtin_cpu_supports("avx2");
#endif
    default:
        return 0;
    }
}

argon2_simd argon2_simd_in_use(void) {
    argon2_simd simd = (argon2_simd)atomic_load_explicit(&forced, memory_order_relaxed);
    if (simd != ARGON2_SIMD_BEST) {
        return simd;
    }
    if (argon2_simd_supported(ARGON2_SIMD_AVX2)) {
        return ARGON2_SIMD_AVX2;
    }
    if (argon2_simd_supported(ARGON2_SIMD_SSSE3)) {
        return ARGON2_SIMD_SSSE3;
    }
    return ARGON2_SIMD_NONE;
}

int argon2_simd_use(argon2_simd simd) {
    if (!argon2_simd_supported(simd)) {
        return 0;
    }
    atomic_store_explicit(&forced, (int)simd, memory_order_relaxed);
    return 1;
}

void fill_segment(const argon2_instance_t *instance, argon2_position_t position) {
    switch (argon2_simd_in_use()) {
#if ARGON2_X86
    case ARGON2_SIMD_AVX2:
        argon2_fill_segment_avx2(instance, position);
        return;
    case ARGON2_SIMD_SSSE3:
        argon2_fill_segment_ssse3(instance, position);
        return;
#endif
    default:
        argon2_fill_segment_ref(instance, position);
        return;
    }
}
