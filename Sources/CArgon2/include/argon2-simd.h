/*
 * Which code fills Argon2's memory blocks: the best the CPU supports, chosen once at
 * run time (AVX2, then SSSE3, else the portable reference code).
 */
#ifndef ARGON2_SIMD_H
#define ARGON2_SIMD_H

typedef enum Argon2_simd {
    ARGON2_SIMD_BEST = 0,  /* what the CPU supports best */
    ARGON2_SIMD_NONE = 1,  /* the portable reference code */
    ARGON2_SIMD_SSSE3 = 2,
    ARGON2_SIMD_AVX2 = 3
} argon2_simd;

/* The code in use now. */
argon2_simd argon2_simd_in_use(void);

/* Whether the CPU can run `simd`. */
int argon2_simd_supported(argon2_simd simd);

/*
 * Makes every later hash use `simd` (ARGON2_SIMD_BEST: the default choice), so tests can
 * compare the variants. Returns 0 and changes nothing when the CPU cannot run it.
 */
int argon2_simd_use(argon2_simd simd);

#endif
