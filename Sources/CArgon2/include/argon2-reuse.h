/*
 * Argon2id verification that fills a memory region kept by the calling thread instead of
 * allocating (and the kernel zeroing) a fresh one for every hash.
 */
#ifndef ARGON2_REUSE_H
#define ARGON2_REUSE_H

#include <stddef.h>

/*
 * As argon2id_verify, with the thread's kept region: ARGON2_OK when `pwd` matches the PHC
 * string `encoded`. The region is wiped after every use (as upstream wipes its own), kept
 * for the thread's next hash when it is at most ARGON2_REUSE_MAX_BYTES, and freed when the
 * thread exits.
 */
int argon2id_verify_reusing_memory(const char *encoded, const void *pwd, size_t pwdlen);

/* Regions larger than this (256 MiB) are allocated and freed per hash. */
#define ARGON2_REUSE_MAX_BYTES ((size_t)256 << 20)

#endif
