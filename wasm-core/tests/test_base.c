/* src/base: the seeded RNG, CPU bitmaps and the JSON reader. */
#include <string.h>

#include "check.h"
#include "../src/base/cpumask.h"
#include "../src/base/json.h"
#include "../src/base/rng.h"

static void rng_is_seeded_and_deterministic(void)
{
    rng_state a, b, c;
    rng_seed(&a, 42);
    rng_seed(&b, 42);
    rng_seed(&c, 43);
    int same = 1, differs = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = rng_next(&a), y = rng_next(&b), z = rng_next(&c);
        same &= x == y;
        differs |= x != z;
    }
    CHECK(same);
    CHECK(differs);
    /* splitmix64's published first output for seed 0 (Vigna's reference code). */
    rng_state zero;
    rng_seed(&zero, 0);
    CHECK(zero.s[0] == 0xe220a8397b1dcdafull);
}

static void rng_bounded_draws_and_shuffles(void)
{
    rng_state r;
    rng_seed(&r, 7);
    int hits[10] = { 0 };
    for (int i = 0; i < 10000; i++) {
        uint32_t v = rng_below(&r, 10);
        CHECK(v < 10);
        hits[v < 10 ? v : 0]++;
    }
    for (int i = 0; i < 10; i++)
        CHECK(hits[i] > 800 && hits[i] < 1200);
    CHECK_EQ_INT(rng_below(&r, 0), 0);
    int32_t items[32], seen[32] = { 0 };
    for (int i = 0; i < 32; i++)
        items[i] = i;
    rng_shuffle(&r, items, 32);
    int moved = 0;
    for (int i = 0; i < 32; i++) {
        seen[items[i]]++;
        moved += items[i] != i;
    }
    for (int i = 0; i < 32; i++)
        CHECK_EQ_INT(seen[i], 1);
    CHECK(moved > 0);
}

static void cpumask_scans_like_the_kernel(void)
{
    cpumask a = { 0 }, b = { 0 };
    int32_t nw = cpumask_words(384);
    CHECK_EQ_INT(nw, 6);
    CHECK(cpumask_empty(&a, nw));
    cpumask_set(&a, 3);
    cpumask_set(&a, 200);
    cpumask_set(&a, 383);
    CHECK_EQ_INT(cpumask_weight(&a, nw), 3);
    CHECK_EQ_INT(cpumask_first_and(&a, NULL, nw), 3);
    CHECK_EQ_INT(cpumask_next_and_wrap(&a, NULL, 4, nw), 200);
    CHECK_EQ_INT(cpumask_next_and_wrap(&a, NULL, 201, nw), 383);
    CHECK_EQ_INT(cpumask_next_and_wrap(&a, NULL, 383, nw), 383);
    cpumask_clear_cpu(&a, 383);
    CHECK_EQ_INT(cpumask_next_and_wrap(&a, NULL, 201, nw), 3);     /* wraps */
    cpumask_set(&b, 200);
    CHECK_EQ_INT(cpumask_first_and(&a, &b, nw), 200);
    CHECK(cpumask_intersects(&a, &b, nw));
    CHECK(cpumask_subset(&b, &a, nw));
    CHECK(!cpumask_subset(&a, &b, nw));
    cpumask_and(&a, &a, &b, nw);
    CHECK_EQ_INT(cpumask_weight(&a, nw), 1);
    cpumask big = { 0 };
    cpumask_set(&big, 1023);
    CHECK_EQ_INT(cpumask_next_and_wrap(&big, NULL, 5, cpumask_words(1024)), 1023);
}

static void json_builds_a_tree_with_positions(void)
{
    const char *text = "{\n  \"a\": [1, 2.5e3, -0.5],\n  \"s\": \"x\\u00e9\\n\\ud83d\\ude00\",\n"
                       "  \"t\": true, \"n\": null, \"o\": {}\n}";
    json_doc doc;
    json_error err;
    CHECK_EQ_INT(json_parse(text, (int32_t)strlen(text), &doc, &err), 0);
    CHECK_EQ_INT(doc.values[0].type, JSON_OBJECT);
    CHECK_EQ_INT(doc.values[0].count, 5);
    int32_t a = json_member(&doc, 0, "a");
    CHECK(a > 0);
    CHECK_EQ_INT(doc.values[a].type, JSON_ARRAY);
    CHECK_EQ_INT(doc.values[a].count, 3);
    CHECK_EQ_INT(doc.values[a].line, 2);
    CHECK_EQ_INT(doc.values[a].column, 8);
    int32_t second = doc.values[doc.values[a].first].next;
    CHECK(doc.values[second].number == 2500.0);
    int32_t s = json_member(&doc, 0, "s");
    CHECK_EQ_STR(json_string(&doc, s), "x\xc3\xa9\n\xf0\x9f\x98\x80");
    CHECK_EQ_INT(doc.values[json_member(&doc, 0, "t")].str, 1);
    CHECK_EQ_INT(doc.values[json_member(&doc, 0, "n")].type, JSON_NULL);
    CHECK_EQ_INT(json_member(&doc, 0, "missing"), -1);
    json_free(&doc);
}

/* Parses text expecting a syntax error at line:column with the given path. */
static void expect_json_error(const char *text, int32_t line, int32_t column, const char *path,
                              const char *words)
{
    json_doc doc;
    json_error err;
    CHECK_EQ_INT(json_parse(text, (int32_t)strlen(text), &doc, &err), -1);
    CHECK_EQ_INT(err.line, line);
    CHECK_EQ_INT(err.column, column);
    CHECK_EQ_STR(err.path, path);
    if (!strstr(err.message, words))
        printf("    message was: %s\n", err.message);
    CHECK(strstr(err.message, words) != NULL);
    json_free(&doc);
}

static void json_errors_name_line_column_and_path(void)
{
    expect_json_error("{\"a\": [1, 2,]}", 1, 13, "a[2]", "expected a value");
    expect_json_error("{\n \"p\": [\n  {\"k\": 1 \"j\": 2}\n ]\n}", 3, 11, "p[0]", "expected ','");
    expect_json_error("{\"a\" 1}", 1, 6, "a", "expected ':'");
    expect_json_error("{\"a\": \"abc}", 1, 7, "a", "unterminated string");
    expect_json_error("{\"a\": 01}", 1, 8, "", "expected ','");
    expect_json_error("[1] x", 1, 5, "", "end of the input");
    expect_json_error("", 1, 1, "", "expected a value");
    expect_json_error("{\"a\": \"\\q\"}", 1, 8, "a", "invalid escape");
    expect_json_error("{\"a\": tru}", 1, 7, "a", "expected a value");
    char deep[200];
    memset(deep, '[', 40);
    deep[40] = '\0';
    expect_json_error(deep, 1, 34, "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]",
                      "nesting deeper");
}

const test_case base_tests[] = {
    { "base: rng is seeded and deterministic", rng_is_seeded_and_deterministic },
    { "base: rng bounded draws and shuffles", rng_bounded_draws_and_shuffles },
    { "base: cpumask scans like the kernel", cpumask_scans_like_the_kernel },
    { "base: json builds a tree with positions", json_builds_a_tree_with_positions },
    { "base: json errors name line, column and path", json_errors_name_line_column_and_path },
    { 0 },
};
