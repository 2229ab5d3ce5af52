/* Fuzz target for requests to the mock server (and schema patterns): byte 0 picks the
 * method (and, when its high bit is set, feeds the rest to mock_pattern_string instead);
 * the path runs to the first newline, the query to the second, the rest is the body. Any
 * request ends in an answer with a status, never a crash, a hang or a leak. */
#include "mock/mock.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static mock *the_mock(void)
{
    static spec_registry *reg;
    static mock *mk;
    if (mk) return mk;
    apidex_error err;
    if (spec_registry_new(NULL, &reg, &err) ||
        spec_registry_add(reg, APIDEX_SOURCE_DIR "/tests/data/mock/store.yaml", &err) ||
        mock_new(reg, NULL, &mk, &err))
        abort();
    return mk;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536) return 0;
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    if (data[0] & 0x80) {
        uint64_t rng = data[0];
        free(mock_pattern_string(text, &rng));
        free(text);
        return 0;
    }
    static const char *const methods[] = {"GET",    "POST", "PUT",     "PATCH",
                                          "DELETE", "HEAD", "OPTIONS", "TRACE"};
    char *path = text, *query = strchr(path, '\n'), *body = NULL;
    if (query) {
        *query++ = '\0';
        body = strchr(query, '\n');
        if (body) *body++ = '\0';
    }
    mock_pair pairs[8];
    size_t n = 0;
    for (char *q = query, *save = NULL, *t = q ? strtok_r(q, "&", &save) : NULL; t && n < 8;
         t = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(t, '=');
        if (eq) *eq++ = '\0';
        pairs[n++] = (mock_pair){t, eq};
    }
    mock_request rq = {.method = methods[data[0] & 7],
                       .path = path,
                       .query = pairs,
                       .n_query = n,
                       .body = body,
                       .body_len = body ? strlen(body) : 0,
                       .content_type =
                           data[0] & 8 ? "application/x-www-form-urlencoded" : "application/json"};
    core_arena *a = core_arena_new(0);
    mock_response r;
    if (!a || mock_handle(the_mock(), &rq, a, &r) != 0) abort();
    if (r.status < 200 || r.status > 599) abort();
    core_arena_free(a);
    free(text);
    return 0;
}
