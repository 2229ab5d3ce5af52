/* A small hand-made index for the serve tests (two APIs, producers, schemas), built with
   store_writer so the tests do not depend on how specs are chunked. Header-only: each
   test_serve_*.c is its own program. */
#ifndef APIDEX_SERVE_TESTUTIL_H
#define APIDEX_SERVE_TESTUTIL_H

#include "testutil.h"

#include "build/build.h"
#include "serve/serve.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sv_op {
    const char *id, *method, *path, *opid, *summary, *desc, *tag, *input, *responses;
    bool deprecated;
} sv_op;

static const sv_op sv_films[] = {
    {"films:listTopRated", "GET", "/movie/top_rated", "listTopRated", "Get the top rated movies",
     "The movies with the highest user ratings.", "movies", NULL, "id title vote_average", false},
    {"films:getMovieCredits", "GET", "/movie/{movie_id}/credits", "getMovieCredits",
     "Get the cast and crew of a movie", "Who acted in and who directed a movie.", "movies",
     "movie_id", "cast crew director job name", false},
    {"films:searchMovie", "GET", "/search/movie", "searchMovie", "Search for movies by title",
     "Find movies whose title matches a text query.", "search", "query", "id title", false},
    {"films:POST /movie/{movie_id}/rating", "POST", "/movie/{movie_id}/rating", NULL,
     "Rate a movie", "Add a rating for a movie.", "movies", "movie_id", NULL, false},
    {"films:deleteRating", "DELETE", "/movie/{movie_id}/rating", "deleteRating",
     "Delete a movie rating", "Remove your rating.", "movies", "movie_id", NULL, true},
    {"films:listGenres", "GET", "/genres", "listGenres", "List movie genres", "All genres.",
     "genres", NULL, "id name", false},
};

static const sv_op sv_music[] = {
    {"music:getArtist", "GET", "/artists/{id}", "getArtist", "Get an artist",
     "Catalog information for a single artist.", "artists", "id", "id name genres", false},
    {"music:searchCatalog", "GET", "/search", "searchCatalog", "Search artists, albums and tracks",
     "Find artists by name.", "search", "q", "artists albums tracks", false},
    {"music:GET /genres", "GET", "/genres", NULL, "List music genres", "Available genre seeds.",
     "genres", NULL, NULL, false},
};

static inline void sv_add_ops(store_writer *w, const char *api, const sv_op *ops, size_t n)
{
    apidex_error err;
    for (size_t i = 0; i < n; i++) {
        const sv_op *o = &ops[i];
        store_input in = {o->input, "path", NULL, true};
        if (o->input && (!strcmp(o->input, "query") || !strcmp(o->input, "q")))
            in.location = "query";
        char content[512];
        snprintf(content, sizeof content, "%s %s\n%s\n%s", o->method, o->path, o->summary, o->desc);
        const char *tags[] = {o->tag};
        store_operation op = {.id = o->id,
                              .api = api,
                              .method = o->method,
                              .path = o->path,
                              .operation_id = o->opid,
                              .summary = o->summary,
                              .description = o->desc,
                              .tags = tags,
                              .n_tags = 1,
                              .deprecated = o->deprecated,
                              .content = content,
                              .tokens = 20,
                              .inputs = o->input ? &in : NULL,
                              .n_inputs = o->input ? 1 : 0};
        op.fields[STORE_FIELD_PATH] = o->path;
        op.fields[STORE_FIELD_OPERATION_ID] = o->opid;
        op.fields[STORE_FIELD_SUMMARY] = o->summary;
        op.fields[STORE_FIELD_DESCRIPTION] = o->desc;
        op.fields[STORE_FIELD_PARAMS] = o->input;
        op.fields[STORE_FIELD_RESPONSES] = o->responses;
        op.fields[STORE_FIELD_TAGS] = o->tag;
        if (store_writer_add_operation(w, &op, &err)) fail_msg("add op %s: %s", o->id, err.message);
        /* the search ranks chunks: one endpoint chunk per operation, with its fields */
        char chunk_id[256];
        snprintf(chunk_id, sizeof chunk_id, "%s#0", o->id);
        const char *eps[] = {o->id};
        store_chunk c = {.id = chunk_id,
                         .api = api,
                         .type = "endpoint",
                         .content = content,
                         .endpoints = eps,
                         .n_endpoints = 1,
                         .tokens = 20};
        for (int f = 0; f < STORE_FIELD_COUNT; f++) c.fields[f] = op.fields[f];
        if (store_writer_add_chunk(w, &c, &err)) fail_msg("add chunk %s: %s", o->id, err.message);
    }
}

static inline void sv_add_api(store_writer *w, const char *id, const char *title, const char *tag1,
                              const char *tag2)
{
    apidex_error err;
    char doc[128];
    snprintf(doc, sizeof doc, "/specs/%s.json", id);
    store_server servers[] = {{"https://api.example.com/3", NULL}};
    store_tag tags[] = {{tag1, "first tag", 0}, {tag2, NULL, 0}};
    store_api api = {.id = id,
                     .document = doc,
                     .title = title,
                     .version = "1.0",
                     .description = "An API for the serve tests.",
                     .spec_version = "3.0.3",
                     .servers = servers,
                     .n_servers = 1,
                     .tags = tags,
                     .n_tags = 2,
                     .content_hash = 42,
                     .n_files = 1};
    if (store_writer_add_api(w, &api, &err)) fail_msg("add api: %s", err.message);
}

