/* Tests for the content hash of an MCP server's document (src/mcpc/hash.c): the order of
   keys and of a top-level list's items is no change, anything else is; input that is not a
   JSON object, or too deep, is an error, never a crash. */
#include "testutil.h"

#include "mcpc/mcpc.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_of(const char *doc)
{
    uint64_t h = 0;
    assert_int_equal(mcpc_document_hash(doc, strlen(doc), &h), 0);
    return h;
}

static void test_order_is_no_change(void **state)
{
    (void)state;
    uint64_t a = hash_of("{\"mcp\":{\"server\":\"s\"},\"tools\":[{\"name\":\"a\",\"inputSchema\":"
                         "{\"type\":\"object\",\"required\":[\"x\",\"y\"]}},{\"name\":\"b\"}]}");
    /* keys reordered at every level, the tools listed the other way round */
    uint64_t b =
        hash_of("{\"tools\":[{\"name\":\"b\"},{\"inputSchema\":{\"required\":[\"x\","
                "\"y\"],\"type\":\"object\"},\"name\":\"a\"}],\"mcp\":{\"server\":\"s\"}}");
    assert_true(a == b);
}

static void test_content_is_a_change(void **state)
{
    (void)state;
    uint64_t base = hash_of("{\"tools\":[{\"name\":\"a\",\"description\":\"read a file\","
                            "\"inputSchema\":{\"required\":[\"x\",\"y\"]}}]}");
    /* a description, the order inside a nested list (required), a tool added, a key moved
       from the tool into its schema: each is a change */
    assert_true(base != hash_of("{\"tools\":[{\"name\":\"a\",\"description\":\"read files\","
                                "\"inputSchema\":{\"required\":[\"x\",\"y\"]}}]}"));
    assert_true(base != hash_of("{\"tools\":[{\"name\":\"a\",\"description\":\"read a file\","
                                "\"inputSchema\":{\"required\":[\"y\",\"x\"]}}]}"));
    assert_true(base !=
                hash_of("{\"tools\":[{\"name\":\"a\",\"description\":\"read a file\","
                        "\"inputSchema\":{\"required\":[\"x\",\"y\"]}},{\"name\":\"b\"}]}"));
    assert_true(base != hash_of("{\"tools\":[{\"name\":\"a\",\"inputSchema\":{\"description\":"
                                "\"read a file\",\"required\":[\"x\",\"y\"]}}]}"));
    /* the same tools under another list (resources) are not the same document */
    assert_true(hash_of("{\"tools\":[{\"name\":\"a\"}]}") !=
                hash_of("{\"tools\":[],\"prompts\":[{\"name\":\"a\"}]}"));
}

/* Empty objects and lists (an empty inputSchema, a server with no tools) hash without
   undefined behaviour (a NULL array handed to qsort failed under UBSan) and differ. */
static void test_empty_parts(void **state)
{
    (void)state;
    uint64_t a = hash_of("{\"tools\":[{\"name\":\"a\",\"inputSchema\":{}}]}");
    uint64_t b = hash_of("{\"tools\":[]}");
    uint64_t c = hash_of("{}");
    assert_true(a != b && b != c && a != c);
}

static void test_bad_input_is_an_error(void **state)
{
    (void)state;
    uint64_t h = 1;
    assert_int_equal(mcpc_document_hash("[1,2]", 5, &h), APIDEX_ESPEC);
    assert_int_equal(mcpc_document_hash("{\"tools\":", 9, &h), APIDEX_ESPEC);
    assert_int_equal(h, 0);
    /* nesting over the reader's limit: not parsed, an error */
    size_t depth = 300, n = 0;
    char *deep = malloc(2 * depth + 16);
    assert_non_null(deep);
    n += (size_t)snprintf(deep, 16, "{\"tools\":");
    for (size_t i = 0; i < depth; i++) deep[n++] = '[';
    for (size_t i = 0; i < depth; i++) deep[n++] = ']';
    deep[n++] = '}';
    assert_int_not_equal(mcpc_document_hash(deep, n, &h), 0);
    free(deep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_is_no_change),
        cmocka_unit_test(test_content_is_a_change),
        cmocka_unit_test(test_empty_parts),
        cmocka_unit_test(test_bad_input_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
