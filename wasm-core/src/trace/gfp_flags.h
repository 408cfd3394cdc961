/*
 * gfp_flags: the kmem tracepoints' "gfp_flags=GFP_KERNEL|__GFP_ZERO" text <-> gfp_t bits.
 *
 * The kernel prints gfp_flags with __print_flags over its show_gfp_flags() table:
 * composite names first (GFP_TRANSHUGE ... GFP_DMA32), then single __GFP_* bits,
 * each name printed when all its bits are set and those bits then taken out; bits
 * the table lacks print as "0x..." at the end; 0 prints as "none". The bit numbers
 * are Linux 6.18's (read from events/kmem/kmem_cache_alloc/format on a 6.18 host);
 * other kernels number some bits differently, which the names hide but raw bits
 * from a binary trace would not.
 */
#ifndef KSCOPE_TRACE_GFP_FLAGS_H
#define KSCOPE_TRACE_GFP_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/text_tokenizer.h"

/* "GFP_KERNEL|__GFP_ZERO", "none", "0x..." parts -> bits; false on an unknown name. */
bool gfp_flags_parse(text_span s, uint32_t *out);

/* bits -> the kernel's text into buf (NUL-terminated, truncated to cap); returns its length. */
int32_t gfp_flags_format(uint32_t flags, char *buf, int32_t cap);

#endif
