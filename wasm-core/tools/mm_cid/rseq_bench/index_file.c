/* Reader of the "--index file:PATH" indexes (format in index_file.h). */
#include "index_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_line(const char *path, long lineno, char *text, int max_index, index_line *out)
{
    int cap = 16, n = 0, *values = malloc(sizeof(int) * (size_t)cap);
    if (!values)
        return -1;
    char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (*p == '\0' || *p == '#')
            break;
        long column = (long)(p - text) + 1;
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno != 0 || (*end != '\0' && !isspace((unsigned char)*end) && *end != '#')) {
            fprintf(stderr, "kscope-rseq-bench: %s:%ld:%ld: expected an index (a decimal integer)\n",
                    path, lineno, column);
            free(values);
            return -1;
        }
        if (v < 0 || v >= max_index) {
            fprintf(stderr, "kscope-rseq-bench: %s:%ld:%ld: index %ld out of range [0, %d) (the pool has one "
                    "stride per possible CPU)\n", path, lineno, column, v, max_index);
            free(values);
            return -1;
        }
        if (n == INDEX_FILE_MAX_PER_THREAD + 1) {
            fprintf(stderr, "kscope-rseq-bench: %s:%ld:%ld: more than %d indexes on one line\n", path, lineno,
                    column, INDEX_FILE_MAX_PER_THREAD + 1);
            free(values);
            return -1;
        }
        if (n == cap) {
            int *grown = realloc(values, sizeof(int) * (size_t)(cap *= 2));
            if (!grown) {
                free(values);
                return -1;
            }
            values = grown;
        }
        values[n++] = (int)v;
        p = end;
    }
    if (n < 2) {
        fprintf(stderr, "kscope-rseq-bench: %s:%ld: a thread's line needs a warm-up index and at least one "
                "burst index, found %d number%s\n", path, lineno, n, n == 1 ? "" : "s");
        free(values);
        return -1;
    }
    out->warmup = values[0];
    out->count = n - 1;
    out->bursts = values;
    memmove(values, values + 1, sizeof(int) * (size_t)(n - 1));
    return 0;
}

int index_file_read(const char *path, int threads, int max_index, index_line *lines)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "kscope-rseq-bench: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t cap = 0;
    long lineno = 0;
    int got = 0, rc = 0;
    while (getline(&text, &cap, f) >= 0) {
        lineno++;
        char *p = text;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        if (got == threads) {
            fprintf(stderr, "kscope-rseq-bench: %s:%ld: more lines than the %d thread%s\n", path, lineno, threads,
                    threads == 1 ? "" : "s");
            rc = -1;
            break;
        }
        if (parse_line(path, lineno, text, max_index, &lines[got]) != 0) {
            rc = -1;
            break;
        }
        got++;
    }
    free(text);
    fclose(f);
    if (rc == 0 && got < threads) {
        fprintf(stderr, "kscope-rseq-bench: %s: %d line%s of indexes for %d threads (one line per thread)\n", path,
                got, got == 1 ? "" : "s", threads);
        rc = -1;
    }
    if (rc != 0)
        index_file_free(lines, got);
    return rc;
}

void index_file_free(index_line *lines, int threads)
{
    for (int t = 0; t < threads; t++) {
        free(lines[t].bursts);
        lines[t].bursts = NULL;
    }
}
