/*
 * kscope/status.h: the one door for errors.
 *
 * Every fallible C function returns a ks_status. Bindings (Python ctypes, the
 * wasm bridge) turn a non-zero status into a typed error carrying the message
 * from ks_status_message(). Nothing in the core prints or aborts.
 */
#ifndef KSCOPE_STATUS_H
#define KSCOPE_STATUS_H

#include <stdint.h>

/* Exported from both builds: default visibility natively (the library is built
 * with -fvisibility=hidden), listed in bindings/exported_functions.json for wasm. */
#define KS_API __attribute__((visibility("default")))

typedef enum ks_status {
    KS_OK = 0,
    KS_ERR_INVALID_ARG = 1,   /* a NULL pointer, a negative count, ... */
    KS_ERR_NOT_FOUND = 2,     /* an unknown preset or name */
    KS_ERR_NO_MEMORY = 3,     /* an allocation failed */
    KS_ERR_PARSE = 4,         /* malformed input (decoders add line/offset) */
    KS_ERR_RANGE = 5,         /* an index or size out of range */
    KS_ERR_IO = 6,            /* a file could not be created or written (message: path, errno text) */
    KS_STATUS_COUNT
} ks_status;

/* A static, human-readable message for a status ("unknown status" if out of range). */
KS_API const char *ks_status_message(int32_t status);

/* The core's version string, e.g. "0.1.0"; the backend CLI reports it. */
KS_API const char *ks_version(void);

#endif
