/*
 * The PostgreSQL backend's plumbing: which --db values name a server database, how they
 * are shown (never with the password), connections, errors and the generation table.
 */
#include "store/pg_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool store_is_server(const char *path)
{
    return path && (!strncmp(path, "postgres://", 11) || !strncmp(path, "postgresql://", 13));
}

/* Copies s[0..n) into buf at *at (truncating at cap). */
static void put(char *buf, size_t cap, size_t *at, const char *s, size_t n)
{
    for (size_t i = 0; i < n && *at + 1 < cap; i++) buf[(*at)++] = s[i];
    buf[*at < cap ? *at : cap - 1] = '\0';
}

const char *store_display(const char *path, char *buf, size_t cap)
{
    if (!store_is_server(path) || !buf || cap < 16) return path;
    size_t at = 0;
    buf[0] = '\0';
    const char *p = strstr(path, "://") + 3;
    put(buf, cap, &at, path, (size_t)(p - path));
    /* userinfo: up to the last '@' before the path, query or fragment */
    size_t host_end = strcspn(p, "/?#");
    const char *atsign = NULL;
    for (const char *q = p; q < p + host_end; q++)
        if (*q == '@') atsign = q;
    if (atsign) {
        const char *colon = memchr(p, ':', (size_t)(atsign - p));
        if (colon) {
            put(buf, cap, &at, p, (size_t)(colon - p));
            put(buf, cap, &at, ":***", 4);
        } else {
            put(buf, cap, &at, p, (size_t)(atsign - p));
        }
        p = atsign;
    }
    /* the rest, with the value of any password= parameter masked */
    while (*p) {
        bool param_start = p[-1] == '?' || p[-1] == '&';
        if (param_start && !strncmp(p, "password=", 9)) {
            put(buf, cap, &at, "password=***", 12);
            p += 9 + strcspn(p + 9, "&#");
            continue;
        }
        put(buf, cap, &at, p, 1);
        p++;
    }
    return buf;
}

static void quiet_notice(void *ctx, const char *message)
{
    (void)ctx;
    (void)message;
}

int store_pg_connect(const char *url, const char *display, PGconn **out, apidex_error *err)
{
    *out = NULL;
    /* Keywords before dbname: a value the URL itself gives wins over these defaults. */
    const char *keys[] = {"connect_timeout", "application_name", "dbname", NULL};
    const char *vals[] = {"10", "apidex", url, NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (!c) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    if (PQstatus(c) != CONNECTION_OK) {
        int rc = store_pg_error(c, NULL, display, APIDEX_ENET, err);
        PQfinish(c);
        return rc;
    }
    /* Server notices (a shutdown's "terminating connection") are not the user's business:
       failures reach them as errors. */
    PQsetNoticeProcessor(c, quiet_notice, NULL);
    PGresult *r = PQexec(c, "SET client_min_messages = warning");
    PQclear(r);
    *out = c;
    return 0;
}

int store_pg_error(PGconn *c, const PGresult *res, const char *display, int code, apidex_error *err)
{
    const char *msg = res ? PQresultErrorMessage(res) : NULL;
    if (!msg || !*msg) msg = c ? PQerrorMessage(c) : "no connection";
    /* libpq's messages end in a newline and may span lines: keep one line. */
    char line[400];
    size_t n = 0;
    for (const char *p = msg; *p && n + 1 < sizeof line; p++)
        line[n++] = (*p == '\n' || *p == '\t') ? ' ' : *p;
    while (n && line[n - 1] == ' ') n--;
    line[n] = '\0';
    return core_error_set(err, code, "PostgreSQL index %s: %s", display, line);
}

int store_pg_exec(PGconn *c, const char *sql, const char *display, apidex_error *err)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType s = PQresultStatus(r);
    int rc = 0;
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK)
        rc = store_pg_error(c, r, display, APIDEX_EDB, err);
    PQclear(r);
    return rc;
}

int store_pg_current_read(PGconn *c, const char *display, store_pg_current *out, apidex_error *err)
{
    memset(out, 0, sizeof *out);
    PGresult *r = PQexec(c, "SELECT to_regclass('" STORE_PG_SCHEMA ".current') IS NOT NULL");
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        int rc = store_pg_error(c, r, display, APIDEX_EDB, err);
        PQclear(r);
        return rc;
    }
    bool exists = PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "t");
    PQclear(r);
    if (!exists) return 0;
    r = PQexec(c, "SELECT generation, coalesce(previous, 0), schema_version FROM " STORE_PG_SCHEMA
                  ".current");
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        int rc = store_pg_error(c, r, display, APIDEX_EDB, err);
        PQclear(r);
        return rc;
    }
    if (PQntuples(r) == 1) {
        out->generation = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        out->previous = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
        out->schema_version = atoi(PQgetvalue(r, 0, 2));
    }
    PQclear(r);
    return 0;
}

int store_pg_tempdir(char **out, apidex_error *err)
{
    *out = NULL;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    size_t n = strlen(tmp) + sizeof "/apidex-pg-XXXXXX";
    char *dir = malloc(n);
    if (!dir) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    snprintf(dir, n, "%s/apidex-pg-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        int e = errno;
        free(dir);
        return core_error_set(err, APIDEX_EIO, "cannot create a temporary directory in %s: %s", tmp,
                              strerror(e));
    }
    *out = dir;
    return 0;
}

void store_pg_tempdir_remove(const char *dir)
{
    if (!dir) return;
    DIR *d = opendir(dir);
    char path[4096];
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

void store_pg_error_rename(apidex_error *err, const char *from, const char *to)
{
    if (!err || !from || !*from) return;
    char out[sizeof err->message];
    size_t n = 0, flen = strlen(from), tlen = strlen(to);
    for (const char *p = err->message; *p && n + 1 < sizeof out;) {
        if (!strncmp(p, from, flen)) {
            for (size_t i = 0; i < tlen && n + 1 < sizeof out; i++) out[n++] = to[i];
            p += flen;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    memcpy(err->message, out, n + 1);
}