static inline void sv_add_schema(store_writer *w, const char *api, const char *id, const char *name,
                                 const char *content)
{
    apidex_error err;
    store_schema s = {
        .id = id, .api = api, .name = name, .content = content, .tokens = 10, .used_by = 1};
    if (store_writer_add_schema(w, &s, &err)) fail_msg("add schema: %s", err.message);
}

static inline void sv_add_edge(store_writer *w, const char *api, store_edge_kind kind,
                               const char *src, const char *dst, const char *param, double score)
{
    apidex_error err;
    store_edge e = {.kind = kind, .src = src, .dst = dst, .param = param, .score = score};
    if (kind == STORE_EDGE_PRODUCER) e.field = "movi";
    if (store_writer_add_edge(w, api, &e, &err)) fail_msg("add edge: %s", err.message);
}

/* Writes the fixture index at db; generation 2 adds a third API ("books"). */
static inline void sv_fixture_write(const char *db, int generation)
{
    apidex_error err;
    store_writer *w = NULL;
    /* with the search image when the test installed its builder, as a build writes it */
    store_writer_options opt = {.full = true, .image = build_image_builder()};
    if (store_writer_begin(db, &opt, &w, &err)) fail_msg("begin: %s", err.message);
    sv_add_api(w, "films", "Film Database API", "movies", "search");
    sv_add_ops(w, "films", sv_films, sizeof sv_films / sizeof sv_films[0]);
    sv_add_schema(w, "films", "films:Movie", "Movie", "Movie: id, title, vote_average");
    sv_add_schema(w, "films", "films:Credits", "Credits", "Credits: cast[Person], crew[Person]");
    sv_add_schema(w, "films", "films:Person", "Person", "Person: id, name, job");
    sv_add_edge(w, "films", STORE_EDGE_OP_SCHEMA, "films:listTopRated", "films:Movie", NULL, 1);
    sv_add_edge(w, "films", STORE_EDGE_OP_SCHEMA, "films:getMovieCredits", "films:Credits", NULL,
                1);
    sv_add_edge(w, "films", STORE_EDGE_SCHEMA_SCHEMA, "films:Credits", "films:Person", NULL, 1);
    sv_add_edge(w, "films", STORE_EDGE_PRODUCER, "films:getMovieCredits", "films:listTopRated",
                "movie_id", 2.0);
    sv_add_edge(w, "films", STORE_EDGE_PRODUCER, "films:getMovieCredits", "films:searchMovie",
                "movie_id", 2.5);
    sv_add_api(w, "music", "Music Catalog API", "artists", "search");
    sv_add_ops(w, "music", sv_music, sizeof sv_music / sizeof sv_music[0]);
    sv_add_edge(w, "music", STORE_EDGE_PRODUCER, "music:getArtist", "music:searchCatalog", "id",
                2.0);
    if (generation >= 2) {
        static const sv_op books[] = {{"books:getBook", "GET", "/books/{isbn}", "getBook",
                                       "Get a book by ISBN", "One book.", "books", "isbn", NULL,
                                       false}};
        sv_add_api(w, "books", "Book API", "books", "misc");
        sv_add_ops(w, "books", books, 1);
    }
    if (store_writer_commit(w, NULL, &err)) fail_msg("commit: %s", err.message);
}

/* A fresh fixture in a temp dir; *dir_out gets the dir (tu_rmtree it). */
static inline char *sv_fixture(char **dir_out)
{
    char *dir = tu_tempdir();
    char *db = tu_path(dir, "idx.db");
    sv_fixture_write(db, 1);
    *dir_out = dir;
    return db;
}

/* sv_fixture's index served: a serve_db over it (reload checks on every acquire). */
typedef struct sv_served {
    char *dir, *db;
    serve_db *sdb;
} sv_served;

static inline sv_served *sv_serve(void)
{
    sv_served *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->db = sv_fixture(&s->dir);
    apidex_error err;
    assert_int_equal(serve_db_open(s->db, 0, &s->sdb, &err), 0);
    return s;
}

static inline void sv_served_free(sv_served *s)
{
    serve_db_close(s->sdb);
    tu_rmtree(s->dir);
    free(s->dir);
    free(s->db);
    free(s);
}

/* Parses JSON text (fails the test when it is not JSON). */
static inline struct json_object *sv_parse(const char *text)
{
    assert_non_null(text);
    struct json_object *o = json_tokener_parse(text);
    if (!o) fail_msg("not JSON: %s", text);
    return o;
}

/* The object at a dotted path ("result.tools.0.name"); NULL when absent. */
static inline struct json_object *sv_at(struct json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *seg = strtok_r(buf, ".", &save); seg && o; seg = strtok_r(NULL, ".", &save)) {
        if (json_object_is_type(o, json_type_array)) {
            char *end;
            long i = strtol(seg, &end, 10);
            o = *end ? NULL : json_object_array_get_idx(o, (size_t)i);
        } else if (!json_object_object_get_ex(o, seg, &o)) {
            o = NULL;
        }
    }
    return o;
}

static inline const char *sv_str(struct json_object *o, const char *path)
{
    struct json_object *v = sv_at(o, path);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static inline int64_t sv_int(struct json_object *o, const char *path)
{
    struct json_object *v = sv_at(o, path);
    if (!v) fail_msg("no member %s", path);
    return json_object_get_int64(v);
}

#endif
