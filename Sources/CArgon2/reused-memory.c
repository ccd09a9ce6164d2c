/*
 * argon2id_verify_reusing_memory: upstream's argon2_verify (upstream/argon2.c), with
 * allocation callbacks that hand out one region per thread.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "argon2.h"
#include "argon2-reuse.h"
#include "upstream/encoding.h"

typedef struct {
    uint8_t *memory;
    size_t size;
} kept_region;

static pthread_key_t region_key;
static pthread_once_t region_once = PTHREAD_ONCE_INIT;

static void release_region(void *value) {
    kept_region *region = value;
    free(region->memory);
    free(region);
}

static void make_region_key(void) {
    (void)pthread_key_create(&region_key, release_region);
}

static kept_region *thread_region(void) {
    (void)pthread_once(&region_once, make_region_key);
    kept_region *region = pthread_getspecific(region_key);
    if (region == NULL) {
        region = calloc(1, sizeof *region);
        if (region != NULL && pthread_setspecific(region_key, region) != 0) {
            free(region);
            region = NULL;
        }
    }
    return region;
}

static int allocate_kept(uint8_t **memory, size_t size) {
    kept_region *region = size <= ARGON2_REUSE_MAX_BYTES ? thread_region() : NULL;
    if (region == NULL) {
        *memory = malloc(size);
        return *memory == NULL ? ARGON2_MEMORY_ALLOCATION_ERROR : ARGON2_OK;
    }
    if (region->size < size) {
        free(region->memory);
        region->memory = malloc(size);
        region->size = region->memory == NULL ? 0 : size;
    }
    *memory = region->memory;
    return *memory == NULL ? ARGON2_MEMORY_ALLOCATION_ERROR : ARGON2_OK;
}

/* Upstream has wiped the region already (free_memory in core.c). */
static void free_kept(uint8_t *memory, size_t size) {
    if (size > ARGON2_REUSE_MAX_BYTES) {
        free(memory);
    }
}

int argon2id_verify_reusing_memory(const char *encoded, const void *pwd, size_t pwdlen) {
    argon2_context ctx;
    uint8_t *desired_result = NULL;
    int ret = ARGON2_OK;

    if (pwdlen > ARGON2_MAX_PWD_LENGTH) {
        return ARGON2_PWD_TOO_LONG;
    }
    if (encoded == NULL) {
        return ARGON2_DECODING_FAIL;
    }
    size_t encoded_len = strlen(encoded);
    if (encoded_len > UINT32_MAX) {
        return ARGON2_DECODING_FAIL;
    }
    /* No field can be longer than the encoded length. */
    ctx.saltlen = (uint32_t)encoded_len;
    ctx.outlen = (uint32_t)encoded_len;
    ctx.salt = malloc(ctx.saltlen);
    ctx.out = malloc(ctx.outlen);
    if (!ctx.salt || !ctx.out) {
        ret = ARGON2_MEMORY_ALLOCATION_ERROR;
        goto fail;
    }
    ctx.pwd = (uint8_t *)pwd;
    ctx.pwdlen = (uint32_t)pwdlen;

    ret = decode_string(&ctx, encoded, Argon2_id);
    if (ret != ARGON2_OK) {
        goto fail;
    }
    ctx.allocate_cbk = allocate_kept;
    ctx.free_cbk = free_kept;

    /* Set aside the desired result, and get a new buffer. */
    desired_result = ctx.out;
    ctx.out = malloc(ctx.outlen);
    if (!ctx.out) {
        ret = ARGON2_MEMORY_ALLOCATION_ERROR;
        goto fail;
    }
    ret = argon2_verify_ctx(&ctx, (char *)desired_result, Argon2_id);

fail:
    free(ctx.salt);
    free(ctx.out);
    free(desired_result);
    return ret;
}
