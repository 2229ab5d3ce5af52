/* Tests for the event-stream reader of the MCP client (src/mcpc/sse.c), which reads what a
   Streamable HTTP server sends (the answers of POSTs, and the GET stream serve --watch keeps
   open): events split anywhere, CRLF/CR/LF line ends, comments, ids and retry; and hostile
   input (an event over the limit, a line that never ends, binary garbage) that is skipped in
   bounded memory, after which the reader goes on with the next event. */
#include "testutil.h"

#include "mcpc/mcpc_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct seen {
    char *events[16];
    size_t n;
    size_t stop_after; /* 0: never stop */
} seen;

static bool collect(void *ctx, const char *data, size_t len)
{
    seen *s = ctx;
    assert_int_equal(strlen(data), len); /* NUL-terminated where the length says */
    if (s->n < 16) s->events[s->n++] = strdup(data);
    return !s->stop_after || s->n < s->stop_after;
}

static void seen_free(seen *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->events[i]);
    s->n = 0;
}

/* feeds text in pieces of step bytes */
static void feed(mcpc_sse *p, const char *text, size_t len, size_t step, seen *s)
{
    for (size_t i = 0; i < len; i += step)
        assert_true(mcpc_sse_feed(p, text + i, len - i < step ? len - i : step, collect, s));
}

static void test_events_split_anywhere(void **state)
{
    (void)state;
    const char *text = ": keep-alive\r\n"
                       "id: 7\r\n"
                       "event: message\r\n"
                       "data: {\"a\":1}\r\n"
                       "\r\n"
                       "data:two\rdata: lines\r\r"
                       "retry: 2500\n"
                       "data\n"
                       "\n"
                       "id: 9\n\n" /* an id alone: no event, but the id counts */
                       "data: last";
    for (size_t step = 1; step <= strlen(text); step++) {
        mcpc_sse p;
        mcpc_sse_init(&p, 64);
        seen s = {0};
        feed(&p, text, strlen(text), step, &s);
        assert_true(mcpc_sse_end(&p, collect, &s));
        assert_int_equal(s.n, 4);
        assert_string_equal(s.events[0], "{\"a\":1}");
        assert_string_equal(s.events[1], "two\nlines");
        assert_string_equal(s.events[2], "");
        assert_string_equal(s.events[3], "last"); /* the stream ended without the blank line */
        assert_string_equal(p.last_id, "9");
        assert_int_equal(p.retry_ms, 2500);
        seen_free(&s);
        mcpc_sse_free(&p);
    }
}

static void test_oversized_event_is_skipped(void **state)
{
    (void)state;
    mcpc_sse p;
    mcpc_sse_init(&p, 32);
    seen s = {0};
    /* one line over the limit, then an event whose lines add up over it */
    char big[200];
    memset(big, 'x', sizeof big);
    feed(&p, "data: ", 6, 6, &s);
    feed(&p, big, sizeof big, 7, &s);
    feed(&p, "\n\n", 2, 1, &s);
    for (int i = 0; i < 10; i++) feed(&p, "data: 0123456789\n", 17, 17, &s);
    feed(&p, "\ndata: ok\n\n", 11, 1, &s);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.events[0], "ok");
    assert_int_equal(p.skipped, 2);
    assert_true(p.line.cap_alloc <= 64 && p.data.cap_alloc <= 64);
    seen_free(&s);
    mcpc_sse_free(&p);
}

static void test_endless_line_stays_bounded(void **state)
{
    (void)state;
    mcpc_sse p;
    mcpc_sse_init(&p, 1024);
    seen s = {0};
    char chunk[65536];
    memset(chunk, 'y', sizeof chunk);
    memcpy(chunk, "data: ", 6);
    /* 64 MiB without a line end: read past, never kept */
    for (int i = 0; i < 1024; i++) {
        feed(&p, chunk, sizeof chunk, sizeof chunk, &s);
        memset(chunk, 'y', 6);
    }
    assert_int_equal(s.n, 0);
    assert_true(p.line.cap_alloc <= 2048);
    /* the line ends at last; its event is dropped, the next one is read */
    feed(&p, "\n\ndata: next\n\n", 14, 3, &s);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.events[0], "next");
    seen_free(&s);
    mcpc_sse_free(&p);
}

static void test_garbage_never_crashes(void **state)
{
    (void)state;
    mcpc_sse p;
    mcpc_sse_init(&p, 256);
    seen s = {0};
    unsigned x = 12345;
    char buf[4096];
    for (int round = 0; round < 2000; round++) {
        for (size_t i = 0; i < sizeof buf; i++) {
            x = x * 1103515245u + 12345u;
            /* bytes weighted toward what the reader looks at */
            static const char some[] = "\r\n:\0 datiry";
            buf[i] = (x >> 16) & 1 ? some[(x >> 17) % (sizeof some - 1)] : (char)(x >> 20);
        }
        feed(&p, buf, sizeof buf, 1 + round % 97, &s);
        seen_free(&s);
        assert_true(p.line.cap_alloc <= 512 && p.data.cap_alloc <= 512);
        assert_true(strlen(p.last_id) < sizeof p.last_id);
    }
    mcpc_sse_end(&p, collect, &s);
    seen_free(&s);
    mcpc_sse_free(&p);
}

static void test_receiver_stops(void **state)
{
    (void)state;
    mcpc_sse p;
    mcpc_sse_init(&p, 64);
    seen s = {.stop_after = 1};
    const char *text = "data: a\n\ndata: b\n\n";
    assert_false(mcpc_sse_feed(&p, text, strlen(text), collect, &s));
    assert_int_equal(s.n, 1);
    seen_free(&s);
    mcpc_sse_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_split_anywhere),
        cmocka_unit_test(test_oversized_event_is_skipped),
        cmocka_unit_test(test_endless_line_stays_bounded),
        cmocka_unit_test(test_garbage_never_crashes),
        cmocka_unit_test(test_receiver_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
