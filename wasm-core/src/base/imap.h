/*
 * An int32 -> int32 hash map (open addressing, linear probing, doubling): the
 * trace-replay host's pid and tgid tables and the models' classifiers use it.
 * Keys may be any int32 but INT32_MAX (stored as key + 1, 0 = empty).
 */
#ifndef KSCOPE_BASE_IMAP_H
#define KSCOPE_BASE_IMAP_H

#include <stdint.h>

typedef struct imap {
    int32_t *keys;      /* key + 1; 0 = empty */
    int32_t *vals;
    uint32_t cap, len;
} imap;

/* The value of key, or dflt. */
int32_t imap_get(const imap *m, int32_t key, int32_t dflt);
/* Sets key to val; 0, or -1 out of memory (the map is unchanged). */
int imap_put(imap *m, int32_t key, int32_t val);
void imap_free(imap *m);

#endif
