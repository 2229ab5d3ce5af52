/*
 * Private to the cl100k BPE: the tables that tools/gen_cl100k.c generates at build
 * time from tiktoken's encoders/cl100k_base.json (cl100k_data.c in the build tree).
 */
#ifndef APIDEX_TEXT_BPE_INT_H
#define APIDEX_TEXT_BPE_INT_H

#include <stddef.h>
#include <stdint.h>

/** A special token: its text and id. */
typedef struct text_bpe_special {
    const char *text;
    size_t len;
    uint32_t id;
} text_bpe_special;

/** tiktoken's pat_str for cl100k_base, verbatim. */
extern const char text_cl100k_pattern[];
/** Number of ordinary tokens; their ids are 0 .. n_ranks-1 (id = merge rank). */
extern const uint32_t text_cl100k_n_ranks;
/** For each rank in order: one length byte (1..255), then that many token bytes. */
extern const unsigned char text_cl100k_blob[];
extern const size_t text_cl100k_blob_len;
/** The special tokens, ordered by id. */
extern const text_bpe_special text_cl100k_specials[];
extern const size_t text_cl100k_n_specials;

#endif /* APIDEX_TEXT_BPE_INT_H */
