/*
 * fuzz/fuzz_json.c: the JSON reader under the workload parser (src/base/json.c).
 * Any text gives a tree whose indices, counts and strings stay inside the document,
 * or an error with a place and a NUL-terminated path and message.
 */
#include "fuzz_input.h"
#include "../src/base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    if (size > (1 << 20))
        return 0;
    json_doc doc;
    json_error err;
    memset(&err, 0x55, sizeof err);     /* the error must be written, not left as found */
    if (json_parse((const char *)bytes, (int32_t)size, &doc, &err) != 0) {
        FUZZ_CHECK(memchr(err.path, '\0', sizeof err.path) != NULL);
        FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message) != NULL);
        FUZZ_CHECK(err.message[0] != '\0');
        FUZZ_CHECK(err.line >= 1 && err.column >= 1);
        json_free(&doc);
        return 0;
    }
    FUZZ_CHECK(doc.count >= 1 && doc.count <= doc.capacity);
    FUZZ_CHECK(doc.strings_len <= doc.strings_capacity);
    FUZZ_CHECK(doc.strings_len == 0 || doc.strings[doc.strings_len - 1] == '\0');
    for (int32_t i = 0; i < doc.count; i++) {
        const json_value *v = &doc.values[i];
        FUZZ_CHECK(v->type >= JSON_NULL && v->type <= JSON_OBJECT);
        FUZZ_CHECK(v->line >= 1 && v->column >= 1);
        FUZZ_CHECK(v->next == -1 || (v->next > i && v->next < doc.count));
        if (v->type == JSON_STRING)
            FUZZ_CHECK(v->str >= 0 && v->str < doc.strings_len);
        if (v->type == JSON_ARRAY || v->type == JSON_OBJECT) {
            int32_t n = 0;
            for (int32_t c = v->first; c >= 0; c = doc.values[c].next) {
                FUZZ_CHECK(c > i && c < doc.count);
                FUZZ_CHECK(++n <= v->count);
                if (v->type == JSON_OBJECT) {
                    int32_t key = doc.values[c].key;
                    FUZZ_CHECK(key >= 0 && key < doc.strings_len);
                    /* json_member finds a member of that name (the first one) */
                    int32_t found = json_member(&doc, i, json_key(&doc, c));
                    FUZZ_CHECK(found >= 0 && strcmp(json_key(&doc, found), json_key(&doc, c)) == 0);
                } else {
                    FUZZ_CHECK(doc.values[c].key == -1);
                }
            }
            FUZZ_CHECK(n == v->count);
        }
    }
    json_free(&doc);
    return 0;
}
