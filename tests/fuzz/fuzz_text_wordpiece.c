/*
 * libFuzzer target for the WordPiece encoder: arbitrary bytes, every option, and the
 * invariants that must hold whatever the input (ids in the vocabulary, limits kept,
 * truncation equal to cutting the full encoding).
 */
#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static text_wordpiece *wp;

/* bge-small's tokenizer.json from the shared folder, or a small vocabulary of our own. */
static text_wordpiece *open_vocab(void)
{
    const char *shared = getenv("APIDEX_SHARED_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/models/bge-small-en-v1.5/tokenizer.json",
             shared ? shared : APIDEX_SOURCE_DIR "/../shared");
    text_wordpiece *v = NULL;
    apidex_error err = {0};
    if (access(path, R_OK) == 0 && text_wordpiece_open(path, &v, &err) == 0) return v;
    char tmpl[] = "/tmp/apidex-fuzz-vocab-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) abort();
    static const char vocab[] = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\n##a\nb\n##b\nab\n##ab\n"
                                ",\n.\n中\nσ\n##σ\nς\n##ς\n";
    if (write(fd, vocab, sizeof vocab - 1) != (ssize_t)(sizeof vocab - 1)) abort();
    close(fd);
    int rc = text_wordpiece_open(tmpl, &v, &err);
    unlink(tmpl);
    if (rc) abort();
    return v;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    wp = open_vocab();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t max_len = 2 + data[0] % 64; /* small limits so truncation happens often */
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    uint32_t *full, *cut, *plain;
    size_t n_full, n_cut, n_plain;
    bool trunc;
    if (text_wordpiece_encode(wp, s, n, true, 0, &full, &n_full, &trunc) != 0) abort();
    if (n_full < 2 || trunc) abort();
    for (size_t i = 0; i < n_full; i++)
        if (!text_wordpiece_token(wp, full[i])) abort();
    /* With a limit: the first max_len - 1 ids, then [SEP]. */
    if (text_wordpiece_encode(wp, s, n, true, max_len, &cut, &n_cut, &trunc) != 0) abort();
    bool over = n_full > max_len;
    if (trunc != over || n_cut != (over ? max_len : n_full)) abort();
    if (memcmp(cut, full, (n_cut - 1) * sizeof *cut) != 0 || cut[n_cut - 1] != full[n_full - 1])
        abort();
    /* Without specials: the middle of the full encoding. */
    if (text_wordpiece_encode(wp, s, n, false, 0, &plain, &n_plain, NULL) != 0) abort();
    if (n_plain != n_full - 2 || memcmp(plain, full + 1, n_plain * sizeof *plain) != 0) abort();
    free(full);
    free(cut);
    free(plain);
    return 0;
}
