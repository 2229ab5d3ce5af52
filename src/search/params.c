/*
 * The search parameters: every weight and threshold of the engine, in one table with a name,
 * a default, the range it may take and what it does, built from params.def (their one
 * definition). docs/SEARCH.md describes each and its measured effect; `apidex eval --param
 * NAME=VALUE` and `--sweep-param NAME=a,b,c` set them, so each rule can be switched off and
 * measured.
 */
#include "search/search_int.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define P(field) offsetof(search_params, field)

static const search_param_info table[] = {
#define SP(member, name, def, min, max, doc) {name, P(member), def, min, max, doc},
#define SP_ARRAY(member, length)
#define SP_AT(member, index, name, def, min, max, doc) {name, P(member[index]), def, min, max, doc},
#include "search/params.def"
#undef SP
#undef SP_ARRAY
#undef SP_AT
};

enum { n_table = sizeof table / sizeof table[0] };

size_t search_param_count(void)
{
    return n_table;
}

const search_param_info *search_param_at(size_t i)
{
    return i < n_table ? &table[i] : NULL;
}

static search_params defaults;
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;

static void defaults_init(void)
{
    search_params_default(&defaults);
}

const search_params *search_params_defaults(void)
{
    pthread_once(&defaults_once, defaults_init);
    return &defaults;
}

int search_param_table_set(const search_param_table *t, void *p, const char *name, double value,
                           apidex_error *err)
{
    for (size_t i = 0; i < t->n; i++) {
        const search_param_info *e = &t->entries[i];
        if (strcmp(e->name, name)) continue;
        if (!(value >= e->min && value <= e->max))
            return core_error_set(err, APIDEX_EINVAL, "%s parameter %s must be in [%g, %g]",
                                  t->kind, name, e->min, e->max);
        *(double *)((char *)p + e->offset) = value;
        return 0;
    }
    return core_error_set(err, APIDEX_EINVAL, "no %s parameter '%s' (%s lists them)", t->kind, name,
                          t->listed_by);
}

int search_param_table_parse(const search_param_table *t, void *p, const char *assignment,
                             apidex_error *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment || !eq[1])
        return core_error_set(err, APIDEX_EINVAL, "a %s parameter is NAME=VALUE, not '%s'", t->kind,
                              assignment);
    char name[128];
    size_t n = (size_t)(eq - assignment);
    if (n >= sizeof name)
        return core_error_set(err, APIDEX_EINVAL, "no %s parameter '%.*s'", t->kind, (int)n,
                              assignment);
    memcpy(name, assignment, n);
    name[n] = '\0';
    char *end = NULL;
    double v = strtod(eq + 1, &end);
    if (*end || !isfinite(v))
        return core_error_set(err, APIDEX_EINVAL, "%s parameter %s: '%s' is not a number", t->kind,
                              name, eq + 1);
    return search_param_table_set(t, p, name, v, err);
}

void search_param_table_default(const search_param_table *t, void *p, size_t size)
{
    memset(p, 0, size);
    for (size_t i = 0; i < t->n; i++)
        *(double *)((char *)p + t->entries[i].offset) = t->entries[i].def;
}

static const search_param_table search_table = {table, n_table, "search",
                                                "apidex eval --list-params"};

void search_params_default(search_params *p)
{
    search_param_table_default(&search_table, p, sizeof *p);
}

int search_params_set(search_params *p, const char *name, double value, apidex_error *err)
{
    return search_param_table_set(&search_table, p, name, value, err);
}

int search_params_parse(search_params *p, const char *assignment, apidex_error *err)
{
    return search_param_table_parse(&search_table, p, assignment, err);
}
