/* One API loaded from a file of the source tree for a group of tests: the registry kept in
   cmocka's group state, freed by the group teardown. For the tests of stages above oas that
   read one fixture (test_view_describe.c, test_view_detail.c, test_chunk_strategies.c). */
#ifndef APIDEX_OAS_FIXTURE_H
#define APIDEX_OAS_FIXTURE_H

#include "testutil.h"

#include "oas/oas.h"

#include <stdlib.h>

/* Loads rel (a path under the source tree) into *state; *api is its one API. 0, or -1 when
   it does not load (the group fails). */
static inline int oas_fixture_open(void **state, const char *rel, const spec_api **api)
{
    char *path = tu_path(tu_source_dir(), rel);
    spec_registry *reg = NULL;
    apidex_error err;
    int rc = spec_load_file(path, NULL, &reg, &err);
    free(path);
    *state = reg;
    if (rc) return -1;
    *api = spec_registry_api(reg, 0);
    return *api && !(*api)->failed ? 0 : -1;
}

/* The group teardown: frees what oas_fixture_open loaded. */
static inline int oas_fixture_close(void **state)
{
    spec_registry_free(*state);
    *state = NULL;
    return 0;
}

#endif /* APIDEX_OAS_FIXTURE_H */
