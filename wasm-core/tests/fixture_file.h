/*
 * Reading a test input file: the fixtures under tests/fixtures/ and the public
 * corpus (../../shared/corpus/public, see its MANIFEST.md). Paths are relative
 * to wasm-core/, where `make test` runs both builds; the wasm test build reads
 * the real filesystem through Node (-sNODERAWFS=1).
 */
#ifndef KSCOPE_TESTS_FIXTURE_FILE_H
#define KSCOPE_TESTS_FIXTURE_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FIXTURE_DIR "tests/fixtures/"
#define CORPUS_DIR "../../shared/corpus/public/"

/* The whole file, malloc'd and NUL-terminated (free it); NULL (and a note) if unreadable. */
static inline char *fixture_read(const char *path, int32_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        text = malloc((size_t)size + 1);
    if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
        free(text);
        text = NULL;
    }
    if (f)
        fclose(f);
    if (!text) {
        printf("    cannot read %s\n", path);
        return NULL;
    }
    text[size] = '\0';
    *len = (int32_t)size;
    return text;
}

#endif
