/*
 * The mock's memory: resources created, updated and deleted through the API, by
 * collection path and id, in creation order. Small by design (MOCK_STATE_MAX entries,
 * each entry a json-c value); a deleted entry stays as a tombstone so that reading it
 * again answers 404.
 */
#include "mock/mock.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    char *collection;
    char *id;
    json_object *obj; /* NULL when deleted */
    bool deleted;
} entry;

struct mock_state {
    entry *items;
    size_t n, cap;
    unsigned long next_id;
    pthread_mutex_t lock;
};

int mock_state_new(mock_state **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out) return APIDEX_ENOMEM;
    pthread_mutex_init(&(*out)->lock, NULL);
    return 0;
}

void mock_state_free(mock_state *st)
{
    if (!st) return;
    for (size_t i = 0; i < st->n; i++) {
        free(st->items[i].collection);
        free(st->items[i].id);
        json_object_put(st->items[i].obj);
    }
    free(st->items);
    pthread_mutex_destroy(&st->lock);
    free(st);
}

void mock_state_lock(mock_state *st)
{
    pthread_mutex_lock(&st->lock);
}

void mock_state_unlock(mock_state *st)
{
    pthread_mutex_unlock(&st->lock);
}

static entry *find(mock_state *st, const char *collection, const char *id)
{
    for (size_t i = 0; i < st->n; i++)
        if (!strcmp(st->items[i].id, id) && !strcmp(st->items[i].collection, collection))
            return &st->items[i];
    return NULL;
}

/* The last segment of a collection path ("/v1/users/7/playlists" -> "playlists"). */
static const char *last_segment(const char *collection, size_t *n)
{
    const char *s = strrchr(collection, '/');
    s = s ? s + 1 : collection;
    *n = strlen(s);
    return s;
}

static entry *find_by_name(mock_state *st, const char *collection, const char *id)
{
    size_t n;
    const char *name = last_segment(collection, &n);
    if (!n) return NULL;
    for (size_t i = st->n; i-- > 0;) {
        size_t m;
        const char *other = last_segment(st->items[i].collection, &m);
        if (m == n && !memcmp(other, name, n) && !strcmp(st->items[i].id, id)) return &st->items[i];
    }
    return NULL;
}

json_object *mock_state_get(mock_state *st, const char *collection, const char *id, bool *deleted)
{
    *deleted = false;
    entry *e = find(st, collection, id);
    if (!e) e = find_by_name(st, collection, id);
    if (!e) return NULL;
    *deleted = e->deleted;
    return e->obj;
}

static entry *add(mock_state *st, const char *collection, const char *id, int *rc)
{
    if (st->n >= MOCK_STATE_MAX) {
        *rc = APIDEX_ELIMIT;
        return NULL;
    }
    if (core_array_grow(&st->items, &st->cap, st->n, sizeof *st->items, 64)) {
        *rc = APIDEX_ENOMEM;
        return NULL;
    }
    entry *e = &st->items[st->n];
    *e = (entry){strdup(collection), strdup(id), NULL, false};
    if (!e->collection || !e->id) {
        free(e->collection);
        free(e->id);
        *rc = APIDEX_ENOMEM;
        return NULL;
    }
    st->n++;
    return e;
}

int mock_state_put(mock_state *st, const char *collection, const char *id, json_object *obj)
{
    int rc = 0;
    entry *e = find(st, collection, id);
    if (!e) e = find_by_name(st, collection, id);
    if (!e) e = add(st, collection, id, &rc);
    if (!e) return rc;
    json_object_put(e->obj);
    e->obj = json_object_get(obj);
    e->deleted = false;
    return 0;
}

int mock_state_delete(mock_state *st, const char *collection, const char *id)
{
    int rc = 0;
    entry *e = find(st, collection, id);
    if (!e) e = find_by_name(st, collection, id);
    if (!e) e = add(st, collection, id, &rc);
    if (!e) return rc;
    json_object_put(e->obj);
    e->obj = NULL;
    e->deleted = true;
    return 0;
}

json_object *mock_state_list(mock_state *st, const char *collection)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; a && i < st->n; i++)
        if (!st->items[i].deleted && !strcmp(st->items[i].collection, collection))
            json_object_array_add(a, json_object_get(st->items[i].obj));
    return a;
}

unsigned long mock_state_next_id(mock_state *st)
{
    return ++st->next_id;
}
