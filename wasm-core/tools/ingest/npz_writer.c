/*
 * npz_writer.c: stored zip members holding .npy arrays (see npz_writer.h).
 */
#include "npz_writer.h"

#include <string.h>

uint32_t npz_crc32(uint32_t crc, const void *data, uint64_t len)
{
    static uint32_t table[256];
    if (table[1] == 0) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    const uint8_t *p = data;
    crc = ~crc;
    for (uint64_t i = 0; i < len; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }

int npz_open(npz_writer *z, const char *path)
{
    memset(z, 0, sizeof *z);
    z->f = fopen(path, "wb");
    return z->f ? 0 : -1;
}

static void write_all(npz_writer *z, const void *data, uint64_t len)
{
    if (len && fwrite(data, 1, len, z->f) != len)
        z->failed = 1;
}

int npz_add(npz_writer *z, const char *name, const char *descr, uint64_t rows, uint64_t cols,
            const void *data, uint64_t bytes)
{
    if (z->n == NPZ_MAX_MEMBERS || strlen(name) + 5 > sizeof z->members[0].name)
        return -1;
    /* .npy v1.0: magic, version, header length (u16), then a dict padded with spaces and
     * ended by '\n' so the data starts at a multiple of 64 bytes. */
    char dict[128];
    int len = cols ? snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%llu, %llu), }",
                              descr, (unsigned long long)rows, (unsigned long long)cols)
                   : snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%llu,), }",
                              descr, (unsigned long long)rows);
    uint32_t header_len = (uint32_t)len + 1;
    uint32_t total = 10 + header_len;
    uint32_t pad = (64 - total % 64) % 64;
    header_len += pad;
    uint8_t npy[192];
    memcpy(npy, "\x93NUMPY\x01\x00", 8);
    put16(npy + 8, header_len);
    memcpy(npy + 10, dict, (size_t)len);
    memset(npy + 10 + len, ' ', pad);
    npy[10 + header_len - 1] = '\n';
    uint32_t npy_len = 10 + header_len;
    uint64_t size = npy_len + bytes;
    if (size > 0xffffffffu)
        return -1;  /* no zip64: a level is at most 32 MiB (lod.h) */

    npz_member *m = &z->members[z->n++];
    snprintf(m->name, sizeof m->name, "%s.npy", name);
    m->crc = npz_crc32(npz_crc32(0, npy, npy_len), data, bytes);
    m->size = (uint32_t)size;
    long at = ftell(z->f);
    if (at < 0 || at > 0xffffffffL)
        return -1;
    m->offset = (uint32_t)at;
    uint8_t local[30] = {0};
    uint32_t name_len = (uint32_t)strlen(m->name);
    put32(local, 0x04034b50);
    put16(local + 4, 20);          /* version needed: 2.0 */
    put16(local + 12, 0x21);       /* date 1980-01-01 */
    put32(local + 14, m->crc);
    put32(local + 18, m->size);    /* compressed = uncompressed: stored */
    put32(local + 22, m->size);
    put16(local + 26, name_len);
    write_all(z, local, sizeof local);
    write_all(z, m->name, name_len);
    write_all(z, npy, npy_len);
    write_all(z, data, bytes);
    return z->failed ? -1 : 0;
}

int npz_close(npz_writer *z)
{
    long start = ftell(z->f);
    uint32_t dir_size = 0;
    for (uint32_t i = 0; i < z->n; i++) {
        uint8_t entry[46] = {0};
        uint32_t name_len = (uint32_t)strlen(z->members[i].name);
        put32(entry, 0x02014b50);
        put16(entry + 4, 20);      /* made by: 2.0 */
        put16(entry + 6, 20);
        put16(entry + 14, 0x21);
        put32(entry + 16, z->members[i].crc);
        put32(entry + 20, z->members[i].size);
        put32(entry + 24, z->members[i].size);
        put16(entry + 28, name_len);
        put32(entry + 42, z->members[i].offset);
        write_all(z, entry, sizeof entry);
        write_all(z, z->members[i].name, name_len);
        dir_size += 46 + name_len;
    }
    uint8_t end[22] = {0};
    put32(end, 0x06054b50);
    put16(end + 8, z->n);
    put16(end + 10, z->n);
    put32(end + 12, dir_size);
    put32(end + 16, (uint32_t)start);
    write_all(z, end, sizeof end);
    if (fclose(z->f) != 0)
        z->failed = 1;
    z->f = NULL;
    return z->failed || start < 0 ? -1 : 0;
}
