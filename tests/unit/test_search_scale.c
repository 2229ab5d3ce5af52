/* Rules for registries of many APIs, on one written here: a named API and a copy of it
 * (another file, the same title), one API that integrates with it, and 58 unrelated APIs.
 * - route.name_spread: a word of an API's name that another API's texts use too (an
 *   integration that imports from it) still names it while few of the registry's APIs use
 *   it; the nine-in-ten-chunks rule alone loses such names as a registry grows.
 * - answer.one_per_service: a ranked list holds one entry for an operation that copies of
 *   one service share.
 * - answer.api_cap: at most that many primaries of one API in a ranked list.
 * - route.lower_names: a task that writes a service's name in lower case names it when the
 *   word is a whole label of its host (copies of one service count once), never when it
 *   is a word of a hyphenated host or of a title, or one the service's own description
 *   uses as a word (route.label_prose). */
#include "search_testutil.h"

#include <stdio.h>

enum { n_fillers = 58 };

static const char named_spec[] =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"Quokka Drive\",\"version\":\"1\"},"
    "\"servers\":[{\"url\":\"https://api.quokka.example\"}],\"paths\":{"
    "\"/folders/{folder_id}/entries\":{\"get\":{\"operationId\":\"listFolderEntries\","
    "\"summary\":\"List the entries of a folder\",\"parameters\":[{\"name\":\"folder_id\","
    "\"in\":\"path\",\"required\":true,\"schema\":{\"type\":\"string\"}}],"
    "\"responses\":{\"200\":{\"description\":\"the entries\"}}}},"
    "\"/uploads\":{\"post\":{\"operationId\":\"uploadFile\",\"summary\":\"Upload a file\","
    "\"responses\":{\"201\":{\"description\":\"uploaded\"}}}}}}";

static const char bridge_spec[] =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"Harbor Sync\",\"version\":\"1\"},"
    "\"paths\":{"
    "\"/imports/quokka/files\":{\"get\":{\"operationId\":\"listImportFiles\","
    "\"summary\":\"List the files in a folder of a linked Quokka account\","
    "\"responses\":{\"200\":{\"description\":\"files\"}}}},"
    "\"/imports/quokka/folders\":{\"get\":{\"operationId\":\"listImportFolders\","
    "\"summary\":\"List the folders of a linked Quokka account\","
    "\"responses\":{\"200\":{\"description\":\"folders\"}}}},"
    "\"/imports/quokka\":{\"post\":{\"operationId\":\"startImport\","
    "\"summary\":\"Import files from Quokka\","
    "\"responses\":{\"202\":{\"description\":\"started\"}}}}}}";

/* an integration with the service below */
static const char bridge2_spec[] =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"Otter Sync\",\"version\":\"1\"},"
    "\"paths\":{"
    "\"/imports/badger/files\":{\"get\":{\"operationId\":\"listBadgerFiles\","
    "\"summary\":\"List the files in a drawer of a linked Badger account\","
    "\"responses\":{\"200\":{\"description\":\"files\"}}}},"
    "\"/imports/heron/files\":{\"get\":{\"operationId\":\"listHeronFiles\","
    "\"summary\":\"List the files in a crate of a linked Heron account\","
    "\"responses\":{\"200\":{\"description\":\"files\"}}}}}}";

/* a service at a one-word host whose own description uses that word as a word */
static const char prose_spec[] =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"Sighting Log\",\"version\":\"1\","
    "\"description\":\"Counts heron sightings by crate.\"},"
    "\"servers\":[{\"url\":\"https://api.heron.example\"}],\"paths\":{"
    "\"/crates/{crate_id}/entries\":{\"get\":{\"operationId\":\"listCrateEntries\","
    "\"summary\":\"List the entries of a crate\",\"parameters\":[{\"name\":\"crate_id\","
    "\"in\":\"path\",\"required\":true,\"schema\":{\"type\":\"string\"}}],"
    "\"responses\":{\"200\":{\"description\":\"the entries\"}}}}}}";

/* a service whose host is descriptive words joined by hyphens */
static const char hyphen_spec[] =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"Badger Ledger\",\"version\":\"1\"},"
    "\"servers\":[{\"url\":\"https://badger-ledger.example\"}],\"paths\":{"
    "\"/drawers/{drawer_id}/entries\":{\"get\":{\"operationId\":\"listDrawerEntries\","
    "\"summary\":\"List the entries of a drawer\",\"parameters\":[{\"name\":\"drawer_id\","
    "\"in\":\"path\",\"required\":true,\"schema\":{\"type\":\"string\"}}],"
    "\"responses\":{\"200\":{\"description\":\"the entries\"}}}}}}";

