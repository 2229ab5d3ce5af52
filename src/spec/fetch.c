/* Fetching documents over http(s) with libcurl: timeouts, a size cap, http(s) only. */
#include "spec/spec_int.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

typedef struct fetch_sink {
    core_buf buf;
    bool too_big;
} fetch_sink;

static size_t fetch_write(char *p, size_t size, size_t n, void *user)
{
    fetch_sink *s = user;
    size_t bytes = size * n;
    if (core_buf_append(&s->buf, p, bytes)) {
        s->too_big = s->buf.len + bytes > s->buf.max;
        return 0; /* makes curl stop with CURLE_WRITE_ERROR */
    }
    return bytes;
}

int spec_fetch_url(const char *url, long timeout_ms, size_t max_bytes, bool follow_redirects,
                   char **out, size_t *out_len, apidex_error *err)
{
    *out = NULL;
    *out_len = 0;
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK) {
        core_error_set(err, APIDEX_ENET, "libcurl could not be initialised");
        core_error_at(err, url, 0, 0, NULL);
        return APIDEX_ENET;
    }
    CURL *h = curl_easy_init();
    if (!h) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    fetch_sink sink;
    core_buf_init(&sink.buf, max_bytes);
    sink.too_big = false;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, follow_redirects ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_bytes);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "apidex/" APIDEX_VERSION_STRING);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, fetch_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    CURLcode cc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(h);
    int rc = 0;
    if (cc == CURLE_FILESIZE_EXCEEDED || sink.too_big) {
        rc = core_error_set(err, APIDEX_ELIMIT, "remote document is over the limit of %zu bytes",
                            max_bytes);
    } else if (cc != CURLE_OK) {
        rc = core_error_set(err, APIDEX_ENET, "cannot fetch: %s", curl_easy_strerror(cc));
    } else if (status == 404 || status == 410) {
        rc = core_error_set(err, APIDEX_ENOTFOUND, "HTTP %ld", status);
    } else if (status < 200 || status >= 300) {
        rc = core_error_set(err, APIDEX_ENET, "HTTP %ld", status);
    }
    if (rc) {
        core_error_at(err, url, 0, 0, NULL);
        core_buf_free(&sink.buf);
        return rc;
    }
    if (!sink.buf.data && core_buf_append(&sink.buf, "", 0)) {
        core_buf_free(&sink.buf);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    *out = core_buf_steal(&sink.buf, out_len);
    if (!*out) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    return 0;
}

char *spec_url_host(const char *url)
{
    CURLU *u = curl_url();
    if (!u) return NULL;
    char *host = NULL, *copy = NULL;
    if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK && host) {
        copy = strdup(host);
        /* hosts compare case-insensitively */
        for (char *p = copy; p && *p; p++)
            if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    }
    curl_free(host);
    curl_url_cleanup(u);
    return copy;
}

char *spec_url_join(const char *base, const char *rel)
{
    CURLU *u = curl_url();
    if (!u) return NULL;
    char *joined = NULL, *copy = NULL;
    if (curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
        curl_url_set(u, CURLUPART_URL, rel, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_URL, &joined, 0) == CURLUE_OK && joined)
        copy = strdup(joined);
    curl_free(joined);
    curl_url_cleanup(u);
    return copy;
}
