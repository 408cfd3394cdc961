/* gfp_flags text <-> bits (see gfp_flags.h). A table of Linux 6.18's names and bits,
 * in the kernel's print order; re-implemented from the tracepoint's print fmt. */
#include "gfp_flags.h"

#include <stdio.h>
#include <string.h>

#define B(n) (1u << (n))
/* single bits, 6.18 numbering */
#define DMA B(0)
#define HIGHMEM B(1)
#define DMA32 B(2)
#define MOVABLE B(3)
#define HIGH B(5)
#define IO B(6)
#define FS B(7)
#define DIRECT_RECLAIM B(10)
#define KSWAPD_RECLAIM B(11)
#define NOWARN B(13)
#define COMP B(18)
#define NOMEMALLOC B(19)
#define HARDWALL B(20)
#define ACCOUNT B(22)
#define RECLAIM (DIRECT_RECLAIM | KSWAPD_RECLAIM)
#define USER (RECLAIM | IO | FS | HARDWALL)
#define HIGHUSER_MOVABLE (USER | HIGHMEM | MOVABLE)
#define TRANSHUGE_LIGHT ((HIGHUSER_MOVABLE | COMP | NOMEMALLOC | NOWARN) & ~RECLAIM)

typedef struct gfp_name {
    uint32_t bits;
    const char *name;
} gfp_name;

static const gfp_name gfp_names[] = {
    { TRANSHUGE_LIGHT | DIRECT_RECLAIM, "GFP_TRANSHUGE" },
    { TRANSHUGE_LIGHT, "GFP_TRANSHUGE_LIGHT" },
    { HIGHUSER_MOVABLE, "GFP_HIGHUSER_MOVABLE" },
    { USER | HIGHMEM, "GFP_HIGHUSER" },
    { USER, "GFP_USER" },
    { RECLAIM | IO | FS | ACCOUNT, "GFP_KERNEL_ACCOUNT" },
    { RECLAIM | IO | FS, "GFP_KERNEL" },
    { RECLAIM | IO, "GFP_NOFS" },
    { HIGH | KSWAPD_RECLAIM, "GFP_ATOMIC" },
    { RECLAIM, "GFP_NOIO" },
    { KSWAPD_RECLAIM | NOWARN, "GFP_NOWAIT" },
    { DMA, "GFP_DMA" },
    { DMA32, "GFP_DMA32" },
    { RECLAIM, "__GFP_RECLAIM" },
    { B(0), "__GFP_DMA" },
    { B(1), "__GFP_HIGHMEM" },
    { B(2), "__GFP_DMA32" },
    { B(3), "__GFP_MOVABLE" },
    { B(4), "__GFP_RECLAIMABLE" },
    { B(5), "__GFP_HIGH" },
    { B(6), "__GFP_IO" },
    { B(7), "__GFP_FS" },
    { B(8), "__GFP_ZERO" },
    { B(10), "__GFP_DIRECT_RECLAIM" },
    { B(11), "__GFP_KSWAPD_RECLAIM" },
    { B(12), "__GFP_WRITE" },
    { B(13), "__GFP_NOWARN" },
    { B(14), "__GFP_RETRY_MAYFAIL" },
    { B(15), "__GFP_NOFAIL" },
    { B(16), "__GFP_NORETRY" },
    { B(17), "__GFP_MEMALLOC" },
    { B(18), "__GFP_COMP" },
    { B(19), "__GFP_NOMEMALLOC" },
    { B(20), "__GFP_HARDWALL" },
    { B(21), "__GFP_THISNODE" },
    { B(22), "__GFP_ACCOUNT" },
    { B(23), "__GFP_ZEROTAGS" },
    { B(24), "__GFP_NO_OBJ_EXT" },
};
#define GFP_NAME_COUNT ((int32_t)(sizeof gfp_names / sizeof gfp_names[0]))

static bool parse_hex(text_span s, uint32_t *out)
{
    if (s.len < 3 || s.at[0] != '0' || (s.at[1] != 'x' && s.at[1] != 'X') || s.len > 10)
        return false;
    uint32_t v = 0;
    for (int32_t i = 2; i < s.len; i++) {
        char c = s.at[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return false;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return true;
}

bool gfp_flags_parse(text_span s, uint32_t *out)
{
    if (s.len == 4 && memcmp(s.at, "none", 4) == 0) {
        *out = 0;
        return true;
    }
    uint32_t bits = 0;
    text_span part, rest = s;
    for (;;) {
        bool more = span_split(rest, '|', &part, &rest);
        if (!more)
            part = rest;
        uint32_t v = 0;
        bool known = parse_hex(part, &v);
        for (int32_t i = 0; !known && i < GFP_NAME_COUNT; i++)
            if ((int32_t)strlen(gfp_names[i].name) == part.len
                && memcmp(gfp_names[i].name, part.at, (size_t)part.len) == 0) {
                v = gfp_names[i].bits;
                known = true;
            }
        if (!known)
            return false;
        bits |= v;
        if (!more)
            break;
    }
    *out = bits;
    return true;
}

int32_t gfp_flags_format(uint32_t flags, char *buf, int32_t cap)
{
    int32_t len = 0;
#define APPEND(...) do { \
        int n_ = snprintf(len < cap ? buf + len : NULL, len < cap ? (size_t)(cap - len) : 0, __VA_ARGS__); \
        len += n_ > 0 ? n_ : 0; \
    } while (0)
    if (cap > 0)
        buf[0] = '\0';
    if (flags == 0) {
        APPEND("none");
        return len < cap ? len : cap - 1;
    }
    uint32_t left = flags;
    for (int32_t i = 0; i < GFP_NAME_COUNT && left; i++) {
        uint32_t m = gfp_names[i].bits;
        if ((left & m) == m) {
            APPEND("%s%s", len ? "|" : "", gfp_names[i].name);
            left &= ~m;
        }
    }
    if (left)
        APPEND("%s0x%x", len ? "|" : "", left);
#undef APPEND
    return len < cap ? len : cap - 1;
}
