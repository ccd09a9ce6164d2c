/*
 * The optimised fill_segment compiled for AVX2, whatever the compiler's target: every
 * function here carries target("sse2,ssse3,avx2"), and fill-segment.c calls it only on a CPU
 * that has AVX2. opt.c picks its code by the ISA macros, which are set for it here.
 */
#if defined(__x86_64__)
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <immintrin.h>

#pragma clang attribute push(__attribute__((target("sse2,ssse3,avx2"))), apply_to = function)
#ifndef __SSSE3__
#define __SSSE3__ 1
#endif
#ifndef __AVX2__
#define __AVX2__ 1
#endif
#define fill_segment argon2_fill_segment_avx2
#include "upstream/opt.c"
#pragma clang attribute pop
#endif