typedef struct fixture {
    char *dir;
    search_fixture f;
} fixture;

static int setup(void **state)
{
    fixture *x = calloc(1, sizeof *x);
    x->dir = tu_tempdir();
    apidex_error err;
    core_error_clear(&err);
    spec_registry *reg = NULL;
    assert_int_equal(spec_registry_new(NULL, &reg, &err), 0);
    char *p = tu_write(x->dir, "quokka.json", named_spec);
    assert_int_equal(spec_registry_add(reg, p, &err), 0);
    free(p);
    p = tu_write(x->dir, "quokka2.json", named_spec);
    assert_int_equal(spec_registry_add(reg, p, &err), 0);
    free(p);
    p = tu_write(x->dir, "bridge.json", bridge_spec);
    assert_int_equal(spec_registry_add(reg, p, &err), 0);
    free(p);
    p = tu_write(x->dir, "sightings.json", prose_spec);
    assert_int_equal(spec_registry_add(reg, p, &err), 0);
    free(p);
    p = tu_write(x->dir, "otter.json", bridge2_spec);
    assert_int_equal(spec_registry_add(reg, p, &err), 0);
    free(p);
    p = tu_write(x->dir, "badger.json", hyphen_spec);
    assert_int_equal(spec_registry_add(reg, p, &err), 0);
    free(p);
    for (int i = 0; i < n_fillers; i++) {
        char name[32], text[512];
        snprintf(name, sizeof name, "gauge%02d.json", i);
        snprintf(text, sizeof text,
                 "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"Gauge Station %d\",\"version\":"
                 "\"1\"},\"paths\":{\"/readings\":{\"get\":{\"operationId\":\"listReadings\","
                 "\"summary\":\"List the readings of a gauge\",\"responses\":{\"200\":"
                 "{\"description\":\"readings\"}}}}}}",
                 i);
        p = tu_write(x->dir, name, text);
        assert_int_equal(spec_registry_add(reg, p, &err), 0);
        free(p);
    }
    x->f.db = tu_path(x->dir, "index.db");
    if (build_index(x->f.db, reg, NULL, NULL, &err)) fail_msg("build_index: %s", err.message);
    spec_registry_free(reg);
    if (store_open(x->f.db, true, &x->f.idx, &err)) fail_msg("store_open: %s", err.message);
    if (search_engine_open(x->f.idx, &x->f.eng, &err)) fail_msg("engine: %s", err.message);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    fixture *x = *state;
    search_engine_close(x->f.eng);
    store_close(x->f.idx);
    tu_rmtree(x->dir);
    free(x->dir);
    free(x->f.db);
    free(x);
    return 0;
}

static void test_a_name_other_apis_mention_still_routes(void **state)
{
    fixture *x = *state;
    const char *task = "list the files in a folder on Quokka";
    /* one API in sixty uses the word besides the named ones: still a name */
    char *id = search_fixture_first_primary(&x->f, task, NULL);
    assert_non_null(id);
    assert_true(!strcmp(id, "quokka-drive:listFolderEntries") ||
                !strcmp(id, "quokka-drive-2:listFolderEntries"));
    free(id);
    /* by the chunk share alone (most chunks that say it are the integration's) it is no
       name, and the integration's listing wins on the words */
    id = search_fixture_first_primary(&x->f, task, "route.name_spread=0");
    assert_non_null(id);
    assert_string_equal(id, "harbor-sync:listImportFiles");
    free(id);
}

static void test_a_word_many_apis_use_is_no_name(void **state)
{
    fixture *x = *state;
    /* "Gauge" is in 58 titles: more than a tenth of the registry carries it, no name
       whatever the spread */
    char *id = search_fixture_first_primary(&x->f, "list the files in a folder on Gauge", NULL);
    assert_non_null(id);
    assert_string_equal(id, "harbor-sync:listImportFiles");
    free(id);
}

static void test_a_lower_case_host_label_routes(void **state)
{
    fixture *x = *state;
    const char *task = "list the files in a folder on quokka";
    /* the label of api.quokka.example, carried by one service (two copies of it) */
    char *id = search_fixture_first_primary(&x->f, task, NULL);
    assert_non_null(id);
    assert_true(!strcmp(id, "quokka-drive:listFolderEntries") ||
                !strcmp(id, "quokka-drive-2:listFolderEntries"));
    free(id);
    id = search_fixture_first_primary(&x->f, task, "route.lower_names=0");
    assert_non_null(id);
    assert_string_equal(id, "harbor-sync:listImportFiles");
    free(id);
}

