/* Model files: resolution of --model PATH|NAME, `model pull` against a local stand-in of the
   hub (good and bad checksums, atomic install), and the provider front door. */
#include "embed_testutil.h"

#include "embed/embed_int.h"

#include <sys/stat.h>

#define REQUIRE_NUMPY()                                                                            \
    do {                                                                                           \
        if (system(EMBED_PY " -c 'import numpy' >/dev/null 2>&1") != 0) {                          \
            print_message("/usr/bin/python3 with numpy not found: skipped\n");                     \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static void gen_model(const char *dir, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, EMBED_PY " '%s/tests/embed/gen_bert.py' --out '%s' %s",
             tu_source_dir(), dir, args);
    assert_int_equal(system(cmd), 0);
}

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

static int count_entries(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *f = popen(cmd, "r");
    int n = -1;
    if (f) {
        if (fscanf(f, "%d", &n) != 1) n = -1;
        pclose(f);
    }
    return n;
}

static void test_sha256(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < 3; i++) {
        embed_sha256 s;
        char hex[65];
        embed_sha256_init(&s);
        /* Fed in uneven pieces to cross block boundaries. */
        const char *t = cases[i][0];
        size_t n = strlen(t);
        for (size_t at = 0; at < n; at += 7)
            embed_sha256_update(&s, t + at, n - at < 7 ? n - at : 7);
        embed_sha256_final_hex(&s, hex);
        assert_string_equal(hex, cases[i][1]);
    }
    /* One million 'a' (FIPS 180-2 test vector). */
    embed_sha256 s;
    char hex[65], block[1000];
    memset(block, 'a', sizeof block);
    embed_sha256_init(&s);
    for (int i = 0; i < 1000; i++) embed_sha256_update(&s, block, sizeof block);
    embed_sha256_final_hex(&s, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_resolve(void **state)
{
    (void)state;
    REQUIRE_NUMPY();
    char *tmp = tu_tempdir();
    char *cache = tu_path(tmp, "cache");
    setenv("APIDEX_CACHE_DIR", cache, 1);
    char *cdir = NULL;
    apidex_error err = {0};
    assert_int_equal(embed_model_cache_dir(&cdir, &err), 0);
    char *want = tu_path(cache, "models");
    assert_string_equal(cdir, want);

    /* A name that is not installed: says how to get it. */
    char *dir = NULL;
    assert_int_equal(embed_model_resolve(NULL, &dir, &err), APIDEX_ENOTFOUND);
    assert_non_null(strstr(err.message, "apidex model pull bge-small-en-v1.5"));
    assert_non_null(strstr(err.file, "models/bge-small-en-v1.5"));

    /* Installed by name in the cache, and by path. */
    char *named = tu_path(want, "tiny-en");
    gen_model(named, "--hidden 32 --layers 1 --heads 2 --vocab 200");
    assert_int_equal(embed_model_resolve("tiny-en", &dir, &err), 0);
    assert_string_equal(dir, named);
    free(dir);
    assert_int_equal(embed_model_resolve(named, &dir, &err), 0);
    free(dir);
    /* A folder without weights. */
    char *w = tu_path(named, "model.safetensors");
    char *w2 = tu_path(named, "model.bak");
    rename(w, w2);
    assert_int_equal(embed_model_resolve("tiny-en", &dir, &err), APIDEX_ENOTFOUND);
    assert_non_null(strstr(err.message, "no model.safetensors"));
    rename(w2, w);
    assert_int_equal(embed_model_resolve("/no/such/folder", &dir, &err), APIDEX_ENOTFOUND);

    /* Env fills only what flags left unset. */
    setenv("APIDEX_MODEL", "tiny-en", 1);
    setenv("APIDEX_EMBED_KEY", "k1", 1);
    setenv("APIDEX_THREADS", "3", 1);
    embed_options o = {.api_key = "flag"};
    embed_options_from_env(&o);
    assert_string_equal(o.model, "tiny-en");
    assert_string_equal(o.api_key, "flag");
    assert_int_equal(o.threads, 3);
    assert_null(o.base_url);
    unsetenv("APIDEX_EMBED_KEY");
    unsetenv("APIDEX_THREADS");

    /* The front door: local by default, resolved through APIDEX_MODEL. */
    embed_provider *p = NULL;
    embed_options lo = {.threads = 1};
    embed_options_from_env(&lo);
    assert_int_equal(embed_provider_open(&lo, &p, &err), 0);
    assert_string_equal(p->vt->kind, "local");
    assert_string_equal(embed_provider_model_id(p), "tiny-en");
    size_t dim = 0;
    assert_int_equal(embed_provider_dim(p, &dim, &err), 0);
    assert_int_equal(dim, 32);
    const char *texts[] = {"get movie", "list users"};
    float out[64];
    assert_int_equal(embed_provider_embed(p, texts, 2, false, out, &err), 0);
    assert_int_equal(p->stats.texts, 2);
    assert_true(p->stats.tokens >= 8);
    char fp1[128];
    snprintf(fp1, sizeof fp1, "%s", p->fingerprint);
    assert_non_null(strstr(fp1, "local:tiny-en:"));
    embed_provider_close(p);
    /* Another prefix → another fingerprint (stored vectors would not match). */
    lo.query_prefix = "query: ";
    assert_int_equal(embed_provider_open(&lo, &p, &err), 0);
    assert_string_not_equal(p->fingerprint, fp1);
    embed_provider_close(p);
    lo.query_prefix = NULL;
    /* bf16 products make other vectors: another fingerprint too (where the CPU has them) */
    lo.precision = "bf16";
    if (embed_k_has_bf16()) {
        assert_int_equal(embed_provider_open(&lo, &p, &err), 0);
        assert_string_not_equal(p->fingerprint, fp1);
        embed_provider_close(p);
    } else {
        assert_int_equal(embed_provider_open(&lo, &p, &err), APIDEX_EUNSUPPORTED);
    }
    lo.precision = "int8";
    assert_int_equal(embed_provider_open(&lo, &p, &err), APIDEX_EINVAL);
    assert_non_null(strstr(err.message, "f32 or bf16"));
    lo.precision = NULL;
    setenv("APIDEX_EMBED_PRECISION", "bf16", 1);
    embed_options envo = {0};
    embed_options_from_env(&envo);
    assert_string_equal(envo.precision, "bf16");
    unsetenv("APIDEX_EMBED_PRECISION");
    embed_provider_close(NULL);
    embed_options bad = {.provider = "carrier-pigeon"};
    assert_int_equal(embed_provider_open(&bad, &p, &err), APIDEX_EINVAL);
    unsetenv("APIDEX_MODEL");

    unsetenv("APIDEX_CACHE_DIR");
    tu_rmtree(tmp);
    free(w);
    free(w2);
    free(named);
    free(want);
    free(cdir);
    free(cache);
    free(tmp);
}

static void test_pull(void **state)
{
    (void)state;
    REQUIRE_NUMPY();
    char *tmp = tu_tempdir();
    char *hub = tu_path(tmp, "hub");
    gen_model(hub, "--hidden 32 --layers 1 --heads 2 --vocab 200 --pooling-style mode");
    char *cache = tu_path(tmp, "cache");
    mock_server m;
    const char *args[] = {"--files-dir", hub, NULL};
    mock_start(&m, args);
    apidex_error err = {0};
    char *dir = NULL;

    /* The real name: files come, but the weights do not match the pinned checksum. */
    embed_pull_options o = {.base_url = m.url, .cache_dir = cache};
    assert_int_equal(embed_model_pull("bge-small-en-v1.5", &o, &dir, &err), APIDEX_EIO);
    assert_non_null(strstr(err.message,
                           "checksum mismatch for model.safetensors: expected sha256 "
                           "3c9f31665447c8911517620762200d2245a2518d6e7208acc78cd9db317e21ad"));
    assert_non_null(strstr(err.file, "/BAAI/bge-small-en-v1.5/resolve/main/model.safetensors"));
    assert_null(dir);
    assert_int_equal(count_entries(cache), 0); /* nothing installed, no partial folder */

    /* Any repository with the right checksum given: installed, then usable by name. */
    char hex[65], over[96];
    char *wpath = tu_path(hub, "model.safetensors");
    assert_int_equal(embed_sha256_file(wpath, hex, &err), 0);
    snprintf(over, sizeof over, "model.safetensors=%s", hex);
    const char *shas[] = {over, NULL};
    o.sha256_overrides = shas;
    char *log = tu_path(tmp, "progress.txt");
    o.progress = fopen(log, "w");
    assert_int_equal(embed_model_pull("test-org/tiny-bert", &o, &dir, &err), 0);
    fclose(o.progress);
    o.progress = NULL;
    char *want = tu_path(cache, "tiny-bert");
    assert_string_equal(dir, want);
    free(dir);
    char *pooling = tu_path(want, "1_Pooling/config.json");
    assert_true(exists(pooling));
    char *absent = tu_path(want, "tokenizer.json"); /* optional and 404: skipped */
    assert_false(exists(absent));
    assert_int_equal(count_entries(cache), 1);
    embed_bert *b = NULL;
    assert_int_equal(embed_bert_open(want, NULL, &b, &err), 0);
    embed_bert_close(b);
    assert_true(mock_count(&m, "/test-org/tiny-bert/resolve/main/config.json") == 1);

    /* A bad checksum on a re-pull leaves the installed copy alone. */
    const char *wrong[] = {"model.safetensors="
                           "0000000000000000000000000000000000000000000000000000000000000000",
                           NULL};
    o.sha256_overrides = wrong;
    assert_int_equal(embed_model_pull("test-org/tiny-bert", &o, NULL, &err), APIDEX_EIO);
    assert_true(exists(pooling));
    assert_int_equal(count_entries(cache), 1);
    /* A good re-pull replaces it. */
    o.sha256_overrides = shas;
    assert_int_equal(embed_model_pull("test-org/tiny-bert", &o, NULL, &err), 0);
    assert_int_equal(count_entries(cache), 1);

    /* Malformed overrides and unknown names are usage errors. */
    const char *malformed[] = {"model.safetensors=xyz", NULL};
    o.sha256_overrides = malformed;
    assert_int_equal(embed_model_pull("test-org/tiny-bert", &o, NULL, &err), APIDEX_EINVAL);
    o.sha256_overrides = NULL;
    assert_int_equal(embed_model_pull("no-such-model", &o, NULL, &err), APIDEX_ENOTFOUND);

    /* A required file missing upstream. */
    unlink(wpath);
    assert_int_equal(embed_model_pull("test-org/tiny-bert", &o, NULL, &err), APIDEX_ENET);
    assert_non_null(strstr(err.message, "HTTP 404 while downloading model.safetensors"));
    mock_stop(&m);

    /* No route to the hub: fails fast, and the manual steps name files, folder and sum. */
    o.base_url = "http://127.0.0.1:1";
    assert_int_equal(embed_model_pull("bge-small-en-v1.5", &o, NULL, &err), APIDEX_ENET);
    assert_non_null(strstr(err.message, "download failed"));
    setenv("APIDEX_CACHE_DIR", cache, 1);
    core_buf help;
    core_buf_init(&help, 0);
    assert_int_equal(embed_model_manual_steps("bge-small-en-v1.5", &help), 0);
    assert_non_null(strstr(help.data, "https://huggingface.co/BAAI/bge-small-en-v1.5"));
    assert_non_null(strstr(help.data, "models/bge-small-en-v1.5/"));
    assert_non_null(
        strstr(help.data, "3c9f31665447c8911517620762200d2245a2518d6e7208acc78cd9db317e21ad"));
    assert_non_null(strstr(help.data, "1_Pooling/config.json"));
    core_buf_free(&help);
    unsetenv("APIDEX_CACHE_DIR");

    free(absent);
    free(pooling);
    free(want);
    free(log);
    free(wpath);
    tu_rmtree(tmp);
    free(cache);
    free(hub);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_pull),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
