/* What the exec tests share: a spec of tests/data loaded, an operation by operationId, a
   request's header. Header-only: each test_exec_*.c is its own program. */
#ifndef APIDEX_EXEC_TESTUTIL_H
#define APIDEX_EXEC_TESTUTIL_H

#include "testutil.h"

#include "exec/exec.h"

#include <stdlib.h>
#include <string.h>

/** The spec at path loaded: one API, not failed (else the test fails). */
static inline spec_registry *ex_load(const char *path)
{
    spec_registry *reg = NULL;
    apidex_error err;
    assert_int_equal(spec_load_file(path, NULL, &reg, &err), 0);
    assert_int_equal(spec_registry_count(reg), 1);
    assert_false(spec_registry_api(reg, 0)->failed);
    return reg;
}

/** ex_load of name, relative to the source tree (tests/data/exec/pets.yaml). */
static inline spec_registry *ex_fixture(const char *name)
{
    char *path = tu_path(tu_source_dir(), name);
    spec_registry *reg = ex_load(path);
    free(path);
    return reg;
}

/** The operation of api with this operationId; fails the test when there is none. */
static inline const spec_operation *ex_op(const spec_api *api, const char *operation_id)
{
    for (size_t i = 0; i < api->n_ops; i++)
        if (api->ops[i].operation_id && !strcmp(api->ops[i].operation_id, operation_id))
            return &api->ops[i];
    fail_msg("no operation %s", operation_id);
    return NULL;
}

/** The value of r's header name (exact), or NULL. */
static inline const char *ex_header(const exec_request *r, const char *name)
{
    for (size_t i = 0; i < r->n_headers; i++)
        if (!strcmp(r->headers[i].name, name)) return r->headers[i].value;
    return NULL;
}

#endif /* APIDEX_EXEC_TESTUTIL_H */