static void test_a_lower_case_word_of_a_hyphenated_host_is_no_name(void **state)
{
    fixture *x = *state;
    /* badger-ledger.example joins words: "badger" written as a word names nothing ... */
    char *id = search_fixture_first_primary(&x->f, "list the files in a drawer on badger", NULL);
    assert_non_null(id);
    assert_string_equal(id, "otter-sync:listBadgerFiles");
    free(id);
    /* ... written as a name, it names the service whose title has it */
    id = search_fixture_first_primary(&x->f, "list the files in a drawer on Badger", NULL);
    assert_non_null(id);
    assert_string_equal(id, "badger-ledger:listDrawerEntries");
    free(id);
}

static void test_a_label_its_own_prose_uses_as_a_word_is_no_name(void **state)
{
    fixture *x = *state;
    const char *task = "list the files in a crate on heron";
    /* api.heron.example, but the service's description says "heron sightings" */
    char *id = search_fixture_first_primary(&x->f, task, NULL);
    assert_non_null(id);
    assert_string_equal(id, "otter-sync:listHeronFiles");
    free(id);
    id = search_fixture_first_primary(&x->f, task, "route.label_prose=0");
    assert_non_null(id);
    assert_string_equal(id, "sighting-log:listCrateEntries");
    free(id);
}

/* Ranked hits (k) of task with parameters set (NAME=VALUE, space-separated); how many are of
   api, and how many are the operation op of any API. */
static void ranked_counts(fixture *x, const char *task, size_t k, const char *set, const char *api,
                          size_t *of_api, const char *op, size_t *of_op)
{
    search_params p;
    search_params_default(&p);
    apidex_error err;
    char one[128];
    for (const char *s = set; s && *s;) {
        size_t n = strcspn(s, " ");
        snprintf(one, sizeof one, "%.*s", (int)n, s);
        if (search_params_parse(&p, one, &err)) fail_msg("param %s: %s", one, err.message);
        s += n + (s[n] == ' ');
    }
    search_result *r =
        search_fixture_run(&x->f, (search_query){.text = task, .k = k, .params = &p});
    *of_api = *of_op = 0;
    for (size_t i = 0; i < r->n_hits; i++) {
        if (api && !strcmp(r->hits[i].api, api)) (*of_api)++;
        const char *colon = strchr(r->hits[i].id, ':');
        if (op && colon && !strcmp(colon + 1, op)) (*of_op)++;
    }
    search_result_free(r);
}

static void test_copies_of_a_service_take_one_entry(void **state)
{
    fixture *x = *state;
    size_t n_api = 0, n_op = 0;
    ranked_counts(x, "list the entries of a folder", 5, NULL, NULL, &n_api, "listFolderEntries",
                  &n_op);
    assert_int_equal(n_op, 1);
    /* the older copy is also superseded by the newest version (answer.duplicates) */
    ranked_counts(x, "list the entries of a folder", 5, "answer.one_per_service=0", NULL, &n_api,
                  "listFolderEntries", &n_op);
    assert_int_equal(n_op, 1);
    ranked_counts(x, "list the entries of a folder", 5,
                  "answer.one_per_service=0 answer.duplicates=0", NULL, &n_api, "listFolderEntries",
                  &n_op);
    assert_int_equal(n_op, 2);
}

static void test_api_cap_limits_one_api(void **state)
{
    fixture *x = *state;
    size_t n_api = 0, n_op = 0;
    const char *task = "list the files and folders imported from a linked account";
    ranked_counts(x, task, 3, NULL, "harbor-sync", &n_api, NULL, &n_op);
    assert_true(n_api >= 2);
    ranked_counts(x, task, 3, "answer.api_cap=1", "harbor-sync", &n_api, NULL, &n_op);
    assert_int_equal(n_api, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_name_other_apis_mention_still_routes),
        cmocka_unit_test(test_a_word_many_apis_use_is_no_name),
        cmocka_unit_test(test_copies_of_a_service_take_one_entry),
        cmocka_unit_test(test_api_cap_limits_one_api),
        cmocka_unit_test(test_a_lower_case_host_label_routes),
        cmocka_unit_test(test_a_lower_case_word_of_a_hyphenated_host_is_no_name),
        cmocka_unit_test(test_a_label_its_own_prose_uses_as_a_word_is_no_name),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
