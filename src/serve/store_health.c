/* What /healthz and /metrics say about a server database (PostgreSQL): the generation
   served and the last one published, and whether the follower is connected. An index
   file adds nothing. */
#include "serve/serve_int.h"

#include <json-c/json.h>

void serve_health_store(serve_db *db, struct json_object *o)
{
    serve_store_status st;
    if (!serve_db_store_status(db, &st)) return;
    struct json_object *s = json_object_new_object();
    if (!s) return;
    serve_jadd(s, "backend", json_object_new_string("postgresql"));
    serve_jadd(s, "connected", json_object_new_boolean(st.connected));
    serve_jadd(s, "generation", json_object_new_int64(st.served));
    serve_jadd(s, "published_generation", json_object_new_int64(st.published));
    serve_jadd(s, "reconnects", json_object_new_int64((int64_t)st.reconnects));
    /* what the replica read from the server: at open, and rows on demand since */
    serve_jadd(s, "fetched_rows", json_object_new_int64((int64_t)st.fetched_rows));
    serve_jadd(s, "fetched_bytes", json_object_new_int64((int64_t)st.fetched_bytes));
    if (!st.connected && st.error[0]) serve_jadd(s, "error", json_object_new_string(st.error));
    serve_jadd(o, "store", s);
}

int serve_metrics_store(serve_db *db, core_buf *out)
{
    serve_store_status st;
    if (!serve_db_store_status(db, &st)) return 0;
    core_buf_printf(
        out,
        "# HELP apidex_store_connected 1 while the server database connection is up.\n"
        "# TYPE apidex_store_connected gauge\napidex_store_connected %d\n"
        "# HELP apidex_store_generation The generation served.\n"
        "# TYPE apidex_store_generation gauge\napidex_store_generation %lld\n"
        "# HELP apidex_store_published_generation The last generation seen published.\n"
        "# TYPE apidex_store_published_generation gauge\n"
        "apidex_store_published_generation %lld\n"
        "# HELP apidex_store_reconnects_total Connections made again after a loss.\n"
        "# TYPE apidex_store_reconnects_total counter\napidex_store_reconnects_total %llu\n"
        "# HELP apidex_store_notifications_total Publishes heard by LISTEN.\n"
        "# TYPE apidex_store_notifications_total counter\n"
        "apidex_store_notifications_total %llu\n",
        st.connected ? 1 : 0, st.served, st.published, (unsigned long long)st.reconnects,
        (unsigned long long)st.notifications);
    return out->failed ? APIDEX_ENOMEM : 0;
}
